package test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Under MPI's default, fatal error handler the job aborts with the
// runtime's one line first, then MPICH's own text for the error's class:
// MPICH 4.0.2 has no string for a code added to a predefined class and
// used to print one of its unrelated internal messages instead.
func TestFatalErrorText(t *testing.T) {
	prog := CProg(t, "ip_fatal")
	for _, c := range []struct{ what, ours, mpich string }{
		{"tag", `casperii: rank 0: tag above the MPI_TAG_UB this job exposes`, `Fatal error in MPI_Comm_call_errhandler: Invalid tag`},
		{"hint", `casperii: rank [01]: info: wildcard_used="bogus" is not valid`, `Fatal error in MPI_Comm_call_errhandler: Invalid MPI_Info value`},
	} {
		t.Run(c.what, func(t *testing.T) {
			res := RunFailing(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Args: []string{c.what}, Preload: true})
			require.NotEqual(t, 0, res.ExitCode, "the job aborts:\n%s", res.Output())
			require.Empty(t, Select(Results(res.Stdout), "survived=1"), "nobody gets past the error")
			require.Regexp(t, c.ours, res.Stderr)
			require.Regexp(t, c.mpich, res.Stderr)
			for _, junk := range []string{"business card", "AF_INET", "host description"} {
				require.NotContains(t, res.Stderr, junk, "MPICH's text for the class, not an unrelated one")
			}
		})
	}
}
