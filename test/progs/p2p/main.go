// Command p2p runs CasperII point-to-point scenarios through the Go API and
// checks everything it can locally: data (every byte), status fields,
// error classes and messages, offload counters.
//
//	p2p [-comms none,dup,match,off] [-mem reg,go] scenario...
//
// Scenarios (ranks are user ranks in the world, ghosts excluded):
//
//	sizes                   1 B to 4 MiB between partners r and (r+n/2)%n
//	recvshare:S:R1:R2       S sends one message to each of R1 and R2 (same comm, same tag)
//	sendshare:A:B1:B2       B1 then B2 send tag 0 to A, which posted Irecv(B2) before Irecv(B1)
//	order                   1000-message streams between ranks 0 and 1: Isend/Irecv,
//	                        Send/Recv mixed with Isend/Irecv, Sendrecv mixed with both
//	status                  all-to-all (self included) with distinct tags and sizes on each
//	                        comm and on its reversal (a split with reordered ranks)
//	disjoint                the same on the two halves of each comm (split by world rank
//	                        parity), three times: disjoint communicators used at once
//	tagub                   the exposed tag bound, a tag at it, tags beyond it, wildcards
//	                        a communicator's hints rule out; ranks 0 and 1
//	badhint                 invalid hint values; the communicators still work (all users)
//	mixed                   Test, Waitall with statuses, Waitany, Testsome over offloaded and ordinary
//	                        requests together (ranks 0 and 1)
//	waitall                 casperii.Waitall over the same mix (ranks 0 and 1)
//	world                   an exchange on World() itself (see CSP_WORLD_HINTS)
//	allocmem0               AllocMem of 0 bytes, registered and not (MPI allows size 0)
//
// Communicators: none = DupWithInfo(wildcard_used=none) (tag encoding),
// dup = DupWithInfo(wildcard_used=any_tag_same_tag) (duplication),
// match = Dup() (default hints, wildcard_used=any_src: ghost-side
// matching), off = DupWithInfo(async_config=off) (not offloaded, an
// ordinary communicator). Memory: reg =
// AllocMem(shmbuf_regist=true), go = ordinary Go slices. Sendrecv and the
// completion calls that return statuses, which the Go API lacks, come from
// test/internal/csptest (the runtime's C entry points).
//
// Output: one "result rank=<r> test=<scenario> ... ok=<0|1>" line per check
// group on stdout (tagub's rejections also report msg_ok, whether the
// error's message names the fix, which the test checks); every failed check also prints "FAIL rank=<r> ..." on
// stderr, and the program exits 1 after finalizing. An unexpected MPI error
// exits at once (mpiexec then ends the job).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/casperii/casperii/casperii"
)

var (
	me, nusers int
	failed     bool
	world      casperii.Comm
)

// commSpec is a communicator the scenarios run on.
type commSpec struct {
	name  string
	c     casperii.Comm
	world []int // world rank of each rank of c (nil: the same)
}

// worldOf returns the world (user) rank of rank r of the communicator.
func (cs commSpec) worldOf(r int) int {
	if cs.world == nil || r < 0 || r >= len(cs.world) {
		return r
	}
	return cs.world[r]
}

// crankOf returns the rank in the communicator of world rank w (-1: none).
func (cs commSpec) crankOf(w int) int {
	if cs.world == nil {
		return w
	}
	for r, x := range cs.world {
		if x == w {
			return r
		}
	}
	return -1
}

func (cs commSpec) offloaded() bool { return cs.c.Algorithm() != "off" }

