package main

import (
	"errors"
	"fmt"

	"github.com/checkpoint-finalizer/finalizer/client"
)

// Exit codes; see the package documentation.
const (
	exitOK           = 0
	exitError        = 1
	exitUsage        = 2
	exitNotPublished = 3
	exitRefused      = 4
	// exitNotFound: no execution of that identity; not exitError, whose
	// advice is to repeat the command, which finds nothing more.
	exitNotFound = 5
)

// usageError is a command line the tool refuses before connecting.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// notPublished: the finalization ended in another phase; the result was
// printed already.
var errNotPublished = errors.New("finalization ended but not Published")

// exitCode maps a command's error to the process's exit code.
func exitCode(err error) int {
	var usage *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage), errors.Is(err, client.ErrInvalidRequest):
		return exitUsage
	case errors.Is(err, errNotPublished):
		return exitNotPublished
	case errors.Is(err, client.ErrRejected), errors.Is(err, client.ErrContentMismatch):
		return exitRefused
	case errors.Is(err, client.ErrNotFound):
		return exitNotFound
	default:
		return exitError
	}
}
