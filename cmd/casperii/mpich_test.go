package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/mpich/mpichtest"
)

// ldd on a program compiled with mpicc shows MPICH: accepted.
func TestCheckAppMPICH(t *testing.T) {
	prog := mpiProg(t)
	a, err := checkApp("./hello", prog)
	require.NoError(t, err)
	require.Contains(t, a.mpich, mpichSoname)
	require.False(t, a.static)
}

// ldd output of a program built with Open MPI (captured on Ubuntu 22.04,
// Open MPI 4.1.2) and of others: rejected in one line naming the fix.
const lddOpenMPI = `	linux-vdso.so.1 (0x00007ffd6a5f2000)
	libmpi.so.40 => /lib/x86_64-linux-gnu/libmpi.so.40 (0x00007f2b7c8e1000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f2b7c6b9000)
	libopen-rte.so.40 => /lib/x86_64-linux-gnu/libopen-rte.so.40 (0x00007f2b7c5fc000)
	libopen-pal.so.40 => /lib/x86_64-linux-gnu/libopen-pal.so.40 (0x00007f2b7c548000)
	/lib64/ld-linux-x86-64.so.2 (0x00007f2b7cc2a000)
`

func TestCheckLddOutput(t *testing.T) {
	_, err := checkLddOutput("./app", lddOpenMPI)
	require.EqualError(t, err, "casperii: ./app is linked to Open MPI (libmpi.so.40), but libcasperii.so works with MPICH (libmpich.so.12) only; rebuild it with MPICH's mpicc/mpifort (mpicc.mpich and mpifort.mpich where Open MPI is the default)")

	intel := "\tlibmpifort.so.12 => /opt/intel/mpi/lib/libmpifort.so.12 (0x1)\n\tlibmpi.so.12 => /opt/intel/mpi/lib/release/libmpi.so.12 (0x2)\n"
	_, err = checkLddOutput("./app", intel)
	require.ErrorContains(t, err, "is linked to an MPICH-ABI MPI other than the MPICH libcasperii.so uses (Intel MPI, or an MPICH built from source) (libmpifort.so.12)")

	// MPICH and another MPI at once: rejected.
	_, err = checkLddOutput("./app", "\tlibmpich.so.12 => /usr/lib/libmpich.so.12 (0x1)\n\tlibmpi.so.40 => /usr/lib/libmpi.so.40 (0x2)\n")
	require.ErrorContains(t, err, "Open MPI (libmpi.so.40)")

	_, err = checkLddOutput("./app", "\tlibmpich.so.12 => not found\n\tlibc.so.6 => /lib/libc.so.6 (0x1)\n")
	require.EqualError(t, err, "casperii: ./app needs libmpich.so.12, which the loader does not find; add MPICH's library directory to LD_LIBRARY_PATH")

	a, err := checkLddOutput("./app", "\tlinux-vdso.so.1 (0x1)\n\tlibmpichfort.so.12 => /usr/lib/libmpichfort.so.12 (0x2)\n\tlibmpich.so.12 => /usr/lib/libmpich.so.12 (0x3)\n")
	require.NoError(t, err)
	require.Equal(t, "/usr/lib/libmpich.so.12", a.mpich)

	a, err = checkLddOutput("./static", "\tnot a dynamic executable\n")
	require.NoError(t, err)
	require.True(t, a.static)
	a, err = checkLddOutput("./static", "\tstatically linked\n")
	require.NoError(t, err)
	require.True(t, a.static)

	for _, out := range []string{lddOpenMPI, intel} {
		_, err := checkLddOutput("./app", out)
		require.NotContains(t, err.Error(), "\n")
	}
}

// checkApp runs ldd (here a fake one) on the binary.
func TestCheckAppFakeLdd(t *testing.T) {
	stubRunners(t, func(string) (string, error) { return lddOpenMPI, nil }, nil)
	_, err := checkApp("./app", "/bin/true")
	require.ErrorContains(t, err, "linked to Open MPI (libmpi.so.40)")
}

// A binary with MPI linked in statically defines MPI_Init itself.
func TestDefinesMPIInit(t *testing.T) {
	require.True(t, definesMPIInit(fakeLib(t)))
	require.False(t, definesMPIInit(mpiProg(t)), "a program linked to libmpich.so only calls MPI_Init")
	p := filepath.Join(t.TempDir(), "script")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
	require.False(t, definesMPIInit(p))
}

func TestCheckLauncher(t *testing.T) {
	stubMPICH(t, map[string]string{"mpiexec": "/usr/bin/mpiexec.mpich"})
	stubRunners(t, nil, hydraVersion)
	require.NoError(t, checkLauncher("mpiexec", "/usr/bin/mpiexec"))

	// Anything but Hydra is refused, naming MPICH's mpiexec.
	for _, tc := range []struct {
		out  string
		err  error
		want string
	}{
		{mpichtest.OpenMPIVersion, nil,
			"casperii: mpirun (/usr/bin/mpirun) is Open MPI's launcher (mpiexec (OpenRTE) 4.1.4); run the job with MPICH's /usr/bin/mpiexec.mpich"},
		{"something else 1.0\n", nil,
			"casperii: mpirun (/usr/bin/mpirun) is not MPICH's Hydra (mpirun --version: something else 1.0); run the job with MPICH's /usr/bin/mpiexec.mpich"},
		{"", errors.New("exit status 2"),
			"casperii: mpirun (/usr/bin/mpirun) does not say it is MPICH's Hydra (mpirun --version: exit status 2); run the job with MPICH's /usr/bin/mpiexec.mpich"},
	} {
		stubRunners(t, nil, func(string, ...string) (string, error) { return tc.out, tc.err })
		require.EqualError(t, checkLauncher("mpirun", "/usr/bin/mpirun"), tc.want)
	}

	// No MPICH at all: install it.
	stubMPICH(t, nil)
	stubRunners(t, nil, func(string, ...string) (string, error) { return mpichtest.OpenMPIVersion, nil })
	require.EqualError(t, checkLauncher("mpiexec", "/usr/bin/mpiexec"),
		"casperii: mpiexec (/usr/bin/mpiexec) is Open MPI's launcher (mpiexec (OpenRTE) 4.1.4); install MPICH (apt-get install mpich) and run the job with its mpiexec.mpich")
}

func TestParseLdd(t *testing.T) {
	deps, static := parseLdd(lddOpenMPI)
	require.False(t, static)
	require.Equal(t, []lddDep{
		{"libmpi.so.40", "/lib/x86_64-linux-gnu/libmpi.so.40"},
		{"libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"},
		{"libopen-rte.so.40", "/lib/x86_64-linux-gnu/libopen-rte.so.40"},
		{"libopen-pal.so.40", "/lib/x86_64-linux-gnu/libopen-pal.so.40"},
	}, deps)
}
