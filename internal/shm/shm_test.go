package shm

import (
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

func TestCreateOpenShare(t *testing.T) {
	s, err := Create("csp-test", 1<<16)
	require.NoError(t, err)
	defer s.Close()
	s.Bytes()[100] = 42

	o, err := Open(Pid(), s.Fd(), 1<<16)
	require.NoError(t, err)
	defer o.Close()
	require.Equal(t, 1<<16, o.Size())
	require.Equal(t, byte(42), o.Bytes()[100], "second mapping sees the first's store")
	o.Bytes()[200] = 7
	require.Equal(t, byte(7), s.Bytes()[200])

	_, err = Open(Pid(), s.Fd(), 1<<17)
	require.ErrorContains(t, err, "want at least")
	_, err = Open(Pid(), 987654, 1)
	require.Error(t, err)
	_, err = Create("bad", 0)
	require.Error(t, err)
}

// TestNoDevShmFiles checks that segments never appear in /dev/shm.
func TestNoDevShmFiles(t *testing.T) {
	before, _ := os.ReadDir("/dev/shm")
	s, err := Create("csp-visible?", 4096)
	require.NoError(t, err)
	during, _ := os.ReadDir("/dev/shm")
	require.NoError(t, s.Close())
	require.Equal(t, len(before), len(during))
}

// TestCrossProcessBell: a child process opens our segment through /proc,
// writes a value and rings the bell we sleep on.
func TestCrossProcessBell(t *testing.T) {
	if os.Getenv("SHM_TEST_CHILD") != "" {
		return
	}
	s, err := Create("csp-bell", 4096)
	require.NoError(t, err)
	defer s.Close()
	bell, err := NewBell(s.Base())
	require.NoError(t, err)
	seq := bell.Seq()

	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRing$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SHM_TEST_CHILD=1",
		"SHM_TEST_PID="+strconv.Itoa(Pid()), "SHM_TEST_FD="+strconv.Itoa(s.Fd()))
	out := make(chan error, 1)
	go func() {
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("%s", b)
		}
		out <- err
	}()

	val := (*uint32)(unsafe.Add(s.Base(), 64))
	deadline := time.Now().Add(30 * time.Second)
	for atomic.LoadUint32(val) != 99 && time.Now().Before(deadline) {
		bell.Sleep(seq, 100*time.Millisecond)
		seq = bell.Seq()
	}
	require.Equal(t, uint32(99), atomic.LoadUint32(val))
	require.NoError(t, <-out)
}

func TestChildRing(t *testing.T) {
	if os.Getenv("SHM_TEST_CHILD") == "" {
		t.Skip("child half of TestCrossProcessBell")
	}
	pid, _ := strconv.Atoi(os.Getenv("SHM_TEST_PID"))
	fd, _ := strconv.Atoi(os.Getenv("SHM_TEST_FD"))
	s, err := Open(pid, fd, 4096)
	require.NoError(t, err)
	defer s.Close()
	bell, err := NewBell(s.Base())
	require.NoError(t, err)
	atomic.StoreUint32((*uint32)(unsafe.Add(s.Base(), 64)), 99)
	bell.Ring()
}

func TestWaitReturnsOnValueChangeAndTimeout(t *testing.T) {
	var w uint32 = 5
	start := time.Now()
	Wait(&w, 4, time.Second) // value differs: immediate
	require.Less(t, time.Since(start), 500*time.Millisecond)
	Wait(&w, 5, 10*time.Millisecond) // times out
	require.Equal(t, 0, Wake(&w, 1), "nobody waiting")
}
