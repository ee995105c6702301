package core

import (
	goruntime "runtime"
	"strconv"
	"strings"
)

// WaitPolicy is how a user blocked on an offloaded request waits: Spin
// busy polls, then Yield yields of the core, then sleeps until its ghost
// wakes it.
type WaitPolicy struct {
	Spin, Yield int
	Why         string // how the policy was chosen, for CSP_VERBOSE
}

// Sleeping at once is the policy for an oversubscribed host. Measured on a
// 2-core host running 2 users and 2 ghosts (osub-latency, CSP_NODE_SIZE=2):
// a user that polls 50 times and yields 10 times before sleeping takes the
// core from the ghost doing its transfer, and the mean wait grows by 40-80%
// (8 B: 27-35 us sleeping at once against 51 us; 64 KiB: 53-61 against
// 98-105 us); message rate at 64 KiB and above rises 10-20% too.
const (
	oversubscribedSpin  = 1
	oversubscribedYield = 0
)

// waitPolicy picks the wait policy for a host running hostProcs processes
// of the job on hostCPUs cores. The environment (CSP_WAIT_SPIN,
// CSP_WAIT_YIELD) wins; otherwise a host with more processes than cores
// sleeps at once, and one with a core per process polls and yields first
// (a completion caught while polling saves a futex wake-up, several
// microseconds).
func waitPolicy(cfg Config, hostProcs, hostCPUs int) WaitPolicy {
	over := oversubscribed(hostProcs, hostCPUs)
	switch {
	case cfg.WaitSet:
		return WaitPolicy{cfg.SpinIters, cfg.YieldIters, "set by CSP_WAIT_SPIN/CSP_WAIT_YIELD"}
	case over != "":
		return WaitPolicy{oversubscribedSpin, oversubscribedYield, over + ": sleep at once"}
	default:
		return WaitPolicy{cfg.SpinIters, cfg.YieldIters, "a core per process: poll and yield before sleeping"}
	}
}

// Ghost polling on an oversubscribed host: yield the core between polls
// from the start instead of polling without pause for GhostSpinUS. A user
// woken there (its compute's timer, a completion) must otherwise wait for
// the scheduler to preempt a polling ghost. Measured with osub-overlap on
// a 2-core host, 2 users + 2 ghosts, 6 interleaved runs, medians: time per
// iteration of post + compute + wait 8 B 76 -> 40 us, 64 KiB 72 -> 59,
// 256 KiB 107 -> 82, 1 MiB 374 -> 299; the ping-pong alone unchanged.
const oversubscribedGhostSpinUS = 0

// ghostSpin picks how long a ghost polls without yielding (microseconds):
// CSP_GHOST_SPIN_US if given, else 0 on a host with more of the job's
// processes than cores, else the default.
func ghostSpin(cfg Config, hostProcs, hostCPUs int) (int, string) {
	over := oversubscribed(hostProcs, hostCPUs)
	switch {
	case cfg.GhostSpinSet:
		return cfg.GhostSpinUS, "set by CSP_GHOST_SPIN_US"
	case over != "":
		return oversubscribedGhostSpinUS, over + ": yield at once"
	default:
		return cfg.GhostSpinUS, "a core per process: poll without pause first"
	}
}

// DescribeGhostSpin is ghostSpin for casperii env, where the processes per
// host are not known yet.
func DescribeGhostSpin(cfg Config) string {
	polls := "polls without pause for " + strconv.Itoa(cfg.GhostSpinUS) + " us after its last event"
	if cfg.GhostSpinSet {
		return polls + " (CSP_GHOST_SPIN_US)"
	}
	return polls + " (0 us" + onOversubscribedHost() + ")"
}

// oversubscribed says how a host running hostProcs of the job's processes
// on hostCPUs cores is oversubscribed ("4 processes on 2 cores"), or ""
// if it has a core per process (or its cores are unknown).
func oversubscribed(hostProcs, hostCPUs int) string {
	if hostCPUs > 0 && hostProcs > hostCPUs {
		return strconv.Itoa(hostProcs) + " processes on " + strconv.Itoa(hostCPUs) + " cores"
	}
	return ""
}

// onOversubscribedHost names the oversubscribed case for casperii env,
// before the processes per host are known.
func onOversubscribedHost() string {
	return " on a host running more of the job's processes than its " + strconv.Itoa(HostCPUs()) + " cores"
}

// HostCPUs is the number of CPUs a job started from this process may use
// on this host: this process's affinity (a container's or batch system's
// cpuset, taskset), else the online CPUs. At MPI_Init the processes of a
// host compare their affinities instead (agreeCPUs): a launcher that binds
// each process to one core must not make the host look oversubscribed.
func HostCPUs() int {
	if n := len(AllowedCPUs()); n > 0 {
		return n
	}
	if n := len(OnlineCPUs()); n > 0 {
		return n
	}
	return goruntime.NumCPU()
}

// DescribeWait says in one line what a waiting user will do on this host
// (casperii env): the number of processes per host is only known at
// MPI_Init, so both cases are given unless the environment fixes them.
func DescribeWait(cfg Config) string {
	then := "then sleeps until its ghost wakes it (at most " + strconv.Itoa(cfg.SleepUS) + " us at a time)"
	fixed := strconv.Itoa(cfg.SpinIters) + " polls, " + strconv.Itoa(cfg.YieldIters) + " yields, " + then
	if cfg.WaitSet {
		return fixed + " (CSP_WAIT_SPIN/CSP_WAIT_YIELD)"
	}
	return fixed + ";" + onOversubscribedHost() + ": sleeps at once"
}

// directYield decides whether a user waiting on MPICH (a request on the
// direct route, or a blocking call MPICH would spin in) polls and yields
// the core between polls instead of spinning in MPICH: CSP_DIRECT_YIELD,
// else where the host runs more of the job's users than it has cores.
// There a spinning wait holds a core that another user on it needs to
// reach its own sends, and MPICH 4's ch4 device never yields
// (MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's). Measured on 2 cores with
// osubench's halo among 4 users (plain MPICH, the wait loop preloaded,
// docs/design.md section 7, "Users that wait on MPICH where users
// outnumber cores"): busy compute 1 KiB 3975 -> 725 us per iteration,
// 64 KiB 7875 -> 958, 1 MiB 8224 -> 6045; sleep compute 737 -> 363,
// 4125 -> 519, 8713 -> 6089. Open MPI makes the same
// choice when it finds a node oversubscribed (mpi_yield_when_idle).
func directYield(cfg Config, hostUsers, hostCPUs int) (bool, string) {
	switch cfg.DirectYield {
	case 1:
		return true, "CSP_DIRECT_YIELD=on"
	case -1:
		return false, "CSP_DIRECT_YIELD=off"
	}
	if over := oversubscribed(hostUsers, hostCPUs); over != "" {
		return true, strings.Replace(over, "processes", "users", 1)
	}
	return false, "a core per user"
}
