package flagenv

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type settings struct {
	retain  int
	grace   time.Duration
	tls     bool
	servers string
	local   string
}

// parse registers the settings as a command would and reads args over env.
func parse(t *testing.T, env map[string]string, args ...string) (settings, []error) {
	t.Helper()
	var s settings
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.IntVar(&s.retain, "retain", 1, "")
	fs.DurationVar(&s.grace, "shutdown-grace", 30*time.Second, "")
	fs.BoolVar(&s.tls, "temporal-tls", false, "")
	fs.StringVar(&s.servers, "zookeeper-servers", "", "")
	fs.StringVar(&s.local, "local", "default", "")
	BindEnv(fs, "retain", "shutdown-grace", "temporal-tls", "zookeeper-servers")
	Defer(fs)
	require.NoError(t, fs.Parse(args))
	return s, Resolve(fs, func(k string) string { return env[k] })
}

func TestResolveLayers(t *testing.T) {
	env := map[string]string{"FINALIZER_RETAIN": "3", "FINALIZER_SHUTDOWN_GRACE": " 5s ", "FINALIZER_ZOOKEEPER_SERVERS": "", "FINALIZER_LOCAL": "ignored"}
	s, problems := parse(t, env, "--retain", "7", "--temporal-tls")
	require.Empty(t, problems)
	assert.Equal(t, 7, s.retain, "the flag over its variable")
	assert.Equal(t, 5*time.Second, s.grace, "the variable over the default, blanks dropped")
	assert.True(t, s.tls, "a bare boolean")
	assert.Empty(t, s.servers, "an empty variable is unset")
	assert.Equal(t, "default", s.local, "a flag without a variable reads none")
}

// Every value that does not parse is a problem naming its flag, its
// variable and the rule; the others are read all the same.
func TestResolveReportsEveryProblem(t *testing.T) {
	s, problems := parse(t, map[string]string{"FINALIZER_SHUTDOWN_GRACE": "1x", "FINALIZER_TEMPORAL_TLS": "maybe"},
		"--retain=many", "--zookeeper-servers", "zk:2181")
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	assert.Equal(t, []string{
		`--retain / FINALIZER_RETAIN: must be a whole number (got "many")`,
		`--shutdown-grace / FINALIZER_SHUTDOWN_GRACE: must be a duration such as 90s, 15m or 1h (got "1x")`,
		`--temporal-tls / FINALIZER_TEMPORAL_TLS: must be true or false (got "maybe")`,
	}, msgs)
	assert.Equal(t, 1, s.retain, "a value that does not parse leaves the default")
	assert.Equal(t, "zk:2181", s.servers)
}

func TestLongDash(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("owner", "", "")
	fs.Duration("older-than", 0, "")
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-json", "-owner=o", "-older-than", "-1m"}, []string{"--json", "--owner=o", "--older-than", "-1m"}},
		{[]string{"--owner", "-json", "-h", "-x", "-unknown=1", "-older-than", "-json"}, []string{"--owner", "-json", "-h", "-x", "--unknown=1", "--older-than", "-json"}},
		{[]string{"list", "--", "-json"}, []string{"list", "--", "-json"}},
	} {
		assert.Equal(t, tc.want, LongDash(tc.in, fs.Lookup), "%v", tc.in)
	}
}

// A lookup that knows shorthands leaves a shorthand with its value as it
// is; a long flag with one dash, the first letter of which is a
// shorthand, is still a long flag.
func TestLongDashShorthand(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.StringP("output", "o", "", "")
	fs.Duration("older-than", 0, "")
	lookup := func(name string) *pflag.Flag {
		if len(name) == 1 {
			return fs.ShorthandLookup(name)
		}
		return fs.Lookup(name)
	}
	in := []string{"-ojson", "-o=yaml", "-o", "wide", "-older-than", "1m", "-output=json", "-oops"}
	assert.Equal(t, []string{"-ojson", "-o=yaml", "-o", "wide", "--older-than", "1m", "--output=json", "-oops"}, LongDash(in, lookup))
	assert.Equal(t, []string{"--ojson", "--o=yaml"}, LongDash([]string{"-ojson", "-o=yaml"}, fs.Lookup), "a lookup of long names only: as before")
}
