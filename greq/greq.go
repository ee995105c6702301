// Package greq owns the request records of offloaded operations and the
// request handles CasperII gives the application for them: a record's
// life (free list, chunks), its handle, its state and its result (the
// MPI status it completes with).
//
// The work is C (greq.h, greq.c) because it sits on the per-call path; see
// greq.h for why the handles are our own rather than MPI generalized
// requests. greq knows nothing of what an operation is: the user side
// (internal/user/op.h) keeps its fields (communicator, buffers, the cell
// request) beside the record, in a struct whose first member is the
// record, and frees what they hold before returning it. This file gives Go
// read access to the accounting, which the leak tests and the statistics
// use.
//
// greq must not import any package of this module but internal/mpi's
// test helpers in its tests, nor include a header of the user side, of
// the cells (postcell) or of the shared heap.
package greq

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -O3 -Wall -Werror
#include "greq.h"
*/
import "C"

// Stats is the accounting of operation records.
type Stats struct {
	Live      int // records in use: operations not yet finished and released
	Allocated int // records ever allocated (they are reused, never freed)
	Handles   int // records whose handle the application still holds
}

// Current returns the accounting of this process.
func Current() Stats {
	return Stats{
		Live:      int(C.csp_greq.live),
		Allocated: int(C.csp_greq.allocated),
		Handles:   int(C.csp_greq.handles),
	}
}
