package test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runtime issue's test list, run through the Go API by the program
// test/progs/p2p (see its documentation for the scenarios). Each test runs
// one job of several scenarios that share a layout, then checks the
// program's result lines scenario by scenario in subtests. The program
// checks data, statuses and error classes itself and reports ok=0/1; the
// tests check the fields again, that no line is missing, and what only
// the whole job shows (algorithms, counters, the CSP_STATS lines).

var (
	layout4        = Layout{N: 4, NodeSize: 2} // 2 nodes x (1 ghost + 1 user)
	layout6        = Layout{N: 6, NodeSize: 3} // 2 nodes x (1 ghost + 2 users)
	layout5        = Layout{N: 5}              // 1 ghost + 4 users
	layout6ng2     = Layout{N: 6, NG: 2}       // 2 ghosts + 4 users on one node
	passThroughEnv = []string{"CSP_NG=0"}
)

// p2pTimeout is a p2p job's timeout (for hangs: the slowest job takes
// under 10 s here).
const p2pTimeout = 60 * time.Second

// p2pMPICHTagUB is MPICH 4.0.2's own MPI_TAG_UB.
const p2pMPICHTagUB = 1<<28 - 1

// The scenarios' parameters, as the program has them.
var (
	p2pSizes       = []int{0, 1, 3, 16, 64, 255, 1024, 4096, 16384, 65536, 262144, 1048576, 3*1048576 + 7, 4194304}
	p2pComms       = []string{"none", "dup", "match", "off"}
	p2pAlgorithm   = map[string]string{"none": "tag-encoding", "dup": "duplication", "match": "ghost-match", "off": "off"}
	p2pShareRounds = []struct {
		name   string
		s1, s2 int
		anyTag bool
	}{
		{"posted-small", 100, 200, false},
		{"posted-large", 1<<20 + 100, 1<<20 + 200, false},
		{"unexpected-small", 100, 200, false},
		{"anytag-small", 100, 200, true},
		{"anytag-large", 1<<20 + 100, 1<<20 + 200, true},
	}
)

// p2pJob is the outcome of one job of test/progs/p2p.
type p2pJob struct {
	res         Result
	rs          []Fields
	stats       map[int]Stats
	users       int
	passThrough bool
}

// runP2P runs test/progs/p2p with CSP_STATS=1 and the scenarios in args.
func runP2P(t *testing.T, l Layout, env []string, args ...string) *p2pJob {
	t.Helper()
	prog := GoProg(t, "p2p")
	env = append([]string{"CSP_STATS=1"}, env...)
	res := Run(t, Job{Layout: l, Prog: prog, Args: args, Env: env, Timeout: p2pTimeout})
	j := &p2pJob{res: res, rs: Results(res.Stdout), users: l.Users()}
	for _, e := range env {
		if e == "CSP_NG=0" {
			j.passThrough, j.users = true, l.N
		}
	}
	var err error
	j.stats, err = StatsLines(res.Stderr)
	assert.NoError(t, err)
	return j
}

// requireClean: the job exited 0, no check failed, every user reported.
func (j *p2pJob) requireClean(t *testing.T) {
	t.Helper()
	var fails []string
	for _, l := range strings.Split(j.res.Stderr, "\n") {
		if strings.HasPrefix(l, "FAIL ") {
			fails = append(fails, l)
		}
	}
	assert.Empty(t, fails, "failed checks")
	require.Equal(t, 0, j.res.ExitCode, "exit code of %s", j.res.Cmd)
	setup := 0
	for _, f := range Select(j.rs, "test=setup") {
		if _, ok := f["users"]; ok {
			setup++
			assert.Equal(t, strconv.Itoa(j.users), f["users"], f.Line())
		}
	}
	require.Equal(t, j.users, setup, "users reporting")
}

// lines returns the result lines matching every key=value of match,
// requiring exactly n.
func (j *p2pJob) lines(t *testing.T, n int, match ...string) []Fields {
	t.Helper()
	rs := Select(j.rs, match...)
	assert.Len(t, rs, n, "result lines %v", match)
	return rs
}

// get is lines, each with ok=1.
func (j *p2pJob) get(t *testing.T, n int, match ...string) []Fields {
	t.Helper()
	rs := j.lines(t, n, match...)
	for _, f := range rs {
		assert.Equal(t, "1", f["ok"], "check failed: %s", f.Line())
	}
	return rs
}

