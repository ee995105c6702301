// Package channel is the shared memory between a user process and its
// ghost, as Go sees it: the user's channel (header, segment table,
// submission ring, cells) and the ghost's control block. channel.h is the
// one definition of the layout: the constants and structs here are
// generated from it (layout_gen.go, by cmd/layoutgen from layout_defs.go),
// and TestLayoutGenerated fails while that file is stale.
//
// The user creates its channel; the ghost attaches to it and, because the
// user may be broken or hostile, validates the header and geometry before
// trusting anything in it.
package channel

import (
	"fmt"
	"unsafe"

	"github.com/casperii/casperii/internal/shm"
	"github.com/casperii/casperii/postcell"
	"github.com/casperii/casperii/spsc"
)

//go:generate go run ../../cmd/layoutgen layout_defs.go layout_gen.go

// MinCells and MaxCells bound a channel's cell count.
const (
	MinCells = 16
	MaxCells = postcell.MaxCells
)

// geometry computes where the ring and cells of a channel of n cells go.
func geometry(n int) (ringCap int, ringOff, cellsOff, size uint64) {
	ringCap = 1
	for ringCap < n {
		ringCap <<= 1
	}
	ringOff = HeaderBytes
	cellsOff = (ringOff + uint64(spsc.Size(ringCap)) + 63) &^ 63
	size = cellsOff + uint64(n)*postcell.Size
	return
}

// User is a user's channel, mapped by the user or by its ghost.
type User struct {
	Seg   *shm.Segment
	Hdr   *ChanHdr
	Ring  *spsc.Ring
	Cells postcell.Array
	Segs  []SegEntry // the segment table (MaxSegments rows)
}

func view(seg *shm.Segment) *User {
	u := &User{Seg: seg, Hdr: (*ChanHdr)(seg.Base())}
	u.Segs = unsafe.Slice((*SegEntry)(unsafe.Add(seg.Base(), SegTableOff)), MaxSegments)
	return u
}

// CreateUser makes the channel of the user with world rank wrank, with n cells.
func CreateUser(n, wrank int) (*User, error) {
	if n < MinCells || n > MaxCells {
		return nil, fmt.Errorf("channel: %d cells: choose between %d and %d (CSP_OFFLOAD_SHMQ_NCELLS)", n, MinCells, MaxCells)
	}
	ringCap, ringOff, cellsOff, size := geometry(n)
	seg, err := shm.Create(fmt.Sprintf("casperii-chan-%d", wrank), int(size))
	if err != nil {
		return nil, err
	}
	u := view(seg)
	mem := seg.Bytes()
	if u.Ring, err = spsc.Format(mem[ringOff:cellsOff], ringCap); err != nil {
		seg.Close()
		return nil, err
	}
	if u.Cells, err = postcell.NewArray(mem[cellsOff:size]); err != nil {
		seg.Close()
		return nil, err
	}
	h := u.Hdr
	h.Version, h.Ncells, h.RingCap = Version, uint32(n), uint32(ringCap)
	h.RingOff, h.CellsOff, h.Size = ringOff, cellsOff, size
	h.UserWrank, h.UserPid = int32(wrank), int32(shm.Pid())
	h.UserState = UserRunning
	for i := range u.Segs {
		u.Segs[i].Fd = -1
	}
	h.Magic = ChanMagic // last: the header is complete
	return u, nil
}

// AttachUser maps the channel that process pid holds as descriptor fd and
// validates it: magic, version, the owner's identity, and a geometry that
// this ghost computes itself from the cell count and checks against the
// header, so no offset from the user is trusted.
func AttachUser(pid, fd, wrank int) (*User, error) {
	seg, err := shm.Open(pid, fd, HeaderBytes)
	if err != nil {
		return nil, err
	}
	u, err := validate(seg, pid, wrank)
	if err != nil {
		seg.Close()
		return nil, err
	}
	return u, nil
}

func validate(seg *shm.Segment, pid, wrank int) (*User, error) {
	u := view(seg)
	h := *u.Hdr // a private copy
	switch {
	case h.Magic != ChanMagic:
		return nil, fmt.Errorf("channel of rank %d: bad magic %#x", wrank, h.Magic)
	case h.Version != Version:
		return nil, fmt.Errorf("channel of rank %d: version %d, this ghost speaks %d", wrank, h.Version, Version)
	case int(h.UserPid) != pid || int(h.UserWrank) != wrank:
		return nil, fmt.Errorf("channel of rank %d: header names pid %d rank %d, expected pid %d", wrank, h.UserPid, h.UserWrank, pid)
	case h.Ncells < MinCells || h.Ncells > MaxCells:
		return nil, fmt.Errorf("channel of rank %d: %d cells outside [%d, %d]", wrank, h.Ncells, MinCells, MaxCells)
	}
	ringCap, ringOff, cellsOff, size := geometry(int(h.Ncells))
	if h.RingCap != uint32(ringCap) || h.RingOff != ringOff || h.CellsOff != cellsOff || h.Size != size || uint64(seg.Size()) < size {
		return nil, fmt.Errorf("channel of rank %d: geometry does not match %d cells", wrank, h.Ncells)
	}
	mem := seg.Bytes()
	var err error
	if u.Ring, err = spsc.Attach(mem[ringOff:cellsOff]); err != nil {
		return nil, fmt.Errorf("channel of rank %d: %w", wrank, err)
	}
	if u.Ring.Cap() != ringCap {
		return nil, fmt.Errorf("channel of rank %d: ring capacity %d, want %d", wrank, u.Ring.Cap(), ringCap)
	}
	if u.Cells, err = postcell.NewArray(mem[cellsOff:size]); err != nil {
		return nil, fmt.Errorf("channel of rank %d: %w", wrank, err)
	}
	return u, nil
}

// Close unmaps the channel.
func (u *User) Close() error { return u.Seg.Close() }

// Ghost is a ghost's control block.
type Ghost struct {
	Seg *shm.Segment
	Hdr *GhostHdr
}

// CreateGhost makes the control block of the ghost with world rank wrank.
func CreateGhost(wrank int) (*Ghost, error) {
	seg, err := shm.Create(fmt.Sprintf("casperii-ghost-%d", wrank), int(unsafe.Sizeof(GhostHdr{})))
	if err != nil {
		return nil, err
	}
	g := &Ghost{Seg: seg, Hdr: (*GhostHdr)(seg.Base())}
	g.Hdr.Version, g.Hdr.GhostWrank, g.Hdr.GhostPid = Version, int32(wrank), int32(shm.Pid())
	g.Hdr.State = GhostRunning
	if shm.GlobalBarrierWorks() {
		g.Hdr.Membarrier = 1
	}
	g.Hdr.Magic = GhostMagic
	return g, nil
}

// AttachGhost maps the control block of ghost wrank held by pid as fd.
func AttachGhost(pid, fd, wrank int) (*Ghost, error) {
	seg, err := shm.Open(pid, fd, int(unsafe.Sizeof(GhostHdr{})))
	if err != nil {
		return nil, err
	}
	g := &Ghost{Seg: seg, Hdr: (*GhostHdr)(seg.Base())}
	if h := *g.Hdr; h.Magic != GhostMagic || h.Version != Version || int(h.GhostPid) != pid || int(h.GhostWrank) != wrank {
		seg.Close()
		return nil, fmt.Errorf("ghost control block of rank %d: bad header (magic %#x version %d pid %d rank %d)",
			wrank, h.Magic, h.Version, h.GhostPid, h.GhostWrank)
	}
	return g, nil
}

// Close unmaps the control block.
func (g *Ghost) Close() error { return g.Seg.Close() }
