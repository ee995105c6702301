package spsc

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSize(t *testing.T) {
	if got := Size(1024); got != 256+8*1024 {
		t.Fatalf("Size(1024) = %d", got)
	}
}

func TestFormatWritesHeader(t *testing.T) {
	mem := alignedBytes(Size(16))
	for i := range mem {
		mem[i] = 0xff // Format must clear the header
	}
	r, err := Format(mem, 16)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, HeaderSize)
	copy(want, []byte{'S', 'P', 'S', 'C', 1, 0, 0, 0, 16, 0, 0, 0, 8, 0, 0, 0})
	if !slices.Equal(mem[:HeaderSize], want) {
		t.Fatalf("header = % x\nwant     % x", mem[:HeaderSize], want)
	}
	if r.Cap() != 16 {
		t.Fatalf("Cap() = %d", r.Cap())
	}
}

func TestFormatRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		mem  []byte
		cap  int
		want string
	}{
		{"cap 0", alignedBytes(Size(4)), 0, "capacity 0"},
		{"cap 1", alignedBytes(Size(4)), 1, "capacity 1"},
		{"cap 3", alignedBytes(Size(4)), 3, "capacity 3"},
		{"cap negative", alignedBytes(Size(4)), -4, "capacity -4"},
		{"cap too big", alignedBytes(Size(4)), MaxCapacity * 2, "not a power of two in"},
		{"short", alignedBytes(Size(4) - 1), 4, "too short"},
		{"misaligned", alignedBytes(Size(4) + 8)[8:], 4, "not 64-byte aligned"},
	} {
		if _, err := Format(tc.mem, tc.cap); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Format error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestAttachRejects(t *testing.T) {
	le := binary.LittleEndian
	for _, tc := range []struct {
		name   string
		mutate func(mem []byte) []byte
		header bool // the error must wrap ErrBadHeader
		want   string
	}{
		{"magic", func(m []byte) []byte { m[0] ^= 1; return m }, true, "magic"},
		{"zeroed", func(m []byte) []byte { clear(m); return m }, true, "magic"},
		{"version 0", func(m []byte) []byte { le.PutUint32(m[4:], 0); return m }, true, "version 0"},
		{"version 2", func(m []byte) []byte { le.PutUint32(m[4:], 2); return m }, true, "version 2"},
		{"capacity 0", func(m []byte) []byte { le.PutUint32(m[8:], 0); return m }, true, "capacity 0"},
		{"capacity 1", func(m []byte) []byte { le.PutUint32(m[8:], 1); return m }, true, "capacity 1"},
		{"capacity 6", func(m []byte) []byte { le.PutUint32(m[8:], 6); return m }, true, "capacity 6"},
		{"capacity 2^25", func(m []byte) []byte { le.PutUint32(m[8:], 1<<25); return m }, true, "capacity 33554432"},
		{"capacity 2^31", func(m []byte) []byte { le.PutUint32(m[8:], 1<<31); return m }, true, "capacity 2147483648"},
		{"slot size", func(m []byte) []byte { le.PutUint32(m[12:], 16); return m }, true, "slot size 16"},
		{"capacity beyond region", func(m []byte) []byte { le.PutUint32(m[8:], 64); return m }, false, "too short for 64 slots"},
		{"short by one", func(m []byte) []byte { return m[:len(m)-1] }, false, "too short"},
		{"header only", func(m []byte) []byte { return m[:HeaderSize] }, false, "too short"},
		{"half header", func(m []byte) []byte { return m[:HeaderSize/2] }, false, "shorter than the 256-byte header"},
		{"empty", func(m []byte) []byte { return nil }, false, "shorter than"},
		{"misaligned", func(m []byte) []byte {
			b := alignedBytes(len(m) + 8)[8:]
			copy(b, m)
			return b
		}, false, "aligned"},
	} {
		mem := alignedBytes(Size(32))
		if _, err := Format(mem, 32); err != nil {
			t.Fatal(err)
		}
		_, err := Attach(tc.mutate(mem))
		switch {
		case err == nil:
			t.Errorf("%s: Attach succeeded", tc.name)
		case errors.Is(err, ErrBadHeader) != tc.header:
			t.Errorf("%s: errors.Is(%v, ErrBadHeader) = %v", tc.name, err, !tc.header)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error %q does not contain %q", tc.name, err, tc.want)
		}
	}
}

func TestAttachAcceptsFormatted(t *testing.T) {
	for _, c := range []int{MinCapacity, 4, 1024, MaxCapacity} {
		mem := alignedBytes(Size(c) + 64) // a longer region is fine
		if _, err := Format(mem, c); err != nil {
			t.Fatal(err)
		}
		r, err := Attach(mem)
		if err != nil {
			t.Fatalf("capacity %d: %v", c, err)
		}
		if r.Cap() != c {
			t.Fatalf("Cap() = %d, want %d", r.Cap(), c)
		}
	}
}

// TestPushPop walks a small ring across the wrap of its slots and of the
// uint64 indices, checking counts at every step.
func TestPushPop(t *testing.T) {
	for _, start := range []uint64{0, 5, ^uint64(0) - 20} {
		r := newRing(t, 8)
		r.setIndices(start, start)
		p, c := r.Producer(), r.Consumer()
		next, want := uint64(100), uint64(100)
		for round := range 40 {
			k := round%11 + 1
			vs := make([]uint64, k)
			for i := range vs {
				vs[i] = next + uint64(i)
			}
			free := p.Free()
			n := p.PushBatch(vs)
			if n != min(k, free) {
				t.Fatalf("start %#x round %d: PushBatch(%d) = %d with %d free", start, round, k, n, free)
			}
			next += uint64(n)
			l, err := c.Len()
			if err != nil || l != int(next-want) {
				t.Fatalf("start %#x round %d: Len() = %d, %v, want %d", start, round, l, err, next-want)
			}
			dst := make([]uint64, round%7+1)
			got, err := c.PopBatch(dst)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range dst[:got] {
				if v != want {
					t.Fatalf("start %#x round %d: popped %d, want %d", start, round, v, want)
				}
				want++
			}
		}
		for p.TryPush(next) {
			next++
		}
		if p.Free() != 0 {
			t.Fatalf("TryPush failed with %d free", p.Free())
		}
		dst := make([]uint64, 100)
		got, err := c.PopBatch(dst)
		if err != nil || got != 8 || next-want != 8 {
			t.Fatalf("draining a full ring: %d, %v", got, err)
		}
		for _, v := range dst[:got] {
			if v != want {
				t.Fatalf("popped %d, want %d", v, want)
			}
			want++
		}
		if got, err := c.PopBatch(dst); got != 0 || err != nil {
			t.Fatalf("PopBatch on empty ring = %d, %v", got, err)
		}
		if h, tl := r.head.Load(), r.tail.Load(); h != tl || h != start+(next-100) {
			t.Fatalf("head %d, tail %d, want both %d", h, tl, start+(next-100))
		}
	}
}

// TestReattach checks that new ends resume from the shared indices.
func TestReattach(t *testing.T) {
	mem := alignedBytes(Size(4))
	r, _ := Format(mem, 4)
	r.Producer().PushBatch([]uint64{1, 2, 3})
	r2, err := Attach(mem)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Producer().TryPush(4) || r2.Producer().TryPush(5) {
		t.Fatal("second producer did not resume at the shared tail")
	}
	dst := make([]uint64, 8)
	n, err := r2.Consumer().PopBatch(dst)
	if err != nil || !slices.Equal(dst[:n], []uint64{1, 2, 3, 4}) {
		t.Fatalf("popped %v, %v", dst[:n], err)
	}
}

func TestConsumerCorrupt(t *testing.T) {
	const capacity = 16
	for _, tc := range []struct {
		name       string
		head, tail uint64
	}{
		{"tail ahead by capacity+1", 100, 100 + capacity + 1},
		{"tail far ahead", 0, 1 << 40},
		{"tail behind head", 100, 99},
		{"tail far behind head", 1 << 40, 0},
		{"max", 0, ^uint64(0)},
	} {
		r := newRing(t, capacity)
		r.setIndices(tc.head, tc.tail)
		c := r.Consumer()
		dst := []uint64{7, 7, 7}
		n, err := c.PopBatch(dst)
		if !errors.Is(err, ErrCorrupt) || n != 0 || !slices.Equal(dst, []uint64{7, 7, 7}) {
			t.Errorf("%s: PopBatch = %d, %v, dst %v; want 0, ErrCorrupt, untouched", tc.name, n, err, dst)
		}
		if _, err := c.Len(); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Len error %v, want ErrCorrupt", tc.name, err)
		}
		if h := r.head.Load(); h != tc.head {
			t.Errorf("%s: head moved to %d", tc.name, h)
		}
		// A producer facing the same indices sees a full ring.
		if p := r.Producer(); tc.tail-tc.head > capacity && (p.Free() != 0 || p.TryPush(1) || p.PushBatch([]uint64{1}) != 0) {
			t.Errorf("%s: producer wrote into a corrupt ring", tc.name)
		}
	}
	// The limit itself is valid: a full ring.
	r := newRing(t, capacity)
	r.setIndices(100, 100+capacity)
	if n, err := r.Consumer().Len(); err != nil || n != capacity {
		t.Fatalf("full ring: Len() = %d, %v", n, err)
	}
}

