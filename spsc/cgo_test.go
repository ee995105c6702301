//go:build cgo && linux

package spsc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/casperii/casperii/internal/layoutgen"
	"github.com/casperii/casperii/spsc/internal/cring"
	"golang.org/x/sys/unix"
)

// requireSameLayout stops a test that would run Go and C on one ring if
// layout_gen.go is stale, so that Go and C disagree on the layout: each
// would wait forever for the other (TestLayoutGenerated reports the
// difference).
func requireSameLayout(t *testing.T) {
	t.Helper()
	if err := layoutgen.Check("layout_defs.go", "layout_gen.go"); err != nil {
		t.Fatalf("spsc.h and Go disagree on the layout: %v", err)
	}
}

// mmapRegion returns size bytes of shared anonymous memory, outside the Go
// heap, so that C may keep pointers into it.
func mmapRegion(t testing.TB, size int) []byte {
	t.Helper()
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	return mem
}

// TestCFormatMatchesGo: both formats write the same bytes, and each side
// attaches to the other's ring.
func TestCFormatMatchesGo(t *testing.T) {
	for _, c := range []int{2, 128, 1 << 16} {
		goMem, cMem := mmapRegion(t, Size(c)), mmapRegion(t, Size(c))
		for i := range cMem {
			goMem[i], cMem[i] = 0xa5, 0xa5
		}
		if _, err := Format(goMem, c); err != nil {
			t.Fatal(err)
		}
		if err := cring.Format(cMem, uint32(c)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(goMem[:HeaderSize], cMem[:HeaderSize]) {
			t.Fatalf("capacity %d: headers differ\nGo % x\nC  % x", c, goMem[:HeaderSize], cMem[:HeaderSize])
		}
		if err := cring.Attach(goMem); err != nil {
			t.Errorf("C attach to Go ring: %v", err)
		}
		if r, err := Attach(cMem); err != nil || r.Cap() != c {
			t.Errorf("Go attach to C ring: %v", err)
		}
	}
}

// TestCAttachAgrees: for each broken header both sides refuse, C with the
// documented code; for each good one both accept.
func TestCAttachAgrees(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name   string
		mutate func(m []byte) []byte
		want   syscall.Errno // 0: both accept
	}{
		{"valid", func(m []byte) []byte { return m }, 0},
		{"exact size", func(m []byte) []byte { return m[:Size(64)] }, 0},
		{"magic", func(m []byte) []byte { m[3] = 0; return m }, unix.EBADMSG},
		{"version", func(m []byte) []byte { le.PutUint32(m[4:], 2); return m }, unix.EPROTONOSUPPORT},
		{"capacity 0", func(m []byte) []byte { le.PutUint32(m[8:], 0); return m }, unix.ERANGE},
		{"capacity 1", func(m []byte) []byte { le.PutUint32(m[8:], 1); return m }, unix.ERANGE},
		{"capacity 12", func(m []byte) []byte { le.PutUint32(m[8:], 12); return m }, unix.ERANGE},
		{"capacity 2^25", func(m []byte) []byte { le.PutUint32(m[8:], 1<<25); return m }, unix.ERANGE},
		{"slot size", func(m []byte) []byte { le.PutUint32(m[12:], 4); return m }, unix.EBADMSG},
		{"short by one", func(m []byte) []byte { return m[:Size(64)-1] }, unix.ENOSPC},
		{"capacity beyond region", func(m []byte) []byte { le.PutUint32(m[8:], 128); return m[:Size(64)] }, unix.ENOSPC},
		{"half header", func(m []byte) []byte { return m[:100] }, unix.ENOSPC},
		{"misaligned", func(m []byte) []byte { return m[8:] }, unix.EINVAL},
	} {
		mem := mmapRegion(t, Size(64)+4096)
		if _, err := Format(mem, 64); err != nil {
			t.Fatal(err)
		}
		m := tc.mutate(mem)
		goErr, cErr := func() error { _, err := Attach(m); return err }(), cring.Attach(m)
		switch {
		case tc.want == 0 && (goErr != nil || cErr != nil):
			t.Errorf("%s: Go %v, C %v; want both to accept", tc.name, goErr, cErr)
		case tc.want != 0 && (goErr == nil || !errors.Is(cErr, tc.want)):
			t.Errorf("%s: Go %v, C %v; want Go to refuse and C to return -%v", tc.name, goErr, cErr, tc.want)
		}
	}
}