// wantField asserts one field of a line.
func wantField(t *testing.T, f Fields, key string, want any) {
	t.Helper()
	assert.Equal(t, fmt.Sprint(want), f[key], "%s in %s", key, f.Line())
}

func numField(t *testing.T, f Fields, key string) int64 {
	t.Helper()
	v, ok := f.Int(key)
	assert.True(t, ok, "%s in %s", key, f.Line())
	return v
}

func kvp(k string, v any) string { return fmt.Sprintf("%s=%v", k, v) }

func (j *p2pJob) checkAlgorithms(t *testing.T, names ...string) {
	t.Helper()
	for _, c := range names {
		want := p2pAlgorithm[c]
		if j.passThrough {
			want = "off"
		}
		for _, f := range j.lines(t, j.users, "test=setup", kvp("comm", c)) {
			wantField(t, f, "algorithm", want)
		}
	}
}

// checkSizes: every size on every communicator and memory kind arrived
// intact, with the right status; registered buffers needed no bounce
// copy, Go memory did; offloaded communicators counted no direct call.
func (j *p2pJob) checkSizes(t *testing.T, p2pComms, mems []string) {
	t.Helper()
	u := j.users
	for r := 0; r < u; r++ {
		src := (r - u/2 + u) % u
		for _, c := range p2pComms {
			offloaded := !j.passThrough && c != "off"
			for _, m := range mems {
				for i, size := range p2pSizes {
					for _, f := range j.get(t, 1, "test=sizes", kvp("rank", r), kvp("comm", c), kvp("mem", m), kvp("size", size)) {
						wantField(t, f, "src", src)
						wantField(t, f, "tag", 100+i)
						wantField(t, f, "count", size)
						if m == "reg" && !j.passThrough {
							wantField(t, f, "registered", 1)
						}
					}
				}
				for _, f := range j.lines(t, 1, "test=sizes-stats", kvp("rank", r), kvp("comm", c), kvp("mem", m)) {
					n := int64(len(p2pSizes))
					if offloaded {
						wantField(t, f, "offloaded", 1)
						assert.Equal(t, n, numField(t, f, "d_isend"), "offloaded sends: %s", f.Line())
						assert.Equal(t, n, numField(t, f, "d_irecv"), "offloaded receives: %s", f.Line())
						assert.Zero(t, numField(t, f, "d_direct"), "direct calls on an offloaded communicator: %s", f.Line())
						if m == "reg" {
							assert.Zero(t, numField(t, f, "d_bounce"), "bounce copies of registered buffers: %s", f.Line())
						} else {
							assert.Positive(t, numField(t, f, "d_bounce"), "Go memory went without bounce copies: %s", f.Line())
						}
					} else {
						wantField(t, f, "offloaded", 0)
						assert.Zero(t, numField(t, f, "d_isend")+numField(t, f, "d_irecv")+numField(t, f, "d_bounce"), "offload counted: %s", f.Line())
						assert.Equal(t, 2*n, numField(t, f, "d_direct"), "direct calls: %s", f.Line())
					}
				}
			}
		}
	}
}

// checkStats: one casperii-stats line per user, equal to the program's
// own counters; offload ran (isend and irecv offloaded > 0) and the
// communicator that is not offloaded went direct (direct > 0).
func (j *p2pJob) checkStats(t *testing.T, wantBounce bool) {
	t.Helper()
	require.Len(t, j.stats, j.users, "casperii-stats lines:\n%s", j.res.Stderr)
	for r := 0; r < j.users; r++ {
		s, ok := j.stats[r]
		if !assert.True(t, ok, "no casperii-stats line for rank %d", r) {
			continue
		}
		assert.Positive(t, s.IsendOffloaded, s.Fields.Line())
		assert.Positive(t, s.IrecvOffloaded, s.Fields.Line())
		assert.Positive(t, s.Direct, s.Fields.Line())
		if wantBounce {
			assert.Positive(t, s.Bounce, s.Fields.Line())
		} else {
			assert.Zero(t, s.Bounce, s.Fields.Line())
		}
		for _, f := range Select(j.rs, "test=stats", kvp("rank", r)) {
			wantField(t, f, "isend", s.IsendOffloaded)
			wantField(t, f, "irecv", s.IrecvOffloaded)
			wantField(t, f, "direct", s.Direct)
			wantField(t, f, "bounce", s.Bounce)
		}
	}
}