func main() {
	commsFlag := flag.String("comms", "none,dup,match,off", "communicators to run on")
	memFlag := flag.String("mem", "reg,go", "memory kinds for sizes")
	flag.Parse()
	if err := casperii.Init(); err != nil {
		fmt.Fprintf(os.Stderr, "p2p: init: %v\n", err)
		os.Exit(2)
	}
	world = casperii.World()
	me, nusers = world.Rank(), world.Size()
	result("setup", "users", nusers, "tagub", casperii.TagUB(), "world_algorithm", world.Algorithm())

	var comms []commSpec
	for _, name := range split(*commsFlag) {
		var c casperii.Comm
		var err error
		switch name {
		case "none":
			c, err = world.DupWithInfo(casperii.Info{"wildcard_used": "none"})
		case "dup":
			c, err = world.DupWithInfo(casperii.Info{"wildcard_used": "any_tag_same_tag"})
		case "match":
			c, err = world.Dup()
		case "off":
			c, err = world.DupWithInfo(casperii.Info{"async_config": "off"})
		default:
			fatalf("unknown communicator %q", name)
		}
		must(err, "creating communicator "+name)
		comms = append(comms, commSpec{name: name, c: c})
		result("setup", "comm", name, "algorithm", c.Algorithm(), "size", c.Size(), "crank", c.Rank())
	}
	mems := split(*memFlag)

	for _, sc := range flag.Args() {
		parts := strings.Split(sc, ":")
		must(world.Barrier(), "barrier")
		switch parts[0] {
		case "sizes":
			sizes(comms, mems)
		case "recvshare":
			recvShare(comms, ints(parts[1:], 3))
		case "sendshare":
			sendShare(comms, ints(parts[1:], 3))
		case "order":
			order(comms)
		case "status":
			statusAll(comms, true, "rev")
		case "disjoint":
			for range 3 {
				statusAll(comms, false, "half")
			}
		case "tagub":
			tagUB(comms)
		case "badhint":
			badHint()
		case "mixed":
			mixed(comms)
		case "waitall":
			waitallGo(comms)
		case "world":
			worldExchange()
		case "allocmem0":
			allocZero()
		default:
			fatalf("unknown scenario %q", sc)
		}
	}
	must(world.Barrier(), "final barrier")
	for i := range comms {
		must(comms[i].c.Free(), "freeing "+comms[i].name)
	}
	st := casperii.CurrentStats()
	result("stats", "isend", st.Isend, "irecv", st.Irecv, "direct", st.Direct, "bounce", st.Bounce, "held", st.Held)
	if err := casperii.Finalize(); err != nil {
		fmt.Fprintf(os.Stderr, "p2p: finalize: %v\n", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

func split(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func ints(ss []string, n int) []int {
	if len(ss) != n {
		fatalf("want %d ranks, got %q", n, ss)
	}
	out := make([]int, n)
	for i, s := range ss {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v >= nusers {
			fatalf("bad rank %q (there are %d users)", s, nusers)
		}
		out[i] = v
	}
	return out
}

// result prints "result rank=<me> test=<test> k=v ...".
func result(test string, kv ...any) {
	var b strings.Builder
	fmt.Fprintf(&b, "result rank=%d test=%s", me, test)
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		switch x := v.(type) {
		case bool:
			if x {
				v = 1
			} else {
				v = 0
			}
		case string:
			v = strings.ReplaceAll(x, " ", "_")
		}
		fmt.Fprintf(&b, " %v=%v", kv[i], v)
	}
	fmt.Println(b.String())
}

// check records a failed check (and returns cond).
func check(cond bool, format string, args ...any) bool {
	if !cond {
		failed = true
		fmt.Fprintf(os.Stderr, "FAIL rank=%d: %s\n", me, fmt.Sprintf(format, args...))
	}
	return cond
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL rank=%d: fatal: %s\n", me, fmt.Sprintf(format, args...))
	os.Exit(1)
}

// must exits on an unexpected error: carrying on could hang the peers.
func must(err error, what string) {
	if err != nil {
		fatalf("%s: %v (class %d)", what, err, casperii.ErrorClass(err))
	}
}

// pattern is the byte i of the message identified by seed.
func pattern(seed uint32, i int) byte {
	x := uint32(i)*2654435761 ^ seed*40503 ^ uint32(i>>10)*97
	return byte(x>>24 ^ x>>8 ^ x)
}

func fill(b []byte, seed uint32) {
	for i := range b {
		b[i] = pattern(seed, i)
	}
}

// firstBad returns the first index where b differs from the message seed
// (-1: none).
func firstBad(b []byte, seed uint32) int {
	for i := range b {
		if b[i] != pattern(seed, i) {
			return i
		}
	}
	return -1
}

func seedOf(parts ...int) uint32 {
	s := uint32(17)
	for _, p := range parts {
		s = s*1000003 + uint32(p)
	}
	return s
}

// buffer is message memory of one kind.
type buffer struct {
	b   []byte
	buf *casperii.Buffer
}

func alloc(n int, mem string) buffer {
	if mem == "go" {
		return buffer{b: make([]byte, n)}
	}
	// AllocMem(0) is checked on its own (scenario allocmem0).
	b, err := casperii.AllocMem(max(n, 1), casperii.Info{"shmbuf_regist": "true"})
	must(err, "AllocMem")
	return buffer{b: b.Bytes()[:n], buf: b}
}

func (b buffer) registered() bool { return b.buf != nil && b.buf.Registered() }

func (b buffer) free() {
	if b.buf != nil {
		must(b.buf.Free(), "Free")
	}
}

type statsDelta struct{ start casperii.Stats }

func statsNow() statsDelta { return statsDelta{casperii.CurrentStats()} }

// kv returns the counters' growth since d as result fields.
func (d statsDelta) kv() []any {
	s := casperii.CurrentStats()
	return []any{"d_isend", s.Isend - d.start.Isend, "d_irecv", s.Irecv - d.start.Irecv,
		"d_direct", s.Direct - d.start.Direct, "d_bounce", s.Bounce - d.start.Bounce}
}

// allocZero: MPI_Alloc_mem accepts a size of 0; so must AllocMem, with and
// without shmbuf_regist. Reported, not a failed check (see the test).
func allocZero() {
	for _, h := range []casperii.Info{nil, {"shmbuf_regist": "true"}} {
		b, err := casperii.AllocMem(0, h)
		ok := err == nil && b != nil && len(b.Bytes()) == 0
		if b != nil {
			ok = b.Free() == nil && ok
		}
		result("allocmem0", "registered", h != nil, "ok", ok, "class", casperii.ErrorClass(err), "err", fmt.Sprint(err))
	}
}

// waitEach completes requests one Wait at a time, so that the streams do
// not depend on casperii.Waitall, which has its own scenario (waitall).
func waitEach(reqs ...*casperii.Request) error {
	for _, q := range reqs {
		if _, err := q.Wait(); err != nil {
			return err
		}
	}
	return nil
}
