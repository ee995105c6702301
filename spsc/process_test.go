//go:build linux

package spsc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// A child process is this test binary run again with childEnv set to
// "producer" and the ring's memfd as file descriptor 3. It pushes
// SPSC_FIRST, SPSC_FIRST+1, ... (SPSC_N values) in batches of SPSC_BATCH.

// runChild runs the role selected by childEnv.
func runChild(role string) error {
	if role != "producer" {
		return fmt.Errorf("unknown role %q", role)
	}
	var first, n, batch uint64
	for _, v := range []struct {
		name string
		p    *uint64
	}{{"SPSC_FIRST", &first}, {"SPSC_N", &n}, {"SPSC_BATCH", &batch}} {
		x, err := strconv.ParseUint(os.Getenv(v.name), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		*v.p = x
	}
	mem, err := mapFd(3, -1)
	if err != nil {
		return err
	}
	r, err := Attach(mem)
	if err != nil {
		return err
	}
	// Stop if the parent goes away (it is our only consumer).
	ppid := os.Getppid()
	return produce(r.Producer(), first, n, int(batch), func() bool { return os.Getppid() != ppid })
}

// mapFd maps size bytes of fd shared, prefaulted; size < 0 maps the whole file.
func mapFd(fd, size int) ([]byte, error) {
	if size < 0 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return nil, fmt.Errorf("fstat: %w", err)
		}
		size = int(st.Size)
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap %d bytes: %w", size, err)
	}
	return mem, nil
}

// crossProcess is a ring in a memfd and a child process producing into it.
type crossProcess struct {
	mem    []byte
	ring   *Ring
	cmd    *exec.Cmd
	stderr bytes.Buffer
	exited chan struct{} // closed when the child has exited
	err    error         // the child's exit status, once exited is closed
}

// startProducerChild formats a ring of capacity slots in a fresh memfd and
// starts a child that pushes first, ..., first+n-1 into it.
func startProducerChild(tb testing.TB, capacity int, first, n uint64, batch int) *crossProcess {
	tb.Helper()
	fd, err := unix.MemfdCreate("casperii-spsc-test", unix.MFD_CLOEXEC)
	if err != nil {
		tb.Fatalf("memfd_create: %v", err)
	}
	f := os.NewFile(uintptr(fd), "spsc-memfd")
	defer f.Close() // the mapping and the child keep the memory
	if err := f.Truncate(int64(Size(capacity))); err != nil {
		tb.Fatal(err)
	}
	mem, err := mapFd(fd, Size(capacity))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Munmap(mem) })
	r, err := Format(mem, capacity)
	if err != nil {
		tb.Fatal(err)
	}
	x := &crossProcess{mem: mem, ring: r, exited: make(chan struct{})}
	x.cmd = exec.Command(os.Args[0], "-test.run=^$")
	x.cmd.Env = append(os.Environ(), childEnv+"=producer",
		fmt.Sprintf("SPSC_FIRST=%d", first), fmt.Sprintf("SPSC_N=%d", n), fmt.Sprintf("SPSC_BATCH=%d", batch))
	x.cmd.ExtraFiles = []*os.File{f} // fd 3 in the child
	x.cmd.Stderr = &x.stderr
	if err := x.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() { x.err = x.cmd.Wait(); close(x.exited) }()
	tb.Cleanup(func() { x.cmd.Process.Kill(); <-x.exited })
	return x
}

// dead reports whether the child has exited; used to stop waiting on an
// empty ring that nobody will fill.
func (x *crossProcess) dead() bool {
	select {
	case <-x.exited:
		return true
	default:
		return false
	}
}

// wait waits for the child and reports how it ended.
func (x *crossProcess) wait() error {
	<-x.exited
	if x.err != nil {
		return fmt.Errorf("child: %v: %s", x.err, x.stderr.Bytes())
	}
	return nil
}

// TestCrossProcess passes 10,000,000 sequence numbers from a child process
// to this one through a memfd mapping and checks every one.
func TestCrossProcess(t *testing.T) {
	n := uint64(10_000_000)
	if testing.Short() {
		n = 1_000_000
	}
	for _, tc := range []struct{ capacity, pushBatch, popBatch int }{
		{4096, 64, 64},
		{64, 1, 16},
		{2, 3, 1},
	} {
		t.Run(fmt.Sprintf("cap%d/push%d/pop%d", tc.capacity, tc.pushBatch, tc.popBatch), func(t *testing.T) {
			count := n
			switch {
			case tc.capacity < 64:
				count = n / 100 // a ping-pong ring: protocol coverage, not volume
			case tc.pushBatch == 1:
				count = n / 10 // one cache-line handoff per value
			}
			x := startProducerChild(t, tc.capacity, 1, count, tc.pushBatch)
			if err := consume(x.ring.Consumer(), 1, count, tc.popBatch, x.dead); err != nil {
				x.cmd.Process.Kill()
				t.Fatalf("%v (%v)", err, x.wait())
			}
			if err := x.wait(); err != nil {
				t.Fatal(err)
			}
			// The child has exited: the value after the last must never come.
			if l, err := x.ring.Consumer().Len(); l != 0 || err != nil {
				t.Fatalf("extra values after %d: Len() = %d, %v", count, l, err)
			}
		})
	}
}
