package ghost

import (
	"fmt"

	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/postcell"
	"github.com/casperii/casperii/tagenc"
)

// Ghost-side matching, for communicators whose hints allow MPI_ANY_SOURCE
// (wildcard_used=any_src and any_src|any_tag_same_tag).
//
// The ghost pulls every arrival on an internal communicator with
// MPI_Improbe(ANY_SOURCE, ANY_TAG), keeping it as an MPI_Message handle
// (the data stays in MPI), and matches arrivals against its users' posted
// receives itself:
//
//   - posted receives are kept in posting order; an arrival goes to the
//     first one whose peer matches (or is MPI_ANY_SOURCE) and whose tag
//     pattern matches under its mask (the mask leaves out the source
//     offset for MPI_ANY_SOURCE and the user tag for MPI_ANY_TAG, never the
//     destination offset or the context, so users never take each other's
//     messages);
//   - an arrival no receive wants joins the unexpected list, in arrival
//     order; a newly posted receive first scans that list;
//   - the matched message is received with MPI_Imrecv straight into the
//     user's buffer.
//
// Invariant: no unexpected message matches any posted receive. Probes scan
// the unexpected list after pulling every arrival, so they see exactly the
// message a receive posted now would take.
//
// Synchronous sends: a sender's ghost sends the message with the sync flag
// and completes the user's Issend only when the receiver's ghost, having
// matched it to a receive (or a matched probe), returns an empty message
// with the ack flag and the same tag. Acks for one (sender, receiver, tag)
// arrive in matching order, which non-overtaking makes the sending order,
// so the ghost pairs them with its pending synchronous sends first in,
// first out.

type matcher struct {
	g     *Ghost
	tags  *tagenc.Layout
	flags uint32 // the flag bits, in place
	sync  uint32
	ack   uint32
	slots map[int32]*slotQ
	// queues: the same queues in the order they were made, which every
	// round walks (busy, poll): ranging over the map cost the ghost's
	// rounds a map iterator each (1.3% of NWChem's samples, where ARMCI
	// makes tens of communicators).
	queues []*slotQ
	msgs   map[uint32]*held // matched-probe messages handed to users, by id
	nextID uint32
}

// slotQ is the matching state of one internal communicator.
type slotQ struct {
	slot       int32
	comm       mpi.Comm
	posted     []*wanted  // receives in posting order
	probes     []*wanted  // blocking (matched) probes waiting
	unexpected []*arrival // arrivals nobody took, in arrival order
	syncs      map[syncKey][]*syncSend
	nsync      int
}

// arrival is a message pulled out of MPI's queue, not yet received.
type arrival struct {
	msg   mpi.Message
	src   int32 // sending ghost's world rank
	tag   int32 // internal tag, flags included
	bytes int64
}

// wanted is a user's receive or probe waiting for a message.
type wanted struct {
	u    *user
	cell uint32
	r    postcell.Request
}

// held is a message matched by a user's (I)Mprobe, waiting for (I)Mrecv.
type held struct {
	owner *user
	a     *arrival
}

type syncKey struct {
	peer int32
	tag  int32 // without flags
}

type syncSend struct {
	u     *user
	cell  uint32
	gen   uint32
	sent  bool // the message's Isend completed
	acked bool // the receiver matched it
	err   int32
}

func newMatcher(g *Ghost) *matcher {
	m := &matcher{g: g, tags: g.cfg.Tags, slots: map[int32]*slotQ{}, msgs: map[uint32]*held{}}
	if m.tags != nil {
		s := m.tags.Shifts().Flags
		m.flags = uint32(s.Mask) << s.Shift
		m.sync = tagenc.FlagSync << s.Shift
		m.ack = tagenc.FlagAck << s.Shift
	}
	return m
}

func (m *matcher) slotQ(slot int32) *slotQ {
	q := m.slots[slot]
	if q == nil {
		q = &slotQ{slot: slot, comm: m.g.cfg.Pool[slot], syncs: map[syncKey][]*syncSend{}}
		m.slots[slot] = q
		m.queues = append(m.queues, q)
	}
	return q
}

// busy reports whether some slot needs polling (receives, probes or acks
// waiting for arrivals).
func (m *matcher) busy() bool {
	for _, q := range m.queues {
		if q.active() {
			return true
		}
	}
	return false
}

