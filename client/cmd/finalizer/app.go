package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// command is one subcommand: its flags, then what it does once connected.
type command struct {
	summary string
	// flags registers the command's own flags and returns the check to run
	// after parsing (required flags, ranges).
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
// and output are passed in so tests run it in-process.
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
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		_, err := fmt.Fprintln(stdout, "finalizer", version.Read())
		return err
	}
	g := newGlobals(getenv, stderr)
	top := flag.NewFlagSet("finalizer", flag.ContinueOnError)
	top.SetOutput(stderr)
	g.register(top)
	top.Usage = func() { usage(stderr, top) }
	if err := top.Parse(args); err != nil {
		return flagError(err)
	}
	if top.NArg() == 0 {
		usage(stderr, top)
		return usagef("no command given")
	}
	name := top.Arg(0)
	mk, ok := commands()[name]
	if !ok {
		return usagef("unknown command %q (want one of %v)", name, commandNames())
	}
	cmd := mk()
	fs := flag.NewFlagSet("finalizer "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := cmd.flags(fs)
	g.register(fs)
	if err := fs.Parse(top.Args()[1:]); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", name, fs.Arg(0))
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

// flagError: the flag package has printed the problem and the usage.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return &usageError{err.Error()}
}

func commandNames() []string {
	var names []string
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer, top *flag.FlagSet) {
	fmt.Fprintln(w, "usage: finalizer [global flags] <command> [flags]")
	fmt.Fprintln(w, "       finalizer --version")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands()[n]().summary)
	}
	fmt.Fprintln(w, "\nglobal flags (also accepted after the command):")
	top.PrintDefaults()
	fmt.Fprintln(w, "\nexit codes: 0 ok (finalize --wait: Published), 1 error (repeat), 2 usage or invalid request,")
	fmt.Fprintln(w, "3 ended but not Published, 4 refused (stale epoch, retired, different content)")
}
