package core

import (
	"os"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The automatic choice's estimate on the patterns it must tell apart, per
// iteration of post, application time, wait (microseconds, one message
// sent per iteration, the built-in calibration).
func TestAutoEstimate(t *testing.T) {
	shared, _ := newModel(Config{}, true, false)
	own, _ := newModel(Config{}, false, false)
	crowded, _ := newModel(Config{}, true, true) // more users than cores
	const mib = 1 << 20
	for _, c := range []struct {
		name  string
		m     *model
		e     epoch
		on    bool
		bytes uint64
		sign  int
	}{
		{"8 B ping-pong, nothing to overlap", shared, epoch{wallUS: 10, mpiUS: 9.5, cpuUS: 10, waits: 1}, false, 8, -1},
		{"8 B ping-pong on the ghosts", shared, epoch{wallUS: 20, mpiUS: 19.5, sleepUS: 15, cpuUS: 5, waits: 1}, true, 8, -1},
		{"4 MiB, 3 ms asleep, off", shared, epoch{wallUS: 3500, mpiUS: 480, cpuUS: 500, waits: 1}, false, 4 * mib, +1},
		{"4 MiB, 3 ms asleep, on", shared, epoch{wallUS: 3100, mpiUS: 80, sleepUS: 70, cpuUS: 30, waits: 1}, true, 4 * mib, +1},
		{"4 MiB, 3 ms on the CPU, shared cores", shared, epoch{wallUS: 3500, mpiUS: 480, cpuUS: 3480, waits: 1}, false, 4 * mib, -1},
		{"4 MiB, 3 ms on the CPU, ghosts with cores of their own", own, epoch{wallUS: 3500, mpiUS: 480, cpuUS: 3480, waits: 1}, false, 4 * mib, +1},
		{"4 MiB, 3 ms runnable behind others: not idle", shared, epoch{wallUS: 3500, mpiUS: 480, cpuUS: 1500, queueUS: 1980, waits: 1}, false, 4 * mib, -1},
		{"4 MiB on the ghosts of a loaded host: the waits are the cost", shared, epoch{wallUS: 20000, mpiUS: 17000, sleepUS: 16000, cpuUS: 200, waits: 1}, true, 4 * mib, -1},
		{"64 KiB, 24 us asleep: wake-ups eat the gain", shared, epoch{wallUS: 35, mpiUS: 10.5, cpuUS: 11, waits: 1}, false, 65536, -1},
		{"1 MiB touched, compute on the CPU: a wait of 2.7 transfers is no stall", shared, epoch{wallUS: 580, mpiUS: 234, cpuUS: 580, waits: 1}, false, mib, -1},
		{"4 MiB touched, compute on the CPU: a wait of 5.4 transfers is no stall", shared, epoch{wallUS: 5000, mpiUS: 1880, cpuUS: 5000, waits: 1}, false, 4 * mib, -1},
		{"halo of 64 KiB, compute on the CPU, waits of 200 transfers: a stall", shared, epoch{wallUS: 7800, mpiUS: 7500, cpuUS: 7800, waits: 1}, false, 4 * 65536, +1},
		{"halo of 1 KiB, compute on the CPU, a core per user: a late peer", shared, epoch{wallUS: 4000, mpiUS: 3700, cpuUS: 4000, waits: 1}, false, 4 * 1024, -1},
		{"8 B requests to a server that answers between slices of sleep: a late peer", shared, epoch{wallUS: 1000, mpiUS: 400, cpuUS: 100, waits: 1}, false, 8, -1},
		{"halo of 1 MiB, compute on the CPU, more users than cores, waits of 6 transfers: a stall", crowded, epoch{wallUS: 2500, mpiUS: 2040, cpuUS: 2500, waits: 1}, false, 4 * mib, +1},
		{"halo of 1 KiB, compute on the CPU, more users than cores: a wait for the core", crowded, epoch{wallUS: 4000, mpiUS: 3700, cpuUS: 2000, queueUS: 2000, waits: 1}, false, 4 * 1024, +1},
	} {
		mem := -1.0
		msgs := uint64(1)
		if strings.HasPrefix(c.name, "halo") {
			msgs = 4
		}
		c.e.winUS = c.e.wallUS // the application's time is between post and wait
		net := c.m.net(c.e, c.on, msgs, c.bytes, &mem, xferTimes{})
		if c.sign > 0 {
			require.Greater(t, net, autoTheta*c.e.wallUS, "%s: %+.1f us over %.0f", c.name, net, c.e.wallUS)
		} else {
			require.Less(t, net, 0.0, "%s: %+.1f us", c.name, net)
		}
	}
	mem := -1.0
	require.Zero(t, shared.net(epoch{wallUS: 100}, false, 0, 0, &mem, xferTimes{}), "no traffic, no opinion")

	// A halo exchange of 4 x 64 KiB with 300 us asleep: without progress
	// the direct route waits 4 ms; on, the waits are short, and the
	// memory of the direct route keeps it on.
	halo := epoch{wallUS: 4600, mpiUS: 4290, cpuUS: 300, waits: 1, winUS: 310}
	off := shared.net(halo, false, 4, 4*65536, &mem, xferTimes{})
	require.Greater(t, off, autoTheta*halo.wallUS, "off: %+.0f", off)
	require.InDelta(t, 4290.0/4, mem, 1, "the direct route's wait per message, remembered")
	onEp := epoch{wallUS: 410, mpiUS: 100, sleepUS: 90, cpuUS: 20, waits: 1, winUS: 310}
	on := shared.net(onEp, true, 4, 4*65536, &mem, xferTimes{})
	require.Greater(t, on, autoTheta*onEp.wallUS, "on: %+.0f", on)
	// The same exchange at 64 KiB with 24 us of sleep, on: the memory of
	// an 11 us direct wait says it costs.
	mem = 10.8
	small := shared.net(epoch{wallUS: 46, mpiUS: 21, sleepUS: 18, cpuUS: 6, waits: 1, winUS: 25}, true, 1, 65536, &mem, xferTimes{})
	require.Less(t, small, 0.0, "on at 64 KiB: %+.1f", small)

	// A ping-pong of 64 KiB over TCP (osubench's overlap calibration with
	// MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp,self: 200 us an exchange against
	// the shared-memory table's 8), the buffers written before each post
	// and read after each wait. Judged by the table alone, a wait of 25
	// transfers is a stall, and offload seemed to pay.
	pp := epoch{wallUS: 214, mpiUS: 200, cpuUS: 120, waits: 1, winUS: 0.5}
	mem = -1
	require.Greater(t, shared.net(epoch{wallUS: 214, mpiUS: 200, cpuUS: 120, waits: 1, winUS: 214}, false, 1, 65536, &mem, xferTimes{}), 0.0,
		"the table's transfer and the touches counted as in flight: a stall")
	mem = -1
	require.Less(t, shared.net(pp, false, 1, 65536, &mem, xferTimes{direct: 200}), 0.0, "nothing in flight while the application ran")
	mem = -1
	require.Less(t, shared.net(epoch{wallUS: 214, mpiUS: 200, cpuUS: 120, waits: 1, winUS: 214}, false, 1, 65536, &mem, xferTimes{direct: 200}), 0.0,
		"a transfer of 200 us learned: no stall, and touches as long as 0.07 transfers move little")
	// The same size's overlapped loop over TCP, 130 us asleep between post
	// and wait: offload still pays with the learned transfer.
	mem = -1
	ov := epoch{wallUS: 270, mpiUS: 125, cpuUS: 20, waits: 1, winUS: 130}
	require.Greater(t, shared.net(ov, false, 1, 65536, &mem, xferTimes{direct: 200}), autoTheta*ov.wallUS, "overlapped, learned transfer")
}

func TestAutoCalibrationFile(t *testing.T) {
	dir := t.TempDir() + "/c.txt"
	require.NoError(t, writeFile(dir, "# casperii calibration v1\n# size_bytes direct_us offload_us\nsize 8 1.00 11.00\nsize 1048576 100.00 150.00\n"))
	m, err := newModel(Config{Calibration: dir}, true, false)
	require.NoError(t, err)
	require.Equal(t, 20.0, m.wakeUS(), "twice the smallest size's extra cost")
	d, o := m.table.At(1 << 20)
	require.Equal(t, [2]float64{100, 150}, [2]float64{d, o})

	_, err = newModel(Config{Calibration: dir + ".missing"}, true, false)
	require.ErrorContains(t, err, "casperii calibrate")
	require.NoError(t, writeFile(dir, "size eight 1 2\n"))
	_, err = newModel(Config{Calibration: dir}, true, false)
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), "CasperII: CSP_CALIBRATION="), err.Error())
}

