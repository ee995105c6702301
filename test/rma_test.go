package test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One-sided communication through the ghosts (internal/user/rma.h): every
// operation and synchronization mode on MPI_Win_allocate and
// MPI_Win_allocate_shared windows, run under plain MPICH and under
// CasperII; test/cprogs/ip_rma.c checks what MPI promises and prints the
// values each rank saw.

// rmaFlavors are the window constructors that are redirected, as ip_rma's
// second argument (none for MPI_Win_allocate).
var rmaFlavors = []string{"allocate", "shared"}

// rmaArgs returns ip_rma's arguments for mode on windows of flavor.
func rmaArgs(mode, flavor string) []string {
	if flavor == "shared" {
		return []string{mode, "shared"}
	}
	return []string{mode}
}

// rmaValues returns the "value" lines of out, sorted, without any prefix.
func rmaValues(out string) []string { return SortedLines(out, "value") }

// rmaStat returns field k of a stats line.
func rmaStat(t *testing.T, s Stats, k string) int64 {
	t.Helper()
	v, ok := s.Fields.Int(k)
	require.True(t, ok, "no %s in %s", k, s.Fields.Line())
	return v
}

// Every operation (put, get, accumulate, get-accumulate, fetch-and-op,
// compare-and-swap, their request forms, a strided derived type) in every
// epoch (fence, shared and exclusive locks, lock_all, PSCW with wait and
// test, flushes) gives what plain MPICH gives, on 1 user per ghost, 4 users
// per ghost, and 2 ghosts per node, both ways a window is served: through
// the ghosts (members on several nodes, or CSP_RMA_LOCAL=0), and by the
// origins in shared memory where every member shares one node
// (internal/user/rmalocal.c: accumulates atomic under the target's mutex,
// locks in its lock word). The users' CSP_STATS show each window
// redirected and the operations carried by the path the case names, and
// every heap block comes back.
func TestRMARedirected(t *testing.T) {
	prog := CProg(t, "ip_rma")
	for _, c := range []struct {
		l     Layout
		local bool // every member on one node, CSP_RMA_LOCAL not 0
	}{
		{Layout{N: 6, NodeSize: 2}, false},
		{Layout{N: 5}, true},
		{Layout{N: 5}, false},
		{Layout{N: 6, NG: 2}, true},
		{Layout{N: 6, NG: 2}, false},
	} {
		l, env, path := c.l, []string{"CSP_STATS=1"}, "rma_local"
		name := l.String() + "-local"
		if !c.local {
			path, name = "rma_redirected", l.String()+"-ghosts"
			if l.NodeSize == 0 {
				env = append(env, "CSP_RMA_LOCAL=0")
			}
		}
		t.Run(name, func(t *testing.T) {
			plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: []string{"ops"}})
			want := ipRequireResults(t, plain, 13)
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"ops"}, Preload: true, Env: env})
			ipRequireResults(t, res, len(want))
			require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "the same values as plain MPICH")
			other := map[string]string{"rma_local": "rma_redirected", "rma_redirected": "rma_local"}[path]
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
				// Puts and gets of the checks, one accumulate per lock
				// epoch, atomics: at least 250 per rank for 3 users.
				require.GreaterOrEqual(t, rmaStat(t, s, path), int64(250), s.Fields.Line())
				require.Zero(t, rmaStat(t, s, other), s.Fields.Line())
				// strided_acc: two column accumulates to every rank and
				// one get-accumulate, vector types, applied by packing
				// where node-local.
				packed := int64(0)
				if c.local {
					packed = int64(2*l.Users() + 1)
				}
				require.Equal(t, packed, rmaStat(t, s, "rma_local_packed"), s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "heap_in_use"), s.Fields.Line())
			}
		})
	}
}

// The same on MPI_Win_allocate_shared windows over the world, which are
// registered without being asked (a memfd under MPICH's segment) and
// redirected: besides every operation and epoch, loads and stores across
// the node after MPI_Win_sync and a barrier see each other and what the
// ghosts (or, on one node, the origins) put, MPI_Get sees a peer's store,
// and MPI_Win_shared_query of every rank and the flavor are MPICH's, also
// with alloc_shared_noncontig=true (each part on pages of its own).
// Windows over MPI_COMM_SELF (stand-ins over heap memory) carry exactly
// their 10 operations, always node-local but with CSP_RMA_LOCAL=0. As for
// MPI_Win_allocate, windows whose members share a node are served by the
// origins (rma_local) and the others through the ghosts (rma_redirected),
// never both. A window left MPICH's (not redirected) fails the rma_windows
// count.
func TestRMASharedRedirected(t *testing.T) {
	prog := CProg(t, "ip_rma")
	for _, c := range []struct {
		l        Layout
		local    bool // the world's windows are node-local
		localOff bool // CSP_RMA_LOCAL=0
	}{
		{Layout{N: 6, NodeSize: 2}, false, false},
		{Layout{N: 5}, true, false},
		{Layout{N: 5}, false, true},
		{Layout{N: 6, NG: 2}, true, false},
	} {
		l, env, name := c.l, []string{"CSP_STATS=1"}, c.l.String()
		if c.localOff {
			env, name = append(env, "CSP_RMA_LOCAL=0"), name+"-ghosts"
		}
		t.Run(name, func(t *testing.T) {
			for _, k := range []struct {
				mode, flavor string
				results      int
				ops          int64 // per rank: at least (ops), exactly (self)
			}{{"ops", "shared", 17, 250}, {"ops", "noncontig", 17, 250}, {"self", "shared", 1, 10}} {
				args := []string{k.mode, k.flavor}
				plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: args})
				want := ipRequireResults(t, plain, k.results)
				require.NotEmpty(t, rmaValues(plain.Stdout))
				res := Run(t, Job{Layout: l, Prog: prog, Args: args, Preload: true, Env: env})
				ipRequireResults(t, res, len(want))
				require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "%v: the same values as plain MPICH", args)
				path, other := "rma_redirected", "rma_local"
				if c.local || (k.mode == "self" && !c.localOff) {
					path, other = other, path
				}
				for _, s := range ipRequireStats(t, res, l.Users()) {
					require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), "%v: the window is redirected: %s", args, s.Fields.Line())
					if k.mode == "self" {
						require.Equal(t, k.ops, rmaStat(t, s, path), s.Fields.Line())
					} else {
						require.GreaterOrEqual(t, rmaStat(t, s, path), k.ops, s.Fields.Line())
					}
					require.Zero(t, rmaStat(t, s, other), s.Fields.Line())
					require.Zero(t, rmaStat(t, s, "heap_in_use"), s.Fields.Line())
				}
			}
		})
	}
}

