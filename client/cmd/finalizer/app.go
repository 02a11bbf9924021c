package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/internal/version"
)

// app is what every command shares: the global flags, and whether one of
// the tool's own commands ran (an error before that is cobra's refusal of
// the line).
type app struct {
	g   *globals
	ran *bool
}

// commands are the tool's commands, each a cobra command built in its own
// file.
func commands(a *app) []*cobra.Command {
	return []*cobra.Command{
		claimCommand(a), finalizeCommand(a), statusCommand(a), listCommand(a), retireCommand(a),
		reconcileCommand(a), latestCommand(a), retryNowCommand(a), abandonCommand(a),
	}
}

// run is the whole tool, apart from the process: arguments, environment
// and output are passed in so tests run it in-process. Help goes to
// stdout; an error is printed once, on stderr, a line per problem (with
// -o json or yaml: one object, see printError).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if version.Requested(args) {
		if err := version.Print(stdout, "finalizer"); err != nil {
			return exitError
		}
		return exitOK
	}
	root, g, ran := newRoot(getenv, stdout, stderr)
	root.SetArgs(flagenv.LongDash(args, lookupAnywhere(root)))
	err := root.ExecuteContext(ctx)
	if err != nil && !*ran {
		// Refused by cobra before any command ran: an unknown command, an
		// argument where none is taken.
		err = &usageError{msg: err.Error()}
	}
	if err != nil && !errors.Is(err, errNotPublished) {
		printError(stderr, g.errorFormat(root.PersistentFlags()), err)
	}
	return exitCode(err)
}

// newRoot builds the command tree over the global flags g; *ran tells
// whether one of the tool's commands ran, so that an error before is
// cobra's refusal of the line.
func newRoot(getenv func(string) string, stdout, stderr io.Writer) (*cobra.Command, *globals, *bool) {
	ran := new(bool)
	g := newGlobals(getenv, stderr)
	root := &cobra.Command{
		Use:   "finalizer",
		Short: "the checkpoint finalizer's command-line client",
		Long: `finalizer claims a job's epoch, triggers or watches a checkpoint's finalization, lists stuck
ones, retries or abandons them, retires a job and reconciles a cluster's HA store
with its state bucket.

Global flags are also accepted after the command. Each Temporal setting is taken from,
highest first: the flag, $FINALIZER_*, $TEMPORAL_*, the temporal.toml profile, the default.
-o json|yaml prints the result on stdout and an error as one object (error, kind, exitCode)
on stderr; -o wide adds columns to tables; --json is -o json.

Exit codes: 0 ok (finalize --wait: Published), 1 error (repeat; retry-now/abandon --stuck:
some signal not sent), 2 usage or invalid request, 3 ended but not Published (also terminated,
cancelled, timed out; claim, retire, latest: ended without an answer), 4 refused (stale epoch, retired, different content, a cluster the worker
does not serve; retry-now/abandon: not Verifying, nothing sent), 5 not found (status,
retry-now, abandon: no finalization of that identity)`,
		// Without a command the tool has nothing to do; cobra would
		// print the help and exit 0.
		RunE: func(*cobra.Command, []string) error {
			*ran = true
			return usagef("no command given (see 'finalizer --help')")
		},
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	// A command's help lists its own flags; the global ones once, in
	// finalizer --help.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
		"Global Flags:\n{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}",
		"Global flags: see 'finalizer --help'", 1))
	g.register(root.PersistentFlags())

	root.AddCommand(commands(&app{g: g, ran: ran})...)
	// cobra's completion command, told to refuse a shell it does not
	// know rather than print its help and exit 0.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.RunE = func(*cobra.Command, []string) error {
				*ran = true
				return usagef("completion: name one shell: bash, zsh, fish or powershell")
			}
		}
	}
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "print the build (also --version)",
		Args:  noArgs("version"),
		RunE: func(*cobra.Command, []string) error {
			*ran = true
			return version.Print(stdout, "finalizer")
		},
	})
	return root, g, ran
}

