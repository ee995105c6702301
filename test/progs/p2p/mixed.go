package main

import (
	"github.com/casperii/casperii/casperii"
	"github.com/casperii/casperii/test/internal/csptest"
)

// mixedOp is one request of a mixed batch.
type mixedOp struct {
	cs    commSpec
	recv  bool
	q     *casperii.Request
	buf   []byte
	tag   int // the tag sent
	seed  uint32
	size  int
	done  bool
	st    csptest.Status
	round string
}

// postMixed posts, on ranks 0 and 1, a receive and a send on every
// communicator (offloaded and not), interleaved, small and large.
func postMixed(comms []commSpec, round string, ri int) []*mixedOp {
	peer := 1 - me
	var ops []*mixedOp
	for ci, cs := range comms {
		size := 50 + 10*ci
		if (ci+ri)%2 == 1 {
			size = 200000 + ci
		}
		tag := 20 + ci
		recvTag := tag
		if cs.c.Algorithm() != "tag-encoding" {
			recvTag = casperii.AnyTag
		}
		r := &mixedOp{cs: cs, recv: true, buf: make([]byte, size+10), tag: tag, seed: seedOf(peer, ci, ri, 5), size: size, round: round}
		var err error
		r.q, err = casperii.Irecv(r.buf, peer, recvTag, cs.c)
		must(err, "Irecv")
		s := &mixedOp{cs: cs, buf: make([]byte, size), tag: tag, size: size, round: round}
		fill(s.buf, seedOf(me, ci, ri, 5))
		s.q, err = casperii.Isend(s.buf, peer, tag, cs.c)
		must(err, "Isend")
		ops = append(ops, r, s)
	}
	return ops
}

// checkMixed checks every receive's data, and its status when the round
// has statuses.
func checkMixed(ops []*mixedOp, withStatus bool) bool {
	ok := true
	peer := 1 - me
	for _, op := range ops {
		if !check(op.done, "mixed %s comm=%s: request not completed", op.round, op.cs.name) {
			ok = false
			continue
		}
		if !op.recv {
			ok = check(!withStatus || op.st.Error == 0, "mixed %s comm=%s: send status %+v", op.round, op.cs.name, op.st) && ok
			continue
		}
		ok = check(firstBad(op.buf[:op.size], op.seed) < 0, "mixed %s comm=%s: data differs", op.round, op.cs.name) && ok
		if withStatus {
			ok = check(op.st.Source == peer && op.st.Tag == op.tag && op.st.Count == op.size && op.st.Error == 0,
				"mixed %s comm=%s: status %+v, want source %d tag %d count %d error 0",
				op.round, op.cs.name, op.st, peer, op.tag, op.size) && ok
		}
	}
	return ok
}

func reqsOf(ops []*mixedOp) []*casperii.Request {
	rs := make([]*casperii.Request, len(ops))
	for i, op := range ops {
		rs[i] = op.q
	}
	return rs
}

// mixed completes batches of offloaded and ordinary requests with
// Waitall, Test, Waitall with statuses, Waitany and Testsome.
func mixed(comms []commSpec) {
	mixedRounds(comms, []string{"test", "waitall-status", "waitany", "testsome"})
}

// waitallGo is casperii.Waitall over the same mix.
func waitallGo(comms []commSpec) {
	mixedRounds(comms, []string{"waitall"})
}

func mixedRounds(comms []commSpec, rounds []string) {
	for ri, round := range rounds {
		must(world.Barrier(), "barrier")
		if me > 1 {
			continue
		}
		ops := postMixed(comms, round, ri)
		withStatus := true
		switch round {
		case "waitall":
			must(casperii.Waitall(reqsOf(ops)...), "Waitall")
			for _, op := range ops {
				op.done = true
			}
			withStatus = false
		case "test":
			for left := len(ops); left > 0; {
				for _, op := range ops {
					if op.done {
						continue
					}
					done, st, err := op.q.Test()
					must(err, "Test")
					if done {
						op.done = true
						op.st = csptest.Status{Source: st.Source, Tag: st.Tag, Count: st.Count}
						left--
					}
				}
			}
			for _, op := range ops {
				if !op.recv {
					op.st = csptest.Status{}
				}
			}
		case "waitall-status":
			sts, err := csptest.Waitall(reqsOf(ops)...)
			must(err, "Waitall")
			for i, op := range ops {
				op.done, op.st = true, sts[i]
			}
		case "waitany":
			for range ops {
				i, st, err := csptest.Waitany(reqsOf(ops)...)
				must(err, "Waitany")
				if !check(i >= 0 && !ops[i].done, "mixed waitany: index %d returned twice or undefined", i) {
					break
				}
				ops[i].done, ops[i].st = true, st
			}
		case "testsome":
			for left := len(ops); left > 0; {
				var active []*mixedOp
				for _, op := range ops {
					if !op.done {
						active = append(active, op)
					}
				}
				idx, sts, err := csptest.Testsome(reqsOf(active)...)
				must(err, "Testsome")
				for k, i := range idx {
					active[i].done, active[i].st = true, sts[k]
					left--
				}
			}
		}
		ok := checkMixed(ops, withStatus)
		result("mixed", "round", round, "ok", ok, "n", len(ops))
	}
}
