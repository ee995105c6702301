package ghost

import (
	"errors"
	"fmt"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/postcell"
)

// errClass maps a validation failure to the MPI error class the user sees.
func errClass(err error) int {
	var e *postcell.Error
	if errors.As(err, &e) {
		switch e.Class {
		case postcell.ClassRank:
			return mpi.ErrRank
		case postcell.ClassTag:
			return mpi.ErrTag
		case postcell.ClassBuffer:
			return mpi.ErrBuffer
		case postcell.ClassCount:
			return mpi.ErrCount
		}
		return mpi.ErrArg
	}
	if c := mpi.ClassOf(err); c != mpi.Success {
		return c
	}
	return mpi.ErrOther
}

// dispatch acts on cell index v of user u.
func (g *Ghost) dispatch(u *user, v uint64) {
	if !u.ch.Cells.Valid(v) {
		g.cfg.Log("ghost %d: user %d published cell index %d, outside its %d cells; ignored",
			g.cfg.WRank, u.wrank, v, u.ch.Cells.Len())
		g.Stats.Rejected++
		return
	}
	cell := uint32(v)
	r := postcell.Snapshot(u.ch.Cells.At(cell))
	if err := r.Validate(&u.limits); err != nil {
		if r.Gen == 0 { // nothing the user could ever recognize as done
			g.cfg.Log("ghost %d: user %d cell %d: %v; ignored", g.cfg.WRank, u.wrank, cell, err)
			g.Stats.Rejected++
			return
		}
		g.fail(u, cell, r.Gen, errClass(err), err)
		return
	}
	ghostMatched := r.Mode == postcell.MatchGhost
	if ghostMatched && g.match.tags == nil {
		g.fail(u, cell, r.Gen, mpi.ErrInternal, fmt.Errorf("ghost-side matching needs a tag layout, and none fits this job"))
		return
	}
	switch r.Op {
	case postcell.OpSend:
		g.post(u, cell, &r)
	case postcell.OpSsend:
		if ghostMatched {
			g.match.postSsend(u, cell, &r)
		} else {
			g.post(u, cell, &r)
		}
	case postcell.OpRecv:
		if ghostMatched {
			g.match.postRecv(u, cell, &r)
		} else {
			g.post(u, cell, &r)
		}
	case postcell.OpIprobe, postcell.OpProbe, postcell.OpImprobe, postcell.OpMprobe:
		if ghostMatched {
			g.match.probe(u, cell, &r)
		} else if !g.tryProbe(u, cell, &r) {
			if r.Op == postcell.OpIprobe || r.Op == postcell.OpImprobe {
				g.probeResult(u, cell, r.Gen, false, nil, 0)
			} else {
				g.probes = append(g.probes, probe{u: u, cell: cell, req: r})
			}
		}
	case postcell.OpMrecv:
		a, err := g.match.take(u, r.Target)
		if err != nil {
			g.fail(u, cell, r.Gen, mpi.ErrRequest, err)
			return
		}
		g.mrecv(u, cell, &r, a)
	case postcell.OpCancel:
		g.cancel(u, &r)
		g.completeOK(u, cell, r.Gen)
	case postcell.OpSegment:
		u.unmap(r.Target)
		g.completeOK(u, cell, r.Gen)
	case postcell.OpWinAttach:
		g.attach(u, cell, &r)
	case postcell.OpWinWatch:
		g.watchWord(u, cell, &r)
	case postcell.OpFinalize:
		if !u.done {
			u.done = true
			g.live--
		}
		g.completeOK(u, cell, r.Gen)
	default:
		g.fail(u, cell, r.Gen, mpi.ErrArg, fmt.Errorf("operation %v is not supported", r.Op))
	}
	g.wakeUsers()
}

// completeOK completes a control cell with success. Its result line still
// holds the previous use of the cell (a truncated receive, say), which the
// user would otherwise read as this operation's error.
func (g *Ghost) completeOK(u *user, cell, gen uint32) { g.completeWith(u, cell, gen, 0) }