// CSP_ASYNC_MODE chooses what goes through the ghosts: pt2pt alone leaves
// windows MPICH's (nothing redirected, shared windows too), rma alone
// offloads no message; CSP_ASYNC_CONFIG=off starts every window, shared
// ones too, on MPICH's path.
// Unset, where UCX carries the job over TCP, windows stay MPICH's too
// (MPICH 4.0.2 would hang in MPI_Finalize; CSP_VERBOSE=1 says so). The
// program gives the same values every way.
func TestRMAAsyncMode(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 6, NodeSize: 2}
	for _, mode := range []string{"pt2pt", "rma", "tcp-default", "pt2pt-shared", "config-off-shared"} {
		t.Run(mode, func(t *testing.T) {
			env := []string{"CSP_STATS=1", "CSP_ASYNC_MODE=" + mode}
			l, args, want := l, []string{"ops"}, 13
			switch mode {
			case "pt2pt-shared":
				env, args, want = []string{"CSP_STATS=1", "CSP_ASYNC_MODE=pt2pt"}, rmaArgs("ops", "shared"), 17
			case "config-off-shared":
				// Every window starts on MPICH's path: made switchable
				// (counted), nothing carried by the ghosts.
				env, args, want = []string{"CSP_STATS=1", "CSP_ASYNC_CONFIG=off"}, rmaArgs("ops", "shared"), 17
			}
			if mode == "tcp-default" {
				// No window at all: a window of MPICH's own over every
				// process connects them all, and MPICH 4.0.2 then hangs in
				// MPI_Finalize over tcp in some runs (seen here once in
				// three with one window; design.md section 11). What is
				// checked is that the runtime made no internal window
				// (which would connect them) and says why.
				env = append([]string{"CSP_STATS=1", "CSP_VERBOSE=1"}, winregNolocal...)
				l, args, want = Layout{N: 4, NodeSize: 2}, []string{"none"}, 1
			}
			job := Job{Layout: l, Prog: prog, Args: args, Preload: true, Env: env}
			var res Result
			if mode == "tcp-default" {
				res = runPastTCPFinalizeHang(t, job, l.Users())
			} else {
				res = Run(t, job)
			}
			ipRequireResults(t, res, want)
			if mode == "tcp-default" {
				require.Contains(t, res.Stderr, "RMA windows are not redirected by default here: MPIR_CVAR_NOLOCAL with UCX_TLS=tcp,self", res.Output())
			}
			for _, s := range ipRequireStats(t, res, l.Users()) {
				switch mode {
				case "config-off-shared":
					require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
					require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
				case "pt2pt", "tcp-default", "pt2pt-shared":
					require.Zero(t, rmaStat(t, s, "rma_windows"), s.Fields.Line())
					require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
				default:
					require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
					require.Zero(t, s.IsendOffloaded, s.Fields.Line())
				}
			}
		})
	}
}

// CSP_ASYNC_MODE=rma offloads no message, so it reserves no tag bits:
// MPI_TAG_UB is plain MPICH's, and a message tagged at it, or with
// 424242 (which OpenCoarrays uses without asking), goes around a ring as
// under plain MPICH, on MPICH's path. With point-to-point offload (the
// default) MPI_TAG_UB is lower and a message tagged at it is offloaded.
// CSP_TAG_UB=424242 keeps offload and raises MPI_TAG_UB to at least that
// (fewer tag contexts), so the 424242 ring is offloaded too; a CSP_TAG_UB
// no tag layout fits leaves MPI_TAG_UB MPICH's and the ring's
// communicator, which would need tag encoding, on MPICH's path.
func TestAsyncModeTags(t *testing.T) {
	prog := CProg(t, "ip_tagub")
	l := Layout{N: 3}
	plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog})
	ipRequireResults(t, plain, 3*l.Users())
	plainUB := Select(Results(plain.Stdout), "test=tagub")[0]["tagub"]
	for _, c := range []struct {
		name, mode, tagUB string
		mpichUB, offload  bool // MPI_TAG_UB is MPICH's; the rings are offloaded
	}{
		{"rma", "rma", "", true, false},
		{"rma|pt2pt", "rma|pt2pt", "", false, true},
		{"tag-ub-424242", "rma|pt2pt", "424242", false, true},
		{"tag-ub-mpich", "rma|pt2pt", plainUB, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := []string{"CSP_STATS=1", "CSP_ASYNC_MODE=" + c.mode}
			if c.tagUB != "" {
				env = append(env, "CSP_TAG_UB="+c.tagUB)
			}
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: env})
			want := 2 * l.Users()
			if c.mpichUB || c.tagUB != "" {
				want = 3 * l.Users() // the ring at 424242 too
			}
			rs := ipRequireResults(t, res, want)
			for _, f := range Select(rs, "test=tagub") {
				if c.mpichUB {
					require.Equal(t, plainUB, f["tagub"], "MPICH's bound: %s", f.Line())
				} else {
					require.NotEqual(t, plainUB, f["tagub"], "offload reserves bits: %s", f.Line())
				}
			}
			if c.tagUB == plainUB {
				require.Contains(t, res.Stderr, "CSP_TAG_UB="+plainUB+": no tag layout fits", res.Output())
			}
			for _, s := range ipRequireStats(t, res, l.Users()) {
				if c.offload {
					// Two rings (three with 424242), two messages a ring.
					require.GreaterOrEqual(t, s.IsendOffloaded, int64(want/l.Users()-1), s.Fields.Line())
				} else {
					require.Zero(t, s.IsendOffloaded, s.Fields.Line())
				}
			}
		})
	}
}

