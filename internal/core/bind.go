package core

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/casperii/casperii/internal/mpi"
)

// Placement of virtual nodes on an oversubscribed host.
//
// CSP_NODE_SIZE splits one host into virtual nodes so that a multi-node
// layout can run on it. Real nodes have cores of their own; virtual nodes
// on a host with fewer cores than processes share them, and the kernel
// then places a user and its ghost on either core at random. Measured on
// a 2-core host, 2 virtual nodes of 1 user + 1 ghost (osub-latency 8 B,
// 16 runs): with the user and its ghost on one core, post 0.30-0.33 us and
// wait 9-11 us; on different cores, post 0.43-0.55 us and wait 16-18 us,
// every post paying for cache lines held by the other core and every
// completion for a cross-core wake-up. Binding each virtual node to its
// share of the host's CPUs makes the emulation what it stands for (nodes
// with cores of their own) and removes the coin toss: 8 interleaved runs,
// medians, 8 B wait 13.1 -> 8.8 us, 8 B message rate +25%, the halo
// exchange (2 x (2 users + 1 ghost)) 10-20% faster and steadier; the
// 1 MiB ping-pong up to 15% slower (docs/design.md section 7).
//
// The CPUs that count are the job's on this host: at MPI_Init its
// processes there compare their affinities (JobCPUs). The same set
// everywhere is a restriction of the whole job (a container's or batch
// system's cpuset, taskset on mpiexec), and the job's share of the host:
// oversubscription is judged and nodes are placed within it. Different
// sets mean a launcher bound each process (mpiexec -bind-to core), and
// placement is left as it set it. Nothing is bound either when the job has
// a core per process, when there is one virtual node per host, or with
// CSP_BIND=off.

// BindPlan is where one process runs.
type BindPlan struct {
	CPUs []int // the CPUs to bind to; nil: leave placement alone
	Why  string
}

// JobCPUs is what the job may run on, on this host.
type JobCPUs struct {
	Online  []int // the host's online CPUs
	Allowed []int // this process's affinity at MPI_Init
	Pool    []int // the CPUs the job's processes here may use
	Bound   bool  // a launcher bound the processes to different CPUs
}

// jobCPUs works out the job's CPUs from the host's online ones, this
// process's affinity, and whether every process of the job on this host
// has that same affinity.
func jobCPUs(online, allowed []int, sameOnHost bool) JobCPUs {
	j := JobCPUs{Online: online, Allowed: allowed, Pool: online}
	switch {
	case !sameOnHost:
		j.Bound = true
	case len(allowed) > 0:
		j.Pool = allowed
	}
	return j
}

// hashCPUs is a fingerprint of a CPU list, for comparing affinities
// across processes (FNV-1a over the CPU numbers).
func hashCPUs(cpus []int) uint32 {
	h := uint32(2166136261)
	for _, c := range cpus {
		for i := 0; i < 4; i++ {
			h ^= uint32(c>>(8*i)) & 0xff
			h *= 16777619
		}
	}
	return h
}

// planBind decides the placement of a process of virtual node vnode, one
// of vnodes on a host running hostProcs of the job's processes on the
// CPUs j.
func planBind(cfg Config, j JobCPUs, hostProcs, vnodes, vnode int) BindPlan {
	switch {
	case cfg.BindOff:
		return BindPlan{Why: "CSP_BIND=off: placement left to the kernel"}
	case cfg.NG == 0:
		return BindPlan{Why: "no ghosts (CSP_NG=0): placement left to the kernel"}
	case vnodes <= 1:
		return BindPlan{Why: "one node per host: placement left to the kernel"}
	case len(j.Pool) == 0:
		return BindPlan{Why: "the host's CPUs are unknown: placement left to the kernel"}
	}
	over := oversubscribed(hostProcs, len(j.Pool))
	if over == "" {
		return BindPlan{Why: "a core per process: placement left to the kernel"}
	}
	if j.Bound {
		return BindPlan{Why: "bound already (CPUs " + FormatCPUList(j.Allowed) + "): left as the launcher set it"}
	}
	restricted := ""
	if !slices.Equal(j.Pool, j.Online) && len(j.Online) > 0 {
		restricted = fmt.Sprintf(" (the job's CPUs %s of %d online)", FormatCPUList(j.Pool), len(j.Online))
	}
	cpus := vnodeShare(j.Pool, vnodes, vnode)
	return BindPlan{CPUs: cpus, Why: fmt.Sprintf("virtual node %d of %d on a host running %s%s: CPUs %s (CSP_BIND=off leaves placement to the kernel)",
		vnode, vnodes, over, restricted, FormatCPUList(cpus))}
}

