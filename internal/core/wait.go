package core

import (
	"os"
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
	switch {
	case cfg.WaitSet:
		return WaitPolicy{cfg.SpinIters, cfg.YieldIters, "set by CSP_WAIT_SPIN/CSP_WAIT_YIELD"}
	case hostCPUs > 0 && hostProcs > hostCPUs:
		return WaitPolicy{oversubscribedSpin, oversubscribedYield,
			strconv.Itoa(hostProcs) + " processes on " + strconv.Itoa(hostCPUs) + " cores: sleep at once"}
	default:
		return WaitPolicy{cfg.SpinIters, cfg.YieldIters, "a core per process: poll and yield before sleeping"}
	}
}

// HostCPUs is the number of online CPUs of this host (not this process's
// affinity: a launcher that binds each process to one core must not make
// the host look oversubscribed).
func HostCPUs() int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return goruntime.NumCPU()
	}
	if n := countCPUList(strings.TrimSpace(string(b))); n > 0 {
		return n
	}
	return goruntime.NumCPU()
}

// countCPUList counts the CPUs of a kernel CPU list such as "0-3,8,10-11";
// 0 if it does not parse.
func countCPUList(s string) int {
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return 0
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0
			}
		}
		n += b - a + 1
	}
	return n
}

// DescribeWait says in one line what a waiting user will do on this host
// (casperii env): the number of processes per host is only known at
// MPI_Init, so both cases are given unless the environment fixes them.
func DescribeWait(cfg Config) string {
	then := "then sleeps of " + strconv.Itoa(cfg.SleepUS) + " us until its ghost wakes it"
	fixed := strconv.Itoa(cfg.SpinIters) + " polls, " + strconv.Itoa(cfg.YieldIters) + " yields, " + then
	if cfg.WaitSet {
		return fixed + " (CSP_WAIT_SPIN/CSP_WAIT_YIELD)"
	}
	return fixed + "; on a host running more of the job's processes than its " +
		strconv.Itoa(HostCPUs()) + " cores: sleeps at once"
}
