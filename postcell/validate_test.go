package postcell

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

const (
	anySource = -2 // MPICH's MPI_ANY_SOURCE
	anyTag    = -1 // MPICH's MPI_ANY_TAG
)

func testLimits() *Limits {
	sizes := map[uint32]uint64{0: 1 << 20, 1: 4096, 3: 0}
	return &Limits{
		WorldSize: 8, Slots: 4, TagUB: 1<<28 - 1, Cells: 64, Segments: 4,
		MaxBytes: math.MaxInt32, AnySource: anySource, AnyTag: anyTag,
		SegmentSize: func(s uint32) (uint64, bool) { v, ok := sizes[s]; return v, ok },
	}
}

func goodSend() Request {
	return Request{Op: OpSend, Gen: 1, Slot: 1, Peer: 3, Tag: 77, Seg: 0, Off: 100, NBytes: 1000}
}

func requireClass(t *testing.T, err error, c Class, field string) {
	t.Helper()
	var e *Error
	require.True(t, errors.As(err, &e), "want *Error, got %v", err)
	require.Equal(t, c, e.Class, "class of %v", err)
	require.Equal(t, field, e.Field, "field of %v", err)
	require.NotEmpty(t, e.Error())
}

func TestValidateAcceptsWellFormed(t *testing.T) {
	l := testLimits()
	for _, r := range []Request{
		goodSend(),
		{Op: OpSsend, Gen: 9, Slot: 0, Peer: 0, Tag: 0, Seg: 1, Off: 0, NBytes: 4096},
		{Op: OpRecv, Gen: 2, Slot: 3, Peer: anySource, Tag: anyTag, Seg: 0, Off: 1<<20 - 8, NBytes: 8},
		{Op: OpRecv, Mode: MatchGhost, Gen: 2, Slot: 3, Peer: 7, Tag: 1<<28 - 1, TagMask: 0xffff, Seg: SegNone},
		{Op: OpSend, Gen: 1, Slot: 0, Peer: 1, Tag: 5, Seg: 3, Off: 0, NBytes: 0}, // empty segment, empty message
		{Op: OpIprobe, Gen: 3, Slot: 2, Peer: anySource, Tag: anyTag},
		{Op: OpImprobe, Gen: 3, Slot: 2, Peer: 4, Tag: 4},
		{Op: OpMrecv, Gen: 3, Target: 12345, Seg: 0, NBytes: 10},
		{Op: OpCancel, Gen: 4, Target: 63, TargetGen: 8},
		{Op: OpSegment, Gen: 4, Target: 3},
		{Op: OpWinWatch, Gen: 4, Seg: 0, Off: 1<<20 - 8, NBytes: 8},
		{Op: OpWinWatch, Gen: 4, Seg: 3, Off: 64, NBytes: 0}, // stop watching: the segment may be gone
		{Op: OpFinalize, Gen: 5},
	} {
		require.NoError(t, r.Validate(l), "%+v", r)
	}
}

