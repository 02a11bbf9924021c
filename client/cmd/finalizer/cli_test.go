package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/checkpoint-finalizer/finalizer/client"
	"github.com/checkpoint-finalizer/finalizer/contract"
	"github.com/checkpoint-finalizer/finalizer/e2e/harness"
)

// finalizeArgs is the finalize command line of req.
func finalizeArgs(req contract.FinalizeRequest, extra ...string) []string {
	args := []string{"finalize",
		"--cluster", req.Cluster, "--job", req.Job,
		"--epoch", fmt.Sprint(req.Epoch), "--owner", req.Owner, "--checkpoint", fmt.Sprint(req.Checkpoint),
		"--metadata-key", req.MetadataKey, "--metadata-sha256", req.MetadataSHA256,
		"--exclusive-prefix", req.ExclusivePrefix,
	}
	return append(args, extra...)
}

func TestClaimThenFinalizeWait(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	o := runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1")
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "claimed epoch 1 of "+e.Cluster+"/j1 for jm-1")

	req := e.Checkpoint(1, 1)
	o = runTool(t, env, finalizeArgs(req, "--wait", "--json", "--progress-interval", "20ms")...)
	require.Equal(t, exitOK, o.code)
	var got finalizeOutput
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &got), "stdout holds only the JSON result")
	assert.Equal(t, req.WorkflowID(), got.WorkflowID)
	assert.Equal(t, req.ContentHash(), got.ContentHash)
	require.NotNil(t, got.Result)
	assert.Equal(t, contract.Published, got.Result.Phase)
	assert.True(t, e.Entry(1).HoldsToken(req.Token()))
	assert.True(t, e.Exists(got.Result.HandleKey))
	assert.Contains(t, o.stderr, req.WorkflowID()+" ", "progress goes to stderr")

	// Again, in text, the global flag after the command: the same run.
	o = runTool(t, map[string]string{envAddress: harness.HostPort(t)}, finalizeArgs(req, "--wait", "--task-queue", e.TaskQueue)...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, req.WorkflowID()+" Published after 1 publish attempt(s), handle "+got.Result.HandleKey)

	// Without --wait: the handle only.
	o = runTool(t, env, finalizeArgs(req)...)
	require.Equal(t, exitOK, o.code)
	assert.Equal(t, fmt.Sprintf("%s run %s (content %s)\n", req.WorkflowID(), got.RunID, req.ContentHash()), o.stdout)

	o = runTool(t, env, "--json", "status", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", "1")
	require.Equal(t, exitOK, o.code)
	var st struct {
		Phase     contract.Phase            `json:"phase"`
		HandleKey string                    `json:"handleKey"`
		Timings   map[contract.Phase]string `json:"timings"`
	}
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &st))
	assert.Equal(t, contract.Published, st.Phase)
	assert.Equal(t, got.Result.HandleKey, st.HandleKey)
	require.Contains(t, st.Timings, contract.Publishing)
	_, err := time.ParseDuration(st.Timings[contract.Publishing])
	assert.NoError(t, err, "timings are duration strings, not nanoseconds: %s", o.stdout)

	o = runTool(t, env, "status", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", "1")
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "phase:         Published")

	// The restore point: what a script passes on as Flink's restore path.
	o = runTool(t, env, "latest", "--cluster", e.Cluster, "--job", e.Job, "--json")
	require.Equal(t, exitOK, o.code)
	var rp contract.RestorePoint
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &rp), "stdout holds only the JSON restore point")
	require.Equal(t, contract.RestoreResolved, rp.State)
	assert.Equal(t, e.BucketURL+"/"+req.MetadataKey, rp.Latest.RestorePath)
	o = runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "2", "--owner", "jm-2")
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "restore from checkpoint 1\n  restore path: "+rp.Latest.RestorePath)
}

// A finalization that ends otherwise than Published exits 3: the caller
// must not acknowledge the checkpoint.
func TestFinalizeWaitNotPublished(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "2", "--owner", "jm-2").code)

	o := runTool(t, env, finalizeArgs(e.Checkpoint(1, 1), "--wait")...)
	assert.Equal(t, exitNotPublished, o.code)
	assert.Contains(t, o.stdout, "Discarded")
	assert.Contains(t, o.stdout, "stale epoch")
}

