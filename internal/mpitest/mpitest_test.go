package mpitest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envSelfTest selects a helper behaviour for nested runs of this test binary
// (see TestHelper).
const envSelfTest = "MPITEST_SELFTEST"

// The tests themselves run as a 2-rank job that never initializes MPI.
func TestMain(m *testing.M) {
	Main(m, 2)
}

// TestHelper is the body of the nested jobs launched by the tests below.
func TestHelper(t *testing.T) {
	mode := os.Getenv(envSelfTest)
	if mode == "" {
		t.Skip("helper for nested runs")
	}
	rank := Rank()
	fmt.Printf("helper rank %d of %d mode %s\n", rank, Size(), mode)
	switch mode {
	case "pass":
	case "fail1":
		if rank == 1 {
			t.Fatalf("helper failure on rank %d", rank)
		}
	case "hang":
		select {}
	case "stray":
		if rank == 1 {
			// A grandchild that outlives the job. It must not inherit
			// Hydra's PMI and control sockets, or mpiexec itself would wait
			// for it (and only the deadline would end the job).
			fds, err := os.ReadDir("/proc/self/fd")
			require.NoError(t, err)
			for _, fd := range fds {
				if n, err := strconv.Atoi(fd.Name()); err == nil && n > 2 {
					syscall.CloseOnExec(n)
				}
			}
			cmd := exec.Command("sleep", "600")
			cmd.Stdout = os.Stdout
			cmd.Stderr = os.Stderr
			require.NoError(t, cmd.Start())
		}
	default:
		t.Fatalf("unknown mode %q", mode)
	}
}

func fakeEnv(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestDetection(t *testing.T) {
	cases := []struct {
		name       string
		env        func(string) string
		in         bool
		rank, size int
	}{
		{"none", fakeEnv(), false, -1, 0},
		{"hydra", fakeEnv("PMI_RANK", "3", "PMI_SIZE", "4", "PMI_FD", "6", "HYDI_CONTROL_FD", "7"), true, 3, 4},
		{"pmi port", fakeEnv("PMI_PORT", "host:1234", "PMI_ID", "1"), true, 0, 1},
		{"pmix", fakeEnv("PMIX_RANK", "2"), true, 2, 1},
		{"openmpi", fakeEnv("OMPI_COMM_WORLD_RANK", "1", "OMPI_COMM_WORLD_SIZE", "5"), true, 1, 5},
		{"marker only", fakeEnv(envChild, "1"), true, 0, 1},
		{"hydra control fd only", fakeEnv("HYDI_CONTROL_FD", "7"), true, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.in, inJob(c.env))
			assert.Equal(t, c.rank, rankFrom(c.env))
			assert.Equal(t, c.size, sizeFrom(c.env))
		})
	}
}

func TestParseTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s": 90 * time.Second, "2m": 2 * time.Minute, "300": 300 * time.Second, "0.5": 500 * time.Millisecond, "0": 0,
	} {
		got, err := ParseTimeout(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "abc", "-1", "-3s"} {
		_, err := ParseTimeout(bad)
		assert.Error(t, err, bad)
	}
}

func TestCleanEnv(t *testing.T) {
	got := cleanEnv([]string{"PATH=/bin", "PMI_RANK=1", "PMI_FD=6", "HYDI_CONTROL_FD=7", "PMIX_RANK=0",
		"MPI_LOCALRANKID=1", envChild + "=1", envOutDir + "=/tmp/x", EnvTimeout + "=5s", "HYDRA_LAUNCHER=fork"})
	assert.Equal(t, []string{"PATH=/bin", EnvTimeout + "=5s", "HYDRA_LAUNCHER=fork"}, got)
}

// TestInJob runs in every rank of this package's own job.
func TestInJob(t *testing.T) {
	assert.True(t, InJob())
	assert.True(t, LaunchedByMain())
	assert.Contains(t, []int{0, 1}, Rank())
	assert.Equal(t, 2, Size())
	assert.NotEmpty(t, os.Getenv(envDeadline), "ranks get a deadline")
}

// TestRanksRunConcurrently has the ranks meet through the job's shared directory.
func TestRanksRunConcurrently(t *testing.T) {
	dir := os.Getenv(envOutDir)
	require.NotEmpty(t, dir)
	rank := Rank()
	require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("meet-%d", rank)), nil, 0o644))
	other := filepath.Join(dir, fmt.Sprintf("meet-%d", 1-rank))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(other); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the other rank never showed up")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nested launches this test binary's TestHelper as a job (from rank 0 only).
