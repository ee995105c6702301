package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A receive on a communicator MPICH serves directly (async_config=off)
// is pending while its process waits for a message the ghosts carry
// (test/cprogs/ip_mixedwait.c): the direct 256 KiB message's rendezvous
// progresses only in the receiver's MPI calls, so the wait naps briefly
// (internal/user/block.c: mpich_work). The sender computes 1 ms before
// each message, so the receiver is asleep when it comes: 1000 iterations
// take about 1.5 s; in 20 ms naps they took at least 20 s, so the job's
// 15 s timeout is the liveness bound. Every byte, the status, and the routes (direct
// on the duplicate with the hint, offloaded on a plain one) are checked.
func TestMixedRouteWait(t *testing.T) {
	prog := CProg(t, "ip_mixedwait")
	args := []string{"1000", "262144"}
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: args})
	require.Len(t, Select(ParseLines(plain.Stdout, "result"), "ok=1"), 1, plain.Output())
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: prog, Args: args, Preload: true, Timeout: 15 * time.Second,
		Env: []string{"CSP_STATS=1"}})
	require.Len(t, ipRequireResults(t, res, 1), 1, res.Output())
	routes := ParseLines(res.Stdout, "route")
	require.Len(t, routes, l.Users(), res.Output())
	for _, f := range routes {
		require.Equal(t, "0", f["direct"], "async_config=off: direct: %s", f.Line())
		require.NotEqual(t, "0", f["offloaded"], "its plain duplicate offloaded: %s", f.Line())
	}
	st := ipRequireStats(t, res, l.Users())
	require.Equal(t, int64(1000), st[0].IrecvOffloaded, "rank 0's small receives went to the ghost")
	for _, f := range ParseLines(res.Stdout, "time") {
		t.Logf("CasperII: %s", f.Line())
	}
	for _, f := range ParseLines(plain.Stdout, "time") {
		t.Logf("plain MPICH: %s", f.Line())
	}
}
