package main

import (
	"encoding/binary"

	"github.com/casperii/casperii/casperii"
	"github.com/casperii/casperii/test/internal/csptest"
)

const orderN = 1000

// orderSizes cycle through eager and rendezvous sizes.
var orderSizes = []int{8, 100, 1500, 20000, 8, 64, 4096, 70000}

func msgSize(seq int) int { return orderSizes[seq%len(orderSizes)] }

// message returns message seq: its sequence number, then a pattern.
func message(b []byte, seq int) []byte {
	b = b[:msgSize(seq)]
	fill(b, seedOf(seq, 99))
	binary.LittleEndian.PutUint32(b, uint32(seq))
	return b
}

// checkMessage checks that b (count bytes received) is message seq.
func checkMessage(phase, comm string, b []byte, count, seq int) bool {
	want := msgSize(seq)
	if count < 4 || count > len(b) {
		return check(false, "order %s comm=%s: message %d: count %d, want %d", phase, comm, seq, count, want)
	}
	got := int(binary.LittleEndian.Uint32(b))
	if !check(got == seq && count == want, "order %s comm=%s: receive %d got message %d (%d bytes), want message %d (%d bytes): overtaken",
		phase, comm, seq, got, count, seq, want) {
		return false
	}
	exp := message(make([]byte, want), seq)
	bad := -1
	for i := range exp {
		if exp[i] != b[i] {
			bad = i
			break
		}
	}
	return check(bad < 0, "order %s comm=%s: message %d: byte %d differs", phase, comm, seq, bad)
}

// region hands out slices of one registered buffer (every third message
// uses Go memory instead), so one stream mixes both paths.
type region struct {
	buf  buffer
	next int
}

func newRegion(total int) *region { return &region{buf: alloc(total, "reg")} }

func (r *region) take(seq, n int) []byte {
	if seq%3 == 0 {
		return make([]byte, n)
	}
	b := r.buf.b[r.next : r.next+n : r.next+n]
	r.next += n
	return b
}

func totalSize(n int) int {
	t := 0
	for i := 0; i < n; i++ {
		t += msgSize(i)
	}
	return t
}

// waitRecv completes a receive of the stream; an error (truncation when a
// larger message overtook) is a failed check, not a reason to stop.
func waitRecv(phase, comm string, q *casperii.Request, b []byte, seq, src int) bool {
	st, err := q.Wait()
	if !check(err == nil, "order %s comm=%s: receive %d: %v (class %d)", phase, comm, seq, err, casperii.ErrorClass(err)) {
		return false
	}
	ok := check(st.Source == src && st.Tag == 5, "order %s comm=%s: receive %d: status %+v", phase, comm, seq, st)
	return checkMessage(phase, comm, b, st.Count, seq) && ok
}

// order streams messages of mixed sizes with one tag from rank 0 to rank 1
// (and both ways for sendrecv); they must arrive in order.
func order(comms []commSpec) {
	if nusers < 2 {
		fatalf("order needs 2 users")
	}
	for _, cs := range comms {
		orderNonblocking(cs)
		orderBlocking(cs)
		orderSendrecv(cs)
	}
}

func orderNonblocking(cs commSpec) {
	const phase = "isend"
	must(world.Barrier(), "barrier")
	d := statsNow()
	ok := true
	switch me {
	case 0:
		reg := newRegion(totalSize(orderN))
		reqs := make([]*casperii.Request, orderN)
		must(world.Barrier(), "barrier")
		for i := range reqs {
			var err error
			reqs[i], err = casperii.Isend(message(reg.take(i, msgSize(i)), i), 1, 5, cs.c)
			must(err, "Isend")
		}
		must(waitEach(reqs...), "Wait(sends)")
		reg.buf.free()
	case 1:
		reg := newRegion(totalSize(orderN))
		reqs := make([]*casperii.Request, orderN)
		bufs := make([][]byte, orderN)
		post := func(i int) {
			bufs[i] = reg.take(i, msgSize(i))
			var err error
			reqs[i], err = casperii.Irecv(bufs[i], 0, 5, cs.c)
			must(err, "Irecv")
		}
		for i := 0; i < orderN/2; i++ {
			post(i)
		}
		must(world.Barrier(), "barrier")
		for i := orderN / 2; i < orderN; i++ {
			post(i)
		}
		for i := range reqs {
			ok = waitRecv(phase, cs.name, reqs[i], bufs[i], i, 0) && ok
		}
		reg.buf.free()
	default:
		must(world.Barrier(), "barrier")
	}
	if me < 2 {
		result("order", append([]any{"comm", cs.name, "phase", phase, "role", []string{"send", "recv"}[me],
			"n", orderN, "ok", ok, "offloaded", cs.offloaded()}, d.kv()...)...)
	}
}

