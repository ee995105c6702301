package test

import (
	"fmt"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/casperii/casperii/internal/core"
	"github.com/stretchr/testify/require"
)

// On this host (2 cores, 4 processes) a ghost shares its core with its
// user and runs at nice 19 (internal/core/priority.go), so a user that
// spins in MPICH while its offloaded receive is in flight would starve
// the ghost its peer waits for. test/cprogs/ip_lend.c runs the four ways
// a legal program does that (a barrier, blocking collectives, a polling
// MPI_Test loop, a blocking receive on a communicator that is not
// offloaded): every message arrives intact, the waiting users lent their
// core (CSP_STATS lends=), and the ghosts report their nice value. The
// users' own Go runtime threads run at the ghost's nice value, their
// application's thread (and MPICH's transport thread) at their own
// (priority.go: a call into the runtime must not let them preempt the
// application). The same program passes with the ghost at the users'
// priority (no lending, nothing lowered) and under plain MPICH.
func TestLendCore(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	prog := CProg(t, "ip_lend")
	sections := []string{"barrier", "colls", "test", "direct"}
	for _, c := range []struct {
		name string
		env  []string
		lend bool
	}{{"nice19", nil, true}, {"nice0", []string{"CSP_GHOST_NICE=0"}, false}} {
		t.Run(c.name, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"10", "1048576"},
				Env: append([]string{"CSP_STATS=1", "CSP_VERBOSE=2"}, c.env...), Preload: true, Timeout: 2 * time.Minute})
			rs := relResults(t, res)
			for _, s := range sections {
				require.Len(t, Select(rs, "test="+s), l.Users(), "section %s:\n%s", s, res.Output())
			}
			var lends int64
			for r, s := range relStats(t, res, l.Users(), true) {
				n, ok := s.Fields.Int("lends")
				require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
				lends += n
			}
			nice := regexp.MustCompile(`ghost \d+: nice (\d+) `).FindAllStringSubmatch(res.Stderr, -1)
			require.Len(t, nice, 2, "one priority line per ghost:\n%s", res.Stderr)
			own := fmt.Sprint(inheritedNice(t))
			ths := ParseLines(res.Stdout, "threads")
			require.Len(t, ths, l.Users(), "one threads line per user:\n%s", res.Stdout)
			for _, f := range ths {
				require.Equal(t, own, f["main"], "the application's thread keeps its priority: %s", f.Line())
				require.NotEmpty(t, f["other"], "the Go runtime has threads: %s", f.Line())
				want := own
				if c.lend {
					want = "19"
				}
				for _, v := range strings.Split(f["other"], ",") {
					require.Equal(t, want, v, "the runtime's threads: %s", f.Line())
				}
				for _, v := range strings.Split(f["named"], ",") {
					if v != "" {
						require.Equal(t, "async:"+own, v, "MPICH's transport thread keeps its priority: %s", f.Line())
					}
				}
			}
			if c.lend {
				require.Contains(t, res.Stderr, "threads run at nice 19", "CSP_VERBOSE=2 says so")
				require.Positive(t, lends, "the receivers lent their cores:\n%s", res.Stderr)
				for _, m := range nice {
					require.Equal(t, "19", m[1], "ghost priority: %s", m[0])
				}
				require.Contains(t, res.Stderr, "autogroup", "the session group's nice value is reported")
			} else {
				require.Zero(t, lends, "no lending with the ghost at the users' priority")
				for _, m := range nice {
					// CSP_GHOST_NICE=0 cannot lower the nice value the job
					// inherits (make test under nice): the ghost keeps it.
					require.Equal(t, fmt.Sprint(inheritedNice(t)), m[1], "ghost priority: %s", m[0])
				}
			}
		})
	}
	t.Run("plain", func(t *testing.T) {
		res := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{"3", "1048576"}})
		rs := relResults(t, res)
		require.Len(t, rs, 2*len(sections), res.Output())
	})
}