func TestRefusalsExit4(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "2", "--owner", "jm-2").code)

	o := runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1")
	assert.Equal(t, exitRefused, o.code)
	assert.Contains(t, o.stderr, "stale epoch")

	req := e.Checkpoint(2, 1)
	require.Equal(t, exitOK, runTool(t, env, finalizeArgs(req, "--wait")...).code)
	o = runTool(t, env, finalizeArgs(req, "--savepoint")...)
	assert.Equal(t, exitRefused, o.code)
	assert.Contains(t, o.stderr, client.ErrContentMismatch.Error())

	o = runTool(t, env, "retire", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1")
	assert.Equal(t, exitRefused, o.code)
	o = runTool(t, env, "retire", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "2", "--owner", "intruder")
	assert.Equal(t, exitRefused, o.code, "the standing epoch under another owner retires nothing")
	assert.Contains(t, o.stderr, `epoch 2 is claimed by "jm-2", not "intruder"`)
	o = runTool(t, env, "--json", "retire", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "2", "--owner", "jm-2")
	require.Equal(t, exitOK, o.code)
	assert.True(t, json.Valid([]byte(o.stdout)))
	assert.NotNil(t, e.Entry(1).Tombstone)
}

// A savepoint may leave --exclusive-prefix out, as the contract allows
// (its data is never discarded): the finalization runs and publishes.
func TestFinalizeSavepointWithoutExclusivePrefix(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	require.Equal(t, exitOK, runTool(t, env, "claim", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--owner", "jm-1").code)

	req := e.Checkpoint(1, 1)
	args := finalizeArgs(req, "--savepoint", "--wait")
	i := slices.Index(args, "--exclusive-prefix")
	args = slices.Delete(args, i, i+2)
	o := runTool(t, env, args...)
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, req.WorkflowID()+" Published")
}

func TestListStuck(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	env := envFor(t, e)
	o := runTool(t, env, "list", "--stuck", "--older-than", "10m", "--json")
	require.Equal(t, exitOK, o.code)
	var list []client.Stuck
	require.NoError(t, json.Unmarshal([]byte(o.stdout), &list))
	assert.NotNil(t, list, "an empty list is [], not null")

	o = runTool(t, env, "list", "--stuck")
	require.Equal(t, exitOK, o.code)
	assert.Contains(t, o.stdout, "no finalization in one phase, nor retirement, for longer than 5m0s")
}

func TestStatusNotFound(t *testing.T) {
	t.Parallel()
	e := harness.Start(t, harness.Options{})
	o := runTool(t, envFor(t, e), "status", "--cluster", e.Cluster, "--job", e.Job, "--epoch", "1", "--checkpoint", "1")
	// Not 1, "repeat": repeating finds nothing more.
	assert.Equal(t, exitNotFound, o.code)
	assert.Contains(t, o.stderr, client.ErrNotFound.Error())
	assert.Contains(t, runTool(t, nil, "--help").stdout, "5 not found", "the help documents the exit code")
}

// Flag validation: refused before anything connects (the address is a
// closed port, so a connection attempt would fail differently).
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	ok := []string{"--cluster", "c1", "--job", "j1", "--epoch", "1"}
	fin := []string{"finalize", "--cluster", "c1", "--job", "j1", "--epoch", "1", "--owner", "jm-1", "--checkpoint", "1",
		"--metadata-key", "c1/j1/chk-1/_metadata", "--metadata-sha256", strings.Repeat("a", 64), "--exclusive-prefix", "c1/j1/chk-1/"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"missing owner", append([]string{"claim"}, ok...), "finalizer: claim: missing --owner"},
		{"missing several", []string{"status", "--cluster", "c1"}, "missing --job, --epoch, --checkpoint"},
		{"bad epoch", []string{"claim", "--cluster", "c1", "--job", "j1", "--epoch", "one", "--owner", "o"}, `claim: --epoch: must be a whole number (got "one")`},
		{"zero epoch", []string{"retire", "--cluster", "c1", "--job", "j1", "--epoch", "0", "--owner", "o"}, "invalid epoch: must be at least 1"},
		{"retire without owner", append([]string{"retire"}, ok...), "finalizer: retire: missing --owner"},
		{"finalize without owner", slices.Delete(slices.Clone(fin), 7, 9), "finalizer: finalize: missing --owner"},
		{"bad cluster", []string{"claim", "--cluster", "C_1", "--job", "j1", "--epoch", "1", "--owner", "o"}, "invalid cluster"},
		{"checkpoint without exclusive prefix", slices.Delete(slices.Clone(fin), 15, 17), "invalid exclusivePrefix: must not be empty"},
		{"bad digest", append(append([]string{}, fin...), "--metadata-sha256", "xyz"), "invalid metadata"},
		{"unknown flag", []string{"list", "--stuck", "--since", "1m"}, "flag provided but not defined: -since"},
		{"list without stuck", []string{"list"}, "--stuck is required"},
		{"negative older-than", []string{"list", "--stuck", "--older-than", "-1m"}, "--older-than must not be negative"},
		{"extra argument", append([]string{"retire"}, append(ok, "--owner", "o", "now")...), `unexpected argument "now"`},
		{"cert without key", []string{"--temporal-tls-cert-file", "c.pem", "list", "--stuck"},
			"--temporal-tls-key-file / FINALIZER_TEMPORAL_TLS_KEY_FILE / TEMPORAL_TLS_CLIENT_KEY_PATH / profile tls.client_key_path: required when temporal-tls-cert-file is set"},
		{"missing CA", []string{"--temporal-tls-ca-file", "/nonexistent/ca.pem", "list", "--stuck"},
			"--temporal-tls-ca-file / FINALIZER_TEMPORAL_TLS_CA_FILE / TEMPORAL_TLS_SERVER_CA_CERT_PATH / profile tls.server_ca_cert_path: open /nonexistent/ca.pem: no such file"},
		{"missing API key file", []string{"list", "--stuck", "--temporal-api-key-file", "/nonexistent/key"}, "--temporal-api-key-file"},
		{"renamed flag", []string{"--address", "x:1", "list", "--stuck"}, "--address was renamed --temporal-address"},
		{"renamed flag after the command", []string{"list", "--stuck", "--tls-ca-file", "x"}, "--tls-ca-file was renamed --temporal-tls-ca-file"},
		{"renamed flag, one dash", []string{"-address", "x:1", "list", "--stuck"}, "--address was renamed --temporal-address"},
		{"flags with one dash, as package flag took them", []string{"-task-queue", "q", "list", "-stuck", "-older-than", "soon"},
			`list: --older-than: must be a duration such as 90s, 15m or 1h (got "soon")`},
		{"negative timeout", []string{"list", "--stuck", "--timeout", "-1s"}, "--timeout must not be negative"},
		{"bad grace", []string{"reconcile", "--cluster", "c1", "--grace", "1x"},
			`reconcile: --grace: must be a duration such as 90s, 15m or 1h (got "1x")`},
		{"bad older-than", []string{"list", "--stuck", "--older-than", "soon"},
			`list: --older-than: must be a duration such as 90s, 15m or 1h (got "soon")`},
		{"bad progress interval", append(append([]string{}, fin...), "--progress-interval", "1x"),
			`finalize: --progress-interval: must be a duration such as 90s, 15m or 1h (got "1x")`},
		{"bad report limit", []string{"reconcile", "--cluster", "c1", "--report-limit", "many"},
			`reconcile: --report-limit: must be a whole number (got "many")`},
		{"bad timeout before the command", []string{"--timeout", "5", "list", "--stuck"},
			`finalizer: --timeout: must be a duration such as 90s, 15m or 1h (got "5")`},
		{"zero progress interval", append(append([]string{}, fin...), "--progress-interval", "0s"), "--progress-interval must be positive"},
	}
	env := map[string]string{envAddress: "127.0.0.1:1"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := runTool(t, env, tc.args...)
			assert.Equal(t, exitUsage, o.code)
			assert.Contains(t, o.stderr, tc.want)
			assert.Empty(t, o.stdout)
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}} {
		o := runTool(t, nil, args...)
		assert.Equal(t, exitOK, o.code)
		assert.Contains(t, o.stdout, "Usage:\n  finalizer", "help goes to stdout")
		assert.Contains(t, o.stdout, envAddress)
		assert.Empty(t, o.stderr)
	}
	for _, args := range [][]string{{"finalize", "--help"}, {"help", "finalize"}} {
		o := runTool(t, map[string]string{envAPIKey: "s3cret"}, args...)
		assert.Equal(t, exitOK, o.code)
		assert.Regexp(t, `--metadata-sha256 string +hex SHA-256 of the metadata file \(required\)\n`, o.stdout)
		assert.Contains(t, o.stdout, "Examples:\n  finalizer finalize --cluster prod-eu")
		assert.NotContains(t, o.stdout, "s3cret", "--help never shows the API key")
		assert.NotContains(t, o.stdout, "--temporal-address", "the global flags are listed once, by finalizer --help")
	}
}

