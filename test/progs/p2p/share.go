package main

import "github.com/casperii/casperii/casperii"

// shareRound is one way of running a sharing scenario.
type shareRound struct {
	name       string
	s1, s2     int  // sizes of the two messages
	anyTag     bool // receives use MPI_ANY_TAG (duplication and default communicators only)
	unexpected bool // messages are sent before the receives are posted
}

var shareRounds = []shareRound{
	{name: "posted-small", s1: 100, s2: 200},
	{name: "posted-large", s1: 1<<20 + 100, s2: 1<<20 + 200},
	{name: "unexpected-small", s1: 100, s2: 200, unexpected: true},
	{name: "anytag-small", s1: 100, s2: 200, anyTag: true},
	{name: "anytag-large", s1: 1<<20 + 100, s2: 1<<20 + 200, anyTag: true},
}

func (r shareRound) runsOn(cs commSpec) bool {
	return !r.anyTag || cs.name != "none"
}

// recvShare: rank s sends one message to each of r1 and r2 (which share a
// ghost) with the same tag on the same communicator; each receiver must get
// its own.
func recvShare(comms []commSpec, roles []int) {
	s, r1, r2 := roles[0], roles[1], roles[2]
	for ci, cs := range comms {
		for ri, rd := range shareRounds {
			if !rd.runsOn(cs) {
				continue
			}
			must(world.Barrier(), "barrier")
			tag := 7
			size := map[int]int{r1: rd.s1, r2: rd.s2}
			var rr *casperii.Request
			var rbuf []byte
			var err error
			recvTag := tag
			if rd.anyTag {
				recvTag = casperii.AnyTag
			}
			post := func() {
				if me == r1 || me == r2 {
					rbuf = make([]byte, rd.s2+64)
					rr, err = casperii.Irecv(rbuf, s, recvTag, cs.c)
					must(err, "Irecv")
				}
			}
			var sr []*casperii.Request
			send := func() {
				if me == s {
					for _, r := range []int{r1, r2} {
						b := make([]byte, size[r])
						fill(b, seedOf(s, r, ci, ri))
						q, err := casperii.Isend(b, r, tag, cs.c)
						must(err, "Isend")
						sr = append(sr, q)
					}
				}
			}
			if rd.unexpected {
				send()
				must(world.Barrier(), "barrier")
				post()
			} else {
				post()
				must(world.Barrier(), "barrier")
				send()
			}
			if rr != nil {
				st, err := rr.Wait()
				must(err, "Wait(recv)")
				want := size[me]
				bad := firstBad(rbuf[:min(st.Count, len(rbuf))], seedOf(s, me, ci, ri))
				ok := check(st.Source == s && st.Tag == tag && st.Count == want && bad < 0,
					"recvshare comm=%s round=%s: receiver %d got %+v (first bad byte %d), want its own message: source %d tag %d count %d",
					cs.name, rd.name, me, st, bad, s, tag, want)
				result("recvshare", "comm", cs.name, "round", rd.name, "ok", ok, "src", st.Source, "tag", st.Tag,
					"count", st.Count, "want_count", want)
			}
			for _, q := range sr {
				_, err := q.Wait()
				must(err, "Wait(send)")
			}
		}
	}
}

// sendShare is the architecture guide's example: b1 and b2 share a ghost
// and both send tag 0 to a; a posts Irecv(from b2) then Irecv(from b1); b1's
// message is out (its send completed) before b2 sends. Each receive must
// get its own sender's message.
func sendShare(comms []commSpec, roles []int) {
	a, b1, b2 := roles[0], roles[1], roles[2]
	for ci, cs := range comms {
		for ri, rd := range shareRounds {
			if !rd.runsOn(cs) {
				continue
			}
			must(world.Barrier(), "barrier")
			tagOf := map[int]int{b1: 0, b2: 0}
			recvTag := 0
			if rd.anyTag {
				tagOf = map[int]int{b1: 3, b2: 4}
				recvTag = casperii.AnyTag
			}
			size := map[int]int{b1: rd.s1, b2: rd.s2}
			var rq [2]*casperii.Request
			var rb [2][]byte
			post := func() {
				if me != a {
					return
				}
				for i, from := range []int{b2, b1} {
					rb[i] = make([]byte, rd.s2+64)
					q, err := casperii.Irecv(rb[i], from, recvTag, cs.c)
					must(err, "Irecv")
					rq[i] = q
				}
			}
			sendFrom := func(b int, wait bool) *casperii.Request {
				buf := make([]byte, size[b])
				fill(buf, seedOf(b, a, ci, ri))
				q, err := casperii.Isend(buf, a, tagOf[b], cs.c)
				must(err, "Isend")
				if wait {
					_, err := q.Wait()
					must(err, "Wait(send)")
					return nil
				}
				return q
			}
			if !rd.unexpected {
				post()
			}
			must(world.Barrier(), "barrier 1")
			if me == b1 {
				sendFrom(b1, true) // out before b2 sends
			}
			must(world.Barrier(), "barrier 2")
			if me == b2 {
				sendFrom(b2, true)
			}
			if rd.unexpected {
				must(world.Barrier(), "barrier 3")
				post()
			}
			if me == a {
				for i, from := range []int{b2, b1} {
					st, err := rq[i].Wait()
					must(err, "Wait(recv)")
					bad := firstBad(rb[i][:min(st.Count, len(rb[i]))], seedOf(from, a, ci, ri))
					ok := check(st.Source == from && st.Tag == tagOf[from] && st.Count == size[from] && bad < 0,
						"sendshare comm=%s round=%s: the receive from %d got %+v (first bad byte %d), want source %d tag %d count %d",
						cs.name, rd.name, from, st, bad, from, tagOf[from], size[from])
					result("sendshare", "comm", cs.name, "round", rd.name, "from", from, "ok", ok, "src", st.Source,
						"tag", st.Tag, "count", st.Count, "want_count", size[from])
				}
			}
		}
	}
}
