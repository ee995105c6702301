package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The interposer (lib/libcasperii.so) under unmodified C and Fortran MPI
// programs, preloaded (LD_PRELOAD) or linked (-lcasperii). The programs are
// test/cprogs/ip_*.c and ip_*.f90.

// ipMPICHTagUB is MPICH's own MPI_TAG_UB (ch4:ucx); the job must expose less
// when tag encoding reserves bits.
const ipMPICHTagUB = 1<<28 - 1

var ipLayouts = []Layout{{N: 4, NodeSize: 2}, {N: 6, NodeSize: 3}}

// An application that asks for offload with hints, preloaded and linked:
// the world holds the users only, MPI_TAG_UB is the exposed bound, and
// 1 B .. 4 MiB messages arrive intact, offloaded, without bounce copies.
func TestInterposeExchange(t *testing.T) {
	for _, l := range ipLayouts {
		for _, m := range ipLinkModes {
			linked := m.linked
			t.Run(fmt.Sprintf("%v/%s", l, m.name), func(t *testing.T) {
				j := Job{Layout: l, Args: []string{fmt.Sprint(l.Users())}, Env: []string{"CSP_STATS=1"}}
				if linked {
					j.Prog = LinkedCProg(t, "ip_exchange")
				} else {
					j.Prog, j.Preload = CProg(t, "ip_exchange"), true
				}
				res := Run(t, j)
				rs := ipRequireResults(t, res, l.Users()*(4+5*12))
				require.Len(t, Select(rs, "test=world"), l.Users())
				for _, f := range Select(rs, "test=tagub") {
					ub, _ := f.Int("tagub")
					require.Less(t, ub, int64(ipMPICHTagUB), "the exposed MPI_TAG_UB reserves the offsets' bits: %s", f.Line())
				}
				for r, s := range ipRequireStats(t, res, l.Users()) {
					require.Positive(t, s.IsendOffloaded, "rank %d: %s", r, s.Fields.Line())
					require.Zero(t, s.Bounce, "registered buffers need no bounce copy: %s", s.Fields.Line())
				}
			})
		}
	}
}

// A program that never passes a hint runs as under plain MPI, with the
// ghosts hidden, and in a pass-through job (CSP_NG=0) too.
func TestInterposePlain(t *testing.T) {
	prog := CProg(t, "ip_plain")
	// Without hints MPI_COMM_WORLD is wildcard_used=any_src, offloaded with
	// ghost-side matching; the program still sees plain MPI behaviour.
	t.Run("ghosts", func(t *testing.T) {
		l := Layout{N: 6, NodeSize: 3}
		res := Run(t, Job{Layout: l, Prog: prog, Args: []string{fmt.Sprint(l.Users())}, Preload: true, Env: []string{"CSP_STATS=1"}})
		ipRequireResults(t, res, l.Users()*10)
		for _, s := range ipRequireStats(t, res, l.Users()) {
			require.Positive(t, s.IsendOffloaded, "the default any_src is offloaded: %s", s.Fields.Line())
		}
	})
	// CSP_ANYSRC_OFFLOAD=0 keeps the paper's behaviour: no hint, no offload.
	t.Run("paper-default", func(t *testing.T) {
		l := Layout{N: 6, NodeSize: 3}
		res := Run(t, Job{Layout: l, Prog: prog, Args: []string{fmt.Sprint(l.Users())}, Preload: true,
			Env: []string{"CSP_STATS=1", "CSP_ANYSRC_OFFLOAD=0"}})
		ipRequireResults(t, res, l.Users()*10)
		for _, s := range ipRequireStats(t, res, l.Users()) {
			require.Zero(t, s.IsendOffloaded, "nothing is offloaded without hints: %s", s.Fields.Line())
			require.Positive(t, s.Direct, s.Fields.Line())
		}
	})
	t.Run("pass-through", func(t *testing.T) {
		l := Layout{N: 3}
		res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"3"}, Preload: true, Env: []string{"CSP_NG=0"}})
		ipRequireResults(t, res, 3*10)
	})
}