// orderBlocking mixes blocking and nonblocking calls in one stream: if
// blocking calls took another path than nonblocking ones on an offloaded
// communicator, messages would overtake each other.
func orderBlocking(cs commSpec) {
	const phase = "blocking"
	must(world.Barrier(), "barrier")
	d := statsNow()
	ok := true
	switch me {
	case 0:
		var reqs []*casperii.Request
		for i := 0; i < orderN; i++ {
			b := message(make([]byte, msgSize(i)), i)
			if i%2 == 0 {
				must(casperii.Send(b, 1, 5, cs.c), "Send")
			} else {
				q, err := casperii.Isend(b, 1, 5, cs.c)
				must(err, "Isend")
				reqs = append(reqs, q)
			}
		}
		must(waitEach(reqs...), "Wait(sends)")
	case 1:
		type pending struct {
			q   *casperii.Request
			b   []byte
			seq int
		}
		var pend []pending
		for i := 0; i < orderN; i++ {
			b := make([]byte, msgSize(i))
			if i%3 == 0 {
				st, err := casperii.Recv(b, 0, 5, cs.c)
				if check(err == nil, "order %s comm=%s: Recv %d: %v", phase, cs.name, i, err) {
					ok = check(st.Source == 0 && st.Tag == 5, "order %s comm=%s: Recv %d: status %+v", phase, cs.name, i, st) && ok
					ok = checkMessage(phase, cs.name, b, st.Count, i) && ok
				} else {
					ok = false
				}
				continue
			}
			q, err := casperii.Irecv(b, 0, 5, cs.c)
			must(err, "Irecv")
			pend = append(pend, pending{q, b, i})
		}
		for _, p := range pend {
			ok = waitRecv(phase, cs.name, p.q, p.b, p.seq, 0) && ok
		}
	}
	if me < 2 {
		result("order", append([]any{"comm", cs.name, "phase", phase, "role", []string{"send", "recv"}[me],
			"n", orderN, "ok", ok, "offloaded", cs.offloaded()}, d.kv()...)...)
	}
}

// orderSendrecv: ranks 0 and 1 exchange streams both ways, each round an
// Irecv/Isend pair, a Sendrecv, and an Isend/Recv pair.
func orderSendrecv(cs commSpec) {
	const phase = "sendrecv"
	const rounds = 200
	must(world.Barrier(), "barrier")
	d := statsNow()
	ok := true
	if me < 2 {
		peer := 1 - me
		for r := 0; r < rounds; r++ {
			k := 3 * r
			rb0 := make([]byte, msgSize(k))
			rq, err := casperii.Irecv(rb0, peer, 5, cs.c)
			must(err, "Irecv")
			sq, err := casperii.Isend(message(make([]byte, msgSize(k)), k), peer, 5, cs.c)
			must(err, "Isend")
			rb1 := make([]byte, msgSize(k+1))
			st, err := csptest.Sendrecv(message(make([]byte, msgSize(k+1)), k+1), peer, 5, rb1, peer, 5, cs.c)
			if check(err == nil, "order %s comm=%s: Sendrecv %d: %v", phase, cs.name, k+1, err) {
				ok = check(st.Source == peer && st.Tag == 5 && st.Error == 0,
					"order %s comm=%s: Sendrecv %d: status %+v", phase, cs.name, k+1, st) && ok
				ok = checkMessage(phase, cs.name, rb1, st.Count, k+1) && ok
			} else {
				ok = false
			}
			sq2, err := casperii.Isend(message(make([]byte, msgSize(k+2)), k+2), peer, 5, cs.c)
			must(err, "Isend")
			rb2 := make([]byte, msgSize(k+2))
			st2, err := casperii.Recv(rb2, peer, 5, cs.c)
			if check(err == nil, "order %s comm=%s: Recv %d: %v", phase, cs.name, k+2, err) {
				ok = checkMessage(phase, cs.name, rb2, st2.Count, k+2) && ok
			} else {
				ok = false
			}
			ok = waitRecv(phase, cs.name, rq, rb0, k, peer) && ok
			_, err = sq.Wait()
			must(err, "Wait(send)")
			_, err = sq2.Wait()
			must(err, "Wait(send)")
		}
		result("order", append([]any{"comm", cs.name, "phase", phase, "role", "both",
			"n", 3 * rounds, "ok", ok, "offloaded", cs.offloaded()}, d.kv()...)...)
	}
}