func nested(t *testing.T, mode string, cfg LaunchConfig) (LaunchResult, string, string, time.Duration) {
	t.Helper()
	if Rank() != 0 {
		t.Skip("nested jobs are launched by rank 0")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	cfg.Binary = exe
	cfg.Args = []string{"-test.run=^TestHelper$", "-test.v"}
	cfg.Env = append(cfg.Env, envSelfTest+"="+mode)
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	if cfg.NP == 0 {
		cfg.NP = 2
	}
	start := time.Now()
	res := Launch(cfg)
	return res, stdout.String(), stderr.String(), time.Since(start)
}

func TestLaunchPassRank0Output(t *testing.T) {
	res, out, errOut, _ := nested(t, "pass", LaunchConfig{Timeout: 60 * time.Second})
	require.Equal(t, 0, res.ExitCode, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Equal(t, map[int]int{0: 0, 1: 0}, res.RankCodes)
	assert.Contains(t, out, "helper rank 0 of 2 mode pass")
	assert.NotContains(t, out+errOut, "helper rank 1", "rank 1's output is hidden when the job passes")
	assert.Equal(t, 1, strings.Count(out, "\nPASS\n"), "one PASS line")
}

func TestLaunchPassAllOutput(t *testing.T) {
	res, out, errOut, _ := nested(t, "pass", LaunchConfig{Timeout: 60 * time.Second, AllOutput: true})
	require.Equal(t, 0, res.ExitCode, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Contains(t, out, "helper rank 0 of 2")
	assert.Contains(t, out, "helper rank 1 of 2")
}

func TestLaunchRankFailureFailsJob(t *testing.T) {
	res, out, errOut, _ := nested(t, "fail1", LaunchConfig{Timeout: 60 * time.Second})
	assert.NotEqual(t, 0, res.ExitCode)
	assert.False(t, res.TimedOut)
	assert.Equal(t, map[int]int{0: 0, 1: 1}, res.RankCodes)
	assert.Contains(t, errOut, "mpitest: rank 1 exited with code 1")
	assert.Contains(t, errOut, "=== mpitest: output of rank 1 ===")
	assert.Contains(t, errOut, "helper failure on rank 1")
	assert.Contains(t, out, "helper rank 0")
}

func TestLaunchTimeoutKillsJob(t *testing.T) {
	res, out, errOut, took := nested(t, "hang", LaunchConfig{Timeout: 3 * time.Second})
	assert.True(t, res.TimedOut, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Equal(t, TimeoutExitCode, res.ExitCode)
	assert.Less(t, took, 15*time.Second)
	assert.Contains(t, errOut, "exceeded its timeout")
	// The watchdog fired in the ranks before the launcher's deadline and dumped stacks.
	assert.Equal(t, map[int]int{0: WatchdogExitCode, 1: WatchdogExitCode}, res.RankCodes)
	assert.Contains(t, out+errOut, "job deadline reached; goroutines:")
	assert.Contains(t, out+errOut, "TestHelper")
	assert.False(t, liveDescendants(), "no process of the job survives")
}

func TestLaunchKillsStrayProcesses(t *testing.T) {
	res, out, errOut, took := nested(t, "stray", LaunchConfig{Timeout: 60 * time.Second})
	assert.NotEqual(t, 0, res.ExitCode, "a process outliving the job fails it")
	assert.Positive(t, res.Killed, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Less(t, took, 20*time.Second)
	assert.False(t, liveDescendants())
}

// TestMainReexec runs this test binary the way go test does (outside any
// job): Main must launch mpiexec itself and report the job's exit code.
func TestMainReexec(t *testing.T) {
	if Rank() != 0 {
		t.Skip("nested jobs are launched by rank 0")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	run := func(mode string, extra ...string) (int, string) {
		cmd := exec.Command(exe, "-test.run=^TestHelper$", "-test.v")
		cmd.Env = append(cleanEnv(os.Environ()), append([]string{envSelfTest + "=" + mode}, extra...)...)
		out, err := cmd.CombinedOutput()
		return exitCode(err), string(out)
	}
	code, out := run("pass", EnvNP+"=3")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "helper rank 0 of 3 mode pass")

	code, out = run("fail1")
	assert.NotEqual(t, 0, code, out)
	assert.Contains(t, out, "helper failure on rank 1")

	// MPITEST_NP=0: run in place, no job.
	code, out = run("pass", EnvNP+"=0")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "helper rank -1 of 0 mode pass")

	code, out = run("pass", EnvTimeout+"=bogus")
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "bad timeout")
}

// Ranks whose watchdog does not fire (here: pushed past the deadline) are
// stopped by the launcher itself.
func TestLaunchTimeoutWithoutWatchdog(t *testing.T) {
	far := strconv.FormatInt(time.Now().Add(time.Hour).UnixNano(), 10)
	res, out, errOut, took := nested(t, "hang", LaunchConfig{Timeout: 2 * time.Second, Env: []string{envDeadline + "=" + far}})
	assert.True(t, res.TimedOut, "stdout:\n%s\nstderr:\n%s", out, errOut)
	assert.Equal(t, TimeoutExitCode, res.ExitCode)
	assert.Less(t, took, 15*time.Second)
	assert.Contains(t, errOut, "exceeded its timeout")
	assert.Contains(t, errOut, "rank 1 did not finish")
	assert.False(t, liveDescendants(), "no process of the job survives")
}
