package core

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A ghost on a core it shares with its users runs at the lowest priority,
// so that it gets the core only while they leave it: when they sleep (in a
// wait, in their own compute) it runs at once; when they compute on the
// CPU it does not take a share of their time, and a user it wakes
// preempts it at once.
//
// Why: Linux shares a core fairly between the runnable tasks on it, and
// since 6.6 (EEVDF) a task keeps the lag it built up across a sleep. A
// ghost polling MPI (yielding between polls does not help under EEVDF)
// while its user computes is owed that time, and takes it back when the
// user next sleeps: a user woken by its ghost then waits 80-170 us for
// the core (perf sched traces of the touched overlap loop, 1 MiB, docs/
// design.md section 7), and a 1 MiB exchange overlapped with busy compute
// took 1.5x plain MPICH. With the ghost at nice 19 it takes 1.02-1.11x.
//
// Launchers run each process in its own session (hydra calls setsid), and
// where the kernel groups tasks by session (sched_autogroup_enabled), a
// thread's nice value only orders threads within its group: the groups
// compete as equals. So the ghost lowers both, its threads' nice values
// and its session group's (/proc/self/autogroup; raising a nice value
// needs no privilege).
//
// A user must then never spin in MPICH while its ghost has its work in
// flight: a starved ghost starves the peer that waits for that work.
// Users on such a host lend their core instead (Lend; internal/user/
// coop.c, internal/ghost/give.go).

// ghostNiceLow is the ghost's nice value on a core shared with its users.
const ghostNiceLow = 19

// ghostNice picks the ghost's nice value and says why: CSP_GHOST_NICE if
// given, else 19 on a host with more of the job's processes than cores
// (the ghost shares a core with users), else 0.
func ghostNice(cfg Config, hostProcs, hostCPUs int) (int, string) {
	over := oversubscribed(hostProcs, hostCPUs)
	switch {
	case cfg.GhostNiceSet:
		return cfg.GhostNice, "set by CSP_GHOST_NICE"
	case over != "":
		return ghostNiceLow, over + ": the ghost runs when its users leave the core"
	default:
		return 0, "a core per process"
	}
}

// lendCore says whether users lend their core to their ghost while they
// wait on MPICH with offloaded operations in flight: where the ghost runs
// at a lowered priority on their cores.
func lendCore(cfg Config, hostProcs, hostCPUs int) bool {
	nice, _ := ghostNice(cfg, hostProcs, hostCPUs)
	return nice > 0 && oversubscribed(hostProcs, hostCPUs) != ""
}

// DescribeGhostNice is ghostNice for casperii env.
func DescribeGhostNice(cfg Config) string {
	if cfg.GhostNiceSet {
		return strconv.Itoa(cfg.GhostNice) + " (CSP_GHOST_NICE)"
	}
	return "0; " + strconv.Itoa(ghostNiceLow) + onOversubscribedHost()
}

// setNice gives every thread of this process (threads started later
// inherit it) and this process's session group the nice value n. It
// returns what it could not do; the ghost runs either way.
func setNice(n int) error {
	if n == 0 {
		return nil
	}
	var errs []error
	if err := eachThread(func(tid int) error { return unix.Setpriority(unix.PRIO_PROCESS, tid, n) }); err != nil {
		errs = append(errs, err)
	}
	if err := setAutogroupNice(n); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// A user process whose application is C (the interposer) runs Go code
// only in calls into the runtime (MPI_Init, MPI_Comm_set_info, a
// collective at which an evaluation is due, communicator constructors),
// on the application's thread. The Go runtime's own threads (its
// scheduler's monitor, threads it hands work to) are bound to the same
// core and are woken by those calls: at the application's priority a
// woken thread preempts it. Measured (docs/perf/probes/switchcost.c, 2
// users + 2 ghosts on 2 cores, 500 us of compute before each call), a
// switching MPI_Comm_set_info took 18.9 us with 2.9 context switches per
// call; with the runtime's threads lowered, 6.2 us and 0.3. So where the
// ghost runs at a lowered priority, so do the runtime's threads: they
// only need the core for moments, and get it when the application leaves
// it (as it does in every call that waits for them). The application's
// threads keep theirs.

// runtimeThreads are the Go runtime's threads of a process whose
// application is C: every thread but the main thread when the interposer
// was initialized (NoteRuntimeThreads), at library load, before the
// application ran. Threads the runtime starts later are started by these
// (from a thread of C's, Go starts its threads from its template thread)
// and inherit what is set on them.
var runtimeThreads []int

// NoteRuntimeThreads records the Go runtime's threads (runtimeThreads).
// The interposer calls it from its package initialization.
func NoteRuntimeThreads() {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	main := os.Getpid()
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil && tid != main {
			runtimeThreads = append(runtimeThreads, tid)
		}
	}
}

