package spsc

// Layout constants, as the SPSC_* macros in spsc.h.
const (
	Magic       = 0x43535053 // "SPSC" read as a little-endian uint32
	Version     = 1          // layout version this package reads and writes
	SlotSize    = 8          // bytes per slot: one uint64
	MinCapacity = 2          // smallest capacity, in slots
	MaxCapacity = 1 << 24    // largest capacity, in slots
	Alignment   = 64         // required alignment of the region base, in bytes
	HeaderSize  = 256        // bytes before the first slot: four cache lines
)

// Offsets into the region.
const (
	offMagic    = 0   // uint32, line 0
	offVersion  = 4   // uint32, line 0
	offCapacity = 8   // uint32, line 0
	offSlotSize = 12  // uint32, line 0
	offTail     = 64  // uint64, line 1, written by the producer only
	offHead     = 128 // uint64, line 2, written by the consumer only
	offReserved = 192 // line 3, zero
	offSlots    = HeaderSize
)

// Size returns the size in bytes of a region holding a ring of capacity
// slots: HeaderSize + SlotSize*capacity. It does not validate capacity.
func Size(capacity int) int { return HeaderSize + SlotSize*capacity }

// validCapacity reports whether c is a power of two in [MinCapacity, MaxCapacity].
func validCapacity(c uint64) bool {
	return c >= MinCapacity && c <= MaxCapacity && c&(c-1) == 0
}