func p2pRoundsOn(c string) []int {
	var out []int
	for i, r := range p2pShareRounds {
		if !r.anyTag || c != "none" {
			out = append(out, i)
		}
	}
	return out
}

// checkRecvShare: s sent one message to each of r1 and r2 (same comm, same
// tag); each receiver got its own.
func (j *p2pJob) checkRecvShare(t *testing.T, s, r1, r2 int) {
	t.Helper()
	for _, c := range p2pComms {
		for _, i := range p2pRoundsOn(c) {
			rd := p2pShareRounds[i]
			for r, size := range map[int]int{r1: rd.s1, r2: rd.s2} {
				for _, f := range j.get(t, 1, "test=recvshare", kvp("rank", r), kvp("comm", c), kvp("round", rd.name)) {
					wantField(t, f, "src", s)
					wantField(t, f, "tag", 7)
					wantField(t, f, "count", size)
				}
			}
		}
	}
}

// checkSendShare: b1 and b2 (sharing a ghost) both sent to a, b1 first;
// a's receive from b2, posted first, got b2's message, and the one from
// b1 b1's; with MPI_ANY_TAG too (not on tag-encoded communicators).
func (j *p2pJob) checkSendShare(t *testing.T, anyTag bool, a, b1, b2 int) {
	t.Helper()
	for _, c := range p2pComms {
		for _, i := range p2pRoundsOn(c) {
			rd := p2pShareRounds[i]
			if rd.anyTag != anyTag {
				continue
			}
			for _, s := range []struct{ from, size, tag int }{{b2, rd.s2, 4}, {b1, rd.s1, 3}} {
				tag := 0
				if anyTag {
					tag = s.tag
				}
				for _, f := range j.get(t, 1, "test=sendshare", kvp("rank", a), kvp("comm", c), kvp("round", rd.name), kvp("from", s.from)) {
					wantField(t, f, "src", s.from)
					wantField(t, f, "tag", tag)
					wantField(t, f, "count", s.size)
				}
			}
		}
	}
}

// checkStatus: on each communicator and its reversal, every receive's
// status (by Wait, Waitall with statuses, Probe, Recv, MPI_ANY_TAG and,
// where allowed, MPI_ANY_SOURCE) carried the sender's rank in the
// communicator, the tag, MPI_SUCCESS and the byte count.
func (j *p2pJob) checkStatus(t *testing.T) {
	t.Helper()
	n := j.users
	for _, base := range p2pComms {
		for _, c := range []string{base, "rev-" + base} {
			alg := p2pAlgorithm[base]
			if j.passThrough {
				alg = "off"
			}
			for r := 0; r < n; r++ {
				for _, f := range j.lines(t, 1, "test=status-comm", kvp("rank", r), kvp("comm", c)) {
					wantField(t, f, "algorithm", alg)
					crank := r
					if c != base {
						crank = n - 1 - r
					}
					wantField(t, f, "crank", crank)
				}
				phases := map[string]int{"wait": (n + 1) / 2, "waitall": n / 2, "probe": n, "recv": n}
				if alg != "tag-encoding" {
					phases["anytag"] = n
				}
				if alg == "off" {
					phases["anysource"] = n
				}
				for ph, cnt := range phases {
					for _, f := range j.get(t, cnt, "test=status", kvp("rank", r), kvp("comm", c), kvp("phase", ph)) {
						wantField(t, f, "src", f["want_src"])
						wantField(t, f, "tag", f["want_tag"])
						wantField(t, f, "count", f["want_count"])
						wantField(t, f, "err", 0)
						wantField(t, f, "data", 1)
						if ph != "anysource" {
							wantField(t, f, "want_src", f["from"])
						}
					}
				}
			}
		}
	}
}

