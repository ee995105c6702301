package osubench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/casperii/casperii/internal/proc"
	"github.com/casperii/casperii/internal/shellquote"
)

// JobSpec is one mpiexec run.
type JobSpec struct {
	Procs int
	// Launcher are mpiexec options before the -genv ones (e.g. -bind-to
	// user:0,0,1,0).
	Launcher []string
	Env      []string // KEY=VALUE, passed with -genv in this order
	Prog     string
	Args     []string
	Timeout  time.Duration
	// IsGhost classifies world ranks for the CPU accounting (nil: all users).
	IsGhost func(rank int) bool
	// FinalizeGrace, if positive, is how long the job may take once the
	// program printed FinalizeMark (every result out, every user in
	// MPI_Finalize): past it the job is killed and counted as finished
	// (JobResult.FinalizeHang), its results kept.
	FinalizeGrace time.Duration
}

// FinalizeMark is the line the programs print (rank 0, after a barrier)
// just before MPI_Finalize.
const FinalizeMark = "osub-finalize"

// DefaultFinalizeGrace is the grace of MPI_Finalize: MPICH 4.0.2's
// ch4/ucx finalize over TCP can hang with one process in the PMI barrier
// while its peer waits for the disconnect that process no longer
// progresses (fixed in later MPICH: pmodels/mpich#6596).
const DefaultFinalizeGrace = 10 * time.Second

// Argv is the mpiexec command line of the job.
func (j JobSpec) Argv(mpiexec string) []string {
	a := []string{mpiexec, "-n", strconv.Itoa(j.Procs)}
	a = append(a, j.Launcher...)
	for _, kv := range j.Env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "-genv", k, v)
	}
	a = append(a, j.Prog)
	return append(a, j.Args...)
}

// JobResult is the outcome of a job.
type JobResult struct {
	Cmd           string        `json:"cmd"`
	Stdout        string        `json:"-"`
	Stderr        string        `json:"stderr,omitempty"`
	ExitCode      int           `json:"exit_code"`
	TimedOut      bool          `json:"timed_out,omitempty"`
	Wall          time.Duration `json:"wall_ns"`
	CPU           float64       `json:"cpu_s"`         // all processes of the job (rusage of mpiexec and its reaped descendants)
	UserCPU       float64       `json:"user_cpu_s"`    // user ranks, sampled from /proc
	GhostCPU      float64       `json:"ghost_cpu_s"`   // ghost ranks, sampled from /proc
	MachineCPU    float64       `json:"machine_cpu_s"` // every process of the host during the job (/proc/stat), ours included
	Leftover      []string      `json:"leftover,omitempty"`
	ShmLeft       []string      `json:"shm_left,omitempty"`
	ShmNotRemoved []string      `json:"shm_not_removed,omitempty"`
	// FinalizeHang: the job printed FinalizeMark but was still running
	// FinalizeGrace later, and was killed; its results count.
	FinalizeHang   bool `json:"finalize_hang,omitempty"`
	procsWithRanks int
}

// Err describes how the job failed, or is nil.
func (r *JobResult) Err() error {
	switch {
	case r.FinalizeHang:
		return nil
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
	shmBefore, _ := proc.ShmEntries()
	busy0 := proc.HostBusy()
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
	tr := proc.NewTracker(cmd.Process.Pid, "")
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
	var graceEnd time.Time // zero until the program printed FinalizeMark
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-tick.C:
			tr.Scan()
			if j.FinalizeGrace > 0 && graceEnd.IsZero() && finalizing(filepath.Join(dir, "stdout")) {
				graceEnd = time.Now().Add(j.FinalizeGrace)
			}
			if !graceEnd.IsZero() && time.Now().After(graceEnd) {
				res.FinalizeHang = true
				tr.KillAll()
				_ = cmd.Process.Kill()
				waitErr = <-done
				break wait
			}
		case <-timer.C:
			res.TimedOut = true
		case <-ctx.Done():
			res.TimedOut = true
			res.Stderr = "interrupted\n"
		}
		if res.TimedOut {
			tr.Scan()
			tr.KillAll()
			_ = cmd.Process.Kill()
			waitErr = <-done
			break wait
		}
	}
	res.Wall = time.Since(start)
	if b1 := proc.HostBusy(); b1 > busy0 && busy0 > 0 {
		res.MachineCPU = b1 - busy0
	}
	res.ExitCode = proc.ExitCode(cmd.ProcessState, waitErr)
	if ps := cmd.ProcessState; ps != nil {
		res.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	// Every process of the job must be gone once mpiexec has exited.
	deadline := time.Now().Add(3 * time.Second)
	for len(tr.Alive()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := tr.Alive(); len(left) > 0 {
		res.Leftover = tr.KillAll()
	}
	for _, p := range tr.Procs() {
		if p.Rank < 0 {
			continue
		}
		res.procsWithRanks++
		if j.IsGhost != nil && j.IsGhost(p.Rank) {
			res.GhostCPU += p.CPU
		} else {
			res.UserCPU += p.CPU
		}
	}
	b1, _ := os.ReadFile(filepath.Join(dir, "stdout"))
	b2, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	res.Stdout = string(b1)
	res.Stderr += string(b2)
	res.ShmLeft, res.ShmNotRemoved = cleanShm(shmBefore)
	return res
}

// finalizing reports whether the job's stdout (at path) has the
// FinalizeMark line.
func finalizing(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == FinalizeMark {
			return true
		}
	}
	return false
}

// ShellQuote joins args into a command line a POSIX shell reads back as args.
func ShellQuote(args []string) string { return shellquote.Join(args) }

// cleanShm finds /dev/shm entries created since before that no process has
// open or mapped any more (the job's leftovers: entries another user's live
// job is using are left alone), removes them, and returns them (and those it
// could not remove).
func cleanShm(before map[string]bool) (left, notRemoved []string) {
	var fresh []string
	for i := 0; i < 10; i++ {
		now, _ := proc.ShmEntries()
		if fresh = proc.NewShmEntries(before, now); len(fresh) == 0 {
			return nil, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	holders := proc.ShmHolders()
	for _, e := range fresh {
		if holders[e] > 0 {
			continue
		}
		left = append(left, e)
		if err := os.RemoveAll(filepath.Join("/dev/shm", e)); err != nil {
			notRemoved = append(notRemoved, e)
		}
	}
	return left, notRemoved
}
