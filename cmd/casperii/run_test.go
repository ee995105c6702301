package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func prepareFor(t *testing.T, environ []string, args ...string) (launch, string, error) {
	t.Helper()
	stubRunners(t, nil, hydraVersion)
	st, _, errb := buffers()
	finder := libFinder{getenv: envLookup(environ), build: func(string, string) error { t.Fatal("unexpected build"); return nil }}
	l, _, err := prepare(args, st, environ, finder)
	return l, errb.String(), err
}

// The variables go into the environment and, for mpiexec, as -genv
// options right after the mpiexec word.
func TestPrepareMpiexec(t *testing.T) {
	lib, app, mpiexec := fakeLib(t), mpiProg(t), fakeMpiexec(t)
	environ := []string{"PATH=/usr/bin:/bin", "CSP_NG=5", "CSP_VERBOSE=1"}
	l, warn, err := prepareFor(t, environ, "-lib", lib, "-ng", "1", "-node-size", "2", "-stats", "--", mpiexec, "-n", "4", app, "arg")
	require.NoError(t, err)
	require.Empty(t, warn)
	require.Equal(t, []string{mpiexec,
		"-genv", "CSP_NG", "1", "-genv", "CSP_NODE_SIZE", "2", "-genv", "CSP_STATS", "1", "-genv", "LD_PRELOAD", lib,
		"-n", "4", app, "arg"}, l.argv)
	// LD_PRELOAD reaches the ranks through -genv, not mpiexec itself.
	require.ElementsMatch(t, []string{"PATH=/usr/bin:/bin", "CSP_VERBOSE=1",
		"CSP_NG=1", "CSP_NODE_SIZE=2", "CSP_STATS=1"}, l.environ)
}

// Another command (here the application itself, or sh) gets the
// environment only; an existing LD_PRELOAD is kept after the library.
func TestPrepareOtherCommand(t *testing.T) {
	lib := fakeLib(t)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	l, warn, err := prepareFor(t, []string{"LD_PRELOAD=/opt/other.so"}, "-lib", lib, "-hints", "wildcard_used=none", "--", sh, "-c", "true")
	require.NoError(t, err)
	require.Contains(t, warn, "does not link an MPI library")
	require.Equal(t, []string{sh, "-c", "true"}, l.argv)
	require.ElementsMatch(t, []string{"CSP_WORLD_HINTS=wildcard_used=none", "LD_PRELOAD=" + lib + ":/opt/other.so"}, l.environ)

	// Already preloaded: left as it is.
	l, _, err = prepareFor(t, []string{"LD_PRELOAD=" + lib}, "-lib", lib, "--", sh)
	require.NoError(t, err)
	require.Equal(t, []string{"LD_PRELOAD=" + lib}, l.environ)

	// An MPICH program started alone is one process: no user with a ghost.
	_, _, err = prepareFor(t, nil, "-lib", lib, "--", mpiProg(t))
	require.ErrorContains(t, err, "leaves no user among the 1 process of")
}

func TestPrepareErrors(t *testing.T) {
	lib, app, mpiexec := fakeLib(t), mpiProg(t), fakeMpiexec(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-lib", lib, "-ng", "3", "-node-size", "2", "--", mpiexec, "-n", "4", app},
			"casperii: -ng 3 with -node-size 2 leaves no user per node; use -ng 1 or a larger -node-size"},
		{[]string{"-lib", lib, "--", mpiexec, "-n", "4", "./no-such-app"},
			"casperii: the application ./no-such-app is not found (stat ./no-such-app: no such file or directory); give its path, e.g. ./no-such-app"},
		{[]string{"-lib", lib, "--", "no-such-mpiexec", "-n", "4", app},
			"casperii: no-such-mpiexec: command not found; install MPICH's mpiexec (Hydra) or give the command's path"},
		{[]string{"-lib", "/nonexistent.so", "--", mpiexec, "-n", "4", app},
			"casperii: -lib /nonexistent.so: no such file; point it at lib/libcasperii.so (make build writes it)"},
		{[]string{"-lib", lib},
			"casperii run: no command to run; usage: casperii run [flags] -- mpiexec -n 4 ./app"},
	} {
		_, _, err := prepareFor(t, []string{"PATH=" + os.Getenv("PATH")}, tc.args...)
		require.EqualError(t, err, tc.want)
	}

	// The application linked to Open MPI (a fake ldd says so).
	stubRunners(t, func(string) (string, error) { return lddOpenMPI, nil }, nil)
	st, _, _ := buffers()
	_, _, err := prepare([]string{"-lib", lib, "--", mpiexec, "-n", "2", app}, st, nil, libFinder{getenv: envOf(nil)})
	require.ErrorContains(t, err, "is linked to Open MPI (libmpi.so.40)")
}

// buildLauncher builds the casperii command into a temporary directory.
func buildLauncher(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "casperii")
	b, err := exec.Command("go", "build", "-o", out, ".").CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// childOf returns the pid of a child of pid whose command name is name
// (0 if none yet).
func childOf(pid int, name string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i, k := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || k < i {
			continue
		}
		f := strings.Fields(s[k+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) && s[i+1:k] == name {
			return p
		}
	}
	return 0
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// The launcher passes the streams through, exits with the command's exit
// code, forwards SIGTERM and SIGINT, and refuses a misconfiguration with
// exit code 2 and one line.
func TestLauncherProcess(t *testing.T) {
	bin, lib := buildLauncher(t), fakeLib(t)
	env := append(os.Environ(), "CASPERII_LIB="+lib)

	cmd := exec.Command(bin, "run", "-ng", "0", "--", "sh", "-c", "read x; echo \"got $x $CSP_NG\"; exit 7")
	cmd.Env = env
	cmd.Stdin = strings.NewReader("hello\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.Equal(t, 7, cmd.ProcessState.ExitCode(), "%v %s", err, errb.String())
	require.Equal(t, "got hello 0\n", out.String())

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "run", "--", "sleep", "60")
			cmd.Env = env
			require.NoError(t, cmd.Start())
			var child int
			for deadline := time.Now().Add(20 * time.Second); child == 0 && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				child = childOf(cmd.Process.Pid, "sleep")
			}
			require.NotZero(t, child, "sleep did not start")
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				syscall.Kill(child, syscall.SIGKILL)
				t.Fatal("the launcher did not end after " + sig.String())
			}
			require.Equal(t, 128+int(sig), exitStatus(cmd.ProcessState))
			require.False(t, alive(child), "the command outlived the launcher")
		})
	}

	cmd = exec.Command(bin, "run", "-ng", "3", "-node-size", "2", "--", "mpiexec", "-n", "4", "./app")
	cmd.Env = env
	errb.Reset()
	cmd.Stderr = &errb
	cmd.Run()
	require.Equal(t, exitUsage, cmd.ProcessState.ExitCode())
	require.Equal(t, "casperii: -ng 3 with -node-size 2 leaves no user per node; use -ng 1 or a larger -node-size\n", errb.String())
}

func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