// completeWith completes a control cell with success and the answer
// bytes in StBytes (CSP_OP_WIN_ATTACH: the ghost's address of a segment).
func (g *Ghost) completeWith(u *user, cell, gen uint32, bytes uint64) {
	c := u.ch.Cells.At(cell)
	c.StError, c.StFlags, c.StBytes = 0, 0, bytes
	g.complete(u, cell, gen)
}

// post starts the MPI operation of a send or receive cell.
func (g *Ghost) post(u *user, cell uint32, r *postcell.Request) {
	buf := u.addr(r.Seg, r.Off)
	comm := g.cfg.Pool[r.Slot]
	n := int(r.NBytes)
	var req mpi.Request
	var err error
	switch r.Op {
	case postcell.OpSend:
		req, err = mpi.Isend(buf, n, mpi.Byte, int(r.Peer), int(r.Tag), comm)
	case postcell.OpSsend:
		req, err = mpi.Issend(buf, n, mpi.Byte, int(r.Peer), int(r.Tag), comm)
	case postcell.OpRecv:
		req, err = mpi.Irecv(buf, n, mpi.Byte, int(r.Peer), int(r.Tag), comm)
	}
	if err != nil {
		g.fail(u, cell, r.Gen, errClass(err), err)
		return
	}
	g.track(req, pending{u: u, cell: cell, gen: r.Gen, op: r.Op, bytes: r.NBytes})
	g.Stats.Posted++
}

// track adds an outstanding request to the Testsome set.
func (g *Ghost) track(req mpi.Request, p pending) {
	g.reqs = append(g.reqs, req)
	g.pend = append(g.pend, p)
	g.largest = max(g.largest, p.bytes)
}

// mrecv receives arrival a (matched by the ghost or a user's Mprobe) into
// the buffer of cell.
func (g *Ghost) mrecv(u *user, cell uint32, r *postcell.Request, a *arrival) {
	req, err := mpi.Imrecv(u.addr(r.Seg, r.Off), int(r.NBytes), mpi.Byte, &a.msg)
	if err != nil {
		g.fail(u, cell, r.Gen, errClass(err), err)
		return
	}
	g.track(req, pending{u: u, cell: cell, gen: r.Gen, op: postcell.OpRecv, bytes: r.NBytes})
	g.Stats.Posted++
}

// completeSync completes a ghost-matched synchronous send: its message has
// left and its receiver has matched it.
func (g *Ghost) completeSync(s *syncSend) {
	c := s.u.ch.Cells.At(s.cell)
	c.StError, c.StFlags, c.StBytes = s.err, 0, 0
	g.complete(s.u, s.cell, s.gen)
}

// tryProbe completes a natively matched probe if a message is there;
// (I)Mprobe takes the message and hands the user its id.
func (g *Ghost) tryProbe(u *user, cell uint32, r *postcell.Request) bool {
	var st mpi.Status
	comm := g.cfg.Pool[r.Slot]
	if r.Op == postcell.OpImprobe || r.Op == postcell.OpMprobe {
		msg, found, err := mpi.Improbe(int(r.Peer), int(r.Tag), comm, &st)
		if err != nil {
			g.fail(u, cell, r.Gen, errClass(err), err)
			return true
		}
		if found {
			id := g.match.hold(u, &arrival{msg: msg, src: int32(st.Source), tag: int32(st.Tag), bytes: st.Count})
			g.probeResult(u, cell, r.Gen, true, &st, id)
		}
		return found
	}
	found, err := mpi.Iprobe(int(r.Peer), int(r.Tag), comm, &st)
	if err != nil {
		g.fail(u, cell, r.Gen, errClass(err), err)
		return true
	}
	if found {
		g.probeResult(u, cell, r.Gen, true, &st, 0)
	}
	return found
}

func (g *Ghost) retryProbes() int {
	n := 0
	kept := g.probes[:0]
	for _, p := range g.probes {
		if g.tryProbe(p.u, p.cell, &p.req) {
			n++
		} else {
			kept = append(kept, p)
		}
	}
	g.probes = kept
	if n > 0 {
		g.wakeUsers()
	}
	return n
}

