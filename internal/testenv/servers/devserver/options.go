package devserver

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
)

// Options configure StartServer. The zero value is a headless server on a
// temporary database with the "default" namespace.
type Options struct {
	// DBFile is the SQLite database. Empty: a file in a temporary folder
	// that Cleanup removes. The dev server creates the schema only when the
	// file does not exist yet, so it must be absent or a database written
	// by this server version (never an empty file).
	DBFile string
	// UI serves the Web UI on a free loopback port (Server.UIAddress).
	// Off by default: tests do not need it and it costs start time.
	UI bool
	// Port and UIPort fix the frontend and Web UI ports (a stable address
	// for dev mode). 0: a free loopback port.
	Port, UIPort int
	// SearchAttributes are custom search attributes to register, name ->
	// type (Text, Keyword, Int, Double, Bool, Datetime, KeywordList; case
	// does not matter), e.g. {"CheckpointEpoch": "Int"}.
	SearchAttributes map[string]string
	// Namespace is created at start and used for the readiness checks.
	// Empty: "default" (which the dev server always creates).
	Namespace string
	// LogDir receives the server's log file. Empty: the server's temporary
	// folder.
	LogDir string
	// LogLevel of the server: debug, info, warn (default), error.
	LogLevel string
	// ExtraArgs are appended to `temporal server start-dev` (more
	// --dynamic-config-value knobs, say).
	ExtraArgs []string
	// CLIPath is the temporal binary. Empty: EnsureCLI (installs it when
	// missing, ~12 min cold), with its progress written to Progress.
	CLIPath  string
	Progress io.Writer
}

func (o Options) namespace() string {
	if o.Namespace == "" {
		return "default"
	}
	return o.Namespace
}

// searchAttributeTypes parses the requested types up front, so a typo
// fails before a server starts rather than as a server exit.
func (o Options) searchAttributeTypes() (map[string]enumspb.IndexedValueType, error) {
	types := make(map[string]enumspb.IndexedValueType, len(o.SearchAttributes))
	for name, typ := range o.SearchAttributes {
		t, ok := parseIndexedValueType(typ)
		if !ok {
			return nil, fmt.Errorf("search attribute %s: unknown type %q", name, typ)
		}
		types[name] = t
	}
	return types, nil
}

func parseIndexedValueType(s string) (enumspb.IndexedValueType, bool) {
	for name, v := range enumspb.IndexedValueType_shorthandValue {
		if v != 0 && strings.EqualFold(name, s) {
			return enumspb.IndexedValueType(v), true
		}
	}
	return 0, false
}

// ports are the listening ports of one server, kept across restarts.
type ports struct {
	frontend, ui int
}

// args builds the `temporal server start-dev` command line.
func (o Options) args(dbFile string, p ports) []string {
	level := o.LogLevel
	if level == "" {
		level = "warn"
	}
	args := []string{
		"server", "start-dev",
		"--ip", "127.0.0.1",
		"--port", strconv.Itoa(p.frontend),
		"--db-filename", dbFile,
		// WAL keeps a file database near in-memory speed.
		"--sqlite-pragma", "journal_mode=wal",
		// At the default of 20 every task dispatch waits up to ~45 ms:
		// a 2-activity workflow takes ~250 ms instead of ~50 ms.
		"--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
		"--log-level", level,
		// A developer's ~/.config/temporalio profile or TEMPORAL_*
		// variables must not change the server a test gets.
		"--disable-config-file", "--disable-config-env",
	}
	if p.ui != 0 {
		args = append(args, "--ui-port", strconv.Itoa(p.ui))
	} else {
		args = append(args, "--headless")
	}
	if ns := o.namespace(); ns != "default" {
		args = append(args, "--namespace", ns)
	}
	names := make([]string, 0, len(o.SearchAttributes))
	for name := range o.SearchAttributes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		args = append(args, "--search-attribute", name+"="+o.SearchAttributes[name])
	}
	return append(args, o.ExtraArgs...)
}
