package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestGeneralizedRequests: waits on generalized requests that complete
// only from their poll function (test/cprogs/ip_greq.c: MPI_Wait,
// MPI_Waitall beside an MPI_Irecv, MPI_Waitany, MPI_Waitsome, and ROMIO's
// MPI_File_iwrite_at / iread_at, 1 MiB checked), where the library's
// waits on MPICH poll and yield the core (CSP_DIRECT_YIELD=on: as where
// users outnumber cores). The polls checked requests with
// MPI_Request_get_status, which never runs a poll function: every one of
// these waits hung (MPICH's io/async and io/i_* tests timed out). The
// same lines as plain MPICH's. Then MPI_Waitall where a request fails
// (MPI_ERR_IN_STATUS, the requests after it pending, as MPICH's own
// Waitall leaves them), and four MPI_File_iwrite_at_all under one
// MPI_Waitall with MPICH's io/i_aggregation1 hints: the polls that ran
// every request's poll function in turns (MPI_Testall) wrote wrong bytes
// to the file with 2 users and hung with 3 (i_aggregation1 timed out);
// the waits now poll them one at a time, in order, as MPICH's Waitall.
func TestGeneralizedRequests(t *testing.T) {
	prog := CProg(t, "ip_greq")
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{t.TempDir()}, Timeout: time.Minute})
	want := SortedLines(plain.Stdout, "result")
	require.Len(t, want, 2, "plain MPICH:\n%s", plain.Output())
	for _, l := range want {
		require.Contains(t, l, "ok=1", "plain MPICH:\n%s", plain.Output())
	}
	for _, yield := range []string{"on", "off"} {
		t.Run("yield-"+yield, func(t *testing.T) {
			res := Run(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Args: []string{t.TempDir()}, Preload: true,
				Env: []string{"CSP_DIRECT_YIELD=" + yield}, Timeout: time.Minute})
			relResults(t, res)
			require.Equal(t, want, SortedLines(res.Stdout, "result"), "the lines of plain MPICH:\n%s", res.Output())
		})
	}
}