// runPastTCPFinalizeHang runs j as Run does, except that a job that hangs
// after every user printed its CSP_STATS line, so inside MPICH's own
// MPI_Finalize, runs again (at most 3 times in all). MPICH 4.0.2 over UCX's
// TCP transport hangs there in some runs of any job whose processes have
// connected, plain MPICH's too (pmodels/mpich#6596, design.md section 11):
// 0-8 runs in 40 of this test's job here. A hang before the stats, or 3
// hangs, fails the test.
func runPastTCPFinalizeHang(t *testing.T, j Job, users int) Result {
	t.Helper()
	j.Timeout = 20 * time.Second
	for attempt := 1; ; attempt++ {
		c := RunCollected(t, j)
		if c.Finished && len(c.Problems) == 0 {
			return c.Result
		}
		inFinalize := !c.Finished && strings.Count(c.Log, "casperii-stats rank=") >= users
		if !inFinalize || attempt == 3 {
			t.Fatalf("%s\n%s", strings.Join(c.Problems, "\n"), c.Log)
		}
		t.Logf("attempt %d hung in MPICH's MPI_Finalize after every user's CSP_STATS line (MPICH 4.0.2 over UCX's TCP transport); running it again", attempt)
	}
}

// Bad input gets the error class plain MPICH gives (an operation outside
// any epoch, a bad lock type, unlocking what is not locked, a rank outside
// the group), and an access outside the target's window, which MPICH does
// not check where the network writes directly, MPI_ERR_RMA_RANGE; under the
// default fatal handler the job stops with one line saying what was wrong.
// The same on a node-local window (one node: the origins apply the
// operations, rmalocal.c).
func TestRMABadInput(t *testing.T) {
	prog := CProg(t, "ip_rma")
	for _, c := range []struct {
		flavor string
		l      Layout
	}{{"allocate", Layout{N: 6, NodeSize: 2}}, {"shared", Layout{N: 6, NodeSize: 2}}, {"allocate", Layout{N: 4}}} {
		flavor, l := c.flavor, c.l
		t.Run(flavor+"-"+l.String(), func(t *testing.T) {
			plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: rmaArgs("errors", flavor)})
			require.Equal(t, 0, plain.ExitCode, plain.Output())
			res := Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("errors", flavor), Preload: true})
			require.Equal(t, 0, res.ExitCode, res.Output())
			require.NotEmpty(t, rmaValues(plain.Stdout))
			require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "the same error classes as plain MPICH")
			require.Contains(t, res.Stdout, "result name=errors ok=1")

			res = Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("range", flavor), Preload: true})
			ipRequireResults(t, res, 1)

			res = RunFailing(t, Job{Layout: l, Prog: prog, Args: rmaArgs("fatal", flavor), Preload: true})
			require.NotEqual(t, 0, res.ExitCode, res.Output())
			require.NotContains(t, res.Stdout, "fatal_not_reached")
			// Every rank makes the bad put; the first to print ends the job.
			require.Regexp(t, `casperii: rank [0-2]: MPI_Put: bytes \[8388608, 8388616\) of rank 0's window are outside its 768 bytes`, res.Stderr, res.Output())
		})
	}
}

// A thousand windows made and freed (300 shared ones, every other one over
// MPI_COMM_SELF): each redirected, every heap block back; on one node the
// thousand are node-local (the origins map each other's segments once and
// reuse the mappings: rmalocal.c). A window with
// async_config=off (made switchable, but carried by MPICH) and one of
// MPI_Win_create (MPICH's; CSP_VERBOSE=1 says so once) work the same, and
// nothing of theirs reaches the ghosts.
func TestRMAWindows(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 4, NodeSize: 2}
	for _, flavor := range rmaFlavors {
		t.Run(flavor, func(t *testing.T) {
			n := int64(1000)
			if flavor == "shared" {
				n = 300
			}
			res := Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("churn", flavor), Preload: true, Env: []string{"CSP_STATS=1"}})
			ipRequireResults(t, res, 1)
			// Every other shared window is over MPI_COMM_SELF, whose one
			// member is on its node: node-local.
			self := int64(0)
			if flavor == "shared" {
				self = n / 2
			}
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Equal(t, n, rmaStat(t, s, "rma_windows"), s.Fields.Line())
				require.Equal(t, n-self, rmaStat(t, s, "rma_redirected"), "one get per window: %s", s.Fields.Line())
				require.Equal(t, self, rmaStat(t, s, "rma_local"), "one get per window: %s", s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "heap_in_use"), s.Fields.Line())
			}
			res = Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("hintoff", flavor), Preload: true, Env: []string{"CSP_STATS=1", "CSP_VERBOSE=1"}})
			ipRequireResults(t, res, 1)
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
			}
			require.Contains(t, res.Stderr, "windows of MPI_Win_create are not redirected", res.Output())
		})
	}
	// Windows whose members share a node, made and freed 1000 times
	// (shared: 300, half of them over the world): each used by the
	// origins alone, every heap block back.
	for _, flavor := range []string{"allocate", "shared"} {
		t.Run(flavor+"-node-local", func(t *testing.T) {
			l, n := Layout{N: 3}, int64(1000)
			if flavor == "shared" {
				n = 300
			}
			res := Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("churn", flavor), Preload: true, Env: []string{"CSP_STATS=1"}})
			ipRequireResults(t, res, 1)
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Equal(t, n, rmaStat(t, s, "rma_windows"), s.Fields.Line())
				require.Equal(t, n, rmaStat(t, s, "rma_local"), "one get per window: %s", s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "heap_in_use"), s.Fields.Line())
			}
		})
	}
}

