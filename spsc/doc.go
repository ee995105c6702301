// Package spsc is a lock-free single-producer, single-consumer ring of
// uint64 values in a caller-provided memory region, typically a memfd mapped
// by two processes: an application process (the producer) posts the indices
// of its post cells, and its ghost process (the consumer) drains them.
//
// # Layout
//
// The layout has one definition, the C header spsc.h; the constants and
// offsets used here are generated from it (layout_gen.go, by cmd/layoutgen;
// TestLayoutGenerated fails when the file is stale). All integers are little-endian and naturally
// aligned; the region starts on a 64-byte boundary.
//
//	offset  line  contents
//	     0     0  uint32 magic "SPSC" (0x43535053), uint32 version (1),
//	              uint32 capacity, uint32 slot size (8), then zeros.
//	              Written by Format, immutable afterwards.
//	    64     1  uint64 tail: the next index the producer writes.
//	   128     2  uint64 head: the next index the consumer reads.
//	   192     3  reserved, zero.
//	   256        uint64 slots[capacity]; index i lives in slot i&(capacity-1).
//
// Head and tail are free-running: they count every item ever pushed or
// popped and are never masked, so tail-head (uint64 arithmetic, wrapping)
// is the number of items in the ring, 0 <= tail-head <= capacity.
//
// # Ordering
//
// The producer is the only writer of tail and of the free slots, those of
// indices [tail, head+capacity); it stores the slots first and then tail (one
// atomic store per batch), which publishes them. The consumer is the
// only writer of head; it copies the slots of indices [head, tail) out first
// and then stores head (one atomic store per batch), which hands them back. Each side
// keeps its own cursor and a cached copy of the other side's index in private
// memory and reloads the shared one only when the cached copy cannot satisfy
// the request, so in steady state each batch touches the other side's cache
// line once at most.
//
// Go's atomics are sequentially consistent, stronger than the
// release/acquire pairing the protocol needs; the C side uses
// __ATOMIC_RELEASE and __ATOMIC_ACQUIRE.
//
// # Trust
//
// The consumer treats the shared header as hostile: every tail it loads is
// checked against its own head (tail-head <= capacity), and a violation is
// reported as ErrCorrupt, never a panic or an out-of-range read. Attach
// validates the immutable line and the region size. The producer does not
// report a corrupt head; it sees a ring that is full and never overwrites an
// unconsumed slot.
//
// spsc owns the ring: its layout (spsc.h, the one definition; the Go view
// in layout_gen.go is generated from it) and both of its ends. It must not
// import any other package of this module: the ghost, the user side and
// the tests build on it, never the other way round.
package spsc
