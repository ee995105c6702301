package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// casperii version names CasperII's version and revision, Go, MPICH and
// the library it would preload.
func TestVersion(t *testing.T) {
	lib := fakeLib(t)
	t.Setenv("CASPERII_LIB", lib)
	stubMPICH(t, map[string]string{"mpichversion": "/opt/mpich/bin/mpichversion"})
	stubRunners(t, nil, func(name string, args ...string) (string, error) {
		require.Equal(t, "/opt/mpich/bin/mpichversion", name)
		return "MPICH Version:      4.0.2\nMPICH Release date: Thu Apr  7 12:34:45 CDT 2022\nMPICH Device:       ch4:ucx\n", nil
	})
	old := gitDescribe
	gitDescribe = "v0.1.0-3-gabcdef1-dirty"
	t.Cleanup(func() { gitDescribe = old })

	st, out, errb := buffers()
	require.Equal(t, 0, runMain([]string{"version"}, st))
	require.Empty(t, errb.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 4, out.String())
	require.Equal(t, "casperii "+Version+" (v0.1.0-3-gabcdef1-dirty)", lines[0])
	require.Regexp(t, `^go: +go1\.\d+.* linux/`, lines[1])
	require.Equal(t, "mpich:   4.0.2 (ch4:ucx, /opt/mpich/bin)", lines[2])
	require.Equal(t, "library: "+lib+" (from $CASPERII_LIB)", lines[3])

	// Without a revision it says why; a missing library is explained.
	gitDescribe = ""
	t.Setenv("CASPERII_LIB", "/nonexistent/libcasperii.so")
	st, out, _ = buffers()
	require.Equal(t, 0, runMain([]string{"version"}, st))
	require.Contains(t, out.String(), "library: not found: CASPERII_LIB=/nonexistent/libcasperii.so: no such file")
	if buildVCS() == "" {
		require.Contains(t, out.String(), "(no source revision: built without VCS stamping")
	}
}
