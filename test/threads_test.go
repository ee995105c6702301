package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestThreads: MPI_THREAD_MULTIPLE with four threads a user, each on its
// own offloaded communicator (test/cprogs/ip_threads.c). Each thread
// duplicates its communicator 150 times, exchanging a message on every
// duplicate, while the others do the same: communicators planned by
// several threads at once must neither take the same internal context
// (the plan aborted so, "ghost-match resource 5 is not free", and the
// program then hung: MPICH's threads/comm dup_leak_test) nor fall back to
// MPICH: every duplicate is offloaded. Then each thread floods its
// communicator with 1024 MPI_Isends matched by 1024 MPI_Irecvs (MPICH's
// threads/pt2pt mt_isendirecv): every value and status is checked, and
// the counters show the traffic went through the ghosts.
func TestThreads(t *testing.T) {
	const threads, dups, n = 4, 150, 1024
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_threads"), Preload: true, Timeout: 2 * time.Minute,
		Args: []string{fmt.Sprint(threads), fmt.Sprint(dups), fmt.Sprint(n)}, Env: []string{"CSP_STATS=1"}})
	rs := relResults(t, res)
	require.Len(t, Select(rs, "test=threads"), l.Users())
	for _, f := range rs {
		algo, _ := f.Int("parent_algo")
		require.Greater(t, algo, int64(0), "the threads' communicators are offloaded: %s", f.Line())
		offl, _ := f.Int("dups_offloaded")
		require.Equal(t, int64(threads*dups), offl, "every duplicate is offloaded: %s", f.Line())
	}
	st := relStats(t, res, l.Users(), true)
	for r, s := range st {
		// Each duplicate carries one send and one receive; the flood
		// n per thread one way.
		require.GreaterOrEqual(t, s.IsendOffloaded+s.IrecvOffloaded, int64(threads*(2*dups+n)), "rank %d: %s", r, s.Fields.Line())
	}
}
