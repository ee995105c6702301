package test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCancelWaitsAsleep: MPI_Cancel of an offloaded receive is a control
// cell the ghost answers (internal/user/control.c). Where the ghost shares
// its user's core at the lowest priority it runs only while the user
// leaves the core, so the user waits for the answer asleep on its wake
// word, as every offloaded wait does: each cancel's wait sleeps (CSP_STATS
// sleeps), it never yields. Before c31916e the wait spun and yielded, and
// a cancel took 675-722 us instead of 24-26 (docs/perf/probes/cancelcost.c).
// Every receive is cancelled and the channel still carries data after.
func TestCancelWaitsAsleep(t *testing.T) {
	const n = 100
	l := Layout{N: 4, NodeSize: 2} // 4 processes on the host's 2 cores: ghosts share
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_cancel"), Args: []string{"100"},
		Env: []string{"CSP_STATS=1"}, Preload: true, Timeout: 2 * time.Minute})
	require.Equal(t, 0, res.ExitCode, res.Output())
	lines := ParseLines(res.Stdout, "cancel")
	require.Len(t, lines, l.Users(), res.Output())
	for _, f := range lines {
		require.True(t, f.Match("cancelled=100", "exchange_ok=1"), "every receive cancelled, data after: %s", f.Line())
	}
	stats := ParseLines(res.Stderr, "casperii-stats")
	require.Len(t, stats, l.Users(), res.Stderr)
	shared := runtime.NumCPU() < l.N // the waiting policy sleeps at once only then (internal/core/wait.go)
	for _, f := range stats {
		off, _ := f.Int("irecv_offloaded")
		require.GreaterOrEqual(t, off, int64(n), "the receives went to the ghost: %s", f.Line())
		if !shared {
			continue
		}
		sleeps, _ := f.Int("sleeps")
		require.GreaterOrEqual(t, sleeps, int64(n), "each cancel's wait slept: %s", f.Line())
		yields, _ := f.Int("yields")
		require.Zero(t, yields, "no wait yielded: %s", f.Line())
	}
}
