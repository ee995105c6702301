package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/mpich/mpichtest"
)

// fakeMachine makes a machine where Debian's alternatives point the plain
// commands at Open MPI (bin/mpicc -> alternatives/mpi -> the Open MPI
// stand-in) and, with mpich, MPICH is installed beside it under its .mpich
// names. It returns the PATH and the two directories of stand-ins.
func fakeMachine(t *testing.T, mpich bool) (path, ompi, mpichDir string) {
	t.Helper()
	root := t.TempDir()
	bin, alt := filepath.Join(root, "bin"), filepath.Join(root, "alternatives")
	ompi, mpichDir = filepath.Join(root, "openmpi"), filepath.Join(root, "mpich")
	require.NoError(t, mpichtest.OpenMPI(ompi, false))
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.MkdirAll(alt, 0o755))
	for name, link := range map[string]string{"mpicc": "mpi", "mpifort": "mpifort", "mpiexec": "mpiexec", "mpirun": "mpirun"} {
		require.NoError(t, os.Symlink(filepath.Join(ompi, name), filepath.Join(alt, link)))
		require.NoError(t, os.Symlink(filepath.Join(alt, link), filepath.Join(bin, name)))
	}
	path = bin
	if mpich {
		require.NoError(t, mpichtest.MPICH(mpichDir, ".mpich"))
		path += string(os.PathListSeparator) + mpichDir
	}
	fake := filepath.Join(root, "pkg-config")
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\n[ \"$*\" = '--modversion mpich' ] && echo 4.0.2\n"), 0o755))
	oldAlt, oldPC := alternatives, pkgConfig
	alternatives, pkgConfig = alt, fake
	t.Cleanup(func() { alternatives, pkgConfig = oldAlt, oldPC })
	return path, ompi, mpichDir
}

// Open MPI is the default through the alternatives, MPICH beside it: the
// report says so, command by command, and names MPICH's.
func TestReportOpenMPIDefault(t *testing.T) {
	path, ompi, mpich := fakeMachine(t, true)
	var out bytes.Buffer
	require.Equal(t, 0, report(&out, path), out.String())
	require.Equal(t, strings.Join([]string{
		"mpicc -> Open MPI (alternatives: " + ompi + "/mpicc); CasperII uses " + mpich + "/mpicc.mpich",
		"mpifort -> Open MPI (alternatives: " + ompi + "/mpifort); CasperII uses " + mpich + "/mpifort.mpich",
		"mpiexec -> Open MPI (alternatives: " + ompi + "/mpiexec); CasperII uses " + mpich + "/mpiexec.mpich",
		"mpirun -> Open MPI (alternatives: " + ompi + "/mpirun); CasperII uses " + mpich + "/mpirun.mpich",
		"MPICH Version: 4.0.2 (" + mpich + "/mpichversion)",
		"pkg-config mpich 4.0.2: cgo builds with MPICH's mpi.h and -lmpich",
	}, "\n")+"\n", out.String())
}

// Open MPI only: exit code 1, and each line says what is missing and what
// to do.
func TestReportOnlyOpenMPI(t *testing.T) {
	path, ompi, _ := fakeMachine(t, false)
	var out bytes.Buffer
	require.Equal(t, 1, report(&out, path))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 6, out.String())
	require.Equal(t, "mpiexec -> Open MPI (alternatives: "+ompi+"/mpiexec); MPICH's mpiexec is not on PATH: "+
		strings.Split(path, string(os.PathListSeparator))[0]+"/mpiexec is Open MPI's (mpiexec (OpenRTE) 4.1.4); install MPICH (bash scripts/setup.sh, or apt-get install mpich libmpich-dev) or put its bin directory first in PATH", lines[2])
	require.Contains(t, lines[4], "MPICH's mpichversion is not on PATH")
}

// No alternatives in the way: the plain command's own path.
func TestReportPlain(t *testing.T) {
	mpich := t.TempDir()
	require.NoError(t, mpichtest.MPICH(mpich, ""))
	require.Equal(t, "MPICH ("+mpich+"/mpicc)", plain("mpicc", mpich))
	require.Equal(t, "none", plain("mpicc", t.TempDir()))
}
