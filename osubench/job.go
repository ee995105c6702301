package osubench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/casperii/casperii/internal/shellquote"
)

// JobSpec is one mpiexec run.
type JobSpec struct {
	Procs   int
	Env     []string // KEY=VALUE, passed with -genv in this order
	Prog    string
	Args    []string
	Timeout time.Duration
	// IsGhost classifies world ranks for the CPU accounting (nil: all users).
	IsGhost func(rank int) bool
}

// Argv is the mpiexec command line of the job.
func (j JobSpec) Argv(mpiexec string) []string {
	a := []string{mpiexec, "-n", strconv.Itoa(j.Procs)}
	for _, kv := range j.Env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "-genv", k, v)
	}
	a = append(a, j.Prog)
	return append(a, j.Args...)
}

// JobResult is the outcome of a job.
type JobResult struct {
	Cmd            string        `json:"cmd"`
	Stdout         string        `json:"-"`
	Stderr         string        `json:"stderr,omitempty"`
	ExitCode       int           `json:"exit_code"`
	TimedOut       bool          `json:"timed_out,omitempty"`
	Wall           time.Duration `json:"wall_ns"`
	CPU            float64       `json:"cpu_s"`         // all processes of the job (rusage of mpiexec and its reaped descendants)
	UserCPU        float64       `json:"user_cpu_s"`    // user ranks, sampled from /proc
	GhostCPU       float64       `json:"ghost_cpu_s"`   // ghost ranks, sampled from /proc
	MachineCPU     float64       `json:"machine_cpu_s"` // every process of the host during the job (/proc/stat), ours included
	Leftover       []string      `json:"leftover,omitempty"`
	ShmLeft        []string      `json:"shm_left,omitempty"`
	ShmNotRemoved  []string      `json:"shm_not_removed,omitempty"`
	procsWithRanks int
}

// Err describes how the job failed, or is nil.
func (r *JobResult) Err() error {
	switch {
	case r.TimedOut:
		return fmt.Errorf("timed out after %v", r.Wall.Round(time.Second))
	case r.ExitCode != 0:
		return fmt.Errorf("exit code %d: %s", r.ExitCode, lastLines(r.Stderr, 6))
	}
	return nil
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// jobEnv is mpiexec's environment: ours without anything that would change
// what a mode means (CSP_*, LD_PRELOAD, MPIR_CVAR_*) or confuse Hydra (the
// variables of an enclosing MPI job).
func jobEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "CSP_"), k == "LD_PRELOAD", strings.HasPrefix(k, "MPIR_CVAR_"),
			strings.HasPrefix(k, "MPICH_"), strings.HasPrefix(k, "UCX_"),
			strings.HasPrefix(k, "PMI_"), strings.HasPrefix(k, "PMIX_"), strings.HasPrefix(k, "HYDI_"),
			strings.HasPrefix(k, "HYDRA_"), k == "MPI_LOCALNRANKS", k == "MPI_LOCALRANKID":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// RunJob runs j under mpiexec with stdin closed. A job past its timeout is
// killed with every process it started. After the job, processes of it
// still alive are killed and reported, and /dev/shm entries it left behind
// (new, and open or mapped by no process) are removed and reported.
func RunJob(ctx context.Context, mpiexec string, j JobSpec) *JobResult {
	argv := j.Argv(mpiexec)
	res := &JobResult{Cmd: ShellQuote(argv), ExitCode: -1}
	shmBefore := listShm()
	busy0 := machineBusy()
	dir, err := os.MkdirTemp("", "osubench-job-")
	if err != nil {
		res.Stderr = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	stdout, err1 := os.Create(filepath.Join(dir, "stdout"))
	stderr, err2 := os.Create(filepath.Join(dir, "stderr"))
	if err := errors.Join(err1, err2); err != nil {
		res.Stderr = err.Error()
		return res
	}
	defer stdout.Close()
	defer stderr.Close()

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = jobEnv(os.Environ())
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		res.Stderr = "starting mpiexec: " + err.Error()
		return res
	}
	tr := newTracker(cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	timeout := j.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-tick.C:
			tr.scan()
		case <-timer.C:
			res.TimedOut = true
		case <-ctx.Done():
			res.TimedOut = true
			res.Stderr = "interrupted\n"
		}
		if res.TimedOut {
			tr.scan()
			tr.killAll()
			_ = cmd.Process.Kill()
			waitErr = <-done
			break wait
		}
	}
	res.Wall = time.Since(start)
	if b1 := machineBusy(); b1 > busy0 && busy0 > 0 {
		res.MachineCPU = b1 - busy0
	}
	res.ExitCode = exitCode(cmd.ProcessState, waitErr)
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	// Every process of the job must be gone once mpiexec has exited.
	deadline := time.Now().Add(3 * time.Second)
	for len(tr.alive()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := tr.alive(); len(left) > 0 {
		res.Leftover = tr.killAll()
	}
	for _, p := range tr.procs {
		if p.rank < 0 {
			continue
		}
		res.procsWithRanks++
		if j.IsGhost != nil && j.IsGhost(p.rank) {
			res.GhostCPU += p.cpu
		} else {
			res.UserCPU += p.cpu
		}
	}
	b1, _ := os.ReadFile(filepath.Join(dir, "stdout"))
	b2, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	res.Stdout = string(b1)
	res.Stderr += string(b2)
	res.ShmLeft, res.ShmNotRemoved = cleanShm(shmBefore)
	return res
}

