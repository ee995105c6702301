package postcell

import (
	"fmt"
	"math"
)

// Request is a private copy of a cell's line 0. The ghost takes it with
// Snapshot and validates and uses only the copy.
type Request struct {
	Op        Op
	Mode      Mode
	Flags     uint16
	Gen       uint32
	Slot      int32
	Peer      int32
	Tag       int32
	TagMask   uint32
	Seg       uint32
	Target    uint32
	Off       uint64
	NBytes    uint64
	TargetGen uint32
}

// Snapshot copies the request line of c. The user may still write to it
// (a broken user might); the copy is what gets validated and used.
func Snapshot(c *Cell) Request {
	return Request{
		Op: Op(c.Op), Mode: Mode(c.Mode), Flags: c.Flags, Gen: c.Gen, Slot: c.Slot,
		Peer: c.Peer, Tag: c.Tag, TagMask: c.TagMask, Seg: c.Seg,
		Target: c.Target, Off: c.Off, NBytes: c.Nbytes, TargetGen: c.TargetGen,
	}
}

// Limits is what a ghost knows independently of the user, against which a
// request is checked.
type Limits struct {
	WorldSize int    // peers are world ranks in [0, WorldSize)
	Slots     int    // internal communicators in the pool
	TagUB     int    // the implementation's MPI_TAG_UB
	Cells     uint32 // cells in the user's channel (Cancel targets)
	Segments  uint32 // entries in the user's segment table
	MaxBytes  uint64 // largest buffer the ghost posts (an MPI_Count of bytes: at most math.MaxInt64)
	AnySource int32  // MPI_ANY_SOURCE of the MPI library
	AnyTag    int32  // MPI_ANY_TAG of the MPI library
	// SegmentSize returns the size of mapped segment seg as the ghost
	// recorded it when mapping it; ok is false for unknown segments.
	SegmentSize func(seg uint32) (size uint64, ok bool)
}

// Class groups validation failures; the ghost maps each to an MPI error class.
type Class uint8

// Failure classes.
const (
	ClassArg    Class = iota + 1 // malformed field (op, mode, generation, slot, target)
	ClassRank                    // peer out of range
	ClassTag                     // tag out of range
	ClassBuffer                  // buffer outside its segment, or unknown segment
	ClassCount                   // length too large for one MPI operation
)

// Error describes why a request is rejected.
type Error struct {
	Class  Class
	Field  string
	Value  uint64
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("postcell: bad %s %d: %s", e.Field, e.Value, e.Reason)
}

func bad(class Class, field string, v uint64, format string, args ...any) *Error {
	return &Error{Class: class, Field: field, Value: v, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks every field the ghost will use for r.Op. A nil result
// means the ghost may act on r without further bounds checks: peers, slots
// and tags are in range, and [Off, Off+NBytes) lies inside segment Seg.
// Message ids (Mrecv) are checked by the ghost against its own table.
func (r *Request) Validate(l *Limits) error {
	if r.Gen == 0 {
		return bad(ClassArg, "generation", 0, "generation 0 is never published")
	}
	if r.Mode != MatchNative && r.Mode != MatchGhost {
		return bad(ClassArg, "mode", uint64(r.Mode), "unknown matching mode")
	}
	switch r.Op {
	case OpSend, OpSsend:
		if err := r.checkRoute(l, false); err != nil {
			return err
		}
		return r.checkBuffer(l)
	case OpRecv:
		if err := r.checkRoute(l, true); err != nil {
			return err
		}
		return r.checkBuffer(l)
	case OpIprobe, OpProbe, OpImprobe, OpMprobe:
		return r.checkRoute(l, true)
	case OpMrecv:
		return r.checkBuffer(l)
	case OpCancel:
		if uint64(r.Target) >= uint64(l.Cells) {
			return bad(ClassArg, "cancel target", uint64(r.Target), "not a cell of this channel (%d cells)", l.Cells)
		}
		if r.TargetGen == 0 {
			return bad(ClassArg, "cancel target generation", 0, "generation 0 is never published")
		}
		return nil
	case OpSegment, OpWinAttach:
		if r.Target >= l.Segments {
			return bad(ClassArg, "segment", uint64(r.Target), "not an entry of the segment table (%d entries)", l.Segments)
		}
		return nil
	case OpWinWatch:
		if r.NBytes != 0 && r.NBytes != 8 {
			return bad(ClassArg, "watch length", r.NBytes, "a lock word is 8 bytes (0 stops watching it)")
		}
		if r.Off%8 != 0 {
			return bad(ClassBuffer, "offset", r.Off, "a lock word is 8-byte aligned")
		}
		if r.NBytes == 0 {
			if r.Seg >= l.Segments {
				return bad(ClassBuffer, "segment", uint64(r.Seg), "not an entry of the segment table (%d entries)", l.Segments)
			}
			return nil
		}
		return r.checkBuffer(l)
	case OpFinalize:
		return nil
	}
	return bad(ClassArg, "op", uint64(r.Op), "unknown operation")
}

// checkRoute validates slot, peer and tag; wildcards are allowed on the
// receiving side only.
func (r *Request) checkRoute(l *Limits, recv bool) error {
	if r.Slot < 0 || int(r.Slot) >= l.Slots {
		return bad(ClassArg, "slot", uint64(uint32(r.Slot)), "not an internal communicator (%d in the pool)", l.Slots)
	}
	if !(recv && r.Peer == l.AnySource) && (r.Peer < 0 || int(r.Peer) >= l.WorldSize) {
		return bad(ClassRank, "peer", uint64(uint32(r.Peer)), "not a world rank (world size %d)", l.WorldSize)
	}
	if !(recv && r.Tag == l.AnyTag) && (r.Tag < 0 || int(r.Tag) > l.TagUB) {
		return bad(ClassTag, "tag", uint64(uint32(r.Tag)), "outside [0, %d]", l.TagUB)
	}
	return nil
}

// checkBuffer validates that [Off, Off+NBytes) lies in a mapped segment.
func (r *Request) checkBuffer(l *Limits) error {
	if r.NBytes > l.MaxBytes || r.NBytes > math.MaxInt64 {
		return bad(ClassCount, "length", r.NBytes, "larger than one MPI operation carries (%d bytes)", min(l.MaxBytes, math.MaxInt64))
	}
	if r.NBytes == 0 && r.Seg == SegNone {
		return nil
	}
	if r.Seg >= l.Segments {
		return bad(ClassBuffer, "segment", uint64(r.Seg), "not an entry of the segment table (%d entries)", l.Segments)
	}
	size, ok := l.SegmentSize(r.Seg)
	if !ok {
		return bad(ClassBuffer, "segment", uint64(r.Seg), "not mapped")
	}
	if r.Off > size || r.NBytes > size-r.Off {
		return bad(ClassBuffer, "offset", r.Off, "buffer of %d bytes does not fit segment %d of %d bytes", r.NBytes, r.Seg, size)
	}
	return nil
}
