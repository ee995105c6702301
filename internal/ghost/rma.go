package ghost

import (
	"fmt"
	"time"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/postcell"
)

// Redirected RMA (internal/user/rma.h): the ghost exposes its users'
// window memory in the internal dynamic window Config.RMAWin, one heap
// segment at a time, and keeps MPI progressing while a redirected window
// is there (rmaserve.go), so the operations other processes direct at it
// complete while its users compute. It never joins a collective for it:
// attaching is local.
//
// Invariant: a segment is attached (mapping.attached) exactly while the
// ghost maps it and a user asked for it; it is detached before the
// mapping goes away (unmap, remap of a changed entry, the user's exit).

// attach answers CSP_OP_WIN_ATTACH: segment r.Target of u in the window,
// the ghost's address of it in the result's StBytes.
func (g *Ghost) attach(u *user, cell uint32, r *postcell.Request) {
	if g.cfg.RMAWin.IsNull() {
		g.fail(u, cell, r.Gen, mpi.ErrWin, fmt.Errorf("redirected windows are off in this job (CSP_ASYNC_MODE)"))
		return
	}
	if _, ok := u.segmentSize(r.Target); !ok {
		g.fail(u, cell, r.Gen, mpi.ErrArg, fmt.Errorf("segment %d cannot be mapped", r.Target))
		return
	}
	m := &u.segs[r.Target]
	if !m.attached {
		if err := g.cfg.RMAWin.Attach(m.seg.Base(), int(m.size)); err != nil {
			g.fail(u, cell, r.Gen, errClass(err), fmt.Errorf("attaching segment %d: %w", r.Target, err))
			return
		}
		m.attached = true
		g.rmaAttached++
	}
	g.completeWith(u, cell, r.Gen, uint64(uintptr(m.seg.Base())))
}

// detach withdraws m from the window before it is unmapped.
func (g *Ghost) detach(m *mapping) {
	if !m.attached {
		return
	}
	if err := g.cfg.RMAWin.Detach(m.seg.Base()); err != nil {
		g.cfg.Log("ghost %d: detaching a segment from the RMA window: %v", g.cfg.WRank, err)
	}
	m.attached = false
	g.rmaAttached--
}

// rmaPoll bounds a sleep while windows are attached: origins elsewhere
// wait for this ghost's progress, and cannot ring it (rmaserve.go).
func (g *Ghost) rmaPoll(d time.Duration) time.Duration {
	if g.servingRMA() {
		return min(d, g.rmaPollNext())
	}
	return d
}

// rmaPark reports whether a park of timeout is a poll of the windows,
// short enough that a lost ring may cost it (park).
func (g *Ghost) rmaPark(timeout time.Duration) bool {
	return g.servingRMA() && timeout <= g.cfg.RMAPoll
}

// CloseRMA detaches everything and frees the internal window: collective
// with every process (the users free it in MPI_Finalize), so it is called
// once Run returned.
func (g *Ghost) CloseRMA() error {
	if g.cfg.RMAWin.IsNull() {
		return nil
	}
	for _, u := range g.users {
		for i := range u.segs {
			g.detach(&u.segs[i])
		}
	}
	w := g.cfg.RMAWin
	return w.Free()
}