// checkTagUB: the exposed bound is below MPI's when offload is on (and at
// least 32767); a tag at it works; tags beyond it, negative tags, bad ranks
// and wildcards a communicator's hints rule out are rejected with the
// right class; the job goes on and no stray message arrives.
func (j *p2pJob) checkTagUB(t *testing.T) {
	t.Helper()
	for r := 0; r < 2; r++ {
		ls := j.lines(t, 1, "test=tagub", kvp("rank", r))
		if len(ls) != 1 {
			continue
		}
		ub, mpiUB := numField(t, ls[0], "ub"), numField(t, ls[0], "mpi_ub")
		assert.Equal(t, int64(p2pMPICHTagUB), mpiUB)
		if j.passThrough {
			assert.Equal(t, mpiUB, ub, "pass-through must expose MPI's MPI_TAG_UB")
		} else {
			assert.Less(t, ub, mpiUB, "the exposed MPI_TAG_UB must leave room for tag encoding")
			assert.GreaterOrEqual(t, ub, int64(32767))
		}
		for _, c := range p2pComms {
			for _, f := range j.get(t, 1, "test=tagub-max", kvp("rank", r), kvp("comm", c)) {
				wantField(t, f, "tag", ub)
			}
			j.get(t, 1, "test=tagub-after", kvp("rank", r), kvp("comm", c))
			calls := []string{"isend-ub+1", "irecv-ub+1", "send-ub+1", "recv-ub+1", "isend-neg", "isend-rank"}
			switch {
			case j.passThrough || c == "off":
				calls = nil
			case c == "none":
				calls = append(calls, "irecv-anysource", "irecv-anytag")
			case c == "dup":
				calls = append(calls, "irecv-anysource")
			}
			for _, call := range calls {
				for _, f := range j.get(t, 1, "test=tagub-reject", kvp("rank", r), kvp("comm", c), kvp("call", call)) {
					wantField(t, f, "class", f["want_class"])
				}
			}
			assert.Len(t, Select(j.rs, "test=tagub-reject", kvp("rank", r), kvp("comm", c)), len(calls))
		}
	}
}

// checkTagUBMessages: every rejection's message is one line naming the
// fix (MPI_TAG_UB for tags beyond the bound, wildcard_used for wildcards).
func (j *p2pJob) checkTagUBMessages(t *testing.T) {
	t.Helper()
	rs := Select(j.rs, "test=tagub-reject")
	require.NotEmpty(t, rs)
	for _, f := range rs {
		assert.Equal(t, "1", f["msg_ok"], "%s\n%s", f.Line(), noteLines(j.res.Stderr))
	}
}

func noteLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "note ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// checkMixed: batches of offloaded and ordinary requests complete through
// Test, Waitall with statuses, Waitany and Testsome with the right data
// and statuses.
func (j *p2pJob) checkMixed(t *testing.T) {
	t.Helper()
	for r := 0; r < 2; r++ {
		for _, round := range []string{"test", "waitall-status", "waitany", "testsome"} {
			for _, f := range j.get(t, 1, "test=mixed", kvp("rank", r), kvp("round", round)) {
				wantField(t, f, "n", 2*len(p2pComms))
			}
		}
	}
}

// TestRegisteredBuffers: 1 B to 4 MiB between two nodes from registered
// buffers (AllocMem with shmbuf_regist=true) on every communicator: every
// byte and status right, and no bounce copy at all (CSP_STATS bounce=0).
func TestRegisteredBuffers(t *testing.T) {
	j := runP2P(t, layout4, nil, "-mem", "reg", "sizes")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("Sizes", func(t *testing.T) { j.checkSizes(t, p2pComms, []string{"reg"}) })
	t.Run("Stats", func(t *testing.T) { j.checkStats(t, false) })
}

// TestTwoNodes: 2 nodes x (1 ghost + 1 user): sizes from Go memory (bounce
// path), message order, the tag bound, bad hints, mixed completion (the
// runtime's calls with statuses, and casperii.Waitall).
func TestTwoNodes(t *testing.T) {
	j := runP2P(t, layout4, nil, "-mem", "go", "sizes", "order", "tagub", "badhint", "mixed", "waitall", "allocmem0")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("SizesBounce", func(t *testing.T) { j.checkSizes(t, p2pComms, []string{"go"}) })
	t.Run("Order", func(t *testing.T) { j.checkOrder(t) })
	t.Run("TagUB", func(t *testing.T) { j.checkTagUB(t) })
	t.Run("TagUBMessages", func(t *testing.T) {
		j.checkTagUBMessages(t)
	})
	t.Run("BadHint", func(t *testing.T) { j.checkBadHint(t) })
	t.Run("Mixed", func(t *testing.T) { j.checkMixed(t) })
	t.Run("WaitallGoAPI", func(t *testing.T) {
		for r := 0; r < 2; r++ {
			for _, f := range j.get(t, 1, "test=mixed", kvp("rank", r), "round=waitall") {
				wantField(t, f, "n", 2*len(p2pComms))
			}
		}
	})
	t.Run("AllocMemZero", func(t *testing.T) {
		j.get(t, 2, "test=allocmem0", "registered=0")
		t.Run("Registered", func(t *testing.T) {
			j.get(t, 2, "test=allocmem0", "registered=1")
		})
	})
	t.Run("Stats", func(t *testing.T) { j.checkStats(t, true) })
}