func TestValidateRejects(t *testing.T) {
	l := testLimits()
	cases := []struct {
		name  string
		edit  func(*Request)
		class Class
		field string
	}{
		{"zero generation", func(r *Request) { r.Gen = 0 }, ClassArg, "generation"},
		{"unknown op", func(r *Request) { r.Op = 200 }, ClassArg, "op"},
		{"op none", func(r *Request) { r.Op = OpNone }, ClassArg, "op"},
		{"unknown mode", func(r *Request) { r.Mode = 7 }, ClassArg, "mode"},
		{"negative slot", func(r *Request) { r.Slot = -1 }, ClassArg, "slot"},
		{"slot past pool", func(r *Request) { r.Slot = 4 }, ClassArg, "slot"},
		{"peer past world", func(r *Request) { r.Peer = 8 }, ClassRank, "peer"},
		{"negative peer", func(r *Request) { r.Peer = -5 }, ClassRank, "peer"},
		{"any source on a send", func(r *Request) { r.Peer = anySource }, ClassRank, "peer"},
		{"any tag on a send", func(r *Request) { r.Tag = anyTag }, ClassTag, "tag"},
		{"tag past bound", func(r *Request) { r.Tag = 1 << 28 }, ClassTag, "tag"},
		{"negative tag", func(r *Request) { r.Tag = -7 }, ClassTag, "tag"},
		{"unknown segment", func(r *Request) { r.Seg = 2 }, ClassBuffer, "segment"},
		{"segment past table", func(r *Request) { r.Seg = 4 }, ClassBuffer, "segment"},
		{"no segment with bytes", func(r *Request) { r.Seg = SegNone }, ClassBuffer, "segment"},
		{"buffer past end", func(r *Request) { r.Off = 1<<20 - 10 }, ClassBuffer, "offset"},
		{"offset past end", func(r *Request) { r.Off = 1<<20 + 1; r.NBytes = 0 }, ClassBuffer, "offset"},
		{"offset wraps", func(r *Request) { r.Off = math.MaxUint64 - 10 }, ClassBuffer, "offset"},
		{"length wraps", func(r *Request) { r.NBytes = math.MaxUint64 }, ClassCount, "length"},
		{"length past the limit", func(r *Request) { r.NBytes = 1<<31 + 1 }, ClassCount, "length"},
		{"length past MPI_Count", func(r *Request) { r.NBytes = math.MaxInt64 + 1 }, ClassCount, "length"},
		{"cancel target past cells", func(r *Request) { r.Op = OpCancel; r.Target = 64; r.TargetGen = 1 }, ClassArg, "cancel target"},
		{"cancel generation zero", func(r *Request) { r.Op = OpCancel; r.Target = 1 }, ClassArg, "cancel target generation"},
		{"segment op past table", func(r *Request) { r.Op = OpSegment; r.Target = 4 }, ClassArg, "segment"},
		{"watch past segment", func(r *Request) { r.Op = OpWinWatch; r.Off = 1 << 20; r.NBytes = 8 }, ClassBuffer, "offset"},
		{"watch unaligned", func(r *Request) { r.Op = OpWinWatch; r.Off = 12; r.NBytes = 8 }, ClassBuffer, "offset"},
		{"watch not a word", func(r *Request) { r.Op = OpWinWatch; r.NBytes = 4 }, ClassArg, "watch length"},
		{"watch unmapped", func(r *Request) { r.Op = OpWinWatch; r.Seg = 2; r.Off = 0; r.NBytes = 8 }, ClassBuffer, "segment"},
		{"unwatch past table", func(r *Request) { r.Op = OpWinWatch; r.Seg = 4; r.Off = 0; r.NBytes = 0 }, ClassBuffer, "segment"},
		{"probe tag past bound", func(r *Request) { r.Op = OpIprobe; r.Tag = 1 << 29 }, ClassTag, "tag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := goodSend()
			c.edit(&r)
			requireClass(t, r.Validate(l), c.class, c.field)
		})
	}
}

func TestSnapshotCopiesRequestLine(t *testing.T) {
	var c Cell
	c.Op, c.Mode, c.Flags, c.Gen = uint8(OpRecv), uint8(MatchGhost), FlagBounce, 42
	c.Slot, c.Peer, c.Tag, c.TagMask = 2, 5, 99, 0xf0f0
	c.Seg, c.Target, c.Off, c.Nbytes, c.TargetGen = 1, 7, 64, 128, 3
	r := Snapshot(&c)
	c.Tag = 1 << 30 // a writer changing the cell after the snapshot
	require.Equal(t, Request{Op: OpRecv, Mode: MatchGhost, Flags: FlagBounce, Gen: 42, Slot: 2,
		Peer: 5, Tag: 99, TagMask: 0xf0f0, Seg: 1, Target: 7, Off: 64, NBytes: 128, TargetGen: 3}, r)
}

func TestCompletionWord(t *testing.T) {
	var c Cell
	c.Gen = 5
	require.False(t, c.IsDone())
	c.Complete(4) // a stale completion of the previous use
	require.False(t, c.IsDone())
	c.Complete(5)
	require.True(t, c.IsDone())
	require.Equal(t, uint32(1), NextGen(math.MaxUint32), "generation skips zero")
	require.Equal(t, uint32(6), NextGen(5))
}

