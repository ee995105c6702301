// Package postcell defines the post cell, the 128-byte record a user process
// hands to its ghost to post one operation, and the checks a ghost applies
// before trusting one.
//
// The layout has one definition, postcell.h; Cell mirrors it field for field
// and a test compares every offset and size with the C compiler's view.
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
package postcell

import (
	"strconv"
	"sync/atomic"
	"unsafe"
)

// Size is the size of a cell in bytes: two 64-byte cache lines.
const Size = 128

// Op is the operation a cell asks the ghost to perform.
type Op uint8

// Operations, as enum csp_cell_op in postcell.h.
const (
	OpNone     Op = 0
	OpSend     Op = 1  // Isend of NBytes at (Seg, Off) to Peer with Tag on Slot
	OpSsend    Op = 2  // synchronous send (Issend semantics)
	OpRecv     Op = 3  // Irecv of up to NBytes into (Seg, Off)
	OpIprobe   Op = 4  // one probe; result flag StFound
	OpProbe    Op = 5  // completes when a matching message is there
	OpImprobe  Op = 6  // matched probe; on success StMsg names the message
	OpMprobe   Op = 7  // blocking matched probe
	OpMrecv    Op = 8  // receive message Target of an earlier (I)Mprobe
	OpCancel   Op = 9  // cancel the pending cell Target of generation TargetGen
	OpSegment  Op = 10 // segment Target changed: (re)map or unmap it
	OpFinalize Op = 11 // the user finalizes; no cell follows
	opMax      Op = 12
)

var opNames = [...]string{"none", "send", "ssend", "recv", "iprobe", "probe",
	"improbe", "mprobe", "mrecv", "cancel", "segment", "finalize"}

func (o Op) String() string {
	if o < opMax {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Mode says who matches a receive or probe.
type Mode uint8

// Matching modes, as enum csp_cell_mode.
const (
	MatchNative Mode = 0 // MPI matches on (Peer, Tag, Slot) as posted
	MatchGhost  Mode = 1 // the ghost matches Peer and Tag under TagMask
)

// Request flags (Cell.Flags).
const (
	FlagBounce uint16 = 0x1 // the buffer is a bounce copy (informational)
)

// Result flags (Cell.StFlags).
const (
	StCancelled uint32 = 0x1 // the operation was cancelled
	StFound     uint32 = 0x2 // a probe found a message
)

// SegNone is Cell.Seg for operations without a buffer (NBytes == 0).
const SegNone uint32 = 0xffffffff

// Cell mirrors struct csp_cell. Pointers to Cell point into shared memory.
type Cell struct {
	// Line 0: request, user -> ghost.
	Op        Op
	Mode      Mode
	Flags     uint16
	Gen       uint32 // nonzero generation of this use of the cell
	Slot      int32  // internal communicator: index in the world-dup pool
	Peer      int32  // peer ghost's world rank, or MPI_ANY_SOURCE
	Tag       int32  // internal (encoded) tag, or MPI_ANY_TAG
	TagMask   uint32 // MatchGhost: bits of Tag that must match
	Seg       uint32 // buffer segment index, or SegNone
	Target    uint32 // Cancel: cell index; Mrecv: message id; Segment: segment
	Off       uint64 // buffer offset inside the segment
	NBytes    uint64 // Send: message length; Recv: capacity
	TargetGen uint32 // Cancel: generation of the target cell
	_         [3]uint32

	// Line 1: result, ghost -> user.
	StSource int32  // internal source: world rank of the sending ghost
	StTag    int32  // internal tag as received
	StError  int32  // MPI error class, 0 on success
	StFlags  uint32 // St* flags
	StBytes  uint64 // bytes received, or size of the probed message
	StMsg    uint32 // Improbe/Mprobe: message id for a later Mrecv
	_        [8]uint32
	Done     uint32 // completion word: the ghost stores Gen here, last
}

var _ [Size - unsafe.Sizeof(Cell{})]struct{} // Cell is exactly Size bytes
var _ [unsafe.Sizeof(Cell{}) - Size]struct{}

// IsDone reports whether the ghost has completed generation c.Gen (acquire).
func (c *Cell) IsDone() bool { return atomic.LoadUint32(&c.Done) == c.Gen }

// Complete publishes the result lines for generation gen (release). The
// ghost calls it after every other result field is written.
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
