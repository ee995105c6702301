package test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Attributes a Fortran program caches on MPI_COMM_WORLD with
// MPI_COMM_SET_ATTR or MPI_ATTR_PUT (MPICH's bindings call its internal
// MPII_Comm_set_attr, not the C function) are found there, copied by
// MPI_COMM_DUP and removed by MPI_COMM_DELETE_ATTR, as under plain MPICH
// (test/cprogs/ip_fattr.f90; MPICH's f77/attr/commattr4f). They used to go
// to MPICH's world while the duplicate and the delete used the
// application's: not copied, not deleted.
func TestFortranWorldAttributes(t *testing.T) {
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: FortranProg(t, "ip_fattr")})
	want := SortedLines(plain.Stdout, "result")
	require.Len(t, want, 4, "plain MPICH:\n%s", plain.Output())
	for _, linked := range []bool{false, true} {
		name := "preload"
		j := Job{Layout: Layout{N: 4, NodeSize: 2}}
		if linked {
			name, j.Prog = "linked", linkedFortranProg(t, "ip_fattr")
		} else {
			j.Prog, j.Preload = FortranProg(t, "ip_fattr"), true
		}
		t.Run(name, func(t *testing.T) {
			res := Run(t, j)
			ipRequireResults(t, res, 4)
			require.Equal(t, want, SortedLines(res.Stdout, "result"), "plain MPICH's lines:\n%s", res.Output())
		})
	}
}