// The overlap loop as applications run it (test/cprogs/ip_touch.c): the
// whole send buffer written before each post, compute on the CPU or
// sleeping, every received word read and checked after the wait; 64 KiB
// to 1 MiB, registered and malloc'd buffers, tag encoding and
// duplication. Every exchange is offloaded (registered buffers without a
// bounce copy, malloc'd ones through it) and arrives intact.
func TestTouchedOverlap(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	prog := CProg(t, "ip_touch")
	const iters = 30
	sizes := []string{"65536", "262144", "1048576"}
	for _, c := range []struct{ compute, buf, hint string }{
		{"busy", "alloc", "none"}, {"sleep", "alloc", "any_tag_same_tag"}, {"busy", "malloc", "none"},
	} {
		t.Run(strings.Join([]string{c.compute, c.buf, c.hint}, "/"), func(t *testing.T) {
			args := append([]string{fmt.Sprint(iters), "50", c.compute, c.buf, c.hint}, sizes...)
			res := Run(t, Job{Layout: l, Prog: prog, Args: args, Env: []string{"CSP_STATS=1"}, Preload: true, Timeout: 2 * time.Minute})
			rs := relResults(t, res)
			for _, sz := range sizes {
				got := Select(rs, "test=touch", "bytes="+sz)
				require.Len(t, got, l.Users(), "size %s:\n%s", sz, res.Output())
				for _, f := range got {
					require.True(t, f.Match("bad=0"), "every word of every exchange: %s", f.Line())
				}
			}
			for r, s := range relStats(t, res, l.Users(), true) {
				require.Equal(t, int64(iters*len(sizes)), s.IsendOffloaded, "rank %d: %s", r, s.Fields.Line())
				require.Equal(t, int64(iters*len(sizes)), s.IrecvOffloaded, "rank %d: %s", r, s.Fields.Line())
				if c.buf == "alloc" {
					require.Zero(t, s.Bounce, "registered buffers go without a copy: %s", s.Fields.Line())
				} else {
					require.Equal(t, int64(2*iters*len(sizes)), s.Bounce, "malloc'd buffers bounce: %s", s.Fields.Line())
				}
			}
		})
	}
}

// inheritedNice is the nice value this test (and so the job) runs at.
func inheritedNice(t *testing.T) int {
	// getpriority returns 20 - nice for processes (the raw system call).
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	require.NoError(t, err)
	return 20 - p
}

// A user whose ghost a launcher bound to other CPUs does not lend its
// core (internal/core: ghostApart): the lend would only hand it to whoever
// shares it, for a time slice. ip_lend's four waits with both ghosts on
// CPU 1 and both users on CPU 0: every message intact, no lend, and
// CSP_VERBOSE=2 says why; bound together (ghost and user on each CPU) they
// lend as before.
func TestLendCoreGhostApart(t *testing.T) {
	if core.HostCPUs() != 2 {
		t.Skip("the layout needs a host of exactly 2 CPUs")
	}
	l := Layout{N: 4, NodeSize: 2}
	prog := CProg(t, "ip_lend")
	for _, c := range []struct {
		name, bind string
		lend       bool
	}{{"apart", "user:1,0,1,0", false}, {"together", "user:0,0,1,1", true}} {
		t.Run(c.name, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"10", "1048576"}, Launch: []string{"-bind-to", c.bind},
				Env: []string{"CSP_STATS=1", "CSP_VERBOSE=2"}, Preload: true, Timeout: 2 * time.Minute})
			rs := relResults(t, res)
			for _, s := range []string{"barrier", "colls", "test", "direct"} {
				require.Len(t, Select(rs, "test="+s), l.Users(), "section %s:\n%s", s, res.Output())
			}
			said := len(regexp.MustCompile(`user \d+: does not lend its core: its ghost \d+ is bound to other CPUs`).FindAllString(res.Stderr, -1))
			var lends int64
			for r, s := range relStats(t, res, l.Users(), true) {
				n, ok := s.Fields.Int("lends")
				require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
				lends += n
			}
			if c.lend {
				require.Zero(t, said, res.Stderr)
				require.Positive(t, lends, "the receivers lent their cores:\n%s", res.Stderr)
			} else {
				require.Equal(t, l.Users(), said, res.Stderr)
				require.Zero(t, lends, "nobody lends a core its ghost does not run on:\n%s", res.Stderr)
			}
		})
	}
}
