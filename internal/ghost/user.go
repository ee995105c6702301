package ghost

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/casperii/casperii/internal/channel"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/shm"
	"github.com/casperii/casperii/postcell"
	"github.com/casperii/casperii/spsc"
)

// maxSegmentBytes bounds a user segment the ghost agrees to map.
const maxSegmentBytes = 1 << 40

// user is the ghost's view of one user process.
type user struct {
	g          *Ghost
	wrank, pid int
	ch         *channel.User
	cons       *spsc.Consumer
	segs       [channel.MaxSegments]mapping
	limits     postcell.Limits
	done       bool   // finalized
	broken     bool   // gone or hostile: no longer served
	completed  bool   // a cell completed this round (wake if sleeping)
	gaveBack   uint32 // the user's GiveSeq the ghost last woke (give.go)
}

// mapping is the ghost's private record of a user segment.
type mapping struct {
	seg      *shm.Segment
	gen      uint32
	size     uint64
	attached bool // exposed in the RMA window (rma.go)
}

func unsafeAddr(p *uint32) unsafe.Pointer { return unsafe.Pointer(p) }

func newUser(g *Ghost, ui UserInfo) (*user, error) {
	ch, err := channel.AttachUser(ui.Pid, ui.Fd, ui.WRank)
	if err != nil {
		return nil, fmt.Errorf("ghost %d: %w", g.cfg.WRank, err)
	}
	u := &user{g: g, wrank: ui.WRank, pid: ui.Pid, ch: ch, cons: ch.Ring.Consumer()}
	u.limits = postcell.Limits{
		WorldSize:   g.cfg.WorldSize,
		Slots:       len(g.cfg.Pool),
		TagUB:       g.cfg.TagUB,
		Cells:       ch.Hdr.Ncells,
		Segments:    channel.MaxSegments,
		MaxBytes:    math.MaxInt64, // counts beyond an int go to MPI_Isend_c (internal/mpi)
		AnySource:   int32(mpi.AnySource),
		AnyTag:      int32(mpi.AnyTag),
		SegmentSize: u.segmentSize,
	}
	return u, nil
}

// segmentSize maps segment s of the user on first use (or again after the
// user changed the entry) and returns its size; ok is false when the entry
// is unused or cannot be mapped.
func (u *user) segmentSize(s uint32) (uint64, bool) {
	if s >= channel.MaxSegments {
		return 0, false
	}
	gen, size, fd := u.ch.Segs[s].Load() // the segment table handshake (channel.h)
	m := &u.segs[s]
	if m.seg != nil && m.gen == gen {
		return m.size, true
	}
	if m.seg != nil {
		u.g.unwatchSegment(u, s)
		u.g.detach(m)
		m.seg.Close()
		*m = mapping{}
	}
	if size == 0 || size > maxSegmentBytes || fd < 0 {
		return 0, false
	}
	seg, err := shm.Open(u.pid, int(fd), int(size))
	if err != nil {
		return 0, false
	}
	*m = mapping{seg: seg, gen: gen, size: size}
	return size, true
}

// addr returns the ghost's address of [off, off+n) in segment s, which
// Validate has checked.
func (u *user) addr(s uint32, off uint64) unsafe.Pointer {
	if s == postcell.SegNone {
		return nil
	}
	return unsafe.Add(u.segs[s].seg.Base(), off)
}

// waitOver reports whether the sleeping user's wait may be over: it waits
// for any completion, or for a cell that is done, and then for the
// WaitAlso cell, if any, to be done too (MPI_Waitall: one wake when both
// halves of an exchange are done, not one per half). (An out-of-range
// cell is the user's mistake; waking it costs nothing.)
func (u *user) waitOver() bool {
	cell, also := u.ch.Hdr.WaitsFor()
	return u.cellOver(cell) && u.cellOver(also)
}

func (u *user) cellOver(t uint32) bool {
	if t == channel.WaitAny || !u.ch.Cells.Valid(uint64(t)) {
		return true
	}
	return u.ch.Cells.At(t).IsDone()
}

// unmap drops the ghost's mapping of segment s (the user released it).
func (u *user) unmap(s uint32) {
	if s < channel.MaxSegments && u.segs[s].seg != nil {
		u.g.unwatchSegment(u, s)
		u.g.detach(&u.segs[s])
		u.segs[s].seg.Close()
		u.segs[s] = mapping{}
	}
}

func (u *user) close() {
	for i := range u.segs {
		u.unmap(uint32(i))
	}
	u.ch.Close()
}
