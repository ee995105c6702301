package spsc

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// slotPattern is the value the fuzz target stores in slot k, so that every
// value popped tells which slot it came from.
func slotPattern(k uint64) uint64 { return 0x5a5a_0000_0000_0000 | k }

const sentinel = 0xdead_beef_dead_beef

// FuzzAttachAndConsume attaches to a region with a random line 0 and
// length, sets random head and tail, and pops, changes tail, pops again and
// pushes. It checks that nothing panics, that a corrupt tail is reported
// as ErrCorrupt with nothing copied, that every value popped is the one in
// the slot its index names, and that the producer never overwrites a slot
// holding an unconsumed value.
func FuzzAttachAndConsume(f *testing.F) {
	le := binary.LittleEndian
	header := func(magic, version, capacity, slotSize uint32) []byte {
		h := make([]byte, 16)
		le.PutUint32(h[0:], magic)
		le.PutUint32(h[4:], version)
		le.PutUint32(h[8:], capacity)
		le.PutUint32(h[12:], slotSize)
		return h
	}
	good := func(c uint32) []byte { return header(Magic, Version, c, SlotSize) }
	f.Add(good(4), uint16(Size(4)), uint64(0), uint64(3), uint64(4), uint16(2), uint16(3))
	f.Add(good(64), uint16(Size(64)), uint64(10), uint64(74), uint64(75), uint16(100), uint16(64))
	f.Add(good(2), uint16(Size(2)), ^uint64(0), uint64(1), uint64(0), uint16(1), uint16(1))
	f.Add(good(256), uint16(Size(256)), uint64(1<<40), uint64(1<<40+200), uint64(1<<40-1), uint16(255), uint16(300))
	f.Add(good(256), uint16(Size(256)-1), uint64(0), uint64(0), uint64(0), uint16(0), uint16(0))
	f.Add(good(3), uint16(Size(4)), uint64(0), uint64(1), uint64(2), uint16(1), uint16(1))
	f.Add(good(1<<24), uint16(Size(256)), uint64(0), uint64(1), uint64(2), uint16(1), uint16(1))
	f.Add(header(Magic, 2, 4, 8), uint16(Size(4)), uint64(0), uint64(1), uint64(2), uint16(1), uint16(1))
	f.Add(header(Magic, 1, 4, 16), uint16(Size(4)), uint64(0), uint64(1), uint64(2), uint16(1), uint16(1))
	// Two values valid, one popped, then a corrupt tail: the second is served
	// from the cache, the next pop reports ErrCorrupt.
	f.Add(good(2), uint16(Size(2)), ^uint64(0), uint64(1), uint64(24), uint16(1), uint16(1))
	f.Add([]byte("SPSC"), uint16(100), uint64(0), uint64(1), uint64(2), uint16(1), uint16(1))

	f.Fuzz(func(t *testing.T, hdr []byte, regionLen uint16, head, tail, tail2 uint64, popLen, pushLen uint16) {
		l := int(regionLen) % (Size(256) + 16)
		mem := alignedBytes(l)
		copy(mem[:min(l, 64)], hdr)
		for k := 0; offSlots+8*k+8 <= l; k++ {
			le.PutUint64(mem[offSlots+8*k:], slotPattern(uint64(k)))
		}
		r, err := Attach(mem)
		if err != nil {
			return
		}
		capacity := uint64(r.Cap())
		if !validCapacity(capacity) || Size(int(capacity)) > l || le.Uint32(mem) != Magic ||
			le.Uint32(mem[4:]) != Version || le.Uint32(mem[8:]) != uint32(capacity) || le.Uint32(mem[12:]) != SlotSize {
			t.Fatalf("Attach accepted header % x with region of %d bytes", mem[:min(l, 16)], l)
		}
		r.setIndices(head, tail)
		c := r.Consumer()
		dst := make([]uint64, int(popLen)%int(2*capacity+2))

		// pop checks one PopBatch against the shared indices.
		pop := func(tail uint64) {
			t.Helper()
			h := r.head.Load()
			for i := range dst {
				dst[i] = sentinel
			}
			cached := c.cachedTail - h // values known from an earlier valid tail
			n, err := c.PopBatch(dst)
			switch {
			case cached >= uint64(len(dst)): // no reload: served from the cache
				if err != nil || n != len(dst) {
					t.Fatalf("head %d, %d cached: PopBatch(%d) = %d, %v", h, cached, len(dst), n, err)
				}
			case tail-h > capacity:
				if !errors.Is(err, ErrCorrupt) || n != 0 {
					t.Fatalf("head %d, tail %d, capacity %d: PopBatch = %d, %v", h, tail, capacity, n, err)
				}
			default:
				if err != nil || uint64(n) != min(uint64(len(dst)), tail-h) {
					t.Fatalf("head %d, tail %d, capacity %d: PopBatch(%d) = %d, %v", h, tail, capacity, len(dst), n, err)
				}
			}
			if r.head.Load() != h+uint64(n) || c.head != h+uint64(n) || c.cachedTail-c.head > capacity {
				t.Fatalf("after popping %d from head %d: shared head %d, head %d, cached tail %d",
					n, h, r.head.Load(), c.head, c.cachedTail)
			}
			for k := range dst {
				want := uint64(sentinel)
				if k < n {
					want = slotPattern((h + uint64(k)) & r.mask)
				}
				if dst[k] != want {
					t.Fatalf("head %d, tail %d: dst[%d] = %#x, want %#x (popped %d)", h, tail, k, dst[k], want, n)
				}
			}
		}
		pop(tail)
		r.tail.Store(tail2) // a hostile producer moves tail under the consumer
		pop(tail2)
		if l, err := c.Len(); err == nil && uint64(l) > capacity {
			t.Fatalf("Len() = %d with capacity %d", l, capacity)
		}

		// The producer may only write slots of indices [tail, head+capacity).
		h, tl := r.head.Load(), r.tail.Load()
		before := slices.Clone(r.slots)
		p := r.Producer()
		free := p.Free()
		vs := make([]uint64, int(pushLen)%int(2*capacity+2))
		for i := range vs {
			vs[i] = sentinel
		}
		n := p.PushBatch(vs)
		wantFree := uint64(0)
		if tl-h <= capacity {
			wantFree = capacity - (tl - h)
		}
		if uint64(free) != wantFree || n != min(len(vs), free) || r.tail.Load() != tl+uint64(n) {
			t.Fatalf("head %d, tail %d, capacity %d: Free() = %d, PushBatch(%d) = %d, tail now %d", h, tl, capacity, free, len(vs), n, r.tail.Load())
		}
		for i := uint64(0); i < capacity; i++ {
			written := (i-tl)&r.mask < uint64(n) // i == (tl+j)&mask for some j < n
			if !written && r.slots[i] != before[i] || written && r.slots[i] != sentinel {
				t.Fatalf("head %d, tail %d: slot %d = %#x after pushing %d", h, tl, i, r.slots[i], n)
			}
		}
	})
}
