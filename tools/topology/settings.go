package topology

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/freeport"
)

// The topology's settings that docker-compose.yml repeats for Docker:
// worker/compose_topology_test.go compares the file with these and runs
// its one-shot scripts natively, so the compose file cannot drift from
// what this package runs.
const (
	// Namespace is the Temporal namespace, created with NamespaceRetention.
	Namespace          = "default"
	NamespaceRetention = "72h"
	TaskQueue          = "checkpoint-finalizer"
	ZooKeeperRoot      = "/checkpoint-finalizer"
	// DefaultRetain is the workers' -retain unless Options say otherwise.
	DefaultRetain = 2
	// HistoryShards is fixed when the cluster is created: it can never
	// change on these databases.
	HistoryShards = 4
	// SQLPlugin serves both the default store and SQL advanced visibility.
	SQLPlugin        = "postgres12"
	PostgresUser     = "temporal"
	PostgresPassword = "temporal"
)

// Schema is one database temporal-sql-tool creates and migrates to the
// newest version of a schema embedded in the tool.
type Schema struct {
	Database string
	// Name is the embedded schema (update-schema --schema-name).
	Name string
}

// Schemas are the default store's database, then visibility's.
var Schemas = []Schema{
	{Database: "temporal", Name: "postgresql/v12/temporal"},
	{Database: "temporal_visibility", Name: "postgresql/v12/visibility"},
}

// SchemaCommands are the temporal-sql-tool invocations (arguments only)
// that set up every schema on pg, in order: create the database, set up
// the version tables, apply every versioned migration.
func SchemaCommands(pg *Postgres) [][]string {
	var cmds [][]string
	for _, s := range Schemas {
		base := []string{"--plugin", SQLPlugin, "--endpoint", "127.0.0.1", "--port", strconv.Itoa(pg.Port),
			"--user", pg.User, "--password", pg.Password, "--database", s.Database}
		for _, step := range [][]string{
			{"create-database"},
			{"setup-schema", "--version", "0.0"},
			{"update-schema", "--schema-name", s.Name},
		} {
			cmds = append(cmds, append(slices.Clone(base), step...))
		}
	}
	return cmds
}

// newPostgres describes a private cluster in dir on a free loopback port.
func newPostgres(dir string) (Postgres, error) {
	port, err := freeport.Port()
	if err != nil {
		return Postgres{}, err
	}
	return Postgres{Port: port, Dir: dir, Data: filepath.Join(dir, "data"),
		Log: filepath.Join(dir, "postgresql.log"), User: PostgresUser, Password: PostgresPassword}, nil
}

// StartPostgres creates a private PostgreSQL cluster in dir (which must
// not hold one) and starts it, for tests that need PostgreSQL without the
// rest of the topology. Stop it with Stop.
func StartPostgres(dir string) (*Postgres, error) {
	if err := EnsurePostgres(); err != nil {
		return nil, err
	}
	pg, err := newPostgres(dir)
	if err != nil {
		return nil, err
	}
	if err := pg.initCluster(); err != nil {
		return nil, fmt.Errorf("postgresql in %s: %w", dir, err)
	}
	if err := pg.start(); err != nil {
		return nil, fmt.Errorf("postgresql in %s: %w", dir, err)
	}
	return &pg, nil
}

// Stop stops the cluster cleanly; one that does not run is an error.
func (pg *Postgres) Stop() error { return pg.stop("fast") }
