package main

import (
	"encoding/binary"
	"fmt"

	"github.com/casperii/casperii/casperii"
	"github.com/casperii/casperii/test/internal/csptest"
)

// stTag and stSize give the message from comm rank i to comm rank j in a
// phase distinct tags and sizes; some are large (rendezvous).
func stTag(phase, i, j int) int { return 1000*phase + 10*i + j }

func stSize(i, j int) int {
	n := 8 + 37*i + 5*j
	if (i+j)%3 == 0 {
		n += 100000
	}
	return n
}

// stMessage is the message of a phase from comm rank i to comm rank j. Its
// contents depend on the world ranks of both, so a message delivered to
// another process (of another communicator that looks the same) shows, and
// it carries its sender's world rank and its tag in front, so a wildcard
// receive can be checked against its status.
func stMessage(phase, ci int, cs commSpec, i, j int) []byte {
	wi, wj := cs.worldOf(i), cs.worldOf(j)
	b := make([]byte, stSize(i, j))
	fill(b, seedOf(phase, ci, wi, wj))
	binary.LittleEndian.PutUint32(b, uint32(wi))
	binary.LittleEndian.PutUint32(b[4:], uint32(stTag(phase, i, j)))
	return b
}

func sameMessage(b []byte, phase, ci int, cs commSpec, i, j int) bool {
	exp := stMessage(phase, ci, cs, i, j)
	if len(b) < len(exp) {
		return false
	}
	for k := range exp {
		if exp[k] != b[k] {
			return false
		}
	}
	return true
}

// statusAll checks the status of receives on each communicator and on
// communicators split from it with reordered ranks (so a user's rank in
// the communicator is not its world rank, and peers behind one ghost have
// different offsets): MPI_SOURCE is the rank in the communicator, MPI_TAG
// the user's tag, MPI_ERROR success, the count the bytes sent.
//
// With kinds "rev" (scenario status) the communicators are each comm and
// its reversal; with "half" (scenario disjoint), the two halves of each
// comm by world rank parity: disjoint communicators whose members share
// ghosts, run at the same time, which must not see each other's messages.
func statusAll(comms []commSpec, base bool, kinds ...string) {
	ci := 0
	for _, cs := range comms {
		if base {
			statusOn(ci, cs)
		}
		ci++
		// Each derived communicator is freed before the next is made, so
		// it finds free internal communicators (slots) and is offloaded.
		for _, kind := range kinds {
			var d casperii.Comm
			var err error
			if kind == "rev" {
				d, err = cs.c.Split(0, nusers-1-me)
			} else {
				d, err = cs.c.Split(me%2, nusers-me)
			}
			must(err, "Split("+kind+")")
			statusOn(ci, commSpec{name: kind + "-" + cs.name, c: d, world: splitWorld(kind)})
			ci++
			must(d.Free(), "Free")
		}
	}
}

func statusOn(ci int, cs commSpec) {
	wildTag := cs.c.Algorithm() != "tag-encoding"
	wildSrc := cs.c.Algorithm() == "off"
	check(cs.c.Rank() == cs.crankOf(me) && cs.c.Size() == len(splitWorldOr(cs)),
		"status comm=%s: rank %d size %d, want rank %d size %d", cs.name, cs.c.Rank(), cs.c.Size(), cs.crankOf(me), len(splitWorldOr(cs)))
	result("status-comm", "comm", cs.name, "algorithm", cs.c.Algorithm(), "crank", cs.c.Rank(), "size", cs.c.Size())
	statusSpecific(ci, cs)
	statusProbe(ci, cs)
	if wildTag {
		statusWild(ci, cs, 3, false)
	}
	if wildSrc {
		statusWild(ci, cs, 4, true)
	}
}

func statusResult(cs commSpec, phase string, st csptest.Status, from, tag, count int, data, ok bool) {
	result("status", "comm", cs.name, "phase", phase, "crank", cs.c.Rank(), "from", from, "ok", ok,
		"src", st.Source, "tag", st.Tag, "err", st.Error, "count", st.Count,
		"want_src", from, "want_tag", tag, "want_count", count, "data", data)
}

func sendAll(phase, ci int, cs commSpec) []*casperii.Request {
	n, r := cs.c.Size(), cs.c.Rank()
	var reqs []*casperii.Request
	for j := 0; j < n; j++ {
		q, err := casperii.Isend(stMessage(phase, ci, cs, r, j), j, stTag(phase, r, j), cs.c)
		must(err, "Isend")
		reqs = append(reqs, q)
	}
	return reqs
}

// statusSpecific: receives from each rank (self included) with its tag;
// even sources completed by Wait, odd ones by Waitall with statuses.
func statusSpecific(ci int, cs commSpec) {
	const phase = 1
	n, r := cs.c.Size(), cs.c.Rank()
	must(cs.c.Barrier(), "barrier")
	bufs := make([][]byte, n)
	reqs := make([]*casperii.Request, n)
	for j := 0; j < n; j++ {
		bufs[j] = make([]byte, stSize(j, r)+64)
		var err error
		reqs[j], err = casperii.Irecv(bufs[j], j, stTag(phase, j, r), cs.c)
		must(err, "Irecv")
	}
	sends := sendAll(phase, ci, cs)
	var odd []*casperii.Request
	for j := 0; j < n; j++ {
		if j%2 == 1 {
			odd = append(odd, reqs[j])
			continue
		}
		s, err := reqs[j].Wait()
		must(err, "Wait")
		st := csptest.Status{Source: s.Source, Tag: s.Tag, Count: s.Count}
		got := bufs[j][:min(s.Count, len(bufs[j]))]
		statusCheck(cs, "wait", st, j, stTag(phase, j, r), stSize(j, r), sameMessage(got, phase, ci, cs, j, r), got)
	}
	sts, err := csptest.Waitall(odd...)
	must(err, "Waitall")
	for k, st := range sts {
		j := 2*k + 1
		got := bufs[j][:min(max(st.Count, 0), len(bufs[j]))]
		statusCheck(cs, "waitall", st, j, stTag(phase, j, r), stSize(j, r), sameMessage(got, phase, ci, cs, j, r), got)
	}
	must(waitEach(sends...), "Wait(sends)")
}