// spinCPU spins until the calling thread has run d on a CPU (its CPU
// clock, not the wall's: a CI run's loaded host gave a 20 ms wall-clock
// spin 0.25 ms of CPU), at most 10 s of wall time.
func spinCPU(t *testing.T, d time.Duration) {
	t.Helper()
	var ts unix.Timespec
	require.NoError(t, unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts))
	start, deadline := ts.Nano(), time.Now().Add(10*time.Second)
	for ts.Nano()-start < d.Nanoseconds() && time.Now().Before(deadline) {
		require.NoError(t, unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts))
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// threadSched reads the calling thread's own counters through the file it
// keeps open: CPU time grows with the thread's work, and another thread
// gets its own counters (the file is opened again for it).
func TestThreadSched(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	cpu0, _ := threadSched()
	spinCPU(t, 50*time.Millisecond)
	cpu1, _ := threadSched()
	require.Greater(t, cpu1-cpu0, int64(2e6), "50 ms of spinning is some CPU time, even on a loaded host")
	tid := schedstat.tid
	require.Equal(t, unix.Gettid(), tid)

	other := make(chan int64)
	go func() {
		goruntime.LockOSThread() // a fresh thread: its CPU time is its own
		defer goruntime.UnlockOSThread()
		c, _ := threadSched()
		other <- c
	}()
	c := <-other
	require.NotEqual(t, tid, schedstat.tid, "opened again for the other thread")
	require.Less(t, c, cpu1, "the other thread did not spin")

	// The CPU time is current, not the scheduler's sum as of the last
	// tick: after 300 us of spinning (less than a tick) it is within a
	// few microseconds of the thread's clock read right after.
	clock := func() int64 {
		var ts unix.Timespec
		require.NoError(t, unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts))
		return ts.Nano()
	}
	// (threadSched reads the clock before schedstat, and the first read on
	// this thread since the other's opens the file again: 100 us of CPU
	// once, which this test must not count as lag.)
	threadSched()
	for i := 0; i < 20; i++ {
		for end := time.Now().Add(300 * time.Microsecond); time.Now().Before(end); {
		}
		c, _ := threadSched()
		now := clock()
		require.Less(t, now-c, int64(100e3), "round %d: threadSched's CPU time lags the thread's clock by %d us", i, (now-c)/1000)
	}
}

