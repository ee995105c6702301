package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/core"
)

// Virtual nodes on an oversubscribed host run on their own share of the
// CPUs, every thread of every process (internal/core/bind.go); with
// CSP_BIND=off, or when the launcher bound the processes, placement is
// left alone. ip_bind prints what each user's threads may run on; ghosts
// say where they are with CSP_VERBOSE=2.
func TestBindVirtualNodes(t *testing.T) {
	online := core.OnlineCPUs()
	require.NotEmpty(t, online, "/sys/devices/system/cpu/online")
	// What the job's processes inherit from this one, all alike: every
	// online CPU, unless the test itself runs confined (a container's
	// cpuset, taskset). Either way it is the job's share of the host.
	pool := core.AllowedCPUs()
	all := core.FormatCPUList(pool)
	restricted := ""
	if all != core.FormatCPUList(online) {
		restricted = fmt.Sprintf(" (the job's CPUs %s of %d online)", all, len(online))
	}
	prog := CProg(t, "ip_bind")
	users := func(t *testing.T, res Result, l Layout) map[int]string {
		require.Equal(t, 0, res.ExitCode, res.Output())
		rs := Select(Results(res.Stdout), "test=bind")
		require.Len(t, rs, l.Users(), res.Output())
		cpus := map[int]string{}
		for _, r := range rs {
			require.NotEqual(t, "mixed", r["cpus"], "the threads of rank %s disagree", r["rank"])
			rank, ok := r.Int("rank")
			require.True(t, ok, r.Line())
			cpus[int(rank)] = r["cpus"]
		}
		return cpus
	}
	for _, l := range ipLayouts {
		k, vnodes := l.NodeSize, l.N/l.NodeSize
		over := l.N > len(pool)
		t.Run(l.String()+"/auto", func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_VERBOSE=2"}})
			cpus := users(t, res, l)
			for v := 0; v < vnodes; v++ {
				want := all
				if over {
					want = core.FormatCPUList(share(pool, vnodes, v))
					require.Contains(t, res.Stderr, fmt.Sprintf("casperii: rank %d: bound to virtual node %d of %d on a host running %d processes on %d cores%s: CPUs %s",
						v*k, v, vnodes, l.N, len(pool), restricted, want), "the ghost of virtual node %d", v)
				} else {
					require.Contains(t, res.Stderr, fmt.Sprintf("casperii: rank %d: placement: a core per process", v*k))
				}
				for u := v * (k - 1); u < (v+1)*(k-1); u++ {
					require.Equal(t, want, cpus[u], "user %d (virtual node %d)", u, v)
				}
			}
		})
	}
	l := ipLayouts[0]
	t.Run(l.String()+"/off", func(t *testing.T) {
		res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_VERBOSE=2", "CSP_BIND=off"}})
		for u, c := range users(t, res, l) {
			require.Equal(t, all, c, "user %d", u)
		}
		require.Equal(t, l.N, strings.Count(res.Stderr, "placement: CSP_BIND=off: placement left to the kernel"))
	})
	if len(pool) > 1 && l.N > len(pool) {
		// The launcher's binding wins: each process keeps the core
		// mpiexec gave it, and says so.
		t.Run(l.String()+"/launcher", func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Launch: []string{"-bind-to", "core"}, Env: []string{"CSP_VERBOSE=2"}})
			for u, c := range users(t, res, l) {
				require.Len(t, strings.Split(c, ","), 1, "user %d runs on one core", u)
				require.NotContains(t, c, "-", "user %d runs on one core", u)
				require.Contains(t, res.Stderr, "bound already (CPUs "+c+"): left as the launcher set it")
			}
			require.Equal(t, l.N, strings.Count(res.Stderr, "left as the launcher set it"))
		})
	}
	// The whole job confined to one CPU (taskset on mpiexec, as a cpuset
	// would): 2 processes on 1 core are oversubscribed whatever the host
	// has: the user will sleep at once and the ghost yield between polls
	// (their policies, printed at MPI_Init), and virtual nodes share that
	// CPU.
	if cpu := pool[0]; len(online) > 1 {
		one := core.FormatCPUList([]int{cpu})
		t.Run("n2-ng1/confined", func(t *testing.T) {
			l1 := Layout{N: 2, NG: 1}
			res := Run(t, Job{Layout: l1, Prog: prog, Preload: true, Wrap: []string{"taskset", "-c", one}, Env: []string{"CSP_VERBOSE=2"}})
			for u, c := range users(t, res, l1) {
				require.Equal(t, one, c, "user %d", u)
			}
			require.Contains(t, res.Stderr, "casperii: user 1: waits poll 1 times, yield 0 times, then sleep (2 processes on 1 cores: sleep at once)")
			require.Contains(t, res.Stderr, "casperii: ghost 0: polls without yielding for 0 us after an event (2 processes on 1 cores: yield at once)")
			require.Contains(t, res.Stderr, "casperii: rank 0: placement: one node per host")
		})
		t.Run(l.String()+"/confined", func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Wrap: []string{"taskset", "-c", one}, Env: []string{"CSP_VERBOSE=2"}})
			for u, c := range users(t, res, l) {
				require.Equal(t, one, c, "user %d", u)
			}
			for v := 0; v < l.N/l.NodeSize; v++ {
				require.Contains(t, res.Stderr, fmt.Sprintf("casperii: rank %d: bound to virtual node %d of %d on a host running %d processes on 1 cores (the job's CPUs %s of %d online): CPUs %s",
					v*l.NodeSize, v, l.N/l.NodeSize, l.N, one, len(online), one))
			}
		})
	}
	t.Run("bad value", func(t *testing.T) {
		res := RunFailing(t, Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_BIND=core"}})
		require.NotEqual(t, 0, res.ExitCode)
		require.Contains(t, res.Stderr, `CSP_BIND="core" is not valid; use auto or off`)
		require.Empty(t, Results(res.Stdout), "no process got past MPI_Init")
	})
}

// share is virtual node v's block when n virtual nodes split cpus.
func share(cpus []int, n, v int) []int {
	lo, hi := v*len(cpus)/n, (v+1)*len(cpus)/n
	if hi <= lo {
		hi = lo + 1
	}
	return cpus[lo:hi]
}
