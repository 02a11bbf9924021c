package worker

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/checkpoint-finalizer/finalizer/client/connflags"
	"github.com/checkpoint-finalizer/finalizer/internal/flagenv"
	"github.com/checkpoint-finalizer/finalizer/stores"
)

// LoadConfig reads the configuration from command-line flags (args without
// the program name) with environment fallbacks read through getenv (an
// empty value counts as unset): flag, then FINALIZER_<UPPER_SNAKE>, then
// the default. Temporal's connection has one more layer, between the
// default and FINALIZER_: Temporal's own configuration, a temporal.toml
// profile with TEMPORAL_* over it (client.LoadTemporalConfig). It checks
// that each value parses and that the profile loads, reporting every
// problem at once; call Validate for the rules, or LoadValidConfig for
// both. -h or --help returns pflag.ErrHelp (print Usage).
func LoadConfig(args []string, getenv func(string) string) (Config, error) {
	cfg, problems, err := load(args, getenv)
	if err != nil {
		return Config{}, err
	}
	if len(problems) > 0 {
		return Config{}, errors.Join(problems...)
	}
	return cfg, nil
}

// LoadValidConfig is LoadConfig then Validate, with the problems of both
// reported at once: a value that does not parse must not hide the rules
// the others break, or each start would show one more problem. For the
// rules, a value that does not parse counts as left at its default.
func LoadValidConfig(args []string, getenv func(string) string) (Config, error) {
	cfg, problems, err := load(args, getenv)
	if err != nil {
		return Config{}, err
	}
	if err := Check(cfg, problems); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Check is Validate with the problems Flags.Load found before it: every
// one at once, nil for none.
func Check(cfg Config, problems []error) error {
	if err := cfg.Validate(); err != nil {
		problems = append(problems, err)
	}
	return errors.Join(problems...)
}

// load is LoadConfig's work: Flags.Load on a command line of its own. err
// is a command line that cannot be read (then nothing else is) or
// pflag.ErrHelp.
func load(args []string, getenv func(string) string) (cfg Config, problems []error, err error) {
	fs := pflag.NewFlagSet("finalizer-worker", pflag.ContinueOnError)
	// The caller decides what to print; pflag would print usage on any error.
	fs.SetOutput(io.Discard)
	f := NewFlags(fs)
	if err := fs.Parse(flagenv.LongDash(args, fs.Lookup)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Config{}, nil, err
		}
		return Config{}, nil, CommandLineError(err)
	}
	if fs.NArg() > 0 {
		return Config{}, nil, CommandLineError(fmt.Errorf("unexpected argument %q (settings are --flag=value)", fs.Arg(0)))
	}
	cfg, problems = f.Load(getenv)
	return cfg, problems, nil
}

// CommandLineError is a command line that cannot be read.
func CommandLineError(err error) error {
	return &stores.InvalidError{Field: "command line", Rule: err.Error()}
}

// invalid is a setting's problem as Validate reports one.
func invalid(p *flagenv.Problem) error {
	return &stores.InvalidError{Field: p.Setting(), Rule: p.Rule}
}

// field names a setting by its flag and variable (and Temporal's layers
// under a connection's), as a problem does.
func field(name string) string {
	return (&flagenv.Problem{Flag: name, Env: flagenv.EnvName(name), Under: connflags.Under(name)}).Setting()
}

// Description is the worker command's help above its usage (cobra's Long).
const Description = `Runs the checkpoint finalizer's Temporal worker until SIGINT or SIGTERM, then drains.
healthcheck exits 0 if a local worker polls (--metrics-address).
release lets go kept state whose handle the reconciler reports (retained by a retirement, a
savepoint's, an abandoned finalization's): its keep mark in the bucket is removed and its record
in the store named by the store flags then says it is nobody's, and the reconciler discards it
once the grace has passed; a savepoint's data stays yours.
backup writes a consistent, verified copy of the embedded store to FILE, atomically: from a
running worker through its metrics endpoint (--from http://127.0.0.1:9464, served to loopback
clients only), or without --from from the file --embedded-path names, once its worker stopped.

Every flag falls back to its environment variable, then to the default; the
Temporal connection's settings fall back to Temporal's own configuration
(TEMPORAL_* variables, then the temporal.toml profile) before the default.
Package flag's single-dash spelling (-retain=2) still reads as --retain=2.`

// UsageTemplate is the worker command's usage in cobra's template
// language: its commands, every flag with its environment variable and
// default, the variables that have no flag, and the exit codes. Its
// subcommands keep cobra's own.
var UsageTemplate = `Usage: finalizer-worker [flags]
       finalizer-worker healthcheck [flags] | release <handle-key> [flags] | backup --to FILE [--from URL] [flags]
       finalizer-worker help | completion bash|zsh|fish|powershell | version

Flags:
{{.LocalFlags.FlagUsages}}
Variables without a flag (secrets: a command line shows in every process listing):
  ` + envTemporalAPIKey + `   Temporal API key; or --temporal-api-key-file
  ` + envZKPassword + `   ZooKeeper digest password; or --zookeeper-digest-password-file

Exit codes: 0 clean shutdown, 1 runtime failure, 2 bad configuration (flags, environment,
a namespace that does not exist or one without the search attributes); release: 0 released,
1 unknown outcome (repeat), 2 bad configuration or handle key, 4 nothing kept there to release;
backup: 0 written, 1 not written (a worker holds the file, the copy did not verify), 2 bad usage.
`

// NewRootCommand is the worker's cobra command with its flags, help and
// usage, without an action: finalizer-worker gives it one and adds its
// subcommands, and Usage prints its help, so the two never differ.
func NewRootCommand() (*cobra.Command, *Flags) {
	root := &cobra.Command{
		Use:           "finalizer-worker",
		Short:         "the checkpoint finalizer's Temporal worker",
		Long:          Description,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	flags := NewFlags(root.PersistentFlags())
	// Cobra's help template, less its check that the command runs: the
	// help is the same whether or not an action is attached yet.
	root.SetHelpTemplate("{{with .Long}}{{. | trimTrailingWhitespaces}}\n\n{{end}}{{.UsageString}}")
	root.SetUsageTemplate(UsageTemplate)
	return root, flags
}

// Usage writes the worker's help: what `finalizer-worker -h` prints.
func Usage(w io.Writer) {
	root, _ := NewRootCommand()
	root.InitDefaultHelpFlag() // as Execute does
	root.SetOut(w)
	_ = root.Help()
}
