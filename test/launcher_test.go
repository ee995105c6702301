package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/mpich/mpichtest"
)

// The casperii launcher (cmd/casperii) end to end: it sets the runtime's
// environment and LD_PRELOAD, starts mpiexec, and passes the exit code on.

// launcherBin builds cmd/casperii once per test binary and returns its path.
func launcherBin(t *testing.T) string {
	t.Helper()
	r := Root(t)
	dir := buildDir(t)
	b := buildOnce("launcher", func() (string, string, error) {
		out := filepath.Join(dir, "casperii")
		return out, "", runTool(r, "go", "build", "-o", out, "./cmd/casperii")
	})
	if b.err != nil {
		t.Fatalf("harness: building cmd/casperii: %v", b.err)
	}
	return b.path
}

// runLauncher runs `casperii args...` with the library the harness built
// ($CASPERII_LIB) and the harness's checks: a timeout that kills every
// process of the job, no process left behind, no new /dev/shm entry.
// CSP_* and LD_PRELOAD of the test's environment are not passed.
func runLauncher(t *testing.T, timeout time.Duration, args ...string) Result {
	t.Helper()
	return runLauncherEnv(t, timeout, nil, args...)
}

// runLauncherEnv is runLauncher with env (KEY=value) added to the
// launcher's environment.
func runLauncherEnv(t *testing.T, timeout time.Duration, env []string, args ...string) Result {
	t.Helper()
	return supervise(t, "launcher", launcherBin(t), args, append([]string{"CASPERII_LIB=" + Lib(t)}, env...), timeout)
}

// casperii run -ng 1 -node-size 2 -stats -- mpiexec -n 4 ip_exchange: two
// virtual nodes of one ghost and one user; every user's traffic is
// offloaded, as the stats lines show.
func TestLauncherRun(t *testing.T) {
	prog := CProg(t, "ip_exchange")
	l := Layout{N: 4, NodeSize: 2, NG: 1}
	res := runLauncher(t, DefaultTimeout, "run", "-ng", "1", "-node-size", "2", "-stats", "--",
		MPICH(t, "mpiexec"), "-n", "4", prog, fmt.Sprint(l.Users()))
	rs := ipRequireResults(t, res, l.Users()*(4+5*12))
	require.Len(t, Select(rs, "test=world"), l.Users())
	for r, s := range ipRequireStats(t, res, l.Users()) {
		require.Positive(t, s.IsendOffloaded, "rank %d: %s", r, s.Fields.Line())
		require.Positive(t, s.IrecvOffloaded, "rank %d: %s", r, s.Fields.Line())
	}
}

// The job's exit code is the launcher's: ip_plain told to expect 99 users
// fails its size check and every rank returns 1, so mpiexec exits with 1,
// alone and under casperii. (MPI_Abort is no good here: Hydra's exit code
// after an abort varies between the abort code and the signal that killed
// the other ranks.)
func TestLauncherExitCode(t *testing.T) {
	prog := CProg(t, "ip_plain")
	direct := Run(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Args: []string{"99"}, Preload: true, Timeout: 30 * time.Second})
	require.Equal(t, 1, direct.ExitCode)
	res := runLauncher(t, 30*time.Second, "run", "-node-size", "2", "--", MPICH(t, "mpiexec"), "-n", "4", prog, "99")
	require.Equal(t, 1, res.ExitCode, "the launcher exits with mpiexec's code")
	require.Len(t, Select(Results(res.Stdout), "test=size", "ok=0"), 2, "the job ran and its check failed")
}

// A misconfiguration is refused before anything starts: exit code 2 and
// one line naming the fix.
func TestLauncherMisconfiguration(t *testing.T) {
	prog := CProg(t, "ip_exchange")
	mpiexec := MPICH(t, "mpiexec")
	res := runLauncher(t, 30*time.Second, "run", "-ng", "3", "-node-size", "2", "--", mpiexec, "-n", "4", prog, "2")
	require.Equal(t, 2, res.ExitCode)
	require.Empty(t, res.Stdout)
	require.Equal(t, "casperii: -ng 3 with -node-size 2 leaves no user per node; use -ng 1 or a larger -node-size\n", res.Stderr)

	res = runLauncher(t, 30*time.Second, "run", "-hints", "wildcard_used=nope", "--", mpiexec, "-n", "4", prog, "3")
	require.Equal(t, 2, res.ExitCode)
	require.Equal(t, 1, strings.Count(res.Stderr, "\n"), res.Stderr)
	require.Contains(t, res.Stderr, `casperii: -hints wildcard_used=nope: wildcard_used="nope" is not valid; accepted: `)
}

// An mpiexec that is not MPICH's is refused before anything starts, with
// exit code 2 and one line naming MPICH's mpiexec, whether it comes first
// in PATH (where Debian's alternatives made Open MPI the default) or the
// user names it; the job never reaches it. MPICH's own, named explicitly,
// still runs the job with Open MPI first in PATH.
func TestLauncherRefusesOtherMPIExec(t *testing.T) {
	prog := CProg(t, "ip_exchange")
	mpiexec := MPICH(t, "mpiexec")
	ompi := t.TempDir()
	require.NoError(t, mpichtest.OpenMPI(ompi, false))
	path := "PATH=" + ompi + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, word := range []string{"mpiexec", "mpirun", filepath.Join(ompi, "mpiexec")} {
		res := runLauncherEnv(t, 30*time.Second, []string{path}, "run", "-node-size", "2", "--", word, "-n", "4", prog, "2")
		require.Equal(t, 2, res.ExitCode, word)
		require.Empty(t, res.Stdout)
		require.Equal(t, fmt.Sprintf("casperii: %s (%s) is Open MPI's launcher (mpiexec (OpenRTE) 4.1.4); run the job with MPICH's %s\n",
			word, filepath.Join(ompi, filepath.Base(word)), mpiexec), res.Stderr)
	}
	calls, _ := os.ReadFile(mpichtest.Calls(ompi))
	require.NotContains(t, string(calls), " -n 4", "the job went to Open MPI's launcher")

	l := Layout{N: 4, NodeSize: 2, NG: 1}
	res := runLauncherEnv(t, DefaultTimeout, []string{path}, "run", "-node-size", "2", "-stats", "--", mpiexec, "-n", "4", prog, fmt.Sprint(l.Users()))
	ipRequireStats(t, res, l.Users())
	ipRequireResults(t, res, l.Users()*(4+5*12))
}