// async_config on a window (MPI_Win_allocate or MPI_Win_allocate_shared):
// off at creation keeps it on MPICH's path;
// MPI_Win_set_info(on) switches it at the next fence, and
// MPI_Win_set_info(off, symmetric=true) at once; MPI_Win_get_info reports
// the value in effect, CSP_VERBOSE=1 says when each switch took effect, and
// exactly the 6 operations of the redirected phase went to the ghosts.
func TestRMASwitch(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 6, NodeSize: 2}
	for _, flavor := range rmaFlavors {
		t.Run(flavor, func(t *testing.T) {
			plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: rmaArgs("switch", flavor)})
			ipRequireResults(t, plain, 1)
			res := Run(t, Job{Layout: l, Prog: prog, Args: rmaArgs("switch", flavor), Preload: true, Env: []string{"CSP_STATS=1", "CSP_VERBOSE=1"}})
			ipRequireResults(t, res, 1)
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
				require.Equal(t, int64(6), rmaStat(t, s, "rma_redirected"), s.Fields.Line())
				require.Equal(t, int64(2), rmaStat(t, s, "rma_switches"), s.Fields.Line())
			}
			infos := ParseLines(res.Stdout, "infos")
			require.Len(t, infos, l.Users())
			for _, f := range infos {
				require.True(t, f.Match("async_config=off,on,off"), "MPI_Win_get_info reports the value in effect: %s", f.Line())
			}
			require.Contains(t, res.Stderr, "async_config=on took effect at MPI_Win_fence", res.Output())
			require.Contains(t, res.Stderr, "async_config=off took effect at MPI_Win_set_info (symmetric=true)", res.Output())
		})
	}
}

// On a host with more processes than cores a ghost runs at nice 19 and
// would get its core for the origins only when its user leaves it: the
// first window memory it attaches raises it back to nice 0 (or it says
// why it cannot). A job without redirected windows leaves it at 19.
func TestRMAGhostPriority(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"window"}, Preload: true, Env: []string{"CSP_VERBOSE=2"}})
	ipRequireResults(t, res, 1)
	if !strings.Contains(res.Stderr, "ghost 0: nice 19") {
		t.Skipf("the ghosts do not run at a lowered priority here (a core per process):\n%s", res.Output())
	}
	raised := strings.Count(res.Stderr, "serves RMA windows: back to nice 0")
	refused := strings.Count(res.Stderr, "serves RMA windows but cannot raise its priority")
	require.Equal(t, 2, raised+refused, "each ghost acts once, at its first window: %s", res.Output())

	res = Run(t, Job{Layout: l, Prog: prog, Args: []string{"window"}, Preload: true, Env: []string{"CSP_VERBOSE=2", "CSP_ASYNC_MODE=pt2pt"}})
	ipRequireResults(t, res, 1)
	require.NotContains(t, res.Stderr, "serves RMA windows", res.Output())
}

// A ghost serving windows keeps MPI progressing while its user computes,
// the more often the less it costs anyone (internal/ghost/rmaserve.go):
//
//   - sharing a core with users, it polls on a timer, and on every round
//     while an epoch is active, which it sees in the lock words of its
//     users' windows: 200 back-to-back epochs on a computing target start
//     bursts (RMABursts) in which it serves them (RMARounds);
//   - bound to a CPU no user and no other ghost runs on (a core per
//     ghost), it calls progress on every round and never bursts.
//
// Either way the 200 accumulates arrive, and an exclusive lock given back
// without waiting right before MPI_Win_free leaves nothing behind. A
// window that starts off (CSP_ASYNC_CONFIG=off) costs its ghost no polling.
// An origin served by its target's ghost rings it when it is parked
// (rma_rings) instead of waiting for its next poll, and a ghost whose user
// waits in MPI keeps its polls short (RMAInMPIPolls): nobody computes.
// Where the window's members share one node, its ghost is asked for
// nothing (CSP_RMA_LOCAL=0 makes the cases above go through it): the
// origin applies the 200 accumulates itself (rma_local) while the target
// computes, and the ghost never polls for windows.
func TestRMAServe(t *testing.T) {
	prog := CProg(t, "ip_rma")
	cases := []struct {
		name   string
		l      Layout
		launch []string
		flavor string
		ghost  int    // world rank of the target's ghost
		how    string // the ghost's CSP_VERBOSE=2 line, or its start
		alone  bool
		env    string // CSP_ASYNC_CONFIG=off: the window stays MPICH's, nothing polls
		ms     string // the target's compute; 1: it waits in MPI_Barrier meanwhile
	}{
		{"shared-core", Layout{N: 4, NodeSize: 2}, nil, "allocate", 2,
			"ghost 2: serving windows, polls MPI at most CSP_RMA_POLL_US apart (100 us after an epoch), and on every round while an epoch is active (4 processes on 2 cores, its core shared with users)", false, "", "300"},
		{"shared-core-shared-window", Layout{N: 4, NodeSize: 2}, nil, "shared", 2,
			"ghost 2: serving windows, polls MPI at most CSP_RMA_POLL_US apart (100 us after an epoch), and on every round while an epoch is active (4 processes on 2 cores, its core shared with users)", false, "", "300"},
		{"ghost-alone", Layout{N: 3}, []string{"-bind-to", "user:1,0,0"}, "allocate", 0,
			"ghost 0: serving windows, polls MPI on every round (", true, "", "300"},
		{"window-off", Layout{N: 3}, []string{"-bind-to", "user:1,0,1"}, "allocate", 0,
			"ghost 0: serving windows, polls MPI at most CSP_RMA_POLL_US apart", false, "CSP_ASYNC_CONFIG=off", "20"},
		{"same-ghost", Layout{N: 3}, []string{"-bind-to", "user:1,0,1"}, "allocate", 0,
			"ghost 0: serving windows, polls MPI at most CSP_RMA_POLL_US apart (100 us after an epoch), and on every round while an epoch is active (bound to CPUs it shares with user ", false, "", "300"},
		{"target-in-mpi", Layout{N: 4, NodeSize: 2}, nil, "allocate", 2,
			"ghost 2: serving windows, polls MPI at most CSP_RMA_POLL_US apart (100 us after an epoch), and on every round while an epoch is active (4 processes on 2 cores, its core shared with users)", false, "", "1"},
		{"node-local", Layout{N: 3}, []string{"-bind-to", "user:1,0,1"}, "allocate", 0,
			"the origins apply the operations in shared memory (no ghost)", false, "CSP_RMA_LOCAL=1", "300"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if runtime.NumCPU() < 2 || (!c.alone && runtime.NumCPU() >= c.l.N) {
				t.Skipf("needs 2 to %d CPUs, this host has %d", c.l.N-1, runtime.NumCPU())
			}
			env := []string{"CSP_VERBOSE=2", "CSP_STATS=1", "CSP_ASYNC_MODE=rma|pt2pt"}
			if c.env != "" {
				env = append(env, c.env)
			}
			if c.l.NodeSize == 0 && c.env != "CSP_RMA_LOCAL=1" {
				env = append(env, "CSP_RMA_LOCAL=0") // through the ghost: one node
			}
			res := Run(t, Job{Layout: c.l, Launch: c.launch, Prog: prog, Args: []string{"serve", c.flavor, c.ms}, Preload: true, Env: env})
			ipRequireResults(t, res, 2)
			require.Contains(t, res.Stdout, "value rank=1 served=200")
			require.Contains(t, res.Stderr, c.how)
			g := ghostStats(t, res, c.l.N-c.l.Users())[c.ghost]
			if c.env == "CSP_RMA_LOCAL=1" {
				require.Zero(t, g["RMARounds"], "nothing for the ghost to serve: %v", g)
				for _, s := range ipRequireStats(t, res, c.l.Users()) {
					require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
					if r, _ := s.Fields.Int("rank"); r == 0 {
						require.GreaterOrEqual(t, rmaStat(t, s, "rma_local"), int64(200), s.Fields.Line())
					}
				}
				return
			}
			if c.env != "" {
				require.Zero(t, g["RMARounds"], "no redirected window, no polling for windows: %v", g)
				for _, s := range ipRequireStats(t, res, c.l.Users()) {
					require.Zero(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
				}
				return
			}
			require.GreaterOrEqual(t, g["RMARounds"], int64(200), "the target's ghost called progress for the epochs: %v", g)
			if c.ms == "1" {
				// The last epochs come 5 ms apart while the target waits
				// in MPI_Barrier: its ghost keeps its polls short.
				require.Positive(t, g["RMAInMPIPolls"], "polls kept short while the target waited in MPI: %v", g)
			}
			if c.alone {
				require.Zero(t, g["RMABursts"], "a ghost alone on its CPU polls on every round: %v", g)
			} else {
				require.GreaterOrEqual(t, g["RMABursts"], int64(1), "the lock words started bursts: %v", g)
			}
			for _, s := range ipRequireStats(t, res, c.l.Users()) {
				require.Equal(t, int64(1), rmaStat(t, s, "rma_windows"), s.Fields.Line())
				require.Zero(t, rmaStat(t, s, "heap_in_use"), s.Fields.Line())
				// The origin (user 0) rings its target's ghost only when
				// that ghost is its own and parks (not alone on its CPU):
				// at least for most of the 5 epochs 5 ms apart.
				if r, _ := s.Fields.Int("rank"); r == 0 && c.ghost == 0 && !c.alone {
					require.GreaterOrEqual(t, rmaStat(t, s, "rma_rings"), int64(3), s.Fields.Line())
				} else if r == 0 {
					require.Zero(t, rmaStat(t, s, "rma_rings"), s.Fields.Line())
				}
			}
		})
	}
}

