// Package flagenv is the one configuration layer of the finalizer's
// commands: flags (pflag, as cobra parses them), each optionally backed by
// its FINALIZER_<FLAG> variable, read so that every value that does not
// parse is reported together with the other problems of the same start,
// each naming its flag, its variable and the rule it breaks.
//
// Parsing is deferred: Defer makes the flags keep their text, and Resolve
// parses it afterwards, flag over variable over default. pflag itself
// stops at the first value it refuses, and would hide the rest.
package flagenv

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Prefix starts every variable a flag is bound to.
const Prefix = "FINALIZER_"

// EnvName is the variable that backs a flag:
// "zookeeper-servers" -> "FINALIZER_ZOOKEEPER_SERVERS".
func EnvName(flag string) string {
	return Prefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// Annotations of a flag: its variable; where a lower layer sets it.
const (
	envAnnotation   = "flagenv_env"
	underAnnotation = "flagenv_under"
)

// BindEnv backs the named flags of fs (registered already) with their
// variables.
func BindEnv(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		BindEnvAs(fs, n, EnvName(n))
	}
}

// BindEnvAs backs the named flag of fs with the variable env, for a tool
// whose variables take a prefix of their own.
func BindEnvAs(fs *pflag.FlagSet, name, env string) {
	if err := fs.SetAnnotation(name, envAnnotation, []string{env}); err != nil {
		panic(err) // a flag name mistyped in the code
	}
}

// Under notes where a layer below the variable sets the named flag of fs,
// e.g. "TEMPORAL_ADDRESS / profile address", for its problems to name.
func Under(fs *pflag.FlagSet, name, under string) {
	if err := fs.SetAnnotation(name, underAnnotation, []string{under}); err != nil {
		panic(err) // a flag name mistyped in the code
	}
}

// Env is the variable backing f, "" if none.
func Env(f *pflag.Flag) string {
	if v := f.Annotations[envAnnotation]; len(v) == 1 {
		return v[0]
	}
	return ""
}

// deferred keeps a flag's text for Resolve; the value it wraps holds the
// default meanwhile, which help shows.
type deferred struct {
	pflag.Value
	text string
}

func (d *deferred) Set(s string) error {
	d.text = s
	return nil
}

// deferredBool lets a wrapped boolean be given bare (--tls).
type deferredBool struct{ *deferred }

func (deferredBool) IsBoolFlag() bool { return true }

// Defer makes the named flags of fs (all but cobra's help, when none is
// named) keep their text until Resolve.
func Defer(fs *pflag.FlagSet, names ...string) {
	wrap := func(f *pflag.Flag) {
		if _, done := unwrap(f); done || f.Name == "help" {
			return
		}
		d := &deferred{Value: f.Value}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = deferredBool{d}
			return
		}
		f.Value = d
	}
	if len(names) == 0 {
		fs.VisitAll(wrap)
		return
	}
	for _, n := range names {
		wrap(fs.Lookup(n))
	}
}

func unwrap(f *pflag.Flag) (*deferred, bool) {
	switch v := f.Value.(type) {
	case *deferred:
		return v, true
	case deferredBool:
		return v.deferred, true
	}
	return nil, false
}

// Problem is a setting refused: a value that does not parse or a rule it
// breaks.
type Problem struct {
	// Flag is the flag's name (without dashes); Env its variable, if any;
	// Under where a lower layer sets it, if any.
	Flag, Env, Under string
	Rule             string
}

func (p *Problem) Error() string {
	return p.Setting() + ": " + p.Rule
}

// Setting names where the value comes from, highest layer first:
// "--retain / FINALIZER_RETAIN".
func (p *Problem) Setting() string {
	var names []string
	for _, n := range []string{p.Flag, p.Env, p.Under} {
		if n != "" {
			names = append(names, n)
		}
	}
	if p.Flag != "" {
		names[0] = "--" + p.Flag
	}
	return strings.Join(names, " / ")
}

// refuse is the Problem of flag f breaking rule.
func refuse(f *pflag.Flag, format string, args ...any) *Problem {
	p := &Problem{Flag: f.Name, Env: Env(f), Rule: fmt.Sprintf(format, args...)}
	if v := f.Annotations[underAnnotation]; len(v) == 1 {
		p.Under = v[0]
	}
	return p
}

// Resolve parses the deferred flags of fs: the text given on the command
// line, else the flag's variable (an empty one counts as unset), else the
// default stays. It returns a *Problem for each value that does not parse;
// such a flag keeps its default.
func Resolve(fs *pflag.FlagSet, getenv func(string) string) []error {
	var problems []error
	fs.VisitAll(func(f *pflag.Flag) {
		d, ok := unwrap(f)
		if !ok {
			return
		}
		text := d.text
		if !f.Changed {
			if text = lookup(getenv, Env(f)); text == "" {
				return
			}
		}
		if d.Value.Type() != "string" {
			// Blanks around a number are a slip; around a text, they
			// may be meant.
			text = strings.TrimSpace(text)
		}
		if err := d.Value.Set(text); err != nil {
			problems = append(problems, refuse(f, "%s (got %q)", rule(d.Value.Type()), text))
			// pflag's numbers store their zero on a refusal.
			_ = d.Value.Set(f.DefValue) // what the value printed, it reads
		}
	})
	return problems
}

func lookup(getenv func(string) string, name string) string {
	if name == "" {
		return ""
	}
	return getenv(name)
}

// rule is what a value of a pflag type must be; pflag's own words quote
// strconv ("parsing \"x\": invalid syntax").
func rule(typ string) string {
	switch typ {
	case "duration":
		return "must be a duration such as 90s, 15m or 1h"
	case "int", "int64", "uint", "uint64", "uint32":
		return "must be a whole number"
	case "bool":
		return "must be true or false"
	case "float64":
		return "must be a number"
	}
	return "must be a " + typ
}

// LongDash rewrites the single-dash spelling of long flags (-retain=2,
// -json), which package flag took and deployments still pass, into
// pflag's (--retain=2, --json): pflag would read -retain as the shorthands
// r, e, t, ... and name none of them. An unknown name is rewritten too, so
// that pflag's error names it. lookup finds a long flag by name, nil if
// none, to tell a flag's value (left as it is, like everything after "--")
// from the next flag. A lookup that also answers a one-letter name with
// the flag of that shorthand keeps -ojson and -o=json as they are.
func LongDash(args []string, lookup func(name string) *pflag.Flag) []string {
	out := make([]string, 0, len(args))
	value := false // the previous argument is a flag expecting this one
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if value {
			out, value = append(out, a), false
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		long := strings.HasPrefix(a, "--")
		if !long && len(a) > 2 && a[0] == '-' && isLetter(a[1]) && !shorthandWithValue(name[1:], lookup) {
			name, long, a = name[1:], true, "-"+a
		}
		if long {
			f := lookup(name)
			value = f != nil && !hasValue && f.NoOptDefVal == ""
		}
		out = append(out, a)
	}
	return out
}

// shorthandWithValue tells -ojson and -o=json (a shorthand, its value
// attached) from a long flag spelled with one dash: name is no long flag,
// and lookup, given its first letter, answers the flag of that shorthand.
func shorthandWithValue(name string, lookup func(string) *pflag.Flag) bool {
	if f := lookup(name); f != nil && f.Name == name {
		return false
	}
	f := lookup(name[:1])
	return f != nil && f.Shorthand == name[:1]
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
