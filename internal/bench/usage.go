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
	// ServerCPU is what the Temporal dev server spent meanwhile.
	ServerCPU time.Duration `json:"serverCpu"`
}

// meter measures this process's CPU and peak RSS, and the Temporal
// server's CPU, over a phase.
type meter struct {
	server         int
	cpu, serverCPU time.Duration
}

// startMeter resets the RSS high-water mark (writing 5 to clear_refs) and
// notes the CPU spent so far here and by the process server.
func startMeter(server int) (*meter, error) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return nil, fmt.Errorf("reset peak RSS: %w", err)
	}
	cpu, err := cpuTime()
	if err != nil {
		return nil, err
	}
	serverCPU, err := processCPU(server)
	if err != nil {
		return nil, err
	}
	return &meter{server: server, cpu: cpu, serverCPU: serverCPU}, nil
}

// stop returns the CPU spent since start and the peak RSS.
func (m *meter) stop() (Usage, error) {
	cpu, err := cpuTime()
	if err != nil {
		return Usage{}, err
	}
	serverCPU, err := processCPU(m.server)
	if err != nil {
		return Usage{}, err
	}
	peak, err := statusBytes("VmHWM")
	if err != nil {
		return Usage{}, err
	}
	return Usage{CPU: cpu - m.cpu, PeakRSS: peak, ServerCPU: serverCPU - m.serverCPU}, nil
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// processCPU is another process's user plus system time.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("CPU of process %d: %w", pid, err)
	}
	// Fields after the command (which may hold spaces), from the state
	// (field 3): utime and stime are fields 14 and 15.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("CPU of process %d: short stat %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU of process %d: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
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
func statusBytes(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
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