// epoch_type (Casper's epochs_used): a bad value in MPI_Win_allocate or
// MPI_Win_set_info is MPI_ERR_INFO_VALUE whose string names the key, the
// value and the accepted values (the window exists, MPICH's); an epoch the
// hint excludes is MPI_ERR_RMA_SYNC whose string names the hint and the
// fix; MPI_Win_get_info reports the set in effect, and a change waits for
// the fence it allows.
func TestRMAEpochType(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"epochs"}, Preload: true, Env: []string{"CSP_VERBOSE=1"}})
	ipRequireResults(t, res, 1)
	errs := ParseLines(res.Stdout, "error")
	names := map[string]bool{}
	for _, f := range errs {
		names[f["name"]] = true
	}
	for _, n := range []string{"alloc_bogus", "alloc_empty", "alloc_emptypart", "alloc_async", "lock_excluded",
		"fence_excluded", "start_excluded", "post_excluded", "setinfo_bad", "setinfo_disagree", "fence_excluded_lock"} {
		require.True(t, names[n], "no error line %s: %s", n, res.Output())
	}
	require.Contains(t, res.Stderr, "epoch_type=lockall|fence took effect at MPI_Win_fence", res.Output())

	// Under the default fatal handlers the job ends with the line.
	res = RunFailing(t, Job{Layout: l, Prog: prog, Args: []string{"fatalhint"}, Preload: true})
	require.NotEqual(t, 0, res.ExitCode, res.Output())
	require.NotContains(t, res.Stdout, "fatal_not_reached")
	require.Contains(t, res.Stderr, `MPI_Win_allocate: info: epoch_type="lockall,everything" is not valid: unknown part "everything"; accepted: lockall, lock, pscw, fence`, res.Output())
	res = RunFailing(t, Job{Layout: l, Prog: prog, Args: []string{"fatalepoch"}, Preload: true})
	require.NotEqual(t, 0, res.ExitCode, res.Output())
	require.NotContains(t, res.Stdout, "fatal_not_reached")
	require.Contains(t, res.Stderr, "MPI_Win_lock: the window's epoch_type=lockall excludes this epoch; add lock to epoch_type", res.Output())
}

