package bench

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Usage is what the process that runs the worker spent over a phase.
type Usage struct {
	// CPU is user plus system time.
	CPU time.Duration `json:"cpu"`
	// PeakRSS is the resident set's high-water mark over the phase.
	PeakRSS int64 `json:"peakRssBytes"`
	// ServerCPU is what the Temporal server process spent meanwhile.
	ServerCPU time.Duration `json:"serverCpu"`
	// DatabaseCPU is what the Temporal server's database spent meanwhile
	// when it runs apart (PostgreSQL: the postmaster and its backends); 0
	// on the dev server, whose SQLite runs inside ServerCPU.
	DatabaseCPU time.Duration `json:"databaseCpu,omitempty"`
	// Steps are what the worker's and the Kubernetes API server's metrics
	// counted over the phase (see Step).
	Steps stepCounts `json:"-"`
}

// serverProcesses are the processes a Temporal server spends CPU in.
type serverProcesses struct {
	temporal int
	// database is PostgreSQL's postmaster, 0 when the database runs in
	// the server's process.
	database int
}

// cpu is the Temporal server's and its database's CPU so far.
func (p serverProcesses) cpu() (server, database time.Duration, err error) {
	if server, err = processCPU(p.temporal); err != nil {
		return 0, 0, err
	}
	if p.database != 0 {
		database, err = processTreeCPU(p.database)
	}
	return server, database, err
}

// meter measures this process's CPU and peak RSS, the Temporal server's
// CPU and, given a scrape of them, the steps (Step) over a phase.
type meter struct {
	server                      serverProcesses
	cpu, serverCPU, databaseCPU time.Duration
	steps                       func() (stepCounts, error) // nil: not counted
	stepsBefore                 stepCounts
}

// startMeter resets the RSS high-water mark (writing 5 to clear_refs) and
// notes the CPU spent so far here and by the server's processes, and the
// steps so far when steps is not nil.
func startMeter(server serverProcesses, steps func() (stepCounts, error)) (*meter, error) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return nil, fmt.Errorf("reset peak RSS: %w", err)
	}
	cpu, err := cpuTime()
	if err != nil {
		return nil, err
	}
	serverCPU, databaseCPU, err := server.cpu()
	if err != nil {
		return nil, err
	}
	m := &meter{server: server, cpu: cpu, serverCPU: serverCPU, databaseCPU: databaseCPU, steps: steps}
	if steps != nil {
		if m.stepsBefore, err = steps(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// stop returns the CPU spent since start, the peak RSS and the steps taken.
func (m *meter) stop() (Usage, error) {
	cpu, err := cpuTime()
	if err != nil {
		return Usage{}, err
	}
	serverCPU, databaseCPU, err := m.server.cpu()
	if err != nil {
		return Usage{}, err
	}
	peak, err := statusBytes("VmHWM")
	if err != nil {
		return Usage{}, err
	}
	u := Usage{CPU: cpu - m.cpu, PeakRSS: peak, ServerCPU: serverCPU - m.serverCPU, DatabaseCPU: databaseCPU - m.databaseCPU}
	if m.steps != nil {
		after, err := m.steps()
		if err != nil {
			return Usage{}, err
		}
		u.Steps = after.since(m.stepsBefore)
	}
	return u, nil
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// processCPU is another process's user plus system time.
func processCPU(pid int) (time.Duration, error) {
	t, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	return t.utime + t.stime, nil
}

// processTreeCPU is a process's user plus system time with its children's:
// the waited-for ones (cutime, cstime) and the live ones. A child that
// exits between the two reads is missed once; PostgreSQL's backends live
// as long as the server's pooled connections.
func processTreeCPU(pid int) (time.Duration, error) {
	root, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	total := root.utime + root.stime + root.cutime + root.cstime
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("CPU of process %d's children: %w", pid, err)
	}
	for _, e := range procs {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		t, err := readStat(child)
		if err != nil || t.ppid != pid {
			continue // gone meanwhile, or not a child
		}
		total += t.utime + t.stime + t.cutime + t.cstime
	}
	return total, nil
}

// procStat holds the fields of /proc/<pid>/stat a meter reads.
type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime time.Duration
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, fmt.Errorf("CPU of process %d: %w", pid, err)
	}
	// Fields after the command (which may hold spaces), from the state
	// (field 3): ppid is field 4, utime, stime, cutime and cstime fields
	// 14 to 17.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("CPU of process %d: short stat %q", pid, b)
	}
	var n [5]int64
	for i, s := range []string{f[1], f[11], f[12], f[13], f[14]} {
		if n[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return procStat{}, fmt.Errorf("CPU of process %d: %w", pid, err)
		}
	}
	tick := func(v int64) time.Duration { return time.Duration(v) * clockTick }
	return procStat{ppid: int(n[0]), utime: tick(n[1]), stime: tick(n[2]), cutime: tick(n[3]), cstime: tick(n[4])}, nil
}

func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// currentRSS is VmRSS, the resident set now.
func currentRSS() (int64, error) { return statusBytes("VmRSS") }

// statusBytes reads a "kB" field of /proc/self/status.
func statusBytes(field string) (int64, error) { return processStatusBytes("self", field) }

// processStatusBytes reads a "kB" field of /proc/<pid>/status.
func processStatusBytes(pid, field string) (int64, error) {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", field, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("read %s: %q: %w", field, rest, err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("read %s: not in /proc/self/status", field)
}
