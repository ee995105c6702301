// Package postcell defines the post cell, the 128-byte record a user process
// hands to its ghost to post one operation, and the checks a ghost applies
// before trusting one.
//
// The layout has one definition, postcell.h. Cell and the constants are
// generated from it (layout_gen.go, by cmd/layoutgen from layout_defs.go);
// TestLayoutGenerated fails while the checked-in file is stale.
//
// A cell has two cache lines. Line 0, the request, is written by the user
// before it publishes the cell index on its ring and is read-only for the
// ghost afterwards. Line 1, the result, is written by the ghost; its last
// store is the completion word Done, set to the cell's Gen with release
// semantics. The user reads line 1 only after it observes Done == Gen.
//
// Everything a ghost reads comes from another process that may be buggy or
// hostile, so the ghost first copies line 0 into a Request (Snapshot) and
// then validates the copy (Request.Validate): checking shared memory and
// then reading it again would let a writer change it in between.
//
// postcell owns the post cell: its layout (postcell.h, the one definition;
// layout_gen.go is generated from it), the completion word handshake
// (Cell.Complete, IsDone; csp_cell_done in C) and the ghost's validation
// of a request. It must not import any other package of this module (it
// is pure Go, checked with the race detector).
package postcell

import (
	"strconv"
	"sync/atomic"
	"unsafe"
)

//go:generate go run ../cmd/layoutgen layout_defs.go layout_gen.go

var opNames = [...]string{"none", "send", "ssend", "recv", "iprobe", "probe",
	"improbe", "mprobe", "mrecv", "cancel", "segment", "finalize"}

func (o Op) String() string {
	if o < opMax {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

var _ [Size - unsafe.Sizeof(Cell{})]struct{} // Cell is exactly Size bytes
var _ [unsafe.Sizeof(Cell{}) - Size]struct{}

// The completion word handshake (postcell.h states its invariant): the
// ghost writes line 1 and then releases it with Complete; the user reads
// line 1 only after IsDone, the matching acquire, returned true. C has the
// same pair, csp_cell_complete and csp_cell_done, beside the struct.

// IsDone is the user's half of the completion handshake, csp_cell_done:
// an acquire load of Done, true when it equals Gen. Once true, line 1 holds
// the ghost's result for this generation and the cell is the user's again.
func (c *Cell) IsDone() bool { return atomic.LoadUint32(&c.Done) == c.Gen }

// Complete is the ghost's half, csp_cell_complete: it stores gen into Done
// with release semantics, publishing every result field written before it.
// The ghost calls it last, and never touches the cell after it.
func (c *Cell) Complete(gen uint32) { atomic.StoreUint32(&c.Done, gen) }

// NextGen returns the generation following gen, skipping zero so that a
// zeroed completion word never reads as done.
func NextGen(gen uint32) uint32 {
	gen++
	if gen == 0 {
		gen = 1
	}
	return gen
}
