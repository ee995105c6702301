package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/test"
)

// layoutProg passes ("No Errors") only where the layout mpich-tests.sh
// gives it is the one named in its arguments: the library's variables
// for the virtual node (unset under plain MPICH) and the size of the
// world the program sees, which is its users' count either way.
const layoutProg = `#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *ns = getenv("CSP_NODE_SIZE"), *ng = getenv("CSP_NG");
    int ok = size == atoi(argv[1]) &&
             (ns == NULL ? ng == NULL : ng != NULL && strcmp(ns, argv[2]) == 0 && strcmp(ng, argv[3]) == 0);
    if (rank == 0)
        printf(ok ? " No Errors\n" : "size %d CSP_NODE_SIZE %s CSP_NG %s\n", size, ns ? ns : "-", ng ? ng : "-");
    MPI_Finalize();
    return 0;
}
`

// fakeMPICH writes an MPICH source tree of one test directory, x, whose
// testlist.in holds lines, with the support files mpich-tests.sh builds
// (empty here), and returns its root.
func fakeMPICH(t *testing.T, lines string) string {
	return fakeTree(t, map[string]string{"x/Makefile.am": "", "x/layout.c": layoutProg, "x/testlist.in": lines})
}

// fakeTree writes an MPICH source tree of files (paths under test/mpi)
// and the C support files mpich-tests.sh builds (empty), and returns its
// root.
func fakeTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	tm := filepath.Join(root, "test", "mpi")
	all := map[string]string{
		"util/mtest.c": "", "util/mtest_common.c": "", "util/mtest_thread.c": "",
		"util/run_mpitests.c": "", "util/dtypes.c": "", "dtpools/src/dtp.c": "",
	}
	for name, body := range files {
		all[name] = body
	}
	for name, body := range all {
		p := filepath.Join(tm, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return root
}

// runMPICHTests runs conformance/mpich-tests.sh on src's directory x with
// the library and env, and returns its output and exit code.
func runMPICHTests(t *testing.T, src string, env ...string) (string, int) {
	return runMPICHDirs(t, src, "x", env...)
}

// runMPICHDirs runs conformance/mpich-tests.sh on src's directories dirs
// (comma-separated) with the library and env.
func runMPICHDirs(t *testing.T, src, dirs string, env ...string) (string, int) {
	lib := test.Lib(t)
	cmd := exec.Command("bash", filepath.Join(test.Root(t), "conformance", "mpich-tests.sh"), src, dirs, lib)
	cmd.Env = append(os.Environ(), env...) // no standard input: nil
	timer := time.AfterFunc(4*time.Minute, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return string(out), code
}

// TestMPICHTestsLayout: mpich-tests.sh runs a test of np processes with
// np / U * (U + G) processes under the library, in virtual nodes of U
// users and G ghosts (CSP_TESTS_LAYOUT=U:G, default 1:1), skips a test
// whose np U does not divide or that reaches CSP_TESTS_MAXNP, and refuses
// a malformed layout with the variable's name.
func TestMPICHTestsLayout(t *testing.T) {
	if _, err := exec.LookPath("mpicc.mpich"); err != nil {
		t.Skip("mpicc.mpich is not installed (scripts/setup.sh installs it)")
	}
	src := fakeMPICH(t, "layout 2 arg=2 arg=3 arg=2\nlayout 3 arg=3 arg=3 arg=2\nlayout 4 arg=4 arg=3 arg=2\n")

	out, code := runMPICHTests(t, src, "CSP_TESTS_LAYOUT=1:2", "CSP_TESTS_MAXNP=4")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "x/layout 2 3 2 np=2: plain ok, library ok", out)
	require.Contains(t, out, "x/layout 3 3 2 np=3: plain ok, library ok", out)
	require.Contains(t, out, "x/layout 4 3 2 np=4: skipped (np>=4)", out)
	require.Contains(t, out, "# 0 pass under plain MPICH only", out)

	// The default layout, 1 user and 1 ghost, fails this testlist's
	// check of CSP_NODE_SIZE=3: the script exits 1 and names the tests.
	out, code = runMPICHTests(t, src, "CSP_TESTS_MAXNP=3")
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "x/layout 2 3 2 np=2: plain ok, library rc=", out)

	src = fakeMPICH(t, "layout 3 arg=3 arg=4 arg=2\nlayout 4 arg=4 arg=4 arg=2\n")
	out, code = runMPICHTests(t, src, "CSP_TESTS_LAYOUT=2:2")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "x/layout 3 4 2 np=3: skipped (np=3 is not a multiple of 2 users per node)", out)
	require.Contains(t, out, "x/layout 4 4 2 np=4: plain ok, library ok", out)

	out, code = runMPICHTests(t, src, "CSP_TESTS_LAYOUT=2")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "CSP_TESTS_LAYOUT=2: use U:G", out)
}

