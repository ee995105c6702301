//go:build ignore

// The Go view of channel.h, the one definition of the channel and of the
// ghost's control block, written by layoutgen (go generate) from
// layout_defs.go with every C reference replaced by what the C compiler
// says. Edit channel.h or layout_defs.go, never layout_gen.go;
// TestLayoutGenerated fails while they disagree.

package channel

/*
#include "channel.h"
*/
import "C"

// Layout constants, as in channel.h.
const (
	ChanMagic    = C.CSP_CHAN_MAGIC      // "CSPC"
	GhostMagic   = C.CSP_GHOST_MAGIC     // "CSPG"
	Version      = C.CSP_CHAN_VERSION    // layout version of both blocks
	MaxSegments  = C.CSP_MAX_SEGS        // rows of the segment table
	SegTableOff  = C.CSP_CHAN_SEGTAB_OFF // offset of the segment table
	HeaderBytes  = C.CSP_CHAN_HDR_BYTES  // the ring starts here
	UserRunning  = C.CSP_USER_RUNNING    // ChanHdr.UserState
	UserFinished = C.CSP_USER_FINALIZED  // ChanHdr.UserState
	GhostRunning = C.CSP_GHOST_RUNNING   // GhostHdr.State
	GhostExited  = C.CSP_GHOST_EXITED    // GhostHdr.State
	// WaitAny in WaitCell: any completion wakes the sleeping user; in
	// WaitAlso: no second cell.
	WaitAny = C.CSP_WAIT_ANY
	// WaitGive in WaitCell: the user sleeps only to leave its core to the
	// ghost; any completion wakes it, and so does the ghost once a round
	// of its loop finds nothing to do.
	WaitGive = C.CSP_WAIT_GIVE
)

// ChanHdr is struct csp_chan_hdr, at offset 0 of a user's channel: line 0
// is immutable after creation, line 1 is written by the user (UserState to
// GiveSeq), line 2 by the ghost (Wake). channel.h says what each member
// means; the wake handshake is UserSleep/UserWake.
type ChanHdr C.struct_csp_chan_hdr

// GhostHdr is struct csp_ghost_hdr, a ghost's control block: line 0 is
// immutable after creation, line 1 is written by users (Doorbell), line 2
// by the ghost (Parked, State, Busy). The park handshake is Park/Ring.
type GhostHdr C.struct_csp_ghost_hdr

// SegEntry is struct csp_seg_entry, one row of the segment table, written
// by the user.
type SegEntry C.struct_csp_seg_entry