func TestArray(t *testing.T) {
	mem := alignedRegion(4 * Size)
	a, err := NewArray(mem)
	require.NoError(t, err)
	require.Equal(t, uint32(4), a.Len())
	a.At(3).Gen = 9
	require.Equal(t, uint32(9), binary.LittleEndian.Uint32(mem[3*Size+4:]))
	require.True(t, a.Valid(3))
	require.False(t, a.Valid(4))
	require.Panics(t, func() { a.At(4) })
	_, err = NewArray(mem[:Size+1])
	require.Error(t, err)
	_, err = NewArray(mem[8 : 8+Size])
	require.Error(t, err, "unaligned region")
}

// alignedRegion returns n bytes starting on a 64-byte boundary.
func alignedRegion(n int) []byte {
	buf := make([]byte, n+64)
	off := (64 - int(uintptr(unsafe.Pointer(&buf[0]))%64)) % 64
	return buf[off : off+n]
}

// FuzzValidate feeds arbitrary request lines and limits: Validate never
// panics, and whatever it accepts is safe to use.
func FuzzValidate(f *testing.F) {
	f.Add(make([]byte, 64), 8, 4, uint32(64), uint32(4), uint64(1<<20))
	seed := goodSend()
	f.Add(encodeRequest(seed), 8, 4, uint32(64), uint32(4), uint64(1<<20))
	f.Fuzz(func(t *testing.T, line []byte, world, slots int, cells, segs uint32, segSize uint64) {
		if len(line) < 64 {
			line = append(line, make([]byte, 64-len(line))...)
		}
		mem := alignedRegion(Size)
		copy(mem, line[:64])
		a, err := NewArray(mem)
		require.NoError(t, err)
		r := Snapshot(a.At(0))
		l := &Limits{
			WorldSize: world, Slots: slots, TagUB: 1<<28 - 1, Cells: cells, Segments: segs,
			MaxBytes: math.MaxInt32, AnySource: anySource, AnyTag: anyTag,
			SegmentSize: func(s uint32) (uint64, bool) { return segSize, s%2 == 0 },
		}
		if err := r.Validate(l); err != nil {
			var e *Error
			require.True(t, errors.As(err, &e))
			return
		}
		require.NotZero(t, r.Gen)
		switch r.Op {
		case OpSend, OpSsend, OpRecv, OpIprobe, OpProbe, OpImprobe, OpMprobe:
			require.True(t, r.Slot >= 0 && int(r.Slot) < slots)
			require.True(t, (r.Peer >= 0 && int(r.Peer) < world) || (r.Op != OpSend && r.Op != OpSsend && r.Peer == anySource))
		}
		switch r.Op {
		case OpSend, OpSsend, OpRecv, OpMrecv:
			if r.NBytes > 0 {
				require.Less(t, r.Seg, segs)
				require.LessOrEqual(t, r.Off+r.NBytes, segSize)
				require.GreaterOrEqual(t, r.Off+r.NBytes, r.Off, "no wrap-around")
			}
		case OpCancel:
			require.Less(t, r.Target, cells)
		case OpWinWatch:
			require.Less(t, r.Seg, segs)
			require.Zero(t, r.Off%8)
			if r.NBytes > 0 {
				require.Equal(t, uint64(8), r.NBytes)
				require.LessOrEqual(t, r.Off+8, segSize)
				require.Zero(t, r.Seg%2, "mapped")
			}
		}
	})
}

func encodeRequest(r Request) []byte {
	mem := alignedRegion(Size)
	a, _ := NewArray(mem)
	c := a.At(0)
	c.Op, c.Mode, c.Flags, c.Gen, c.Slot, c.Peer, c.Tag, c.TagMask = uint8(r.Op), uint8(r.Mode), r.Flags, r.Gen, r.Slot, r.Peer, r.Tag, r.TagMask
	c.Seg, c.Target, c.Off, c.Nbytes, c.TargetGen = r.Seg, r.Target, r.Off, r.NBytes, r.TargetGen
	return append([]byte(nil), mem[:64]...)
}
