package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPolledProbe: MPI_Iprobe, and MPI_Improbe with MPI_Mrecv, polled in
// loops on an offloaded
// communicator (test/cprogs/ip_pollprobe.c): a server that polls
// MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) between compute slices gets
// every client's requests in order with the right status and data; a
// probe answer the ghost gave before a receive took the message it names
// is not returned after it (the stale section: with such answers the
// second probe reports the first message's count); a loop that starts
// before the message exists finds it; two threads (MPI_THREAD_MULTIPLE)
// polling with different tags, taking the one polled probe from each
// other all along, each get their messages in order. The same program
// under plain MPICH
// gives the same lines. Under the library, the server's calls were
// answered from the probe an earlier call left with the ghost
// (probes_polled), and nothing is held at MPI_Finalize.
func TestPolledProbe(t *testing.T) {
	prog := CProg(t, "ip_pollprobe")
	const requests = 150
	for _, how := range []string{"iprobe", "improbe"} {
		args := []string{fmt.Sprint(requests)}
		extra := []string{}
		if how == "improbe" {
			extra = []string{"improbe"}
		}
		plain := Run(t, Job{Layout: Layout{N: 4}, Prog: prog, Args: append(append(args, "-"), extra...), Timeout: 2 * time.Minute})
		want := SortedLines(plain.Stdout, "result")
		require.Len(t, want, 4, "plain MPICH:\n%s", plain.Output())
		for _, l := range want {
			require.Contains(t, l, "ok=1", "plain MPICH:\n%s", plain.Output())
		}
		hints := []string{"-", "any_src"}
		if how == "improbe" {
			hints = hints[:1]
		}
		for _, hint := range hints {
			t.Run(how+"/"+hint, func(t *testing.T) {
				l := Layout{N: 6, NodeSize: 3}
				res := Run(t, Job{Layout: l, Prog: prog, Args: append(append(args, hint), extra...), Env: []string{"CSP_STATS=1"},
					Preload: true, Timeout: 2 * time.Minute})
				relResults(t, res)
				require.Equal(t, want, SortedLines(res.Stdout, "result"), "the lines of plain MPICH:\n%s", res.Output())
				st := relStats(t, res, l.Users(), true)
				polled, ok := st[0].Fields.Int("probes_polled")
				require.True(t, ok, "no probes_polled: %s", st[0].Fields.Line())
				// With improbe only two calls are MPI_Iprobe (the stale
				// section's): the rest answered from the polled probe
				// are MPI_Improbe's.
				require.Greater(t, polled, int64(50), "the server's polls waited for the ghost every time: %s", st[0].Fields.Line())
				for r := 1; r < l.Users(); r++ {
					require.GreaterOrEqual(t, st[r].IsendOffloaded, int64(requests), "rank %d offloads its requests: %s", r, st[r].Fields.Line())
				}
			})
		}
	}
}
