package mpich

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/mpich/mpichtest"
)

// tools are the commands the repository builds and launches with.
var tools = []string{"mpicc", "mpifort", "mpiexec", "mpirun", "mpichversion"}

// pathOf joins directories into a PATH value.
func pathOf(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }

// Open MPI is the default (its plain names first in PATH) and MPICH is
// installed beside it under Debian's .mpich names: every command resolves
// to MPICH's, whichever way Open MPI's wrappers treat -show.
func TestLookupPrefersMPICHOverOpenMPIDefault(t *testing.T) {
	for _, showFails := range []bool{false, true} {
		ompi, mpich := t.TempDir(), t.TempDir()
		require.NoError(t, mpichtest.OpenMPI(ompi, showFails))
		require.NoError(t, mpichtest.MPICH(mpich, ".mpich"))
		// The plain names in the MPICH directory too, as Debian's
		// alternatives would leave them for MPICH: still after Open MPI's.
		require.NoError(t, mpichtest.MPICH(mpich, ""))
		for _, path := range []string{pathOf(ompi, mpich), pathOf(mpich, ompi)} {
			for _, name := range tools {
				p, err := Lookup(name, path)
				require.NoError(t, err, "%s (PATH %s)", name, path)
				want := name + ".mpich"
				if name == "mpichversion" {
					want = name
				}
				require.Equal(t, filepath.Join(mpich, want), p)
			}
		}
	}
}

// MPICH built from source: plain names only, taken before or after an
// Open MPI that comes first in PATH (checked and passed over).
func TestLookupPlainMPICH(t *testing.T) {
	ompi, mpich := t.TempDir(), t.TempDir()
	require.NoError(t, mpichtest.OpenMPI(ompi, false))
	require.NoError(t, mpichtest.MPICH(mpich, ""))
	for _, path := range []string{pathOf(mpich, ompi), pathOf(ompi, mpich)} {
		for _, name := range tools {
			p, err := Lookup(name, path)
			require.NoError(t, err)
			require.Equal(t, filepath.Join(mpich, name), p)
		}
	}
}

// Only Open MPI: a clear error of one line that names what was found,
// whose it is, and the fix.
func TestLookupOnlyOpenMPI(t *testing.T) {
	for _, showFails := range []bool{false, true} {
		ompi := t.TempDir()
		require.NoError(t, mpichtest.OpenMPI(ompi, showFails))
		path := pathOf(ompi, t.TempDir())

		_, err := Lookup("mpicc", path)
		require.EqualError(t, err, "MPICH's mpicc is not on PATH: "+filepath.Join(ompi, "mpicc")+
			" is Open MPI's (mpicc: Open MPI 4.1.4 (Language: C)); "+Install)
		_, err = Lookup("mpifort", path)
		require.ErrorContains(t, err, "mpifort is Open MPI's (mpifort: Open MPI 4.1.4 (Language: Fortran))")
		_, err = Lookup("mpiexec", path)
		require.EqualError(t, err, "MPICH's mpiexec is not on PATH: "+filepath.Join(ompi, "mpiexec")+
			" is Open MPI's (mpiexec (OpenRTE) 4.1.4); "+Install)
		_, err = Lookup("mpichversion", path)
		require.EqualError(t, err, "MPICH's mpichversion is not on PATH (no mpichversion); "+Install)
		for _, name := range tools {
			_, err := Lookup(name, path)
			require.Error(t, err)
			require.NotContains(t, err.Error(), "\n", "one line")
		}
	}
	// Nothing at all.
	_, err := Lookup("mpiexec", pathOf(t.TempDir()))
	require.EqualError(t, err, "MPICH's mpiexec is not on PATH (no mpiexec.mpich or mpiexec); "+Install)
	_, err = Lookup("mpicc", "")
	require.Error(t, err)
}

// A .mpich name that is not MPICH's (a broken or stray file) is passed
// over for a plain MPICH one, and both are named when neither is MPICH's.
func TestLookupChecksMPICHNames(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mpiexec.mpich"), []byte("#!/bin/sh\necho something else 1.0\n"), 0o755))
	ompi := t.TempDir()
	require.NoError(t, mpichtest.OpenMPI(ompi, false))
	_, err := Lookup("mpiexec", pathOf(dir, ompi))
	require.EqualError(t, err, "MPICH's mpiexec is not on PATH: "+filepath.Join(dir, "mpiexec.mpich")+" is not MPICH's (something else 1.0); "+
		filepath.Join(ompi, "mpiexec")+" is Open MPI's (mpiexec (OpenRTE) 4.1.4); "+Install)

	mpich := t.TempDir()
	require.NoError(t, mpichtest.MPICH(mpich, ""))
	p, err := Lookup("mpiexec", pathOf(dir, mpich))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(mpich, "mpiexec"), p)

	// Not executable, a directory, a relative PATH entry: not commands.
	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "mpicc.mpich"), []byte("#!/bin/sh\necho -lmpich\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(bad, "mpicc"), 0o755))
	_, err = Lookup("mpicc", pathOf(bad, "relative/dir"))
	require.EqualError(t, err, "MPICH's mpicc is not on PATH (no mpicc.mpich or mpicc); "+Install)

	_, err = Lookup("gcc", pathOf(mpich))
	require.Error(t, err)
}

// On this machine, with Open MPI stand-ins first in PATH: the real MPICH
// commands (Debian's .mpich names) are found, and the real ones are
// MPICH's by their own output.
func TestFindRealMPICH(t *testing.T) {
	if _, err := Lookup("mpichversion", os.Getenv("PATH")); err != nil {
		t.Skipf("MPICH is not installed: %v", err)
	}
	ompi := t.TempDir()
	require.NoError(t, mpichtest.OpenMPI(ompi, false))
	t.Setenv("PATH", pathOf(ompi, os.Getenv("PATH")))
	for _, name := range tools {
		p, err := Find(name)
		require.NoError(t, err, name)
		require.NotEqual(t, ompi, filepath.Dir(p), name)
		impl, detail := Identify(name, p)
		require.Equal(t, MPICH, impl, "%s: %s", p, detail)
		again, err := Find(name)
		require.NoError(t, err)
		require.Equal(t, p, again)
	}
	// The stand-ins were at most asked who they are (with Debian's .mpich
	// names they are not even asked).
	b, _ := os.ReadFile(mpichtest.Calls(ompi))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		require.Regexp(t, `^(|\S+ (-show|--showme:version|--version))$`, l)
	}
}

func TestLauncher(t *testing.T) {
	for out, want := range map[string]string{
		mpichtest.HydraVersion:      MPICH,
		mpichtest.OpenMPIVersion:    OpenMPI,
		"mpirun (Open MPI) 5.0.3\n": OpenMPI,
		"prterun (PRRTE) 3.0.5\n":   OpenMPI,
		"Intel(R) MPI Library for Linux* OS, Version 2021.10 Build 20230619 (id: c2e19c2f3e)\nCopyright 2003-2023, Intel Corporation.\n": IntelMPI,
		"something else 1.0\n": "",
		"":                     "",
	} {
		require.Equal(t, want, Launcher(out), out)
	}
}

func TestWhose(t *testing.T) {
	require.Equal(t, "Open MPI's (mpiexec (OpenRTE) 4.1.4)", Whose(OpenMPI, "mpiexec (OpenRTE) 4.1.4"))
	require.Equal(t, "not MPICH's (x 1.0)", Whose("", "x 1.0"))
	require.Equal(t, "not MPICH's", Whose("", ""))
}
