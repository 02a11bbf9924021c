package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// command is one subcommand: its flags, then what it does once connected.
type command struct {
	summary string
	// required are the flags without which the command refuses to run;
	// its help marks them.
	required []string
	// example is a typical invocation, shown in the command's help.
	example string
	// flags registers the command's own flags and returns the check to run
	// after parsing (ranges, combinations).
	flags func(fs *flag.FlagSet) func() error
	run   func(ctx context.Context, c *client.Client, out *printer) error
}

func commands() map[string]func() command {
	return map[string]func() command{
		"claim":     claimCommand,
		"finalize":  finalizeCommand,
		"status":    statusCommand,
		"list":      listCommand,
		"retire":    retireCommand,
		"reconcile": reconcileCommand,
		"latest":    latestCommand,
	}
}

// run is the whole tool, apart from the process: arguments, environment
// and output are passed in so tests run it in-process. Help goes to
// stdout; an error is printed once, on stderr.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, getenv, stdout, stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) && !errors.Is(err, errNotPublished) {
		fmt.Fprintf(stderr, "finalizer: %v\n", err)
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitCode(err)
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if version.Requested(args) {
		return version.Print(stdout, "finalizer")
	}
	g := newGlobals(getenv, stderr)
	top := newFlagSet("finalizer")
	g.register(top)
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, top)
		}
		return flagError("", top, err)
	}
	if top.NArg() == 0 {
		return usagef("no command given (see 'finalizer --help')")
	}
	name := top.Arg(0)
	switch name {
	case "version": // after global flags
		return version.Print(stdout, "finalizer")
	case "help":
		return help(stdout, top, top.Args()[1:])
	case "completion":
		return completion(stdout, top.Args()[1:])
	}
	mk, ok := commands()[name]
	if !ok {
		return usagef("unknown command %q (want one of %v; see 'finalizer --help')", name, commandNames())
	}
	cmd := mk()
	fs := newFlagSet("finalizer " + name)
	check := cmd.flags(fs)
	g.register(fs)
	if err := fs.Parse(top.Args()[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(stdout, name, cmd, fs)
		}
		return flagError(name, fs, err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", name, fs.Arg(0))
	}
	if err := requireFlags(fs, cmd.required...); err != nil {
		return err
	}
	if err := check(); err != nil {
		return err
	}
	if err := g.check(); err != nil {
		return err
	}

	ctx, cancel := g.withTimeout(ctx)
	defer cancel()
	c, closeFn, err := g.connect(ctx)
	if err != nil {
		return err
	}
	defer closeFn()
	return cmd.run(ctx, c, &printer{out: stdout, progress: stderr, json: g.json})
}

// newFlagSet parses silently: the tool prints the one error, and help on
// stdout, itself.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError: help asked for (printed already), or a flag the parser
// refused, named with where to find the usage.
func flagError(name string, fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if msg, ok := valueError(fs, err); ok {
		err = errors.New(msg)
	}
	for old, now := range renamed {
		if strings.HasSuffix(err.Error(), "flag provided but not defined: -"+old) {
			return usagef("--%s was renamed --%s, the worker's name (see 'finalizer --help')", old, now)
		}
	}
	if name == "" {
		return usagef("%v (see 'finalizer --help')", err)
	}
	return usagef("%s: %v (see 'finalizer %s --help')", name, err, name)
}

// badValue is how package flag reports a value its flag refused.
var badValue = regexp.MustCompile(`^invalid value "(.*)" for flag -([^:]+): `)

// valueError rewrites package flag's refusal of a flag's value, which says
// only "parse error" (or the standard library's words), into the flag (as
// the tool spells it) and the form it expects.
func valueError(fs *flag.FlagSet, err error) (string, bool) {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return "", false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "", false
	}
	var rule string
	switch g.Get().(type) {
	case time.Duration:
		rule = "a duration such as 90s, 15m or 1h"
	case uint64, int:
		rule = "a whole number"
	default:
		return "", false
	}
	return fmt.Sprintf("--%s: must be %s (got %q)", m[2], rule, m[1]), true
}

func commandNames() []string {
	var names []string
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