// machineBusy returns the CPU seconds all cores of the host have spent
// busy since boot (/proc/stat: everything but idle and iowait), 0 if unknown.
func machineBusy() float64 {
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

func exitCode(ps *os.ProcessState, err error) int {
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

// ShellQuote joins args into a command line a POSIX shell reads back as args.
func ShellQuote(args []string) string { return shellquote.Join(args) }

// tracker follows mpiexec and its descendants (Hydra puts ranks in their own
// sessions, so a process group would not reach them), through
// /proc/<pid>/task/<tid>/children, and samples each one's CPU time. A
// process is identified by pid and start time, so a recycled pid is not
// mistaken for it.
type tracker struct {
	root  int
	procs map[int]*procInfo
}

type procInfo struct {
	start string
	name  string
	rank  int     // PMI_RANK, -1 if none
	cpu   float64 // seconds, last sample
	gone  bool
}

func newTracker(pid int) *tracker {
	t := &tracker{root: pid, procs: map[int]*procInfo{}}
	t.scan()
	return t
}

const clkTck = 100 // USER_HZ on Linux

// procStat reads /proc/<pid>/stat: start time, name and CPU seconds.
func procStat(pid int) (start, name string, cpu float64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", 0, false
	}
	s := string(b)
	i, k := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || k < i {
		return "", "", 0, false
	}
	f := strings.Fields(s[k+1:])
	if len(f) < 20 || f[0] == "Z" {
		return "", "", 0, false
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return f[19], s[i+1 : k], (ut + st) / clkTck, true
}

func procRank(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return -1
	}
	for _, kv := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(kv, "PMI_RANK="); ok {
			if r, err := strconv.Atoi(v); err == nil {
				return r
			}
		}
	}
	return -1
}

func children(pid int) []int {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// scan adds the live descendants of the root and samples every known one.
func (t *tracker) scan() {
	queue := []int{t.root}
	seen := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		start, name, cpu, ok := procStat(pid)
		if !ok {
			continue
		}
		p := t.procs[pid]
		if p == nil || p.start != start {
			p = &procInfo{start: start, name: name, rank: -1}
			if pid != t.root {
				p.rank = procRank(pid)
			}
			t.procs[pid] = p
		}
		p.cpu = cpu
		queue = append(queue, children(pid)...)
	}
	// Sample the known ones that were not reached (reparented).
	for pid, p := range t.procs {
		if seen[pid] || p.gone {
			continue
		}
		start, _, cpu, ok := procStat(pid)
		if !ok || start != p.start {
			p.gone = true
			continue
		}
		p.cpu = cpu
	}
}

// alive lists the tracked processes still running (mpiexec excluded).
func (t *tracker) alive() []int {
	var out []int
	for pid, p := range t.procs {
		if pid == t.root || p.gone {
			continue
		}
		start, _, cpu, ok := procStat(pid)
		if !ok || start != p.start {
			p.gone = true
			continue
		}
		p.cpu = cpu
		out = append(out, pid)
	}
	sort.Ints(out)
	return out
}

// killAll kills every tracked process still alive and describes them.
func (t *tracker) killAll() []string {
	var out []string
	for _, pid := range t.alive() {
		p := t.procs[pid]
		_ = syscall.Kill(pid, syscall.SIGKILL)
		out = append(out, fmt.Sprintf("%d(%s rank=%d)", pid, p.name, p.rank))
	}
	return out
}

func listShm() map[string]bool {
	m := map[string]bool{}
	ents, _ := os.ReadDir("/dev/shm")
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}

// cleanShm finds /dev/shm entries created since before that no process has
// open or mapped any more (the job's leftovers: entries another user's live
// job is using are left alone), removes them, and returns them (and those it
// could not remove).
func cleanShm(before map[string]bool) (left, notRemoved []string) {
	var fresh []string
	for i := 0; i < 10; i++ {
		fresh = fresh[:0]
		for e := range listShm() {
			if !before[e] {
				fresh = append(fresh, e)
			}
		}
		if len(fresh) == 0 {
			return nil, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	inUse := shmInUse()
	sort.Strings(fresh)
	for _, e := range fresh {
		if inUse[e] {
			continue
		}
		left = append(left, e)
		if err := os.RemoveAll(filepath.Join("/dev/shm", e)); err != nil {
			notRemoved = append(notRemoved, e)
		}
	}
	return left, notRemoved
}

// shmInUse returns the names of /dev/shm entries some process has open or mapped.
func shmInUse() map[string]bool {
	m := map[string]bool{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		dir := "/proc/" + p.Name()
		if fds, err := os.ReadDir(dir + "/fd"); err == nil {
			for _, fd := range fds {
				if l, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil {
					if n, ok := strings.CutPrefix(l, "/dev/shm/"); ok {
						m[strings.TrimSuffix(n, " (deleted)")] = true
					}
				}
			}
		}
		if b, err := os.ReadFile(dir + "/maps"); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if i := strings.Index(line, "/dev/shm/"); i >= 0 {
					n := strings.Fields(line[i+len("/dev/shm/"):])
					if len(n) > 0 {
						m[n[0]] = true
					}
				}
			}
		}
	}
	return m
}