// vnodeShare is virtual node v's share of the CPUs when n virtual nodes
// split them: a contiguous block, balanced; with more nodes than CPUs,
// neighbouring nodes share one CPU.
func vnodeShare(cpus []int, n, v int) []int {
	c := len(cpus)
	lo, hi := v*c/n, (v+1)*c/n
	if hi <= lo {
		hi = lo + 1
	}
	return append([]int(nil), cpus[lo:hi]...)
}

// OnlineCPUs lists the host's online CPUs in increasing order, nil if
// unknown.
func OnlineCPUs() []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil
	}
	return parseCPUList(strings.TrimSpace(string(b)))
}

// AllowedCPUs lists the CPUs this thread may run on, in increasing order.
func AllowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// bindProcess binds every thread of this process to cpus. Threads started
// later inherit the mask from the thread that starts them; a second pass
// catches those that appeared during the first.
func bindProcess(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return err
	}
	return eachThread(func(tid int) error { return unix.SchedSetaffinity(tid, &set) })
}

// eachThread calls f for every thread of this process. Threads started
// later inherit what f set from the thread that starts them; a second
// pass catches those that appeared during the first. A thread that
// exited meanwhile (ESRCH) needs nothing; the first other error stops it.
func eachThread(f func(tid int) error) error {
	done := map[int]bool{}
	for pass := 0; pass < 3; pass++ {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		fresh := false
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil || done[tid] {
				continue
			}
			done[tid], fresh = true, true
			if err := f(tid); err != nil && err != unix.ESRCH {
				return err
			}
		}
		if !fresh {
			break
		}
	}
	return nil
}

// parseCPUList parses a kernel CPU list such as "0-3,8,10-11"; nil if it
// does not parse.
func parseCPUList(s string) []int {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b-a > 1<<16 {
				return nil
			}
		}
		for i := a; i <= b; i++ {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// FormatCPUList writes cpus (increasing) as a kernel CPU list ("0-3,8").
func FormatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// DescribeBind is planBind for casperii env, where the processes per host
// are not known yet.
func DescribeBind(cfg Config) string {
	switch {
	case cfg.BindOff:
		return "left to the kernel (CSP_BIND=off)"
	case cfg.NodeSize == 0:
		return "left to the kernel (one node per host)"
	}
	return "each virtual node bound to its share of the CPUs" + onOversubscribedHost() +
		", unless the launcher bound the processes (CSP_BIND=off: left to the kernel)"
}

// agreeCPUs compares the affinities of the job's processes on this host
// (host is their communicator; collective) and records the job's CPUs.
func (r *runtime) agreeCPUs(host mpi.Comm, hostSize int) error {
	allowed := AllowedCPUs()
	mine := []int32{int32(len(allowed)), int32(hashCPUs(allowed))}
	all := make([]int32, 2*hostSize)
	if err := mpi.AllgatherInt32s(host, mine, all); err != nil {
		return err
	}
	same := true
	for i := 2; i < len(all); i += 2 {
		same = same && all[i] == all[0] && all[i+1] == all[1]
	}
	r.cpus = jobCPUs(OnlineCPUs(), allowed, same)
	if !same {
		return r.gatherMasks(host, hostSize, allowed)
	}
	return nil
}

// hostCPUs is the number of CPUs the job may use on this host.
func (r *runtime) hostCPUs() int {
	if n := len(r.cpus.Pool); n > 0 {
		return n
	}
	return HostCPUs()
}

// hostUsers is the number of users on this host: its processes less the
// ghosts of its (virtual) nodes.
func (r *runtime) hostUsers() int {
	lsize, err := r.node.Size()
	if err != nil || lsize == 0 {
		return r.hostSize
	}
	return r.hostSize - r.hostSize/lsize*r.cfg.NG
}

// place binds this process to its virtual node's share of the host's CPUs
// when planBind says so. A failure only costs the placement: it is
// reported, and the job goes on where the kernel puts it.
func (r *runtime) place(vnodes, vnode int) {
	plan := planBind(r.cfg, r.cpus, r.hostSize, vnodes, vnode)
	if plan.CPUs == nil {
		r.verbosef(2, "rank %d: placement: %s", r.wrank, plan.Why)
		return
	}
	if err := bindProcess(plan.CPUs); err != nil {
		r.verbosef(1, "rank %d: could not bind to CPUs %s (%v); placement left to the kernel", r.wrank, FormatCPUList(plan.CPUs), err)
		return
	}
	r.verbosef(2, "rank %d: bound to %s", r.wrank, plan.Why)
}
