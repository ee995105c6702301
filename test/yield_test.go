package test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/casperii/casperii/internal/core"
	"github.com/stretchr/testify/require"
)

// yieldErrLines: ip_yield's error lines, sorted, without ranks.
func yieldErrLines(res Result) []string {
	var out []string
	for _, f := range ParseLines(res.Stdout, "err") {
		out = append(out, f["test"]+" rc="+f["rc"]+" st="+f["st"])
	}
	sort.Strings(out)
	return out
}

// yieldPlain runs ip_yield with args on 4 users of plain MPICH, requires
// its seven sections on every user and the truncations it reports, three
// per user, and returns their error lines (yieldErrLines).
func yieldPlain(t *testing.T, prog string, args []string) []string {
	t.Helper()
	plain := Run(t, Job{Layout: Layout{N: 4}, Prog: prog, Args: args, Timeout: 2 * time.Minute})
	want := yieldErrLines(plain)
	require.Len(t, relResults(t, plain), 4*7, plain.Output())
	require.Len(t, want, 4*3, "plain MPICH: three truncations per user:\n%s", plain.Output())
	for _, e := range want {
		if strings.HasPrefix(e, "trunc_waitall") {
			require.NotEqual(t, "trunc_waitall rc=0 st=0", e, "plain MPICH reports the truncation")
		}
	}
	return want
}

// Where the users outnumber the cores, a user waiting on MPICH polls and
// yields its core between polls instead of spinning in MPICH
// (internal/user/coop.c: yield_until; core/wait.go: directYield).
// test/cprogs/ip_yield.c waits every way a program can on the direct
// route (Waitall, Wait, Waitany, Waitsome, Send/Recv, Sendrecv, Probe)
// among 4 users, one side computing on the CPU before it sends: every
// word and status arrives as under plain MPICH, the waits yielded
// (CSP_STATS direct_yields=), and a truncated receive gives the error
// classes plain MPICH's blocking calls give (MPI_Waitall: MPI_ERR_IN_STATUS
// with MPI_ERR_TRUNCATE in the status), eager and rendezvous.
// CSP_DIRECT_YIELD=off spins in MPICH as before (no yields), =on yields on
// any host; unset, the library yields where users outnumber cores (this
// layout on a 2-core host) and says so under CSP_VERBOSE=2.
func TestDirectYield(t *testing.T) {
	l := Layout{N: 6, NodeSize: 3}
	prog := CProg(t, "ip_yield")
	sections := []string{"waitall", "wait", "waitany", "waitsome", "blocking", "sendrecv", "probe"}
	for _, words := range []string{"512", "32768"} { // 4 KiB eager, 256 KiB rendezvous
		args := []string{"8", words, "300"}
		want := yieldPlain(t, prog, args)
		for _, c := range []struct {
			name string
			env  []string
		}{{"auto", nil}, {"on", []string{"CSP_DIRECT_YIELD=on"}}, {"off", []string{"CSP_DIRECT_YIELD=off"}}} {
			t.Run(words+"/"+c.name, func(t *testing.T) {
				env := append([]string{"CSP_STATS=1", "CSP_VERBOSE=2", "CSP_ASYNC_CONFIG=off"}, c.env...)
				res := Run(t, Job{Layout: l, Prog: prog, Args: args, Env: env, Preload: true, Timeout: 2 * time.Minute})
				rs := relResults(t, res)
				for _, s := range sections {
					require.Len(t, Select(rs, "test="+s), l.Users(), "section %s:\n%s", s, res.Output())
				}
				require.Equal(t, want, yieldErrLines(res), "the errors plain MPICH gives:\n%s", res.Output())
				yields := c.name == "on" || (c.name == "auto" && strings.Contains(res.Stderr, "waits on MPICH poll MPICH and yield"))
				if c.name == "auto" && core.HostCPUs() < l.Users() {
					require.True(t, yields, "users outnumber cores: waits yield, and CSP_VERBOSE=2 says so:\n%s", res.Stderr)
				}
				for r, s := range relStats(t, res, l.Users(), true) {
					n, ok := s.Fields.Int("direct_yields")
					require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
					if yields {
						require.Positive(t, n, "rank %d waited and yielded: %s", r, s.Fields.Line())
					} else {
						require.Zero(t, n, "rank %d spins in MPICH: %s", r, s.Fields.Line())
					}
					require.Zero(t, s.IsendOffloaded+s.IrecvOffloaded, "the direct route: %s", s.Fields.Line())
				}
			})
		}
	}
}

