package test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ipLinkModes are the two ways a program gets the library, as subtest
// names: preloaded, and linked with -lcasperii before MPICH.
var ipLinkModes = []struct {
	name   string
	linked bool
}{{"preload", false}, {"linked", true}}

// FortranProg compiles test/cprogs/<name>.f90 with MPICH's mpifort -O2 once
// per test binary and returns the path of the program.
func FortranProg(t *testing.T, name string) string {
	t.Helper()
	return toolProg(t, "mpifort", "f", name+".f90")
}

// CxxProg compiles test/cprogs/<name>.cxx with MPICH's mpicxx -O2 once per
// test binary and returns the path of the program.
func CxxProg(t *testing.T, name string) string {
	t.Helper()
	return toolProg(t, "mpicxx", "cxx", name+".cxx")
}

// toolProg compiles test/cprogs/<file> with MPICH's compiler tool -O2 into
// <kind>-<name> of the build directory, once per test binary.
func toolProg(t *testing.T, tool, kind, file string) string {
	t.Helper()
	r := Root(t)
	dir := buildDir(t)
	name := strings.TrimSuffix(file, filepath.Ext(file))
	b := buildOnce(kind+":"+name, func() (string, string, error) {
		out := filepath.Join(dir, kind+"-"+name)
		return out, "", mpichTool(r, tool, "-O2", filepath.Join("test", "cprogs", file), "-o", out)
	})
	if b.err != nil {
		t.Fatalf("harness: compiling %s with %s: %v", file, tool, b.err)
	}
	return b.path
}

// LinkedCProg compiles test/cprogs/<name>.c linked with -lcasperii before
// the MPI library (mpicc appends its own libraries after ours), with an
// rpath to lib/, and returns the path of the program.
func LinkedCProg(t *testing.T, name string) string {
	t.Helper()
	libDir := filepath.Dir(Lib(t))
	return CProg(t, name, "-L"+libDir, "-lcasperii", "-Wl,-rpath,"+libDir)
}

// ipRequireResults checks that the job exited 0 and printed at least want
// "result" lines, all with ok=1, and returns them.
func ipRequireResults(t *testing.T, res Result, want int) []Fields {
	t.Helper()
	require.Equal(t, 0, res.ExitCode, "the job failed")
	rs := Results(res.Stdout)
	require.GreaterOrEqual(t, len(rs), want, "too few result lines")
	for _, f := range rs {
		require.True(t, f.Match("ok=1"), "a check failed: %s", f.Line())
	}
	return rs
}

// ipRequireStats parses the casperii-stats lines and checks there is one per
// user.
func ipRequireStats(t *testing.T, res Result, users int) map[int]Stats {
	t.Helper()
	st, err := StatsLines(res.Stderr)
	require.NoError(t, err)
	require.Len(t, st, users, "one casperii-stats line per user")
	return st
}