// checkOrder: 1000-message streams of mixed sizes with one tag arrived in
// order: Isend/Irecv, Send/Recv mixed with Isend/Irecv, Sendrecv mixed with
// both. On offloaded communicators blocking calls took the offload path
// (no direct call counted).
func (j *p2pJob) checkOrder(t *testing.T) {
	t.Helper()
	for _, c := range p2pComms {
		offloaded := !j.passThrough && c != "off"
		for _, ph := range []struct {
			phase string
			roles map[int]string
			n     int64
		}{
			{"isend", map[int]string{0: "send", 1: "recv"}, 1000},
			{"blocking", map[int]string{0: "send", 1: "recv"}, 1000},
			{"sendrecv", map[int]string{0: "both", 1: "both"}, 600},
		} {
			for r, role := range ph.roles {
				for _, f := range j.get(t, 1, "test=order", kvp("rank", r), kvp("comm", c), kvp("phase", ph.phase)) {
					wantField(t, f, "role", role)
					wantField(t, f, "n", ph.n)
					if !offloaded {
						assert.Zero(t, numField(t, f, "d_isend")+numField(t, f, "d_irecv"), "offload counted: %s", f.Line())
						continue
					}
					assert.Zero(t, numField(t, f, "d_direct"), "direct calls on an offloaded communicator: %s", f.Line())
					sends, recvs := numField(t, f, "d_isend"), numField(t, f, "d_irecv")
					switch role {
					case "send":
						assert.Equal(t, ph.n, sends, f.Line())
					case "recv":
						assert.Equal(t, ph.n, recvs, f.Line())
					default:
						assert.Equal(t, ph.n, sends, f.Line())
						assert.Equal(t, ph.n, recvs, f.Line())
					}
				}
			}
		}
	}
}

// checkBadHint: a bad hint value is refused with MPI_ERR_INFO_VALUE and a
// message naming key, value and accepted values (the program checks the
// text); the communicator still works, not offloaded.
func (j *p2pJob) checkBadHint(t *testing.T) {
	t.Helper()
	for r := 0; r < j.users; r++ {
		for _, c := range []string{"wildcard", "wildcard-combined", "shmbuf", "async"} {
			for _, f := range j.get(t, 1, "test=badhint", kvp("rank", r), kvp("case", c)) {
				wantField(t, f, "works", 1)
				wantField(t, f, "algorithm", "off")
				assert.Zero(t, numField(t, f, "d_isend"), f.Line())
				assert.GreaterOrEqual(t, numField(t, f, "d_direct"), int64(2), f.Line())
				if !j.passThrough {
					wantField(t, f, "expected_error", 1)
				}
			}
		}
		for _, f := range j.get(t, 1, "test=badhint", kvp("rank", r), "case=unknown-key") {
			wantField(t, f, "works", 1)
			wantField(t, f, "class", 0)
			if !j.passThrough {
				wantField(t, f, "algorithm", "tag-encoding")
			}
		}
		for _, f := range j.get(t, 1, "test=badhint", kvp("rank", r), "case=setinfo") {
			wantField(t, f, "works", 1)
			if !j.passThrough { // an invalid hint changes nothing
				wantField(t, f, "algorithm_before", "tag-encoding")
				wantField(t, f, "algorithm", "tag-encoding")
			}
		}
		j.get(t, 1, "test=badhint", kvp("rank", r), "case=allocmem")
	}
}

