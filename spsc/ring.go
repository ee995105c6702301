package spsc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"
)

var (
	// ErrBadHeader reports a region whose line 0 does not describe a ring
	// this package can use: wrong magic, version, capacity or slot size.
	ErrBadHeader = errors.New("spsc: bad ring header")

	// ErrCorrupt reports shared indices that no correct peer could have
	// written, such as a tail more than capacity ahead of head or behind it.
	ErrCorrupt = errors.New("spsc: ring indices corrupt")
)

// Ring is a view of a ring in a memory region. It holds no cursors itself;
// Producer and Consumer do. A Ring may be shared by goroutines, but a ring
// has at most one live Producer and one live Consumer, across all processes
// that map it: that is the caller's contract, not something Ring can check.
type Ring struct {
	mem   []byte // the region, kept to pin Go-allocated memory
	tail  *atomic.Uint64
	head  *atomic.Uint64
	slots []uint64
	mask  uint64
}

// Format writes a fresh header for a ring of capacity slots at the start of
// mem, with head and tail zero and the reserved line cleared, and returns a
// view of it. Slots are not cleared. mem must start on an Alignment boundary
// and hold at least Size(capacity) bytes; capacity must be a power of two in
// [MinCapacity, MaxCapacity]. No other process may use the region while it
// is being formatted.
func Format(mem []byte, capacity int) (*Ring, error) {
	if capacity < 0 || !validCapacity(uint64(capacity)) {
		return nil, fmt.Errorf("spsc: capacity %d is not a power of two in [%d, %d]", capacity, MinCapacity, MaxCapacity)
	}
	if err := checkRegion(mem, capacity); err != nil {
		return nil, err
	}
	clear(mem[:HeaderSize])
	binary.LittleEndian.PutUint32(mem[offMagic:], Magic)
	binary.LittleEndian.PutUint32(mem[offVersion:], Version)
	binary.LittleEndian.PutUint32(mem[offCapacity:], uint32(capacity))
	binary.LittleEndian.PutUint32(mem[offSlotSize:], SlotSize)
	return view(mem, capacity), nil
}

// New allocates a region on the Go heap and formats a ring of capacity slots
// in it, for a producer and a consumer in the same process.
func New(capacity int) (*Ring, error) {
	if capacity < 0 || !validCapacity(uint64(capacity)) {
		return nil, fmt.Errorf("spsc: capacity %d is not a power of two in [%d, %d]", capacity, MinCapacity, MaxCapacity)
	}
	buf := make([]byte, Size(capacity)+Alignment-1)
	skip := (Alignment - int(uintptr(unsafe.Pointer(&buf[0]))%Alignment)) % Alignment
	return Format(buf[skip:skip+Size(capacity)], capacity)
}

// Attach validates the header at the start of mem, written by Format in
// this or another process, and returns a view of the ring. It checks the
// magic, version, capacity, slot size, the alignment of mem and that mem
// holds all the slots; errors about line 0 wrap ErrBadHeader. It does not
// check head and tail, which may change at any time: the consumer checks
// them on every load.
func Attach(mem []byte) (*Ring, error) {
	if len(mem) < HeaderSize {
		return nil, fmt.Errorf("spsc: region of %d bytes is shorter than the %d-byte header", len(mem), HeaderSize)
	}
	le := binary.LittleEndian
	if m := le.Uint32(mem[offMagic:]); m != Magic {
		return nil, fmt.Errorf("%w: magic %#08x, want %#08x", ErrBadHeader, m, Magic)
	}
	if v := le.Uint32(mem[offVersion:]); v != Version {
		return nil, fmt.Errorf("%w: version %d, this package reads version %d", ErrBadHeader, v, Version)
	}
	capacity := le.Uint32(mem[offCapacity:])
	if !validCapacity(uint64(capacity)) {
		return nil, fmt.Errorf("%w: capacity %d is not a power of two in [%d, %d]", ErrBadHeader, capacity, MinCapacity, MaxCapacity)
	}
	if s := le.Uint32(mem[offSlotSize:]); s != SlotSize {
		return nil, fmt.Errorf("%w: slot size %d, want %d", ErrBadHeader, s, SlotSize)
	}
	if err := checkRegion(mem, int(capacity)); err != nil {
		return nil, err
	}
	return view(mem, int(capacity)), nil
}

// checkRegion checks the alignment of mem and that it holds capacity slots.
func checkRegion(mem []byte, capacity int) error {
	if len(mem) < Size(capacity) {
		return fmt.Errorf("spsc: region of %d bytes is too short for %d slots (need %d)", len(mem), capacity, Size(capacity))
	}
	if p := uintptr(unsafe.Pointer(&mem[0])); p%Alignment != 0 {
		return fmt.Errorf("spsc: region at %#x is not %d-byte aligned", p, Alignment)
	}
	return nil
}

// view builds a Ring over a checked region. capacity is the value from the
// header at the time of the check; later changes to the header are ignored.
func view(mem []byte, capacity int) *Ring {
	mem = mem[:Size(capacity):Size(capacity)]
	return &Ring{
		mem:   mem,
		tail:  (*atomic.Uint64)(unsafe.Pointer(&mem[offTail])),
		head:  (*atomic.Uint64)(unsafe.Pointer(&mem[offHead])),
		slots: unsafe.Slice((*uint64)(unsafe.Pointer(&mem[offSlots])), capacity),
		mask:  uint64(capacity - 1),
	}
}

// Cap returns the capacity of the ring in slots.
func (r *Ring) Cap() int { return len(r.slots) }