// MPI_Abort on MPI_COMM_WORLD (the user world) ends the whole job, ghosts
// included (Run fails if a process outlives mpiexec), within seconds.
func TestInterposeAbort(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_abort"), Preload: true, Timeout: 30 * time.Second})
	require.NotEqual(t, 0, res.ExitCode, "an aborted job fails")
	require.Less(t, res.Duration, 10*time.Second, "the job ends promptly")
	require.Len(t, Select(Results(res.Stdout), "test=abort-ready"), l.Users(), "every user got to the abort")
}

// Error handling through MPI_COMM_WORLD's handler: hint errors name the key
// and the value (MPI_ERR_INFO_VALUE), a tag above the exposed bound is
// MPI_ERR_TAG, freeing the world is MPI_ERR_COMM.
func TestInterposeErrors(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_errors"), Preload: true})
	rs := ipRequireResults(t, res, l.Users()*5)
	for _, name := range []string{"badhint", "badsetinfo", "badtag-offloaded", "badtag-world", "free-world"} {
		require.Len(t, Select(rs, "test="+name), l.Users(), name)
	}
}

// A truncated offloaded receive returns MPI_ERR_TRUNCATE from MPI_Wait.
func TestInterposeTruncatedReceive(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_errors"), Args: []string{"truncate"}, Preload: true})
	rs := ipRequireResults(t, res, l.Users()*6)
	require.Len(t, Select(rs, "test=truncate"), l.Users())
}

// A message that ends inside a basic element of the receive's datatype
// (three MPI_CHARs into an indexed type of MPI_INTs, MPICH's
// errors/pt2pt/truncmsg2) fails with MPI_ERR_TRUNCATE from MPI_Wait and
// MPI_Recv, as under plain MPICH (the library's unpack took the bytes and
// succeeded), and the receives were offloaded. A truncated MPI_Sendrecv
// raises on its communicator's handler (returning), not the world's
// (fatal), and a handler of the program's is called once per failed call,
// with the communicator MPICH passes, as MPICH's.
func TestInterposeTruncatedElement(t *testing.T) {
	prog := CProg(t, "ip_errors")
	plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{"element"}}) // fails the library's own checks
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: prog, Args: []string{"element"}, Preload: true, Env: []string{"CSP_STATS=1"}})
	lib := ipRequireResults(t, res, l.Users()*9)
	for _, name := range []string{"test=element-wait", "test=element-recv", "test=element-sendrecv", "test=element-handler"} {
		elems := Select(Results(plain.Stdout), name)
		require.Len(t, elems, 2, "plain MPICH:\n%s", plain.Output())
		for _, f := range elems {
			require.True(t, f.Match("ok=1"), "plain MPICH: %s", f.Line())
		}
		require.Len(t, Select(lib, name), l.Users(), name)
	}
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.GreaterOrEqual(t, s.IrecvOffloaded, int64(2), s.Fields.Line())
	}
}

// Under MPI_ERRORS_ARE_FATAL a truncated offloaded receive aborts the job
// with the library's line naming the error and MPICH's own text for the
// class after it, as plain MPICH aborts: the error used to come back as a
// return code, and the program went on.
func TestInterposeTruncatedFatal(t *testing.T) {
	prog := CProg(t, "ip_errors")
	for _, call := range []string{"fatal-wait", "fatal-recv"} {
		t.Run(call, func(t *testing.T) {
			plain := Run(t, Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{call}})
			require.NotEqual(t, 0, plain.ExitCode, "plain MPICH aborts:\n%s", plain.Output())
			require.NotContains(t, plain.Stdout, "survived")
			res := RunFailing(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Args: []string{call}, Preload: true})
			require.NotEqual(t, 0, res.ExitCode, "the job aborts:\n%s", res.Output())
			require.NotContains(t, res.Stdout, "survived", res.Output())
			require.Contains(t, res.Output(), "MPI_ERR_TRUNCATE") // the library's line, flushed first
			// MPICH's own line, when the abort lets it out, names the class
			for _, l := range strings.Split(res.Output(), "\n") {
				if strings.Contains(l, "Fatal error") {
					require.Contains(t, l, "Message truncated")
				}
			}
		})
	}
}

