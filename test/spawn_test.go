package test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSpawn: a job under the library spawns children (MPI_Comm_spawn,
// test/cprogs/ip_spawn.c): the children run without ghosts (their
// environment and process count are the parent's choice, not a layout
// for ghosts), the intercommunicator, the merged communicator (members of
// two jobs: never offloaded) and a duplicate of it carry checked messages,
// and the parents' own communicator still goes through the ghosts.
// Skipped where plain MPICH cannot spawn: MPICH 4.0.2's ch4:ucx fails
// every MPI_Comm_spawn ("Error in spawn call") and MPI_Open_port ("not
// supported with ucx netmod"), as on the development machine. Its abort
// there (exit 15) sometimes reaches the launcher before the message does:
// a plain job that fails without a word is that case too (seen once, in
// a CI run; twelve such jobs by hand all printed the message).
func TestSpawn(t *testing.T) {
	prog := CProg(t, "ip_spawn")
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{"2"}, Timeout: time.Minute})
	if out := plain.Output(); plain.ExitCode != 0 && strings.Contains(out, "spawn") {
		t.Skipf("plain MPICH cannot spawn here: %s", firstLine(out, "Error in spawn call"))
	} else if plain.ExitCode != 0 && plain.Stdout == "" && plain.Stderr == "" {
		t.Skipf("plain MPICH's spawning job failed without output (exit %d): it cannot spawn here", plain.ExitCode)
	}
	require.Equal(t, 0, plain.ExitCode, "plain MPICH:\n%s", plain.Output())
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"2"}, Preload: true, Timeout: 2 * time.Minute})
	rs := relResults(t, res)
	require.Len(t, Select(rs, "role=parent"), l.Users())
	require.Len(t, Select(rs, "role=child"), 2)
	for _, f := range Select(rs, "role=parent") {
		algo, _ := f.Int("algo")
		require.Greater(t, algo, int64(0), "the parents still offload: %s", f.Line())
		require.True(t, f.Match("merged_size=4"), f.Line())
	}
}

// firstLine returns the first line of out containing s, or s.
func firstLine(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return strings.TrimSpace(l)
		}
	}
	return s
}