// lowerRuntimeThreads gives the Go runtime's threads (runtimeThreads,
// never the calling thread) the nice value n and returns how many it set.
func lowerRuntimeThreads(n int) (int, error) {
	me, done := unix.Gettid(), 0
	for _, tid := range runtimeThreads {
		if tid == me {
			continue
		}
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil {
			if err == unix.ESRCH {
				continue
			}
			return done, err
		}
		done++
	}
	return done, nil
}

// autogroupRetry bounds how long setAutogroupNice retries: the kernel lets
// an unprivileged process change a group's nice value once per 100 ms,
// host-wide, so the ghosts of one host take turns.
const autogroupRetry = 5 * time.Second

// setAutogroupNice sets the nice value of this process's session group,
// if the kernel groups by session. A refusal for the rate limit (EAGAIN)
// is retried in the background.
func setAutogroupNice(n int) error {
	const path = "/proc/self/autogroup"
	if _, err := os.Stat(path); err != nil {
		return nil // no autogroup support: thread nice values are enough
	}
	write := func() error { return os.WriteFile(path, []byte(strconv.Itoa(n)), 0) }
	err := write()
	if !errors.Is(err, unix.EAGAIN) {
		return err
	}
	go func() {
		for end := time.Now().Add(autogroupRetry); time.Now().Before(end); {
			time.Sleep(110 * time.Millisecond)
			if err := write(); !errors.Is(err, unix.EAGAIN) {
				return
			}
		}
	}()
	return nil
}

// describeNice reads back this thread's nice value and the session
// group's (for CSP_VERBOSE): "nice 19 (threads), autogroup nice 19".
func describeNice() (int, string) {
	nice := -100
	if b, err := os.ReadFile("/proc/thread-self/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 16 {
				nice, _ = strconv.Atoi(f[16])
			}
		}
	}
	group := "no autogroup"
	if b, err := os.ReadFile("/proc/self/autogroup"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 && f[1] == "nice" {
			group = "autogroup nice " + f[2]
		}
	}
	return nice, group
}

// rmaBoost returns what a ghost does when it first exposes a redirected
// window (internal/ghost/rma.go), or nil: a ghost lowered to nice 19 on a
// shared core (not by CSP_GHOST_NICE) raises itself back to the users'
// priority. Origins elsewhere wait for its progress while its users
// compute, and at nice 19 it gets their core only when they leave it (a
// lock + 8 KiB accumulate + unlock epoch then took 31-36 ms on a target
// computing 20 ms, against 0.7-1.4 ms at nice 0; docs/design.md). It
// polls only every CSP_RMA_POLL_US when idle, so the share it takes from
// a computing user stays small. Lowering a nice value needs CAP_SYS_NICE
// or a nice rlimit; without either the ghost stays at 19 and says so.
func (r *runtime) rmaBoost(nice int) func() {
	if nice == 0 || r.cfg.GhostNiceSet {
		return nil
	}
	return func() {
		err := eachThread(func(tid int) error { return unix.Setpriority(unix.PRIO_PROCESS, tid, 0) })
		if err == nil {
			err = setAutogroupNice(0)
		}
		if err != nil {
			r.verbosef(1, "ghost %d: serves RMA windows but cannot raise its priority back to nice 0 (%v): operations on a target that computes wait for the scheduler; give the job CAP_SYS_NICE or a nice limit (ulimit -e 20), or a core per ghost", r.wrank, err)
			return
		}
		r.verbosef(2, "ghost %d: serves RMA windows: back to nice 0", r.wrank)
	}
}
