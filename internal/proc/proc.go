// Package proc finds, samples and ends the processes of an MPI job, and the
// /dev/shm entries they hold, through Linux's /proc.
//
// A job's processes are the descendants of its mpiexec (Hydra starts every
// rank in a session of its own, so a process group does not reach them),
// plus, when the job carries a marker variable in its environment, every
// process whose environment holds it (which finds a rank that detached from
// the tree). A process is known by its pid and start time, so a recycled
// pid is never taken for it. The test harness, the benchmark runner and
// mpitest all use this one package.
package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Stat is what /proc/<pid>/stat says of a process.
type Stat struct {
	PPid  int
	State string  // R, S, D, Z, ...
	Start string  // start time since boot, in clock ticks (field 22): with the pid, the process's identity
	Name  string  // the executable's name (comm)
	CPU   float64 // user + system time, seconds
}

// clkTck is USER_HZ, the unit of /proc/<pid>/stat's times on Linux.
const clkTck = 100

// ReadStat reads /proc/<pid>/stat; false if the process is gone.
func ReadStat(pid int) (Stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(b)
	i, k := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || k < i {
		return Stat{}, false
	}
	f := strings.Fields(s[k+1:])
	if len(f) < 20 {
		return Stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return Stat{PPid: ppid, State: f[0], Start: f[19], Name: s[i+1 : k], CPU: (ut + st) / clkTck}, true
}

// Live reports whether pid is a running (not zombie) process.
func (s Stat) Live() bool { return s.State != "Z" }

// table reads every live process: its stat, and the children of each pid.
func table() (map[int]Stat, map[int][]int) {
	stats, children := map[int]Stat{}, map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return stats, children
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := ReadStat(pid); ok && st.Live() {
			stats[pid] = st
			children[st.PPid] = append(children[st.PPid], pid)
		}
	}
	return stats, children
}

// Descendants returns the live descendants of pid, parents before children.
func Descendants(pid int) []int {
	_, children := table()
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// Getenv returns the variable key of pid's initial environment.
func Getenv(pid int, key string) (string, bool) {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	prefix := []byte(key + "=")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(v), true
		}
	}
	return "", false
}

// HostBusy returns the CPU seconds all cores of the host have spent
// busy since boot (/proc/stat: everything but idle and iowait), 0 if unknown.
func HostBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0
	}
	var busy float64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is already counted in user time
			break
		}
		x, _ := strconv.ParseFloat(v, 64)
		busy += x
	}
	return busy / clkTck
}

// ExitCode is a finished process's exit code as a shell reports it:
// 128+signal if a signal ended it; for a process that never ran (ps nil),
// -1 if starting or waiting failed (err), else 0.
func ExitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