func statusCheck(cs commSpec, phase string, st csptest.Status, from, tag, count int, data bool, b []byte) {
	what := ""
	if !data && b != nil {
		what = ": got " + identify(cs, b)
	}
	ok := check(st.Source == from && st.Tag == tag && st.Error == 0 && st.Count == count && data,
		"status comm=%s phase=%s crank=%d (world %d): receive from %d (world %d): %+v data=%v, want source %d tag %d error 0 count %d%s",
		cs.name, phase, cs.c.Rank(), me, from, cs.worldOf(from), st, data, from, tag, count, what)
	statusResult(cs, phase, st, from, tag, count, data, ok)
}

// statusProbe: Probe for each source's message, check its status, then
// receive it with Recv (whose status is checked too).
func statusProbe(ci int, cs commSpec) {
	const phase = 2
	n, r := cs.c.Size(), cs.c.Rank()
	must(cs.c.Barrier(), "barrier")
	sends := sendAll(phase, ci, cs)
	for j := n - 1; j >= 0; j-- {
		tag := stTag(phase, j, r)
		p, err := casperii.Probe(j, tag, cs.c)
		must(err, "Probe")
		statusCheck(cs, "probe", csptest.Status{Source: p.Source, Tag: p.Tag, Count: p.Count}, j, tag, stSize(j, r), true, nil)
		b := make([]byte, p.Count)
		s, err := casperii.Recv(b, j, tag, cs.c)
		must(err, "Recv")
		got := b[:min(s.Count, len(b))]
		statusCheck(cs, "recv", csptest.Status{Source: s.Source, Tag: s.Tag, Count: s.Count}, j, tag, stSize(j, r),
			sameMessage(got, phase, ci, cs, j, r), got)
	}
	must(waitEach(sends...), "Wait(sends)")
}

// statusWild: receives with MPI_ANY_TAG from each source (anySrc: with
// MPI_ANY_SOURCE too); the message's header names its sender and tag.
func statusWild(ci int, cs commSpec, phase int, anySrc bool) {
	n, r := cs.c.Size(), cs.c.Rank()
	must(cs.c.Barrier(), "barrier")
	name := "anytag"
	if anySrc {
		name = "anysource"
	}
	bufs := make([][]byte, n)
	reqs := make([]*casperii.Request, n)
	for j := 0; j < n; j++ {
		src := j
		if anySrc {
			src = casperii.AnySource
		}
		bufs[j] = make([]byte, 200000)
		var err error
		reqs[j], err = casperii.Irecv(bufs[j], src, casperii.AnyTag, cs.c)
		must(err, "Irecv")
	}
	sends := sendAll(phase, ci, cs)
	for j := 0; j < n; j++ {
		s, err := reqs[j].Wait()
		must(err, "Wait")
		from := j
		if anySrc && s.Count >= 8 {
			from = cs.crankOf(int(binary.LittleEndian.Uint32(bufs[j])))
		}
		got := bufs[j][:min(s.Count, len(bufs[j]))]
		same := from >= 0 && sameMessage(got, phase, ci, cs, from, r)
		statusCheck(cs, name, csptest.Status{Source: s.Source, Tag: s.Tag, Count: s.Count}, from, stTag(phase, from, r), stSize(from, r), same, got)
	}
	must(waitEach(sends...), "Wait(sends)")
}

// identify says which message of the scenario b is, to diagnose a
// misdelivery: its sender (world rank), tag, and intended receiver.
func identify(cs commSpec, b []byte) string {
	if len(b) < 8 {
		return fmt.Sprintf("%d bytes", len(b))
	}
	w, tag := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:]))
	for ci := 0; ci < 16; ci++ {
		for to := 0; to < nusers; to++ {
			exp := make([]byte, len(b))
			fill(exp, seedOf(tag/1000, ci, w, to))
			if string(exp[8:]) == string(b[8:]) {
				return fmt.Sprintf("the message of world rank %d with tag %d for world rank %d (communicator #%d)", w, tag, to, ci)
			}
		}
	}
	return fmt.Sprintf("a message claiming world rank %d and tag %d, of unknown content", w, tag)
}

// splitWorld returns the world ranks of the members of the communicator
// statusAll splits off, by rank in it: rev reverses the ranks; half keeps
// the ranks of this one's parity, in decreasing order.
func splitWorld(kind string) []int {
	var w []int
	for r := nusers - 1; r >= 0; r-- {
		if kind == "rev" || r%2 == me%2 {
			w = append(w, r)
		}
	}
	return w
}

func splitWorldOr(cs commSpec) []int {
	if cs.world != nil {
		return cs.world
	}
	return make([]int, nusers)
}
