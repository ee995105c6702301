package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadStatSelf(t *testing.T) {
	st, ok := ReadStat(os.Getpid())
	require.True(t, ok)
	assert.Equal(t, os.Getppid(), st.PPid)
	assert.True(t, st.Live())
	assert.NotEmpty(t, st.Start)
	assert.Equal(t, filepath.Base(os.Args[0])[:min(15, len(filepath.Base(os.Args[0])))], st.Name)
	_, ok = ReadStat(1 << 30)
	assert.False(t, ok, "no such pid")
}

// A tree of processes, one of them carrying a marker and detached from
// the tree (setsid, parent gone), is found whole, ranks read from
// PMI_RANK, and killed.
func TestTrackerFindsAndKills(t *testing.T) {
	marker := fmt.Sprintf("PROC_TEST_MARKER=%d", os.Getpid())
	cmd := exec.Command("sh", "-c", "sleep 30 & (setsid sh -c 'sleep 31 & exit' &) ; PMI_RANK=7 sleep 32 & wait")
	cmd.Env = append(os.Environ(), marker)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	tr := NewTracker(cmd.Process.Pid, marker)
	found := map[string]int{} // command line -> rank
	require.Eventually(t, func() bool {
		tr.Scan()
		alive := map[int]bool{}
		for _, pid := range tr.Alive() {
			alive[pid] = true
		}
		for _, p := range tr.Procs() {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid)); err == nil && alive[p.Pid] {
				found[strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")] = p.Rank
			}
		}
		_, a := found["sleep 30"]
		_, b := found["sleep 31"]
		// Its rank shows once it has exec'd (seen between fork and
		// exec, it had the shell's environment).
		r, c := found["sleep 32"]
		return a && b && c && r >= 0
	}, 5*time.Second, 20*time.Millisecond, "found %v", found)
	require.Equal(t, 7, found["sleep 32"])
	require.Equal(t, -1, found["sleep 30"])

	killed := tr.KillAll()
	assert.NotEmpty(t, killed)
	assert.Contains(t, strings.Join(killed, " "), "(sleep, rank 7)")
	require.Eventually(t, func() bool { return len(tr.Alive()) == 0 }, 5*time.Second, 20*time.Millisecond)
	for _, p := range tr.Procs() {
		st, ok := ReadStat(p.Pid)
		assert.False(t, ok && st.Live() && st.Start == p.start, "pid %d (%s) survived", p.Pid, p.Name)
	}
}

func TestDescendantsAndGetenv(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	cmd.Env = append(os.Environ(), "PROC_TEST_VALUE=x=y")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var ds []int
	require.Eventually(t, func() bool { ds = Descendants(os.Getpid()); return len(ds) >= 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, cmd.Process.Pid, ds[0], "parents come first")
	v, ok := Getenv(cmd.Process.Pid, "PROC_TEST_VALUE")
	assert.True(t, ok)
	assert.Equal(t, "x=y", v)
	_, ok = Getenv(cmd.Process.Pid, "PROC_TEST_NONE")
	assert.False(t, ok)
	for _, d := range ds[1:] {
		_ = syscallKill(d)
	}
}

func TestShmHolders(t *testing.T) {
	before, err := ShmEntries()
	require.NoError(t, err)
	name := fmt.Sprintf("proc-test-%d", os.Getpid())
	f, err := os.Create("/dev/shm/" + name)
	require.NoError(t, err)
	defer os.Remove(f.Name())
	after, err := ShmEntries()
	require.NoError(t, err)
	assert.Equal(t, []string{name}, NewShmEntries(before, after))
	assert.Equal(t, os.Getpid(), ShmHolders()[name])
	require.NoError(t, f.Close())
	assert.Zero(t, ShmHolders()[name], "closed: nobody holds it")
}

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// ExitCode reads a process's end the way a shell reports it.
func TestExitCode(t *testing.T) {
	run := func(script string) int {
		cmd := exec.Command("sh", "-c", script)
		err := cmd.Run()
		return ExitCode(cmd.ProcessState, err)
	}
	assert.Equal(t, 0, run("exit 0"))
	assert.Equal(t, 3, run("exit 3"))
	assert.Equal(t, 128+9, run("kill -9 $$"))
	cmd := exec.Command("/nonexistent/program")
	err := cmd.Run()
	require.Error(t, err)
	assert.Equal(t, -1, ExitCode(cmd.ProcessState, err))
	assert.Equal(t, 0, ExitCode(nil, nil))
}