// A window declared epoch_type=lockall can never see an exclusive lock, so
// its lock_all and unlock_all touch no lock word: the same values as plain
// MPICH and as the window without the hint, and no lock-word atomic at all
// (with it, 4 per epoch on 2 members: a fetch-and-add and a release each).
func TestRMALockallHint(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 4, NodeSize: 2}
	plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: []string{"lockall", "hint"}})
	ipRequireResults(t, plain, 1)
	for _, hint := range []string{"hint", "none"} {
		res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"lockall", hint}, Preload: true, Env: []string{"CSP_STATS=1"}})
		ipRequireResults(t, res, 1)
		require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "the same values as plain MPICH")
		for _, s := range ipRequireStats(t, res, l.Users()) {
			require.GreaterOrEqual(t, rmaStat(t, s, "rma_redirected"), int64(200), s.Fields.Line())
			if hint == "hint" {
				require.Zero(t, rmaStat(t, s, "rma_lockword_ops"), s.Fields.Line())
			} else {
				// 91 lock_all epochs (one to clear, 40, 50 timed), 2 words each, twice.
				require.Equal(t, int64(91*2*2), rmaStat(t, s, "rma_lockword_ops"), s.Fields.Line())
			}
		}
		for _, f := range ParseLines(res.Stdout, "time") {
			t.Logf("CasperII: %s", f.Line())
		}
	}
	for _, f := range ParseLines(plain.Stdout, "time") {
		t.Logf("plain MPICH: %s", f.Line())
	}
}

// An auto window whose ranks hold MPI_Win_lock_all for its whole life, as
// ARMCI-MPI and DART do: no agreement finds every epoch closed, so the
// switches carry the open lock_all epochs across (rmaauto.c:
// switch_holding): to the ghosts while the targets compute, back to
// MPICH's path while they wait in MPI, to the ghosts again; every
// accumulate and flush_all on the carried epochs works and every sum is
// plain MPICH's. (Before stop 46 such a window switched under the epoch
// without carrying it, and the next operation failed with
// MPI_ERR_RMA_SYNC; then, never.)
func TestRMAAutoHeld(t *testing.T) {
	for _, assert := range []string{"0", "nocheck"} {
		t.Run(assert, func(t *testing.T) { rmaAutoHeld(t, assert) })
	}
}

func rmaAutoHeld(t *testing.T, assert string) {
	l := Layout{N: 4, NodeSize: 2}
	res := rmaAutoRun(t, l, "autoheld", assert)
	require.Equal(t, []string{"on", "off", "on"}, rmaEffects(t, res.Stdout, 3, l.Users()), res.Output())
	for r, s := range ipRequireStats(t, res, l.Users()) {
		// 3 on a quiet host; where MPICH's path to the waiting targets
		// is slow (a loaded host), regrets add pairs in the middle phase.
		sw := rmaStat(t, s, "rma_switches")
		require.True(t, sw >= 3 && sw%2 == 1, "an odd number of switches, at least 3: %s", s.Fields.Line())
		if r%2 == 0 { // the origins
			require.Positive(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
		}
	}
}

// TestRMAAutoRegret: where the origin shares a CPU with its target and
// the target's ghost has one of its own (-bind-to user:1,0,0, one node of
// 2 users and the ghost alone on CPU 1), MPICH's epoch on a target idle
// in MPI_Barrier waits for the two processes' time slices (milliseconds),
// the ghost's takes microseconds. The share of time in MPI takes the
// window off the ghosts at the first agreement; what the origins then
// wait per operation brings it back (rmaauto.c: csp_rma_auto_regret) and
// holds it there, so nearly every epoch goes to the ghost.
func TestRMAAutoRegret(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skipf("needs 2 CPUs, this host has %d", runtime.NumCPU())
	}
	// CSP_VERBOSE=2: every agreement's waits per operation, for the
	// output of a failure (a loaded host may make MPICH's path fast).
	// 200 epochs: an agreement here can cost several times what an
	// epoch and a barrier do, and the cadence then spaces them
	// (TestRMAAutoCadence); 40 epochs saw only the first one or two.
	res := rmaPairRunLaunch(t, Layout{N: 3}, []string{"-bind-to", "user:1,0,0"},
		[]string{"CSP_ASYNC_CONFIG=auto", "CSP_STATS=1", "CSP_VERBOSE=2", "CSP_RMA_LOCAL=0"}, "autoregret", "200")
	require.Contains(t, res.Stderr, "async_config=auto: off at a collective on its communicator (its targets spent", res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: on at a collective on its communicator (its origins waited", res.Output())
	for r, s := range ipRequireStats(t, res, 2) {
		require.GreaterOrEqual(t, rmaStat(t, s, "rma_regrets"), int64(1), s.Fields.Line())
		if r == 0 {
			require.GreaterOrEqual(t, rmaStat(t, s, "rma_redirected"), int64(30), "the epochs went to the ghost: %s", s.Fields.Line())
		}
	}
}

// An auto window agrees at the collectives on its communicator, and an
// agreement is a collective of its own, which costs what the members'
// cores make it. Two users sharing CPU 0 (their ghost alone on CPU 1, as
// in TestRMAAutoRegret), 600 iterations of an accumulate under a shared
// lock and an MPI_Barrier: the iterations take tens of microseconds, an
// agreement's reduction on the window's fresh communicator takes
// hundreds to thousands, and at gaps of at most 16 barriers 2000 such
// iterations made 140 agreements and ran 6x slower (1.6-1.7 s against
// 0.26 s). The cadence's floor (rmaauto.c: csp_rma_agree_gap) keeps the
// agreements to a fiftieth of the members' time: a handful here, where
// the rule alone makes 39. CSP_VERBOSE=2 says why; the counters show it
// (rma_agreements, and the time in them, rma_agree_us); the values are
// plain MPICH's. Beside two CPU hogs an iteration took 26 ms and an
// agreement 7: the floor then asks no more than the rule, rightly; a job
// that saw no floor is run again, at most twice.
func TestRMAAutoCadence(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skipf("needs 2 CPUs, this host has %d", runtime.NumCPU())
	}
	const floorSaid = "async_config=auto: the next agreement in "
	var res Result
	for try := 0; try < 3; try++ {
		if try > 0 {
			t.Logf("no agreement was spaced by its cost (on this host's speed then); running the job again:\n%s", res.Stderr)
		}
		res = rmaPairRunLaunch(t, Layout{N: 3}, []string{"-bind-to", "user:1,0,0"},
			[]string{"CSP_ASYNC_CONFIG=auto", "CSP_STATS=1", "CSP_VERBOSE=2", "CSP_RMA_LOCAL=0"}, "autocadence", "600")
		if strings.Contains(res.Stderr, floorSaid) {
			break
		}
	}
	require.Contains(t, res.Stderr, floorSaid, res.Output())
	for _, s := range ipRequireStats(t, res, 2) {
		n := rmaStat(t, s, "rma_agreements")
		require.GreaterOrEqual(t, n, int64(3), s.Fields.Line())
		require.Less(t, n, int64(20), "agreements spaced by their cost (39 at gaps of 16): %s", s.Fields.Line())
		require.Greater(t, rmaStat(t, s, "rma_agree_us"), int64(0), s.Fields.Line())
	}
}

// CSP_ASYNC_CONFIG=auto on windows made in bursts, as Global Arrays
// makes them (NWChem: 213 windows, most a few hundred microseconds
// apart): a window whose members' profiles are too short to judge takes
// their last choice when they all chose direct, instead of starting
// redirected. Computing, then two windows: both start redirected (the
// second for want of a profile); inside MPI, then three: all start
// direct, the last two keeping the first one's choice; computing again,
// then one: redirected. (The collectives after an allocation may switch
// a window by its own profile: TestRMAAutoCollective.) The values are
// plain MPICH's.
func TestRMAAutoBurst(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := rmaAutoRun(t, l, "autoburst")
	require.Equal(t, []string{"on", "on", "off", "off", "off", "on"}, rmaEffects(t, res.Stdout, 6, l.Users()), res.Output())
	require.Equal(t, 2, strings.Count(res.Stderr, "async_config=auto: starts off at MPI_Win_allocate (profile under 1000 us since the members' last choice, which this keeps)"), res.Output())
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.Equal(t, int64(6), rmaStat(t, s, "rma_windows"), s.Fields.Line())
	}
}