// What an evaluation pays to read its thread's counters: through the
// file kept open, and opened each time (os.ReadFile) as it was.
//
//	go test ./internal/core -run '^$' -bench Schedstat
func BenchmarkSchedstat(b *testing.B) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.Run("kept-open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := readSchedstat(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-file", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := os.ReadFile("/proc/thread-self/schedstat"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// An epoch reads the thread's CPU and run-queue times only where the
// estimate uses them (ghosts sharing cores with users): with a core per
// process they stay zero, and their system calls are not made.
func TestEpochThreadTimes(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	for _, oversub := range []bool{true, false} {
		m, err := newModel(Config{}, oversub, false)
		require.NoError(t, err)
		r := &runtime{model: m}
		f := &family{last: time.Now()}
		r.epoch(f)
		spinCPU(t, 20*time.Millisecond)
		e := r.epoch(f)
		require.Greater(t, e.wallUS, 15e3, "oversub %v", oversub)
		if oversub {
			require.Greater(t, e.cpuUS, 2e3, "20 ms of spinning is some CPU time, even on a loaded host")
			require.NotZero(t, f.cpuNS)
		} else {
			require.Zero(t, e.cpuUS)
			require.Zero(t, e.queueUS)
			require.Zero(t, f.cpuNS, "not read")
		}
	}
}

// The windows' samples (internal/user/prof.c): where they cover the time
// in flight, the idle time the ghost can have is measured in the windows
// themselves, not spread over the application's time. Epochs of
// osubench's overlap loop with sleep compute (CSP_VERBOSE=4, 2026-11-28):
// at 1 MiB the application touches its buffers outside the windows and
// sleeps inside them, and static offload gained 28-35% per epoch; at 64
// KiB the sleep is mostly the system call's own CPU time, and offload
// loses.
func TestAutoWindowSamples(t *testing.T) {
	shared, _ := newModel(Config{}, true, false)
	const mib = 1 << 20
	sleep1M := epoch{wallUS: 26354, mpiUS: 8274, collUS: 737, cpuUS: 15736, queueUS: 140, winUS: 13149,
		sampWinUS: 3311, sampCPUUS: 660, waits: 105}
	share, ok := sleep1M.idleShare()
	require.True(t, ok)
	require.InDelta(t, 1-660.0/3311-140.0/26354, share, 1e-9)
	mem := -1.0
	sampled := shared.net(sleep1M, false, 105, 105*mib, &mem, xferTimes{})
	require.Greater(t, sampled, autoStrongPhase*sleep1M.wallUS, "1 MiB asleep in the windows: %+.0f us over %.0f", sampled, sleep1M.wallUS)
	spread := sleep1M
	spread.sampWinUS, spread.sampCPUUS = 0, 0
	_, ok = spread.idleShare()
	require.False(t, ok, "no samples")
	mem = -1
	even := shared.net(spread, false, 105, 105*mib, &mem, xferTimes{})
	require.Less(t, even, sampled-0.05*sleep1M.wallUS, "the idle time spread over the application's time says less: %+.0f", even)
	few := sleep1M
	few.sampWinUS, few.sampCPUUS = 0.05*few.winUS, 0
	_, ok = few.idleShare()
	require.False(t, ok, "samples of 5% of the time in flight do not speak for it")

	sleep64K := epoch{wallUS: 18489, mpiUS: 3971, collUS: 456, cpuUS: 16819, queueUS: 105, winUS: 12383,
		sampWinUS: 3274, sampCPUUS: 2748, waits: 520}
	mem = -1
	require.Less(t, shared.net(sleep64K, false, 520, 520*65536, &mem, xferTimes{}), 0.0, "64 KiB: the sleeps are mostly the system call's CPU")

	busy1M := sleep1M
	busy1M.sampCPUUS, busy1M.cpuUS = busy1M.sampWinUS, busy1M.wallUS-busy1M.mpiUS
	mem = -1
	require.Less(t, shared.net(busy1M, false, 105, 105*mib, &mem, xferTimes{}), 0.0, "compute on the CPU in the windows")

	// Fully overlapped, the route's extra costs only the hand-offs: the
	// same epoch with twice the windows' idle time gains more than the
	// waits it hides less those.
	long := sleep1M
	long.winUS, long.wallUS = 2*long.winUS, long.wallUS+long.winUS
	mem = -1
	n := 105.0
	d, _ := shared.table.At(mib)
	require.Greater(t, shared.net(long, false, 105, 105*mib, &mem, xferTimes{}), long.mpiUS-n*(shared.handoffUS+1),
		"everything moved while the user slept: the wait hidden, less a hand-off per message (direct transfer %.0f us)", d)
}
