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
	// What the job's processes inherit from this one: every online CPU,
	// unless the test itself runs bound (a container's cpuset, taskset).
	all := core.FormatCPUList(core.AllowedCPUs())
	free := all == core.FormatCPUList(online)
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
		over := l.N > len(online)
		t.Run(l.String()+"/auto", func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_VERBOSE=2"}})
			cpus := users(t, res, l)
			for v := 0; v < vnodes; v++ {
				want := all
				switch {
				case over && !free:
					require.Contains(t, res.Stderr, fmt.Sprintf("casperii: rank %d: placement: bound already (CPUs %s): left as the launcher set it", v*k, all))
				case over:
					want = core.FormatCPUList(share(online, vnodes, v))
					require.Contains(t, res.Stderr, fmt.Sprintf("casperii: rank %d: bound to virtual node %d of %d on a host running %d processes on %d cores: CPUs %s",
						v*k, v, vnodes, l.N, len(online), want), "the ghost of virtual node %d", v)
				default:
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
	if free && len(online) > 1 && l.N > len(online) {
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
	t.Run("bad value", func(t *testing.T) {
		res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_BIND=core"}})
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