// A flag the parser refuses is reported once, with where to find the
// usage, not followed by the whole usage.
func TestFlagErrorPrintedOnce(t *testing.T) {
	t.Parallel()
	o := runTool(t, nil, "claim", "--bogus")
	assert.Equal(t, exitUsage, o.code)
	assert.Equal(t, "finalizer: claim: flag provided but not defined: -bogus (see 'finalizer claim --help')\n", o.stderr)
	assert.Empty(t, o.stdout)
}

// The completion scripts generate for every shell cobra supports; bash,
// given the script, completes a command and a command's flag by asking the
// tool itself (finalizer __complete).
func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		o := runTool(t, nil, "completion", shell)
		require.Equal(t, exitOK, o.code, shell)
		assert.Regexp(t, shell+" completion (V2 )?for finalizer", o.stdout, shell)
		assert.Contains(t, o.stdout, "__complete", shell)
		assert.Empty(t, o.stderr, shell)
	}
	for _, tc := range []struct{ args, want []string }{
		{[]string{"__complete", "lat"}, []string{"latest"}},
		{[]string{"__complete", "latest", "--js"}, []string{"--json"}},
		{[]string{"__complete", "finalize", "--metadata-s"}, []string{"--metadata-sha256"}},
		{[]string{"__complete", "completion", ""}, []string{"bash", "fish", "powershell", "zsh"}},
	} {
		o := runTool(t, nil, tc.args...)
		require.Equal(t, exitOK, o.code)
		var got []string
		for _, line := range strings.Split(o.stdout, "\n") {
			if name, _, _ := strings.Cut(line, "\t"); name != "" && !strings.HasPrefix(name, ":") {
				got = append(got, name)
			}
		}
		assert.Equal(t, tc.want, got, "%v", tc.args)
	}

	o := runTool(t, nil, "completion", "bash")
	self, err := os.Executable()
	require.NoError(t, err)
	// The script calls the program by name: here, this test binary
	// acting as the tool (TestMain). _get_comp_words_by_ref is the
	// bash-completion package's, which the machine may lack.
	out, err := exec.Command("bash", "-c", "finalizer() { "+asTool+"=1 "+self+` "$@"; }
_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
`+o.stdout+`
COMP_WORDS=(finalizer lat); COMP_CWORD=1; __start_finalizer; echo ${COMPREPLY[@]}
COMP_WORDS=(finalizer latest --js); COMP_CWORD=2; __start_finalizer; echo ${COMPREPLY[@]}`).Output()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "latest\n--json\n", string(out))
	assert.Equal(t, exitUsage, runTool(t, nil, "completion", "tcsh").code)
}

