package user

/*
#include <stdint.h>
#include "testhook.h"
*/
import "C"

// Test and accounting hooks (testhook.c). The C functions there are also
// what C test programs reach with dlsym in a preloaded libcasperii.so.
// CurrentUsage feeds the last fields of the CSP_STATS line.

// Usage is what the fast path holds at one moment.
type Usage struct {
	CellsInUse int    // cells not in the free pool
	OpsLive    uint64 // operation records in use (pending or not yet freed requests)
	HeapInUse  uint64 // bytes handed out by the shared heap (registered buffers, bounce copies)
	Held       int    // posts waiting in the backlog for a cell
}

// CurrentUsage returns what the fast path holds now. With drain, it first
// waits (as MPI_Finalize does) for every posted operation to finish, so
// that what remains is what the application still holds, or a leak. ok is
// false in a process that runs no fast path (ghost, pass-through).
func CurrentUsage(drain bool) (u Usage, ok bool) {
	var cells, held C.uint32_t
	var ops, heap C.uint64_t
	d := C.int(0)
	if drain {
		d = 1
	}
	if C.csp_test_usage(d, &cells, &ops, &heap, &held) != 0 {
		return Usage{}, false
	}
	return Usage{CellsInUse: int(cells), OpsLive: uint64(ops), HeapInUse: uint64(heap), Held: int(held)}, true
}