// MPI_Win_allocate_shared with shmbuf_regist=true (on the window, or on
// MPI_COMM_SELF's hints) gives a working window whose memory is offloaded
// without copies; without the hint the windows work the same and, where
// RMA windows are not redirected (CSP_ASYNC_MODE=pt2pt), sends from them
// are bounced. Where they are (the default), every shared window is
// registered, hint or not, so none is bounced, and the windows count as
// redirected.
func TestInterposeSharedWindow(t *testing.T) {
	prog := CProg(t, "ip_window")
	for _, l := range ipLayouts {
		for _, c := range []struct {
			hint  bool
			mode  string // CSP_ASYNC_MODE
			bound bool   // sends from the windows are bounced
		}{{true, "pt2pt", false}, {false, "pt2pt", true}, {false, "rma|pt2pt", false}} {
			name := fmt.Sprintf("%v/hint=%v/%s", l, c.hint, strings.ReplaceAll(c.mode, "|", "+"))
			t.Run(name, func(t *testing.T) {
				j := Job{Layout: l, Prog: prog, Preload: true, Env: []string{"CSP_STATS=1", "CSP_ASYNC_MODE=" + c.mode}}
				if !c.hint {
					j.Args = []string{"nohint"}
				}
				res := Run(t, j)
				ipRequireResults(t, res, l.Users()*6)
				for _, s := range ipRequireStats(t, res, l.Users()) {
					require.Positive(t, s.IsendOffloaded, s.Fields.Line())
					if c.bound {
						require.Positive(t, s.Bounce, "unregistered window memory is bounced: %s", s.Fields.Line())
					} else {
						require.Zero(t, s.Bounce, "window memory is registered: %s", s.Fields.Line())
					}
					if c.mode != "pt2pt" {
						// the node window, the MPI_COMM_SELF one, the third
						require.Equal(t, int64(3), rmaStat(t, s, "rma_windows"), s.Fields.Line())
					}
				}
			})
		}
	}
}

// MPI_Alloc_mem with shmbuf_regist=true needs no bounce copy on an
// offloaded communicator; without it every message is bounced.
func TestInterposeAllocMem(t *testing.T) {
	prog := CProg(t, "ip_allocmem")
	l := Layout{N: 4, NodeSize: 2}
	for _, mode := range []string{"regist", "plain"} {
		t.Run(mode, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{mode}, Preload: true, Env: []string{"CSP_STATS=1"}})
			ipRequireResults(t, res, l.Users()*3)
			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.Positive(t, s.IsendOffloaded, s.Fields.Line())
				if mode == "regist" {
					require.Zero(t, s.Bounce, s.Fields.Line())
				} else {
					require.Positive(t, s.Bounce, s.Fields.Line())
				}
			}
		})
	}
}

// MPI_Comm_idup_with_info with hints: the communicator is offloaded once
// the request completes, and a communicator created while the idup is
// pending is offloaded too (the pending plan withholds only what it needs).
func TestInterposeIdup(t *testing.T) {
	l := Layout{N: 6, NodeSize: 3}
	res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_idup"), Preload: true, Env: []string{"CSP_STATS=1"}})
	ipRequireResults(t, res, l.Users()*4)
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.EqualValues(t, 3, s.IsendOffloaded, "the three communicators are offloaded: %s", s.Fields.Line())
		require.Zero(t, s.Direct, s.Fields.Line())
	}
}

// A Fortran program (MPICH's Fortran bindings call the C MPI_* symbols):
// Isend/Irecv/Waitall on a duplicate with hints, preloaded.
func TestInterposeFortran(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	res := Run(t, Job{Layout: l, Prog: FortranProg(t, "ip_fexchange"), Preload: true, Env: []string{"CSP_STATS=1"}})
	rs := ipRequireResults(t, res, l.Users())
	require.Len(t, Select(rs, "test=fortran", fmt.Sprintf("size=%d", l.Users())), l.Users())
	for _, s := range ipRequireStats(t, res, l.Users()) {
		require.Positive(t, s.IsendOffloaded, s.Fields.Line())
	}
}

// A configuration the runtime refuses ends the job at MPI_Init with the
// runtime's one-line reason and MPI_Abort, on every process.
func TestInterposeInitError(t *testing.T) {
	res := RunFailing(t, Job{Layout: Layout{N: 4}, Prog: CProg(t, "ip_plain"), Preload: true, Env: []string{"CSP_NG=4"}, Timeout: 30 * time.Second})
	require.NotEqual(t, 0, res.ExitCode)
	require.Contains(t, res.Stderr, "CSP_NG=4 leaves no user")
	require.Empty(t, Results(res.Stdout), "no process got past MPI_Init")
}