// Where users outnumber cores, a user's waits on MPICH yield between polls
// also while MPICH serves RMA on a window of its, whose origins progress
// only in its MPI calls (internal/user/coop.c, "Waits that yield beside
// windows MPICH serves": spinning there instead made osubench's rma-ga
// with an idle target 0.97x plain MPICH where yielding gives 0.68x, but
// NWChem on 4 users 70 s where yielding takes 32 and plain MPICH 76).
// ip_yield's sections with CSP_DIRECT_YIELD=on and an MPI_Win_create
// window alive through them, made and freed before them, or a window the
// ghosts serve (MPI_Win_allocate with async_config=on): every word, status
// and error is plain MPICH's, and every user's waits yielded.
func TestDirectYieldWindows(t *testing.T) {
	l := Layout{N: 6, NodeSize: 3}
	prog := CProg(t, "ip_yield")
	args := []string{"8", "512", "300"}
	want := yieldPlain(t, prog, append(args, "create"))
	for _, window := range []string{"create", "freed", "redirected"} {
		t.Run(window, func(t *testing.T) {
			env := []string{"CSP_STATS=1", "CSP_ASYNC_CONFIG=off", "CSP_DIRECT_YIELD=on"}
			res := Run(t, Job{Layout: l, Prog: prog, Args: append(args[:3:3], window), Env: env,
				Preload: true, Timeout: 2 * time.Minute})
			require.Len(t, relResults(t, res), 7*l.Users(), res.Output())
			require.Equal(t, want, yieldErrLines(res), "the errors plain MPICH gives:\n%s", res.Output())
			for r, s := range relStats(t, res, l.Users(), true) {
				n, ok := s.Fields.Int("direct_yields")
				require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
				require.Positive(t, n, "rank %d waited and yielded: %s", r, s.Fields.Line())
				if window == "redirected" {
					w, _ := s.Fields.Int("rma_windows")
					require.EqualValues(t, 1, w, "the window is the ghosts': %s", s.Fields.Line())
				}
			}
		})
	}
}

// A launcher that binds two users to one CPU crowds them even where the
// host has a core per user: 2 users + 2 ghosts on 2 CPUs, the users both
// bound to CPU 0 (osubench's rma ghost-cores placement), wait on MPICH by
// polling and yielding, and CSP_VERBOSE=2 says why; bound to a CPU each,
// they spin in MPICH as before.
func TestDirectYieldBound(t *testing.T) {
	if core.HostCPUs() != 2 {
		t.Skip("the layout needs a host of exactly 2 CPUs")
	}
	prog := CProg(t, "ip_yield")
	l := Layout{N: 4, NodeSize: 2}
	for _, c := range []struct {
		name, bind string
		yields     bool
	}{{"together", "user:0,0,1,0", true}, {"apart", "user:0,0,1,1", false}} {
		t.Run(c.name, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"8", "512", "300"}, Launch: []string{"-bind-to", c.bind},
				Env: []string{"CSP_STATS=1", "CSP_VERBOSE=2", "CSP_ASYNC_CONFIG=off"}, Preload: true, Timeout: 2 * time.Minute})
			require.Len(t, relResults(t, res), 2*7, res.Output())
			said := strings.Count(res.Stderr, "waits on MPICH poll MPICH and yield the core between polls (bound to 1 CPU(s) with 2 users)")
			if c.yields {
				require.Equal(t, 2, said, res.Stderr)
			} else {
				require.Zero(t, said, res.Stderr)
			}
			for r, s := range relStats(t, res, l.Users(), true) {
				n, ok := s.Fields.Int("direct_yields")
				require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
				require.Equal(t, c.yields, n > 0, "rank %d: %s", r, s.Fields.Line())
			}
		})
	}
}