func (q *slotQ) active() bool { return len(q.posted) > 0 || len(q.probes) > 0 || q.nsync > 0 }

// matches reports whether arrival a satisfies receive or probe r.
func (m *matcher) matches(r *postcell.Request, a *arrival) bool {
	if uint32(a.tag)&m.ack != 0 {
		return false
	}
	if r.Peer != int32(mpi.AnySource) && r.Peer != a.src {
		return false
	}
	return (uint32(a.tag)^uint32(r.Tag))&r.TagMask&^m.flags == 0
}

// poll pulls arrivals on every active slot and serves waiting probes.
// It returns the number of events handled.
func (m *matcher) poll() int {
	n := 0
	for _, q := range m.queues {
		if !q.active() {
			continue
		}
		n += m.pull(q)
		if len(q.probes) > 0 {
			n += m.serveProbes(q)
		}
	}
	return n
}

// pull takes every arrival out of MPI's queue for q.
func (m *matcher) pull(q *slotQ) int {
	n := 0
	for {
		var st mpi.Status
		msg, found, err := mpi.Improbe(mpi.AnySource, mpi.AnyTag, q.comm, &st)
		if err != nil {
			m.g.cfg.Log("ghost %d: Improbe on slot %d: %v", m.g.cfg.WRank, q.slot, err)
			return n
		}
		if !found {
			return n
		}
		n++
		m.arrive(q, &arrival{msg: msg, src: int32(st.Source), tag: int32(st.Tag), bytes: st.Count})
	}
}

// arrive routes one arrival: an ack to its synchronous send, a message to
// the first posted receive that wants it, or to the unexpected list.
func (m *matcher) arrive(q *slotQ, a *arrival) {
	if uint32(a.tag)&m.ack != 0 {
		m.consumeAck(q, a)
		return
	}
	for i, w := range q.posted {
		if m.matches(&w.r, a) {
			q.posted = append(q.posted[:i], q.posted[i+1:]...)
			m.receive(q, w, a)
			return
		}
	}
	q.unexpected = append(q.unexpected, a)
}

// receive starts receiving arrival a into w's buffer.
func (m *matcher) receive(q *slotQ, w *wanted, a *arrival) {
	m.acknowledge(q, a)
	m.g.mrecv(w.u, w.cell, &w.r, a)
}

// acknowledge sends the ack of a synchronous message once it is matched.
func (m *matcher) acknowledge(q *slotQ, a *arrival) {
	if uint32(a.tag)&m.sync == 0 {
		return
	}
	tag := int(uint32(a.tag)&^m.flags | m.ack)
	req, err := mpi.Isend(nil, 0, mpi.Byte, int(a.src), tag, q.comm)
	if err != nil {
		m.g.cfg.Log("ghost %d: ack to ghost %d: %v", m.g.cfg.WRank, a.src, err)
		return
	}
	m.g.track(req, pending{op: postcell.OpNone})
}

// consumeAck receives an ack and completes the oldest synchronous send it
// belongs to.
func (m *matcher) consumeAck(q *slotQ, a *arrival) {
	if err := mpi.Mrecv(nil, 0, mpi.Byte, &a.msg, nil); err != nil {
		m.g.cfg.Log("ghost %d: receiving an ack: %v", m.g.cfg.WRank, err)
	}
	key := syncKey{peer: a.src, tag: int32(uint32(a.tag) &^ m.flags)}
	fifo := q.syncs[key]
	if len(fifo) == 0 {
		m.g.cfg.Log("ghost %d: ack from ghost %d for tag %#x with no synchronous send waiting", m.g.cfg.WRank, a.src, a.tag)
		return
	}
	s := fifo[0]
	if len(fifo) == 1 {
		delete(q.syncs, key)
	} else {
		q.syncs[key] = fifo[1:]
	}
	q.nsync--
	s.acked = true
	if s.sent {
		m.g.completeSync(s)
	}
}

// postRecv takes a ghost-matched receive: the oldest unexpected arrival it
// matches, or a place in the posted list.
func (m *matcher) postRecv(u *user, cell uint32, r *postcell.Request) {
	q := m.slotQ(r.Slot)
	for i, a := range q.unexpected {
		if m.matches(r, a) {
			q.unexpected = append(q.unexpected[:i], q.unexpected[i+1:]...)
			m.receive(q, &wanted{u: u, cell: cell, r: *r}, a)
			return
		}
	}
	q.posted = append(q.posted, &wanted{u: u, cell: cell, r: *r})
}