// A mistyped command is refused with the command it resembles.
func TestMistypedCommandSuggests(t *testing.T) {
	t.Parallel()
	o := runTool(t, nil, "finalise", "--cluster", "c1")
	assert.Equal(t, exitUsage, o.code)
	assert.Contains(t, o.stderr, `unknown command "finalise"`)
	assert.Contains(t, o.stderr, "Did you mean this?\n\tfinalize\n")
	assert.Empty(t, o.stdout)
}

// Every problem of a command line is reported at once, each naming its
// flag (and variable, if it has one) and the rule: values that do not
// parse, on the command line or in the environment, beside the rules the
// other values break.
func TestProblemsReportedTogether(t *testing.T) {
	t.Parallel()
	o := runTool(t, map[string]string{"FINALIZER_TEMPORAL_TLS": "maybe", envAddress: "127.0.0.1:1"},
		"list", "--stuck", "--older-than", "soon", "--timeout", "5")
	assert.Equal(t, exitUsage, o.code)
	for _, want := range []string{
		"finalizer: list: --older-than: must be a duration such as 90s, 15m or 1h (got \"soon\")\n",
		"finalizer: --timeout: must be a duration such as 90s, 15m or 1h (got \"5\")\n",
		"finalizer: --temporal-tls / FINALIZER_TEMPORAL_TLS / TEMPORAL_TLS / profile [tls]: must be true or false (got \"maybe\")\n",
	} {
		assert.Contains(t, o.stderr, want)
	}
	assert.Empty(t, o.stdout)

	o = runTool(t, map[string]string{envAddress: "127.0.0.1:1"}, "claim", "--cluster", "c1", "--epoch", "one", "--temporal-tls-cert-file", "c.pem")
	assert.Equal(t, exitUsage, o.code)
	for _, want := range []string{
		"finalizer: claim: --epoch: must be a whole number (got \"one\")\n",
		"finalizer: claim: missing --job, --owner\n",
		"finalizer: --temporal-tls-key-file / FINALIZER_TEMPORAL_TLS_KEY_FILE / TEMPORAL_TLS_CLIENT_KEY_PATH / profile tls.client_key_path: required when temporal-tls-cert-file is set\n",
	} {
		assert.Contains(t, o.stderr, want)
	}
}
