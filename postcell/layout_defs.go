//go:build ignore

// The Go view of postcell.h, the one definition of the post cell, written
// by layoutgen (go generate) from layout_defs.go with every C reference
// replaced by what the C compiler says. Edit postcell.h or layout_defs.go,
// never layout_gen.go; TestLayoutGenerated fails while they disagree.

package postcell

/*
#include "postcell.h"
*/
import "C"

// Size is the size of a cell in bytes: two 64-byte cache lines.
const Size = C.CSP_CELL_SIZE

// Op is the operation a cell asks the ghost to perform (Cell.Op).
type Op uint8

// Operations, enum csp_cell_op.
const (
	OpNone      Op = C.CSP_OP_NONE
	OpSend      Op = C.CSP_OP_SEND       // Isend of Nbytes at (Seg, Off) to Peer with Tag on Slot
	OpSsend     Op = C.CSP_OP_SSEND      // synchronous send (Issend semantics)
	OpRecv      Op = C.CSP_OP_RECV       // Irecv of up to Nbytes into (Seg, Off)
	OpIprobe    Op = C.CSP_OP_IPROBE     // one probe; result flag StFound
	OpProbe     Op = C.CSP_OP_PROBE      // completes when a matching message is there
	OpImprobe   Op = C.CSP_OP_IMPROBE    // matched probe; on success StMsg names the message
	OpMprobe    Op = C.CSP_OP_MPROBE     // blocking matched probe
	OpMrecv     Op = C.CSP_OP_MRECV      // receive message Target of an earlier (I)Mprobe
	OpCancel    Op = C.CSP_OP_CANCEL     // cancel the pending cell Target of generation TargetGen
	OpSegment   Op = C.CSP_OP_SEGMENT    // segment Target changed: (re)map or unmap it
	OpFinalize  Op = C.CSP_OP_FINALIZE   // the user finalizes; no cell follows
	OpWinAttach Op = C.CSP_OP_WIN_ATTACH // attach segment Target (generation TargetGen) to the RMA window; StBytes: the ghost's address
	OpWinWatch  Op = C.CSP_OP_WIN_WATCH  // NBytes 8: watch the lock word at (Seg, Off) of a redirected window; NBytes 0: stop
	opMax       Op = C.CSP_OP_MAX
)

// Mode says who matches a receive or probe (Cell.Mode).
type Mode uint8

// Matching modes, enum csp_cell_mode.
const (
	MatchNative Mode = C.CSP_MATCH_NATIVE // MPI matches on (Peer, Tag, Slot) as posted
	MatchGhost  Mode = C.CSP_MATCH_GHOST  // the ghost matches Peer and Tag under TagMask
)

// Request flags (Cell.Flags), CSP_CELL_F_*.
const (
	FlagBounce uint16 = C.CSP_CELL_F_BOUNCE // the buffer is a bounce copy (informational)
)

// Result flags (Cell.StFlags), CSP_ST_*.
const (
	StCancelled uint32 = C.CSP_ST_CANCELLED // the operation was cancelled
	StFound     uint32 = C.CSP_ST_FOUND     // a probe found a message
)

// SegNone is Cell.Seg for operations without a buffer (Nbytes == 0).
const SegNone uint32 = C.CSP_SEG_NONE

// Cell is struct csp_cell; pointers to Cell point into shared memory. Line
// 0 (Op to TargetGen) is the request, written by the user; line 1 (StSource
// to Done) is the result, written by the ghost. postcell.h says what each
// member means and who may touch it when (see also Complete and IsDone).
type Cell C.struct_csp_cell
