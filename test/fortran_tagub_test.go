package test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/tagenc"
)

// linkedFortranProg compiles test/cprogs/<name>.f90 with MPICH's mpifort, linked
// with -lcasperii before MPICH's libraries (mpifort appends its own after
// ours) and an rpath to lib/, and returns the path of the program.
func linkedFortranProg(t *testing.T, name string) string {
	t.Helper()
	r := Root(t)
	libDir := filepath.Dir(Lib(t))
	dir := buildDir(t)
	b := buildOnce("f-linked:"+name, func() (string, string, error) {
		out := filepath.Join(dir, "f-linked-"+name)
		return out, "", mpichTool(r, "mpifort", "-O2", filepath.Join("test", "cprogs", name+".f90"),
			"-L"+libDir, "-lcasperii", "-Wl,-rpath,"+libDir, "-o", out)
	})
	if b.err != nil {
		t.Fatalf("harness: compiling Fortran program %s: %v", name, b.err)
	}
	return b.path
}

// MPICH's Fortran attribute getters bypass the C MPI_Comm_get_attr; the
// interposer wraps them (internal/interpose/fortran_attr.c), so a Fortran
// program sees the exposed MPI_TAG_UB through every binding (use mpi,
// mpif.h, use mpi_f08; MPI_Comm_get_attr and MPI_Attr_get), can use it as a
// tag on a tag-encoded communicator, and gets MPI_ERR_TAG one above it.
func TestFortranTagUB(t *testing.T) {
	bindings := []string{"mpi", "mpi-attr", "mpif", "mpif-attr", "f08"}
	check := func(t *testing.T, res Result, users int, want int64) {
		rs := ipRequireResults(t, res, users*(len(bindings)+3))
		for _, b := range bindings {
			got := Select(rs, "test=tagub-"+b)
			require.Len(t, got, users, b)
			for _, f := range got {
				ub, _ := f.Int("tagub")
				require.Equal(t, want, ub, "MPI_TAG_UB through %s: %s", b, f.Line())
			}
		}
		for _, name := range []string{"tagub-same", "tagub-send", "tagub-above"} {
			require.Len(t, Select(rs, "test="+name), users, name)
		}
	}
	for _, l := range ipLayouts {
		for _, m := range ipLinkModes {
			linked := m.linked
			t.Run(fmt.Sprintf("%v/%s", l, m.name), func(t *testing.T) {
				perGhost := l.NodeSize - 1 // one ghost per virtual node
				layout, err := tagenc.New(ipMPICHTagUB, perGhost)
				require.NoError(t, err)
				want := int64(layout.ExposedTagUB())
				require.Less(t, want, int64(ipMPICHTagUB))
				j := Job{Layout: l}
				if linked {
					j.Prog = linkedFortranProg(t, "ip_ftagub")
				} else {
					j.Prog, j.Preload = FortranProg(t, "ip_ftagub"), true
				}
				check(t, Run(t, j), l.Users(), want)
			})
		}
	}
	// Pass-through: MPICH's own bound, unchanged.
	t.Run("pass-through", func(t *testing.T) {
		res := Run(t, Job{Layout: Layout{N: 2}, Prog: FortranProg(t, "ip_ftagub"), Preload: true, Env: []string{"CSP_NG=0"}})
		check(t, res, 2, ipMPICHTagUB)
	})
}

// A `use mpi_f08` program gets the interposer like any other: MPICH's
// mpi_f08 bindings call PMPI_* directly, and libcasperii.so binds those
// calls to its wrappers when it loads (internal/interpose/fortran_f08.c).
// Preloaded and linked, ip_f08 sees the users only, the exposed MPI_TAG_UB,
// its ring, probe and persistent messages intact with their statuses, an
// attribute set on MPI_COMM_WORLD copied by MPI_Comm_dup, a split world;
// and its messages went through the ghosts.
func TestFortranF08(t *testing.T) {
	steps := []string{"world", "ring", "probe", "persistent", "attr", "split"}
	for _, l := range ipLayouts {
		for _, m := range ipLinkModes {
			linked := m.linked
			t.Run(fmt.Sprintf("%v/%s", l, m.name), func(t *testing.T) {
				j := Job{Layout: l, Env: []string{"CSP_STATS=1"}}
				if linked {
					j.Prog = linkedFortranProg(t, "ip_f08")
				} else {
					j.Prog, j.Preload = FortranProg(t, "ip_f08"), true
				}
				res := Run(t, j)
				rs := ipRequireResults(t, res, l.Users()*len(steps))
				for _, step := range steps {
					require.Len(t, Select(rs, "test="+step), l.Users(), step)
				}
				layout, err := tagenc.New(ipMPICHTagUB, l.NodeSize-1)
				require.NoError(t, err)
				for _, f := range Select(rs, "test=world") {
					require.True(t, f.Match(fmt.Sprintf("size=%d", l.Users()),
						fmt.Sprintf("tagub=%d", layout.ExposedTagUB())), "the user world and its bound: %s", f.Line())
				}
				for r, s := range ipRequireStats(t, res, l.Users()) {
					require.Positive(t, s.IsendOffloaded, "rank %d: %s", r, s.Fields.Line())
					require.Positive(t, s.IrecvOffloaded, "rank %d: %s", r, s.Fields.Line())
				}
			})
		}
	}
}
