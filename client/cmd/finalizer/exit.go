package main

import (
	"errors"
	"fmt"
	"strings"

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

// usageError is a command line the tool refuses before connecting: one
// message, or its problems, each printed on a line of its own.
type usageError struct {
	msg      string
	problems []string
}

func (e *usageError) Error() string {
	if len(e.problems) > 0 {
		return strings.Join(e.problems, "\nfinalizer: ")
	}
	return e.msg
}

// message is err's message without the text's line prefixes, as a
// structured error shows it: a line per problem.
func message(err error) string {
	if u, ok := errors.AsType[*usageError](err); ok && len(u.problems) > 0 {
		return strings.Join(u.problems, "\n")
	}
	return strings.TrimRight(err.Error(), "\n")
}

func usagef(format string, args ...any) error { return &usageError{msg: fmt.Sprintf(format, args...)} }

// problemList is the problems a command's check found at once; refused
// reports each on a line of its own.
type problemList []error

func (l problemList) Error() string   { return errors.Join(l...).Error() }
func (l problemList) Unwrap() []error { return l }

// joinProblems is the problems among errs: nil when there is none.
func joinProblems(errs ...error) error {
	var l problemList
	for _, err := range errs {
		if err != nil {
			l = append(l, err)
		}
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

// refused is the problems of a command line, reported together, a line
// each: a usage error, nil for none.
func refused(problems []error) error {
	if len(problems) == 0 {
		return nil
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.Error()
	}
	return &usageError{problems: lines}
}

// notPublished: the finalization ended in another phase; the result was
// printed already.
var errNotPublished = errors.New("finalization ended but not Published")

// exitKinds name the exit codes in a structured error, for a script that
// would rather match a word.
var exitKinds = map[int]string{
	exitError:        "error",
	exitUsage:        "usage",
	exitNotPublished: "not-published",
	exitRefused:      "refused",
	exitNotFound:     "not-found",
}

// exitCode maps a command's error to the process's exit code.
func exitCode(err error) int {
	var usage *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage), errors.Is(err, client.ErrInvalidRequest):
		return exitUsage
	case errors.Is(err, errNotPublished), errors.Is(err, client.ErrEnded):
		return exitNotPublished
	case errors.Is(err, client.ErrRejected), errors.Is(err, client.ErrContentMismatch),
		errors.Is(err, client.ErrNotSignalable):
		return exitRefused
	case errors.Is(err, client.ErrNotFound):
		return exitNotFound
	default:
		return exitError
	}
}