// TestCProducerGoConsumer: a C producer thread, running spsc.h, feeds the
// Go consumer; every sequence number is checked.
func TestCProducerGoConsumer(t *testing.T) {
	requireSameLayout(t)
	for _, tc := range []struct {
		capacity, pushBatch, popBatch int
		n                             uint64
	}{
		{4096, 64, 64, 2_000_000},
		{1024, 1, 16, 500_000},
		{64, 16, 1, 500_000},
		{2, 3, 5, 50_000},
	} {
		t.Run(fmt.Sprintf("cap%d/push%d/pop%d", tc.capacity, tc.pushBatch, tc.popBatch), func(t *testing.T) {
			mem := mmapRegion(t, Size(tc.capacity))
			r, err := Format(mem, tc.capacity)
			if err != nil {
				t.Fatal(err)
			}
			job, err := cring.StartProducer(mem, 1, tc.n, tc.pushBatch)
			if err != nil {
				t.Fatal(err)
			}
			// The C thread cannot be cancelled: on failure, drain the ring
			// without checking so that it finishes, then report.
			err = consume(r.Consumer(), 1, tc.n, tc.popBatch, job.Done)
			if err != nil {
				drain(r)
			}
			if jerr := job.Wait(); jerr != nil {
				t.Fatal(jerr)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// drain pops from r until its producer stops for a while; it only lets a
// producer that cannot be cancelled finish after a failed check.
func drain(r *Ring) {
	c := r.Consumer()
	buf := make([]uint64, 256)
	for idle := 0; idle < 1_000_000; idle++ {
		if n, err := c.PopBatch(buf); n > 0 || err != nil {
			idle = 0
			if err != nil {
				r.head.Store(r.tail.Load()) // let a producer past a corrupt state
			}
		}
		osYield()
	}
}

// TestGoProducerCConsumer: the Go producer feeds a C consumer thread, which
// checks every sequence number.
func TestGoProducerCConsumer(t *testing.T) {
	requireSameLayout(t)
	for _, tc := range []struct {
		capacity, pushBatch, popBatch int
		n                             uint64
	}{
		{4096, 64, 64, 2_000_000},
		{64, 1, 16, 500_000},
		{2, 5, 3, 50_000},
	} {
		t.Run(fmt.Sprintf("cap%d/push%d/pop%d", tc.capacity, tc.pushBatch, tc.popBatch), func(t *testing.T) {
			mem := mmapRegion(t, Size(tc.capacity))
			r, err := Format(mem, tc.capacity)
			if err != nil {
				t.Fatal(err)
			}
			job, err := cring.StartConsumer(mem, 1, tc.n, tc.popBatch)
			if err != nil {
				t.Fatal(err)
			}
			err = produce(r.Producer(), 1, tc.n, tc.pushBatch, job.Done)
			if jerr := job.Wait(); jerr != nil {
				t.Fatal(jerr)
			}
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCConsumerCorrupt: the C consumer refuses the same impossible tails as
// the Go one, with -EPROTO, and copies nothing.
func TestCConsumerCorrupt(t *testing.T) {
	requireSameLayout(t)
	for _, tc := range []struct{ head, tail uint64 }{
		{100, 100 + 16 + 1}, {0, 1 << 40}, {100, 99}, {1 << 40, 0}, {0, ^uint64(0)},
	} {
		mem := mmapRegion(t, Size(16))
		r, err := Format(mem, 16)
		if err != nil {
			t.Fatal(err)
		}
		r.setIndices(tc.head, tc.tail)
		c, err := cring.NewConsumer(mem)
		if err != nil {
			t.Fatal(err)
		}
		dst := []uint64{7, 7}
		n, err := c.PopBatch(dst)
		c.Close()
		if !errors.Is(err, unix.EPROTO) || n != 0 || dst[0] != 7 || r.head.Load() != tc.head {
			t.Errorf("head %d, tail %d: C pop = %d, %v, dst %v, head %d", tc.head, tc.tail, n, err, dst, r.head.Load())
		}
		if _, err := r.Consumer().PopBatch(dst); !errors.Is(err, ErrCorrupt) {
			t.Errorf("head %d, tail %d: Go pop error %v", tc.head, tc.tail, err)
		}
	}
}
