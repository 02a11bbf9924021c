package topology

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/debian"
	"github.com/checkpoint-finalizer/finalizer/internal/testenv/servers/realserver"
)

// PostgresBin holds Debian's PostgreSQL 15 server programs.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// Postgres is the topology's private PostgreSQL cluster: its own data
// directory, on a loopback port, never the system service. The superuser
// is "temporal" (password "temporal"), as in docker-compose.yml.
type Postgres struct {
	Port     int    `json:"port"`
	Dir      string `json:"dir"`
	Data     string `json:"data"`
	Log      string `json:"log"`
	User     string `json:"user"`
	Password string `json:"password"`
}

// Addr is host:port.
func (pg *Postgres) Addr() string { return fmt.Sprintf("127.0.0.1:%d", pg.Port) }

// EnsurePostgres installs Debian's postgresql package when initdb is
// missing.
func EnsurePostgres() error {
	if err := realserver.Refuse("PostgreSQL"); err != nil {
		return err
	}
	return debian.Ensure(func() bool {
		_, err := os.Stat(filepath.Join(PostgresBin, "initdb"))
		return err == nil
	}, "postgresql")
}

// pgCommand runs a PostgreSQL program; as root through runuser as the
// postgres user, since initdb and postgres refuse to run as root.
func pgCommand(prog string, args ...string) *exec.Cmd {
	path := filepath.Join(PostgresBin, prog)
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func runPG(prog string, args ...string) error {
	out, err := pgCommand(prog, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

// initCluster creates the cluster in pg.Dir (initdb) and configures it to
// listen on loopback only, its socket in its own directory.
func (pg *Postgres) initCluster() error {
	if err := os.MkdirAll(pg.Dir, 0o700); err != nil {
		return err
	}
	pwfile := filepath.Join(pg.Dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(pg.Password+"\n"), 0o600); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return fmt.Errorf("postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{pg.Dir, pwfile} {
			if err := os.Chown(p, uid, gid); err != nil {
				return err
			}
		}
		// The postgres user must reach its directory through ours.
		if out, err := exec.Command("runuser", "-u", "postgres", "--", "test", "-w", pg.Dir).CombinedOutput(); err != nil {
			return fmt.Errorf("the postgres user cannot write %s (is every folder above it searchable by others?): %v %s", pg.Dir, err, out)
		}
	}
	if err := runPG("initdb", "-D", pg.Data, "-U", pg.User, "--pwfile="+pwfile,
		"-A", "scram-sha-256", "-E", "UTF8", "--locale=C"); err != nil {
		return err
	}
	_ = os.Remove(pwfile)
	conf := fmt.Sprintf("\n# topology\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nmax_connections = 200\n",
		pg.Port, pg.Dir)
	f, err := os.OpenFile(filepath.Join(pg.Data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(conf)
	return err
}

// start starts the cluster and waits until it accepts connections.
func (pg *Postgres) start() error {
	if pg.running() {
		return nil
	}
	return runPG("pg_ctl", "-D", pg.Data, "-l", pg.Log, "-w", "-t", "120", "start")
}

// stop stops it: mode "fast" (clean) or "immediate" (a crash: recovery
// replays the WAL on the next start). A cluster that does not run is an
// error: the stop did not happen.
func (pg *Postgres) stop(mode string) error {
	if !pg.running() {
		return fmt.Errorf("postgresql in %s: %w", pg.Data, errNotRunning)
	}
	return runPG("pg_ctl", "-D", pg.Data, "-m", mode, "-w", "-t", "60", "stop")
}

// PID is the postmaster's process ID (the first line of its
// postmaster.pid), 0 when it does not run. Its backends are its children.
func (pg *Postgres) PID() int {
	if !pg.running() {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(pg.Data, "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	return pid
}

// Ready says whether the cluster accepts connections on its port
// (pg_isready), nil when it does.
func (pg *Postgres) Ready() error {
	return runPG("pg_isready", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.Port), "-t", "5")
}

func (pg *Postgres) running() bool {
	return pgCommand("pg_ctl", "-D", pg.Data, "status").Run() == nil
}