// Fortran tests of MPICH's f77 and f08 directories: mpich-tests.sh
// compiles a program of the directory's default source kind
// (AM_DEFAULT_SOURCE_EXT) with MPICH's Fortran helpers of that kind, the
// headers configure would make from *.h.in (the kind of MPI_Aint), and C
// parts named in its _SOURCES, built with the Fortran name mapping's
// macro. Both programs check MPI_COMM_WORLD's size, 2 under plain MPICH
// and under the library alike: the mpi_f08 one, whose bindings call
// PMPI_* directly, also asks its C part, so it passes only where the
// library's binding of those calls works (internal/interpose/fortran_f08.c).
func TestMPICHTestsFortran(t *testing.T) {
	if _, err := exec.LookPath("mpifort.mpich"); err != nil {
		t.Skip("mpifort.mpich is not installed (scripts/setup.sh installs it)")
	}
	src := fakeTree(t, map[string]string{
		"util/mtest_f77.f":   "      subroutine mtest_size(n)\n      include 'mpif.h'\n      integer n, ierr\n      call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)\n      end\n",
		"util/mtest_f08.f90": "subroutine mtest_size(n)\n  use mpi_f08\n  integer :: n\n  call MPI_Comm_size(MPI_COMM_WORLD, n)\nend subroutine\n",
		"f77/a/Makefile.am":  "AM_DEFAULT_SOURCE_EXT = .f\nnoinst_PROGRAMS = fsize\n",
		"f77/a/testlist":     "fsize 2\n",
		"f77/a/kinds.h.in":   "       @F77_MPI_ADDRESS@ aint\n",
		"f77/a/fsize.f": "      program fsize\n      include 'mpif.h'\n      include 'kinds.h'\n" +
			"      integer n, ierr\n      call MPI_Init(ierr)\n      call mtest_size(n)\n" +
			"      aint = 0\n      if (n .eq. 2 .and. kind(aint) .eq. 8) print *, 'No Errors'\n" +
			"      call MPI_Finalize(ierr)\n      end\n",
		"f08/b/Makefile.am": "AM_DEFAULT_SOURCE_EXT = .f90\nmixed_SOURCES = mixed.f90 cpart.c\n",
		"f08/b/testlist":    "mixed 2\n",
		"f08/b/mixed.f90": "program mixed\n  use mpi_f08\n  integer :: n, m, c\n  external :: cpart\n" +
			"  call MPI_Init()\n  call MPI_Comm_size(MPI_COMM_WORLD, n)\n  call mtest_size(m)\n  call cpart(c)\n" +
			"  if (n == 2 .and. m == 2 .and. c == 2) print *, 'No Errors'\n  if (n /= 2) print *, 'size', n\n" +
			"  call MPI_Finalize()\nend program\n",
		"f08/b/cpart.c": "#include <mpi.h>\n#include \"mpitestconf.h\"\n#ifndef F77_NAME_LOWER_USCORE\n#error no name mapping\n#endif\n" +
			"void cpart_(int *n) { MPI_Comm_size(MPI_COMM_WORLD, n); }\n",
	})
	out, code := runMPICHDirs(t, src, "f77/a,f08/b")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "f77/a/fsize  np=2: plain ok, library ok", out)
	require.Contains(t, out, "f08/b/mixed  np=2: plain ok, library ok", out)
}
