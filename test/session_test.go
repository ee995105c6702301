package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSessions: an MPI-4 session opened after MPI_Init
// (test/cprogs/ip_session.c) sees the application's world in its
// "mpi://WORLD" process set, as MPI_COMM_WORLD does: the set's group and
// "mpi_size" are the users', and a communicator built from it carries a
// checked ring and an allreduce. The same lines as plain MPICH's. Before,
// the set held the ghosts too and MPI_Comm_create_from_group waited for
// them forever (MPICH's threads/init mult_session timed out).
func TestSessions(t *testing.T) {
	prog := CProg(t, "ip_session")
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Timeout: time.Minute})
	want := SortedLines(plain.Stdout, "result")
	require.Len(t, want, 2, "plain MPICH:\n%s", plain.Output())
	for _, l := range want {
		require.Contains(t, l, "ok=1", "plain MPICH:\n%s", plain.Output())
	}
	res := Run(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Preload: true, Timeout: time.Minute})
	relResults(t, res)
	require.Equal(t, want, SortedLines(res.Stdout, "result"), "the lines of plain MPICH:\n%s", res.Output())
}
