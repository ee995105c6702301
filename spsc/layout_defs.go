//go:build ignore

// The Go view of spsc.h, the one definition of the ring's layout, written
// by layoutgen (go generate) from layout_defs.go with every C reference
// replaced by what the C compiler says. Edit spsc.h or layout_defs.go,
// never layout_gen.go; TestLayoutGenerated fails while they disagree.

package spsc

/*
#include "spsc.h"
*/
import "C"

// Layout constants, the SPSC_* macros of spsc.h.
const (
	Magic       = C.SPSC_MAGIC        // "SPSC" read as a little-endian uint32
	Version     = C.SPSC_VERSION      // layout version this package reads and writes
	SlotSize    = C.SPSC_SLOT_SIZE    // bytes per slot: one uint64
	MinCapacity = C.SPSC_MIN_CAPACITY // smallest capacity, in slots
	MaxCapacity = C.SPSC_MAX_CAPACITY // largest capacity, in slots
	Alignment   = C.SPSC_ALIGNMENT    // required alignment of the region base, in bytes
	HeaderSize  = C.SPSC_HEADER_SIZE  // bytes before the first slot: four cache lines
)

// Offsets into the region, SPSC_OFF_*.
const (
	offMagic    = C.SPSC_OFF_MAGIC     // uint32, line 0
	offVersion  = C.SPSC_OFF_VERSION   // uint32, line 0
	offCapacity = C.SPSC_OFF_CAPACITY  // uint32, line 0
	offSlotSize = C.SPSC_OFF_SLOT_SIZE // uint32, line 0
	offTail     = C.SPSC_OFF_TAIL      // uint64, line 1, written by the producer only
	offHead     = C.SPSC_OFF_HEAD      // uint64, line 2, written by the consumer only
	offReserved = C.SPSC_OFF_RESERVED  // line 3, zero
	offSlots    = C.SPSC_OFF_SLOTS
)