// postSsend starts a synchronous send under ghost matching.
func (m *matcher) postSsend(u *user, cell uint32, r *postcell.Request) {
	q := m.slotQ(r.Slot)
	buf := u.addr(r.Seg, r.Off)
	tag := int32(uint32(r.Tag) | m.sync)
	req, err := mpi.Isend(buf, int(r.NBytes), mpi.Byte, int(r.Peer), int(tag), q.comm)
	if err != nil {
		m.g.fail(u, cell, r.Gen, errClass(err), err)
		return
	}
	s := &syncSend{u: u, cell: cell, gen: r.Gen}
	key := syncKey{peer: r.Peer, tag: int32(uint32(r.Tag) &^ m.flags)}
	q.syncs[key] = append(q.syncs[key], s)
	q.nsync++
	m.g.track(req, pending{u: u, cell: cell, gen: r.Gen, op: postcell.OpSsend, sync: s, bytes: r.NBytes})
	m.g.Stats.Posted++
}

// probe answers a ghost-matched probe: Iprobe and Improbe at once;
// Probe and Mprobe wait for a message.
func (m *matcher) probe(u *user, cell uint32, r *postcell.Request) {
	q := m.slotQ(r.Slot)
	m.pull(q)
	if m.tryProbe(q, &wanted{u: u, cell: cell, r: *r}) {
		return
	}
	switch r.Op {
	case postcell.OpIprobe, postcell.OpImprobe:
		m.g.probeResult(u, cell, r.Gen, false, nil, 0)
	default:
		q.probes = append(q.probes, &wanted{u: u, cell: cell, r: *r})
	}
}

// tryProbe completes probe w if an unexpected arrival matches it.
func (m *matcher) tryProbe(q *slotQ, w *wanted) bool {
	for i, a := range q.unexpected {
		if !m.matches(&w.r, a) {
			continue
		}
		st := mpi.Status{Source: int(a.src), Tag: int(a.tag), Count: a.bytes}
		id := uint32(0)
		if w.r.Op == postcell.OpImprobe || w.r.Op == postcell.OpMprobe {
			q.unexpected = append(q.unexpected[:i], q.unexpected[i+1:]...)
			m.acknowledge(q, a)
			id = m.hold(w.u, a)
		}
		m.g.probeResult(w.u, w.cell, w.r.Gen, true, &st, id)
		return true
	}
	return false
}

func (m *matcher) serveProbes(q *slotQ) int {
	n := 0
	kept := q.probes[:0]
	for _, w := range q.probes {
		if m.tryProbe(q, w) {
			n++
		} else {
			kept = append(kept, w)
		}
	}
	q.probes = kept
	return n
}

// hold keeps a matched message for a later Mrecv by its owner.
func (m *matcher) hold(u *user, a *arrival) uint32 {
	for {
		m.nextID++
		if m.nextID != 0 && m.msgs[m.nextID] == nil {
			break
		}
	}
	m.msgs[m.nextID] = &held{owner: u, a: a}
	return m.nextID
}

// take returns the message id handed to user u, removing it.
func (m *matcher) take(u *user, id uint32) (*arrival, error) {
	h := m.msgs[id]
	if h == nil || h.owner != u {
		return nil, fmt.Errorf("message %d is not a matched message of this user", id)
	}
	delete(m.msgs, id)
	return h.a, nil
}

// cancel withdraws a posted receive or waiting probe; it reports whether
// it found one (an already matched receive cannot be cancelled).
func (m *matcher) cancel(u *user, cell, gen uint32) bool {
	for _, q := range m.queues {
		for _, list := range []*[]*wanted{&q.posted, &q.probes} {
			for i, w := range *list {
				if w.u == u && w.cell == cell && w.r.Gen == gen {
					*list = append((*list)[:i], (*list)[i+1:]...)
					c := u.ch.Cells.At(cell)
					c.StError, c.StFlags, c.StBytes = 0, postcell.StCancelled, 0
					m.g.complete(u, cell, gen)
					return true
				}
			}
		}
	}
	return false
}