// connected makes cc, a command of the tool named by its Use, a command
// that connects: its required flags are marked and checked, every flag is
// resolved over its variable, its check runs, and every problem is reported
// at once; then it connects to Temporal and runs run.
func (a *app) connected(cc *cobra.Command, required []string, check func() error,
	run func(ctx context.Context, c *client.Client, out *printer) error) *cobra.Command {
	name := cc.Use
	use := name
	for _, r := range required {
		use += " --" + r + " ..."
	}
	cc.Use = use + " [flags]"
	cc.Args = noArgs(name)
	cc.ValidArgsFunction = cobra.NoFileCompletions
	for _, r := range required {
		cc.Flags().Lookup(r).Usage += " (required)"
	}
	flagenv.Defer(cc.Flags())
	g, ran := a.g, a.ran
	cc.RunE = func(cc *cobra.Command, _ []string) error {
		*ran = true
		problems, own := scoped(name, cc.LocalNonPersistentFlags(), flagenv.Resolve(cc.Flags(), g.getenv))
		if err := requireFlags(name, cc.Flags(), required...); err != nil {
			problems, own = append(problems, err), true
		}
		// The command's rules read its flags: not when one is missing or
		// did not parse, which would be reported twice.
		if !own {
			err := check()
			if l, ok := err.(problemList); ok {
				problems = append(problems, l...)
			} else if err != nil {
				problems = append(problems, err)
			}
		}
		problems = append(problems, g.check()...)
		if err := refused(problems); err != nil {
			return err
		}

		ctx, cancel := g.withTimeout(cc.Context())
		defer cancel()
		c, closeFn, err := g.connect(ctx)
		if err != nil {
			return err
		}
		defer closeFn()
		return run(ctx, c, &printer{out: cc.OutOrStdout(), progress: g.stderr, format: g.format})
	}
	return cc
}

// scoped prefixes the problems of the command's own flags with its name,
// as its help lists them, and says whether there was one.
func scoped(name string, local *pflag.FlagSet, problems []error) ([]error, bool) {
	own := false
	for i, err := range problems {
		if p, ok := err.(*flagenv.Problem); ok && local.Lookup(p.Flag) != nil {
			problems[i], own = fmt.Errorf("%s: %w", name, p), true
		}
	}
	return problems, own
}

// noArgs refuses positional arguments: every input is a flag.
func noArgs(name string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("%s: unexpected argument %q", name, args[0])
		}
		return nil
	}
}

// flagError is a flag the parser refused, named with where to find the
// usage.
func flagError(c *cobra.Command, err error) error {
	if ne, ok := errors.AsType[*pflag.NotExistError](err); ok {
		name := ne.GetSpecifiedName()
		if now, ok := renamed[name]; ok {
			return usagef("--%s was renamed --%s, the worker's name (see 'finalizer --help')", name, now)
		}
		// The words scripts matched when the tool parsed with package flag.
		err = fmt.Errorf("flag provided but not defined: -%s", name)
	}
	if !c.HasParent() {
		return usagef("%v (see 'finalizer --help')", err)
	}
	return usagef("%s: %v (see 'finalizer %s --help')", c.Name(), err, c.Name())
}

// lookupAnywhere finds a long flag of any command of the tree, for
// flagenv.LongDash, or for a one-letter name the flag of that shorthand,
// so that -ojson stays -o json.
func lookupAnywhere(root *cobra.Command) func(string) *pflag.Flag {
	find := func(fs *pflag.FlagSet, name string) *pflag.Flag {
		if len(name) == 1 {
			return fs.ShorthandLookup(name)
		}
		return fs.Lookup(name)
	}
	return func(name string) *pflag.Flag {
		if f := find(root.PersistentFlags(), name); f != nil {
			return f
		}
		for _, c := range root.Commands() {
			if f := find(c.Flags(), name); f != nil {
				return f
			}
		}
		return nil
	}
}