func (g *Ghost) probeResult(u *user, cell, gen uint32, found bool, st *mpi.Status, msg uint32) {
	c := u.ch.Cells.At(cell)
	c.StError = 0
	c.StFlags = 0
	c.StMsg = msg
	if found {
		c.StFlags = postcell.StFound
		c.StSource = int32(st.Source)
		c.StTag = int32(st.Tag)
		c.StBytes = uint64(st.Count)
	}
	g.complete(u, cell, gen)
}

// cancel cancels the outstanding operation of cell Target, generation
// TargetGen, if it is still outstanding; its completion then reports it.
func (g *Ghost) cancel(u *user, r *postcell.Request) {
	for i := range g.pend {
		p := &g.pend[i]
		if p.u == u && p.cell == r.Target && p.gen == r.TargetGen {
			if err := g.reqs[i].Cancel(); err != nil {
				g.cfg.Log("ghost %d: user %d: cancel of cell %d: %v", g.cfg.WRank, u.wrank, r.Target, err)
			}
			return
		}
	}
	if g.match.cancel(u, r.Target, r.TargetGen) {
		return
	}
	for i, p := range g.probes { // a blocking probe waiting for a message
		if p.u == u && p.cell == r.Target && p.req.Gen == r.TargetGen {
			c := u.ch.Cells.At(p.cell)
			c.StError, c.StFlags = 0, postcell.StCancelled
			g.complete(u, p.cell, p.req.Gen)
			g.probes = append(g.probes[:i], g.probes[i+1:]...)
			return
		}
	}
}

// test completes finished operations in one Testsome.
func (g *Ghost) test() int {
	if len(g.reqs) == 0 {
		return 0
	}
	if cap(g.idx) < len(g.reqs) {
		g.idx = make([]int32, len(g.reqs), 2*len(g.reqs))
		g.sts = make([]mpi.Status, len(g.reqs), 2*len(g.reqs))
	}
	idx, sts := g.idx[:len(g.reqs)], g.sts[:len(g.reqs)]
	n, err := mpi.Testsome(g.reqs, idx, sts)
	inStatus := err != nil && mpi.ClassOf(err) == mpi.ErrInStatus
	if err != nil && !inStatus {
		g.cfg.Log("ghost %d: Testsome: %v", g.cfg.WRank, err)
		return 0
	}
	if n <= 0 {
		return 0
	}
	for k := 0; k < n; k++ {
		i := idx[k]
		p := g.pend[i]
		st := &sts[k]
		errc := int32(0)
		if inStatus && st.Error != mpi.Success {
			errc = int32(classOfCode(st.Error))
		}
		switch {
		case p.u == nil: // the ghost's own ack
			if errc != 0 {
				g.cfg.Log("ghost %d: ack send failed: class %d", g.cfg.WRank, errc)
			}
			continue
		case p.sync != nil: // ghost-matched Issend: done once acked too
			p.sync.sent, p.sync.err = true, errc
			if p.sync.acked {
				g.completeSync(p.sync)
			}
			continue
		}
		c := p.u.ch.Cells.At(p.cell)
		c.StError = errc
		c.StFlags = 0
		if st.Cancelled {
			c.StFlags = postcell.StCancelled
		}
		c.StSource = int32(st.Source)
		c.StTag = int32(st.Tag)
		c.StBytes = uint64(st.Count)
		g.complete(p.u, p.cell, p.gen)
	}
	// Compact: drop completed entries (Testsome set them to MPI_REQUEST_NULL).
	w := 0
	g.largest = 0
	for i := range g.reqs {
		if g.reqs[i].IsNull() {
			continue
		}
		g.reqs[w], g.pend[w] = g.reqs[i], g.pend[i]
		g.largest = max(g.largest, g.pend[w].bytes)
		w++
	}
	for i := w; i < len(g.pend); i++ {
		g.pend[i] = pending{}
	}
	g.reqs, g.pend = g.reqs[:w], g.pend[:w]
	g.wakeUsers()
	return n
}

func classOfCode(code int) int {
	c, err := mpi.ErrorClass(code)
	if err != nil {
		return mpi.ErrOther
	}
	return c
}
