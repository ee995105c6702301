package test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	bin, lib := launcherBin(t), Lib(t)
	res := Result{Cmd: shellQuote(append([]string{"casperii"}, args...)), ExitCode: -1}
	t.Logf("launcher: %s", res.Cmd)
	shmBefore := listShm(t)
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	require.NoError(t, err)
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	require.NoError(t, err)
	defer stderr.Close()

	cmd := exec.Command(bin, args...)
	marker := fmt.Sprintf("%s=%d-%d", jobMarkerVar, os.Getpid(), jobSeq.Add(1))
	cmd.Env = append(jobEnv(os.Environ()), marker, "CASPERII_LIB="+lib)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	require.NoError(t, cmd.Start())
	tr := newTracker(cmd.Process.Pid, marker)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-tick.C:
			tr.scan()
		case <-timer.C:
			tr.scan()
			killed := tr.killAll()
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("launcher: timed out after %v; killed %s", timeout, strings.Join(killed, ", "))
		}
	}
	res.Duration = time.Since(start)
	res.ExitCode = exitCode(cmd.ProcessState, waitErr)
	deadline := time.Now().Add(2 * time.Second)
	for len(tr.alive()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if left := tr.alive(); len(left) > 0 {
		t.Errorf("launcher: %d process(es) outlived it by 2s and were killed: %s", len(left), strings.Join(tr.killAll(), ", "))
	}
	res.Stdout = readFile(filepath.Join(dir, "stdout"))
	res.Stderr = readFile(filepath.Join(dir, "stderr"))
	var added []string
	for range 10 {
		if added = newEntries(shmBefore, listShm(t)); len(added) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, e := range added {
		if shmHolder(e) == 0 {
			t.Errorf("launcher: the job left /dev/shm/%s (removed now)", e)
			os.RemoveAll(filepath.Join("/dev/shm", e))
		}
	}
	t.Logf("launcher: exit code %d after %v", res.ExitCode, res.Duration.Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("output of %s (exit code %d):\n%s", res.Cmd, res.ExitCode, res.Output())
		}
	})
	return res
}

// casperii run -ng 1 -node-size 2 -stats -- mpiexec -n 4 ip_exchange: two
// virtual nodes of one ghost and one user; every user's traffic is
// offloaded, as the stats lines show.
func TestLauncherRun(t *testing.T) {
	prog := CProg(t, "ip_exchange")
	l := Layout{N: 4, NodeSize: 2, NG: 1}
	res := runLauncher(t, DefaultTimeout, "run", "-ng", "1", "-node-size", "2", "-stats", "--",
		"mpiexec", "-n", "4", prog, fmt.Sprint(l.Users()))
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
	res := runLauncher(t, 30*time.Second, "run", "-node-size", "2", "--", "mpiexec", "-n", "4", prog, "99")
	require.Equal(t, 1, res.ExitCode, "the launcher exits with mpiexec's code")
	require.Len(t, Select(Results(res.Stdout), "test=size", "ok=0"), 2, "the job ran and its check failed")
}

// A misconfiguration is refused before anything starts: exit code 2 and
// one line naming the fix.
func TestLauncherMisconfiguration(t *testing.T) {
	prog := CProg(t, "ip_exchange")
	res := runLauncher(t, 30*time.Second, "run", "-ng", "3", "-node-size", "2", "--", "mpiexec", "-n", "4", prog, "2")
	require.Equal(t, 2, res.ExitCode)
	require.Empty(t, res.Stdout)
	require.Equal(t, "casperii: -ng 3 with -node-size 2 leaves no user per node; use -ng 1 or a larger -node-size\n", res.Stderr)

	res = runLauncher(t, 30*time.Second, "run", "-hints", "wildcard_used=nope", "--", "mpiexec", "-n", "4", prog, "3")
	require.Equal(t, 2, res.ExitCode)
	require.Equal(t, 1, strings.Count(res.Stderr, "\n"), res.Stderr)
	require.Contains(t, res.Stderr, `casperii: -hints wildcard_used=nope: wildcard_used="nope" is not valid; accepted: `)
}