// TestSixProcs: 2 nodes x (1 ghost + 2 users), where offsets matter:
// receivers and senders sharing a ghost, status fields, mixed completion,
// the tag bound with offset bits reserved.
func TestSixProcs(t *testing.T) {
	j := runP2P(t, layout6, nil, "recvshare:0:2:3", "recvshare:2:0:1", "sendshare:0:2:3", "sendshare:3:0:1",
		"status", "mixed", "tagub")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("ReceiversSharingAGhost", func(t *testing.T) {
		j.checkRecvShare(t, 0, 2, 3)
		j.checkRecvShare(t, 2, 0, 1)
	})
	t.Run("SendersSharingAGhost", func(t *testing.T) {
		j.checkSendShare(t, false, 0, 2, 3)
		j.checkSendShare(t, false, 3, 0, 1)
	})
	t.Run("SendersSharingAGhostAnyTag", func(t *testing.T) {
		j.checkSendShare(t, true, 0, 2, 3)
		j.checkSendShare(t, true, 3, 0, 1)
	})
	t.Run("Status", func(t *testing.T) { j.checkStatus(t) })
	t.Run("Mixed", func(t *testing.T) { j.checkMixed(t) })
	t.Run("TagUB", func(t *testing.T) { j.checkTagUB(t) })
	t.Run("Stats", func(t *testing.T) { j.checkStats(t, true) })
}

// TestDisjointCommunicators: the two halves of a communicator (split by
// rank parity, so each half has one user behind each ghost) exchange
// messages at the same time; none may receive the other's.
func TestDisjointCommunicators(t *testing.T) {
	j := runP2P(t, layout6, nil, "-comms", "none,dup", "disjoint")
	j.requireClean(t)
	for r := 0; r < j.users; r++ {
		for c, alg := range map[string]string{"half-none": "tag-encoding", "half-dup": "duplication"} {
			for _, f := range j.lines(t, 3, "test=status-comm", kvp("rank", r), kvp("comm", c)) {
				wantField(t, f, "algorithm", alg)
				wantField(t, f, "size", 2)
			}
			rs := Select(j.rs, "test=status", kvp("rank", r), kvp("comm", c))
			assert.Len(t, rs, 3*(2+2+2+map[string]int{"half-none": 0, "half-dup": 2}[c]), "status lines of rank %d on %s", r, c)
			for _, f := range rs {
				wantField(t, f, "ok", 1)
				wantField(t, f, "data", 1)
			}
		}
	}
}

// TestOneNode: one node, 1 ghost + 4 users: every message goes from the
// ghost to itself; sizes, sharing, status, the tag bound (2 offset bits).
func TestOneNode(t *testing.T) {
	j := runP2P(t, layout5, nil, "sizes", "recvshare:0:1:2", "sendshare:0:1:2", "sendshare:3:2:1", "status", "tagub")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("Sizes", func(t *testing.T) { j.checkSizes(t, p2pComms, []string{"reg", "go"}) })
	t.Run("ReceiversSharingAGhost", func(t *testing.T) { j.checkRecvShare(t, 0, 1, 2) })
	t.Run("SendersSharingAGhost", func(t *testing.T) {
		j.checkSendShare(t, false, 0, 1, 2)
		j.checkSendShare(t, false, 3, 2, 1)
		j.checkSendShare(t, true, 0, 1, 2)
		j.checkSendShare(t, true, 3, 2, 1)
	})
	t.Run("Status", func(t *testing.T) { j.checkStatus(t) })
	t.Run("TagUB", func(t *testing.T) { j.checkTagUB(t) })
	t.Run("Stats", func(t *testing.T) { j.checkStats(t, true) })
}

// TestTwoGhostsPerNode: one node with CSP_NG=2: 4 users bound to 2 ghosts
// (users 0,1 to the first, 2,3 to the second).
func TestTwoGhostsPerNode(t *testing.T) {
	j := runP2P(t, layout6ng2, nil, "sendshare:0:2:3", "sendshare:2:0:1", "recvshare:0:2:3", "status")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("SendersSharingAGhost", func(t *testing.T) {
		for _, anyTag := range []bool{false, true} {
			j.checkSendShare(t, anyTag, 0, 2, 3)
			j.checkSendShare(t, anyTag, 2, 0, 1)
		}
	})
	t.Run("ReceiversSharingAGhost", func(t *testing.T) { j.checkRecvShare(t, 0, 2, 3) })
	t.Run("Status", func(t *testing.T) { j.checkStatus(t) })
	t.Run("Stats", func(t *testing.T) { j.checkStats(t, true) })
}

