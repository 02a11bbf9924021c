package worker

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/checkpoint-finalizer/finalizer/client"
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
// both. -h or -help returns flag.ErrHelp (print Usage).
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
	if err := cfg.Validate(); err != nil {
		problems = append(problems, err)
	}
	if len(problems) > 0 {
		return Config{}, errors.Join(problems...)
	}
	return cfg, nil
}

// load is LoadConfig's work: the configuration with every value that
// parsed, and a *stores.InvalidError for each one that did not (naming
// its flag and variable, as Validate does) or a profile that does not
// load. err is a command line that cannot be read (then nothing else is)
// or flag.ErrHelp.
func load(args []string, getenv func(string) string) (cfg Config, problems []error, err error) {
	cfg = DefaultConfig()
	fs := flag.NewFlagSet("finalizer-worker", flag.ContinueOnError)
	// The caller decides what to print; flag would print usage on any error.
	fs.SetOutput(io.Discard)
	raw := make(map[string]*rawValue, len(settings))
	for _, s := range settings {
		if s.envOnly {
			continue
		}
		v := &rawValue{isBool: s.isBool}
		fs.Var(v, s.name, s.usage)
		raw[s.name] = v
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, nil, err
		}
		return Config{}, nil, &stores.InvalidError{Field: "command line", Rule: err.Error()}
	}
	if fs.NArg() > 0 {
		return Config{}, nil, &stores.InvalidError{Field: "command line", Rule: fmt.Sprintf("unexpected argument %q (settings are -flag=value)", fs.Arg(0))}
	}
	// The connection's fields start empty, so that what the flags and
	// variables set can go over Temporal's configuration, and that over
	// the defaults.
	defaults := cfg.Temporal.connection()
	cfg.Temporal.setConnection(client.Connection{})
	for _, s := range settings {
		value := getenv(EnvName(s.name))
		if r := raw[s.name]; r != nil && r.set {
			value = r.value
		} else if value == "" {
			continue
		}
		if err := s.set(&cfg, value); err != nil {
			problems = append(problems, &stores.InvalidError{Field: s.source(), Rule: err.Error()})
		}
	}
	temporal, err := client.LoadTemporalConfig(cfg.Temporal.Profile, getenv)
	if err != nil {
		problems = append(problems, &stores.InvalidError{Field: "Temporal configuration", Rule: err.Error()})
	}
	cfg.Temporal.setConnection(cfg.Temporal.connection().Over(temporal.Over(defaults)))
	return cfg, problems, nil
}

// rawValue keeps a flag's text and whether it was given, so that parsing
// and its error message happen in one place for flags and variables alike.
type rawValue struct {
	value  string
	set    bool
	isBool bool
}

func (v *rawValue) String() string { return v.value }

func (v *rawValue) Set(s string) error {
	v.value, v.set = s, true
	return nil
}

// IsBoolFlag lets a boolean be given as a bare -flag.
func (v *rawValue) IsBoolFlag() bool { return v.isBool }

// Usage writes every flag with its environment variable and default.
func Usage(w io.Writer) {
	def := DefaultConfig()
	fmt.Fprintf(w, "Usage: finalizer-worker [flags]\n\nEvery flag falls back to its environment variable, then to the default; the\nTemporal connection's settings fall back to Temporal's own configuration\n(TEMPORAL_* variables, then the temporal.toml profile) before the default.\n\n")
	for _, s := range settings {
		name := "-" + s.name
		if s.envOnly {
			name = "(no flag)"
		}
		vars := EnvName(s.name)
		if t, ok := temporalSources[s.name]; ok {
			vars += ", then " + t
		}
		fmt.Fprintf(w, "  %s\t%s\n    \t%s", name, vars, s.usage)
		if d := s.get(&def); d != "" && d != "false" && !s.envOnly {
			fmt.Fprintf(w, " (default %q)", d)
		}
		fmt.Fprintln(w)
	}
}
