package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
)

// errorOutput is an error as -o json and -o yaml print it: on stderr, as
// the text does, so that stdout holds the result or nothing and a script
// never parses an error as a result; exit codes are unchanged.
type errorOutput struct {
	// Error is the message; a refused command line has a line per problem.
	Error string `json:"error"`
	// Kind names ExitCode: error, usage, not-published, refused, not-found.
	Kind     string `json:"kind"`
	ExitCode int    `json:"exitCode"`
}

// printError prints a command's error once, on stderr: in text starting
// "finalizer: " (a refused command line: a line per problem, each so); in a
// structured format one object.
func printError(stderr io.Writer, f format, err error) {
	if f.structured() {
		code := exitCode(err)
		if encode(stderr, f, errorOutput{Error: message(err), Kind: exitKinds[code], ExitCode: code}, "") == nil {
			return
		}
	}
	fmt.Fprintf(stderr, "finalizer: %s\n", strings.TrimRight(err.Error(), "\n"))
}

// errorFormat is the format to print an error in, also when the error
// came before any command resolved its flags (cobra refused the line):
// --output and --json are read here from what the parser kept of them. A
// format that does not resolve is text.
func (g *globals) errorFormat(persistent *pflag.FlagSet) format {
	fs := pflag.NewFlagSet("output", pflag.ContinueOnError)
	fs.AddFlag(persistent.Lookup("output"))
	fs.AddFlag(persistent.Lookup("json"))
	if len(flagenv.Resolve(fs, g.getenv)) > 0 || g.resolveFormat() != nil {
		return formatText
	}
	return g.format
}