// A process waiting in an offloaded MPI_Recv is the target of 200
// passive-target epochs (a 256 KiB put each) on its MPI_Win_create window,
// which MPICH serves and which progresses only in the target's MPI calls
// (plain MPICH's waiting target spins in progress). The wait now sleeps
// in short naps while the process exposes such a window: the epochs take
// well under a second here, where the 20 ms naps of a wait for the ghost
// made each 220 ms (44 s). The job's 20 s timeout is the liveness bound;
// the same with a redirected MPI_Win_allocate window, which its ghost
// serves. Data and counters as plain MPICH's.
func TestRMABlockedTarget(t *testing.T) {
	prog := CProg(t, "ip_rma")
	l := Layout{N: 4, NodeSize: 2}
	for _, flavor := range []string{"create", "allocate"} {
		args := []string{"blocked", flavor, "200", "256"}
		plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: args})
		ipRequireResults(t, plain, 1)
		res := Run(t, Job{Layout: l, Prog: prog, Args: args, Preload: true, Timeout: 20 * time.Second,
			Env: []string{"CSP_STATS=1"}})
		ipRequireResults(t, res, 1)
		require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "the same values as plain MPICH")
		stats := ipRequireStats(t, res, l.Users())
		require.Equal(t, int64(1), stats[0].IrecvOffloaded, "the target's receive went to the ghost")
		for _, s := range stats {
			want := int64(0)
			if flavor == "allocate" {
				want = 1
			}
			require.Equal(t, want, rmaStat(t, s, "rma_windows"), s.Fields.Line())
		}
		for _, f := range ParseLines(res.Stdout, "time") {
			t.Logf("CasperII: %s", f.Line())
		}
		for _, f := range ParseLines(plain.Stdout, "time") {
			t.Logf("plain MPICH: %s", f.Line())
		}
	}
}

// rmaEffects returns, per phase, what MPI_Win_get_info said was in effect
// on every rank ("" if the ranks disagree).
func rmaEffects(t *testing.T, out string, phases, users int) []string {
	t.Helper()
	fs := ParseLines(out, "effect")
	require.Len(t, fs, phases*users, out)
	got := make([]string, phases)
	for p := range got {
		sel := Select(fs, "phase="+strconv.Itoa(p))
		require.Len(t, sel, users)
		got[p] = sel[0]["in_effect"]
		for _, f := range sel {
			require.Equal(t, "auto", f["async_config"], f.Line())
			if f["in_effect"] != got[p] {
				got[p] = ""
			}
		}
	}
	return got
}

// CSP_ASYNC_CONFIG=auto on a window of fence epochs: while the targets
// compute 5 ms between fences it stays redirected, when they idle in MPI
// between fences the members switch it off at a fence, and back on when
// they compute again; every rank's MPI_Win_get_info says the same, the
// values are plain MPICH's, CSP_VERBOSE=1 says each switch, CSP_STATS
// counts them, and only part of the operations went to the ghosts.
func TestRMAAutoFence(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := rmaAutoRun(t, l, "auto")
	require.Equal(t, []string{"on", "off", "on"}, rmaEffects(t, res.Stdout, 3, l.Users()), res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: off at MPI_Win_fence (its targets spent", res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: on at MPI_Win_fence (its targets spent", res.Output())
	// Phases of 40, 200 and 40 epochs, each an accumulate to both ranks
	// and a put: the first all redirected, part of the idle one not.
	const ops = (40 + 200 + 40) * 3
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.GreaterOrEqual(t, rmaStat(t, s, "rma_switches"), int64(2), s.Fields.Line())
		require.Greater(t, rmaStat(t, s, "rma_agreements"), int64(2), s.Fields.Line())
		require.Greater(t, rmaStat(t, s, "rma_redirected"), int64(40*3), s.Fields.Line())
		require.Less(t, rmaStat(t, s, "rma_redirected"), int64(ops), s.Fields.Line())
	}
}