// TestPassThrough: CSP_NG=0 runs the same program correctly as plain MPI:
// nothing offloaded, MPI's own tag bound.
func TestPassThrough(t *testing.T) {
	j := runP2P(t, Layout{N: 4}, passThroughEnv, "-mem", "go", "sizes", "recvshare:0:1:2", "sendshare:0:2:3",
		"status", "tagub", "badhint", "mixed", "world")
	j.requireClean(t)
	t.Run("Algorithms", func(t *testing.T) { j.checkAlgorithms(t, p2pComms...) })
	t.Run("Sizes", func(t *testing.T) { j.checkSizes(t, p2pComms, []string{"go"}) })
	t.Run("Sharing", func(t *testing.T) {
		j.checkRecvShare(t, 0, 1, 2)
		j.checkSendShare(t, false, 0, 2, 3)
		j.checkSendShare(t, true, 0, 2, 3)
	})
	t.Run("Status", func(t *testing.T) { j.checkStatus(t) })
	t.Run("TagUB", func(t *testing.T) { j.checkTagUB(t) })
	t.Run("BadHint", func(t *testing.T) { j.checkBadHint(t) })
	t.Run("Mixed", func(t *testing.T) { j.checkMixed(t) })
	t.Run("World", func(t *testing.T) {
		for _, f := range j.get(t, j.users, "test=world") {
			wantField(t, f, "algorithm", "off")
		}
	})
	t.Run("NothingOffloaded", func(t *testing.T) {
		for _, f := range j.lines(t, j.users, "test=stats") {
			assert.Zero(t, numField(t, f, "isend")+numField(t, f, "irecv")+numField(t, f, "bounce"), f.Line())
			assert.Positive(t, numField(t, f, "direct"), f.Line())
		}
	})
}

// TestWorldHints: CSP_WORLD_HINTS sets hints on COMM_USER_WORLD itself.
func TestWorldHints(t *testing.T) {
	j := runP2P(t, layout4, []string{"CSP_WORLD_HINTS=wildcard_used=none"}, "-comms", "none", "world")
	j.requireClean(t)
	for _, f := range j.get(t, j.users, "test=world") {
		wantField(t, f, "algorithm", "tag-encoding")
		assert.Positive(t, numField(t, f, "d_isend"), f.Line())
		assert.Positive(t, numField(t, f, "d_irecv"), f.Line())
		assert.Zero(t, numField(t, f, "d_direct"), f.Line())
	}
	j.lines(t, j.users, "test=setup", "world_algorithm=tag-encoding")
}

// TestFailFast: configurations that cannot run fail at once, on every
// process, with a non-zero exit and a one-line message naming the fix.
func TestFailFast(t *testing.T) {
	for _, c := range []struct {
		name   string
		layout Layout
		env    []string
		want   []string // in one line of stderr
	}{
		{"TooManyGhosts", Layout{N: 4, NodeSize: 2, NG: 2}, nil,
			[]string{"CSP_NG=2", "leaves no user", "lower CSP_NG"}},
		{"NodeSizeNotDividing", Layout{N: 4, NodeSize: 3}, nil,
			[]string{"CSP_NODE_SIZE=3", "does not divide the 4 processes", "use a divisor of 4"}},
		{"BadValue", Layout{N: 4}, []string{"CSP_NG=many"},
			[]string{`CSP_NG="many"`, "is not valid", "use a number of ghosts per node"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := GoProg(t, "p2p")
			res := RunFailing(t, Job{Layout: c.layout, Prog: prog, Args: []string{"sizes"}, Env: c.env, Timeout: 10 * time.Second})
			assert.NotEqual(t, 0, res.ExitCode)
			assert.Empty(t, Select(Results(res.Stdout), "test=sizes"), "the program ran")
			t.Run("Message", func(t *testing.T) {
				found := false
				for _, l := range strings.Split(res.Stderr, "\n") {
					all := true
					for _, w := range c.want {
						all = all && strings.Contains(l, w)
					}
					found = found || all
				}
				assert.True(t, found, "no line of stderr has all of %q", c.want)
			})
		})
	}
}
