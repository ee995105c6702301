package test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/proc"
)

func TestParseLines(t *testing.T) {
	out := "noise\nresult rank=1 test=sizes size=4096 ok=1 src=0\n[proxy] result rank=2 test=x ok=0 word\nresults rank=3\nxresult rank=4\n"
	rs := Results(out)
	require.Len(t, rs, 2)
	assert.Equal(t, "1", rs[0]["rank"])
	n, ok := rs[0].Int("size")
	assert.True(t, ok)
	assert.Equal(t, int64(4096), n)
	_, ok = rs[0].Int("missing")
	assert.False(t, ok)
	assert.Equal(t, "result rank=1 test=sizes size=4096 ok=1 src=0", rs[0].Line())
	assert.Equal(t, "2", rs[1]["rank"])
	assert.NotContains(t, rs[1], "word")
	assert.Len(t, Select(rs, "test=sizes", "ok=1"), 1)
	assert.Len(t, Select(rs, "ok=1"), 1)
	assert.Len(t, Select(rs), 2)
	assert.Empty(t, Select(rs, "test=none"))
}

func TestStatsLines(t *testing.T) {
	errOut := "x\ncasperii-stats rank=0 isend_offloaded=6 irecv_offloaded=5 direct=4 bounce=3 held=0\n" +
		"casperii-stats rank=1 isend_offloaded=0 irecv_offloaded=0 direct=9 bounce=0\n"
	m, err := StatsLines(errOut)
	require.NoError(t, err)
	require.Len(t, m, 2)
	assert.Equal(t, Stats{Rank: 0, IsendOffloaded: 6, IrecvOffloaded: 5, Direct: 4, Bounce: 3, Fields: m[0].Fields}, m[0])
	assert.Equal(t, "0", m[0].Fields["held"])
	assert.Equal(t, int64(9), m[1].Direct)

	_, err = StatsLines("casperii-stats rank=0 isend_offloaded=1 irecv_offloaded=1 direct=x bounce=0\n")
	assert.ErrorContains(t, err, "direct")
	_, err = StatsLines("casperii-stats rank=0 isend_offloaded=1 irecv_offloaded=1 direct=1\n")
	assert.ErrorContains(t, err, "bounce")
	_, err = StatsLines(strings.Repeat("casperii-stats rank=0 isend_offloaded=1 irecv_offloaded=1 direct=1 bounce=0\n", 2))
	assert.ErrorContains(t, err, "two")
}

func TestLayout(t *testing.T) {
	assert.Equal(t, 2, Layout{N: 4, NodeSize: 2}.Users())
	assert.Equal(t, 4, Layout{N: 6, NodeSize: 3}.Users())
	assert.Equal(t, 4, Layout{N: 5}.Users())
	assert.Equal(t, 4, Layout{N: 6, NG: 2}.Users())
	assert.Equal(t, "n6-node3", Layout{N: 6, NodeSize: 3}.String())
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, `mpiexec -n 4 -genv CSP_WORLD_HINTS 'wildcard_used=any_src|none' '' 'it'\''s'`,
		shellQuote([]string{"mpiexec", "-n", "4", "-genv", "CSP_WORLD_HINTS", "wildcard_used=any_src|none", "", "it's"}))
}

func TestJobEnv(t *testing.T) {
	env := jobEnv([]string{"PATH=/bin", "CSP_NG=3", "LD_PRELOAD=x.so", "PMI_RANK=2", "HOME=/root", "MPITEST_CHILD=1"})
	assert.Equal(t, []string{"PATH=/bin", "HOME=/root"}, env)
}

// processWith reports whether a live process has s in its command line.
func processWith(s string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), s) {
			if st, ok := proc.ReadStat(harnessAtoi(e.Name())); ok && st.Live() {
				return true
			}
		}
	}
	return false
}

func harnessAtoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// A job that hangs is killed, all its processes, at its timeout, and the
// test fails (RunCollected returns that finding instead, and the job's
// output in its log, for callers that judge where it hung).
func TestHarnessTimeout(t *testing.T) {
	start := time.Now()
	c := RunCollected(t, Job{Layout: Layout{N: 2}, Prog: "/bin/sh", Args: []string{"-c", "echo before-hang; exec sleep 31.5"}, Timeout: 2 * time.Second})
	assert.False(t, c.Finished)
	assert.Contains(t, strings.Join(c.Problems, "\n"), "timed out after 2s")
	assert.Contains(t, c.Log, "sleep 31.5", "the job's command line is in its log")
	assert.Contains(t, c.Log, "--- stdout:\nbefore-hang\n", "the job's output is in its log")
	assert.Less(t, time.Since(start), 15*time.Second)
	assert.False(t, processWith("sleep 31.5"), "a process of the job survived its timeout")
}

// A process of the job that outlives mpiexec (here one that detached
// itself from the process tree) fails the test and is killed.
func TestHarnessLeftoverProcess(t *testing.T) {
	// The process closes the descriptors it inherited (Hydra's PMI socket
	// and pipes), or Hydra would wait for it.
	c := RunCollected(t, Job{Layout: Layout{N: 1}, Prog: "/bin/bash",
		Args: []string{"-c", `for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null
setsid /bin/sleep 32.5 </dev/null >/dev/null 2>&1 & exit 0`}, Timeout: 20 * time.Second})
	assert.True(t, c.Finished)
	assert.Equal(t, 0, c.ExitCode)
	problems := strings.Join(c.Problems, "\n")
	assert.Contains(t, problems, "outlived mpiexec")
	assert.Contains(t, problems, "sleep")
	assert.False(t, processWith("sleep 32.5"), "the leftover process was not killed")
}

// A job that leaves an entry in /dev/shm fails the test; the entry is
// removed.
func TestHarnessShmLeftover(t *testing.T) {
	name := fmt.Sprintf("casperii-harness-test-%d", os.Getpid())
	c := RunCollected(t, Job{Layout: Layout{N: 1}, Prog: "/bin/sh",
		Args: []string{"-c", "echo hello; echo oops >&2; touch /dev/shm/" + name}, Timeout: 20 * time.Second})
	assert.True(t, c.Finished)
	assert.Equal(t, 0, c.ExitCode)
	assert.Equal(t, "hello\n", c.Stdout)
	assert.Equal(t, "oops\n", c.Stderr)
	assert.Contains(t, strings.Join(c.Problems, "\n"), name)
	_, err := os.Stat("/dev/shm/" + name)
	assert.True(t, os.IsNotExist(err), "the /dev/shm entry was not removed")
}

// The exit code, the environment (-genv) and the arguments reach the job.
func TestHarnessExitAndEnv(t *testing.T) {
	res := Run(t, Job{Layout: Layout{N: 2, NodeSize: 2, NG: 1}, Prog: "/bin/sh",
		Args: []string{"-c", `echo "rank=$PMI_RANK ng=$CSP_NG node=$CSP_NODE_SIZE x=$X"; exit 3`},
		Env:  []string{"X=a b"}, Timeout: 20 * time.Second})
	assert.NotEqual(t, 0, res.ExitCode)
	assert.Contains(t, res.Stdout, "ng=1 node=2 x=a b")
	assert.Contains(t, res.Cmd, "-genv X 'a b'")
}