// MPI_Win_set_info(async_config) without symmetric=true on a window that
// never fences: the change waits for a collective on the window's
// communicator where no member has an epoch open (not the first barrier,
// across which rank 0 holds a lock_all epoch), CSP_VERBOSE=1 says where
// it took effect, MPI_Win_get_info says what is in effect, and exactly
// the accumulates of the redirected phases reach the ghosts.
func TestRMASetInfoCollective(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := rmaPairRun(t, l, []string{"CSP_STATS=1", "CSP_VERBOSE=1"}, "setinfocoll")
	fs := ParseLines(res.Stdout, "effect")
	require.Len(t, fs, 4*l.Users(), res.Output())
	for _, f := range fs {
		want := map[string]string{"0": "on", "1": "on", "2": "off", "3": "on"}[f["phase"]]
		require.Equal(t, want, f["in_effect"], f.Line())
	}
	require.Contains(t, res.Stderr, "async_config=off took effect at a collective on its communicator", res.Output())
	require.Contains(t, res.Stderr, "async_config=on took effect at a collective on its communicator", res.Output())
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.Equal(t, int64(2), rmaStat(t, s, "rma_switches"), s.Fields.Line())
		require.Equal(t, int64(2), rmaStat(t, s, "rma_redirected"), s.Fields.Line())
	}
}

// An auto window of passive-target epochs whose phases are separated by
// barriers alone (as Global Arrays programs are): the members agree at
// the collectives on the window's communicator where none of them has an
// epoch open. Computing targets keep it redirected, targets idle in MPI
// turn it off, computing again on; every rank's exclusive locks on itself
// (a real lock once off, after the redirected path's) never stop the
// others' epochs; the values are plain MPICH's. Two such windows, due at
// the same collectives, agree in one reduction, each by its own part.
func TestRMAAutoCollective(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	// The second window starts off (its allocation's profile is all
	// inside MPI), and at collectives a window goes back to the ghosts
	// on the second vote in a row only (rmaauto.c); its agreements fall
	// at other collectives than the first's, and in some runs the last
	// phase ends before its second vote: checked are both off after the
	// idle phase and the first on after the last.
	ok := func(e []string) bool { return e[2] == "off" && e[3] == "off" && e[4] == "on" }
	res := rmaAutoRun(t, l, "autocoll", "2")
	if e := rmaEffects(t, res.Stdout, 6, l.Users()); !ok(e) {
		// A computing phase measures its targets' time in MPI by the
		// barriers too, where a rank waits for a peer the host did not
		// run (CI runs other packages' tests beside this one): on a
		// loaded host that time can reach the threshold. Once more.
		t.Logf("the phases measured %v; running the job once more:\n%s", e, res.Output())
		res = rmaAutoRun(t, l, "autocoll", "2")
	}
	e := rmaEffects(t, res.Stdout, 6, l.Users())
	require.True(t, ok(e), "phases (window 1, 2 each): %v\n%s", e, res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: off at a collective on its communicator (its targets spent", res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: on at a collective on its communicator (its targets spent", res.Output())
	for _, s := range ipRequireStats(t, res, l.Users()) {
		// The first window off and on again (the second may not switch:
		// above).
		require.GreaterOrEqual(t, rmaStat(t, s, "rma_switches"), int64(2), s.Fields.Line())
		require.Greater(t, rmaStat(t, s, "rma_agreements"), int64(2*2), s.Fields.Line())
		// 60 accumulates a phase and window: part of them redirected,
		// not all.
		require.Positive(t, rmaStat(t, s, "rma_redirected"), s.Fields.Line())
		require.Less(t, rmaStat(t, s, "rma_redirected"), int64(2*3*60), s.Fields.Line())
	}
}

// An auto window with passive-target epochs only can switch only where
// the members agree by themselves: MPI_Win_set_info(symmetric=true) (here
// after a barrier ending each phase; the window became auto the same
// way). Targets computing without a call to MPI keep it redirected,
// targets idle in MPI turn it off, computing again on: exactly the
// accumulates of the phases before the switch off went to the ghosts
// (rank 0, the origin of the computing phases: 30 + 30; rank 1, their
// target: the idle phase's 30), with plain MPICH's values.
func TestRMAAutoPassive(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := rmaPairRun(t, l, []string{"CSP_STATS=1", "CSP_VERBOSE=1"}, "autopassive")
	require.Equal(t, []string{"on", "off", "on"}, rmaEffects(t, res.Stdout, 3, l.Users()), res.Output())
	require.Contains(t, res.Stderr, "async_config=auto took effect at MPI_Win_set_info (symmetric=true)", res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: off at MPI_Win_set_info (symmetric=true)", res.Output())
	require.Contains(t, res.Stderr, "async_config=auto: on at MPI_Win_set_info (symmetric=true)", res.Output())
	for r, s := range ipRequireStats(t, res, l.Users()) {
		require.Equal(t, int64(2), rmaStat(t, s, "rma_switches"), s.Fields.Line())
		require.Equal(t, int64(3), rmaStat(t, s, "rma_agreements"), s.Fields.Line())
		require.Equal(t, int64([]int{60, 30}[r]), rmaStat(t, s, "rma_redirected"), s.Fields.Line())
	}
}

// rmaAutoRun is rmaPairRun with CSP_ASYNC_CONFIG=auto, CSP_STATS and
// CSP_VERBOSE=1.
func rmaAutoRun(t *testing.T, l Layout, args ...string) Result {
	t.Helper()
	return rmaPairRun(t, l, []string{"CSP_ASYNC_CONFIG=auto", "CSP_STATS=1", "CSP_VERBOSE=1"}, args...)
}

// rmaPairRun runs ip_rma with args on l's users under plain MPICH and on l
// under the library with env, requires both to succeed with the same
// values, and returns the library's job.
func rmaPairRun(t *testing.T, l Layout, env []string, args ...string) Result {
	t.Helper()
	return rmaPairRunLaunch(t, l, nil, env, args...)
}

// rmaPairRunLaunch is rmaPairRun with mpiexec options (launch) for the
// library's job.
func rmaPairRunLaunch(t *testing.T, l Layout, launch, env []string, args ...string) Result {
	t.Helper()
	prog := CProg(t, "ip_rma")
	plain := Run(t, Job{Layout: Layout{N: l.Users()}, Prog: prog, Args: args})
	ipRequireResults(t, plain, 1)
	res := Run(t, Job{Layout: l, Launch: launch, Prog: prog, Args: args, Preload: true, Env: env})
	ipRequireResults(t, res, 1)
	require.Equal(t, rmaValues(plain.Stdout), rmaValues(res.Stdout), "the same values as plain MPICH")
	return res
}