// TestConsumerCorruptMidStream: a tail that jumps after valid items were
// consumed is caught on the next load, and the cached valid items are not lost.
func TestConsumerCorruptMidStream(t *testing.T) {
	r := newRing(t, 8)
	p, c := r.Producer(), r.Consumer()
	p.PushBatch([]uint64{1, 2, 3, 4})
	dst := make([]uint64, 2)
	if n, err := c.PopBatch(dst); n != 2 || err != nil {
		t.Fatalf("PopBatch = %d, %v", n, err)
	}
	r.tail.Store(1000)
	if n, err := c.PopBatch(dst); n != 2 || err != nil || !slices.Equal(dst, []uint64{3, 4}) {
		t.Fatalf("cached items: PopBatch = %d, %v, %v", n, err, dst)
	}
	if _, err := c.PopBatch(dst); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("PopBatch error %v, want ErrCorrupt", err)
	}
	r.tail.Store(4) // the producer recovers: valid again
	p2 := r.Producer()
	p2.TryPush(5)
	if n, err := c.PopBatch(dst); n != 1 || err != nil || dst[0] != 5 {
		t.Fatalf("after recovery: PopBatch = %d, %v, %v", n, err, dst)
	}
}

func TestEmptyBatches(t *testing.T) {
	r := newRing(t, 2)
	if n := r.Producer().PushBatch(nil); n != 0 {
		t.Fatal(n)
	}
	if n, err := r.Consumer().PopBatch(nil); n != 0 || err != nil {
		t.Fatal(n, err)
	}
}
