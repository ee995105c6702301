package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Windows of MPI_Win_allocate_shared with shmbuf_regist=true are registered
// with the ghosts whatever their communicator, sizes and alignment
// (internal/interpose/window.go), and MPI says the same of them as without
// the library. The program is test/cprogs/ip_winreg.c.

// winregNolocal makes MPICH treat every process as remote: windows of
// several processes then get private memory, as a window of one process
// always does.
var winregNolocal = []string{"MPIR_CVAR_NOLOCAL=1", "UCX_TLS=tcp,self"}

// winregLayouts returns the "layout" lines of out (what MPI reports of
// each window), sorted, without any prefix a launcher adds.
func winregLayouts(out string) []string { return SortedLines(out, "layout") }

// Windows over MPI_COMM_SELF (malloc memory in MPICH) of 1000, 65537,
// 3*4096+1 and 1 bytes, and windows over the world with odd sizes per rank,
// contiguous and not, with 0 bytes on some ranks, also where MPICH gives
// every process private memory (NOLOCAL): each window's part is sent and
// received whole on an offloaded communicator without a bounce copy, every
// byte arrives, every heap block comes back, and flavor, model, size,
// displacement unit, base, MPI_Win_shared_query of every rank and the info
// are those of the same program under plain MPICH.
func TestInterposeWindowRegistered(t *testing.T) {
	prog := CProg(t, "ip_winreg")
	type tc struct {
		mode      string
		l         Layout
		env       []string
		exchanges int64 // offloaded sends (and receives) per user
	}
	var cases []tc
	for _, l := range ipLayouts {
		cases = append(cases, tc{"self", l, nil, 4}, tc{"node", l, nil, 2})
	}
	cases = append(cases, tc{"node", Layout{N: 4, NodeSize: 2}, winregNolocal, 2})
	for _, c := range cases {
		name := fmt.Sprintf("%s/%v", c.mode, c.l)
		if c.env != nil {
			name += "/nolocal"
		}
		t.Run(name, func(t *testing.T) {
			plain := Run(t, Job{Layout: Layout{N: c.l.Users()}, Prog: prog, Args: []string{c.mode}, Env: c.env})
			ipRequireResults(t, plain, 1)
			want := winregLayouts(plain.Stdout)
			require.NotEmpty(t, want)

			res := Run(t, Job{Layout: c.l, Prog: prog, Args: []string{c.mode}, Preload: true, Env: append([]string{"CSP_STATS=1"}, c.env...)})
			ipRequireResults(t, res, len(Results(plain.Stdout)))
			require.Equal(t, want, winregLayouts(res.Stdout), "MPI reports the windows as without the library")
			for _, s := range ipRequireStats(t, res, c.l.Users()) {
				require.Equal(t, c.exchanges, s.IsendOffloaded, s.Fields.Line())
				require.Equal(t, c.exchanges, s.IrecvOffloaded, s.Fields.Line())
				require.Zero(t, s.Bounce, "every byte of the windows is registered: %s", s.Fields.Line())
				inUse, ok := s.Fields.Int("heap_in_use")
				require.True(t, ok, s.Fields.Line())
				require.Zero(t, inUse, "freed windows give their heap blocks back: %s", s.Fields.Line())
			}
		})
	}
}

// A window that cannot be registered still works, and CSP_VERBOSE=1 says
// so once per window, with its bytes: a window where only rank 0 asked,
// and, with the heaps' segment tables full, a world window (no slot for
// its memfd) and an MPI_COMM_SELF window per user (no heap block). With
// room again, windows are registered: the exchange from them takes no
// bounce copy. Where the ghosts serve RMA windows (the default), every
// shared window is registered, asked or not (the first one is, and is
// redirected), and the others' lines say that RMA on them is not
// redirected either.
func TestInterposeWindowUnregisteredVerbose(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	for _, mode := range []string{"pt2pt", "rma|pt2pt"} {
		t.Run(strings.ReplaceAll(mode, "|", "+"), func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: CProg(t, "ip_winreg"), Args: []string{"verbose"}, Preload: true,
				Env: []string{"CSP_STATS=1", "CSP_VERBOSE=1", "CSP_HEAP_ARENA=20", "CSP_ASYNC_MODE=" + mode}})
			rs := ipRequireResults(t, res, l.Users()*5)
			redirect := mode != "pt2pt"

			var said []string
			for _, line := range strings.Split(res.Stderr, "\n") {
				if strings.Contains(line, "not registered with the ghosts") {
					said = append(said, line)
					require.Equal(t, redirect, strings.Contains(line, "RMA on it is not redirected"), line)
				}
			}
			// lines with the window's bytes and the reason
			count := func(test, why string) int {
				got := Select(rs, "test="+test)
				require.Len(t, got, l.Users(), test)
				bytes := got[0]["bytes"]
				n := 0
				for _, line := range said {
					if strings.Contains(line, ": "+bytes+" bytes not registered") && strings.Contains(line, why) {
						n++
					}
				}
				return n
			}
			notAsked := 1
			if redirect {
				notAsked = 0
			}
			require.Equal(t, notAsked, count("verbose-notasked", "not every process of the window asked"), "once per window:\n%s", strings.Join(said, "\n"))
			require.Equal(t, 1, count("verbose-segs", "table of shared segments is full"), "once per window:\n%s", strings.Join(said, "\n"))
			require.Equal(t, l.Users(), count("verbose-heap", "table of shared segments is full"), "one window per user:\n%s", strings.Join(said, "\n"))
			require.Len(t, said, notAsked+1+l.Users(), "nothing else is reported:\n%s", strings.Join(said, "\n"))

			for _, s := range ipRequireStats(t, res, l.Users()) {
				require.EqualValues(t, 1, s.IsendOffloaded, s.Fields.Line())
				require.Zero(t, s.Bounce, "windows made with room are registered: %s", s.Fields.Line())
				inUse, _ := s.Fields.Int("heap_in_use")
				require.Zero(t, inUse, s.Fields.Line())
				if redirect {
					// the first window and the two made with room again
					require.EqualValues(t, 3, rmaStat(t, s, "rma_windows"), s.Fields.Line())
				}
			}
		})
	}
}

// MPICH's Fortran MPI_WIN_GET_ATTR bypasses the C wrappers, and mpi_f08's
// MPI_Win_shared_query and MPI_Win_free call PMPI_* (bound to the wrappers
// at load, fortran_f08.c): through `use mpi`, mpif.h and
// `use mpi_f08` alike, a registered MPI_COMM_SELF window (made with
// MPI_Win_create over the shared heap) is of flavor MPI_WIN_FLAVOR_SHARED,
// one of MPI_Win_create of MPI_WIN_FLAVOR_CREATE, as under plain MPICH
// (pass-through); MPI_Win_shared_query reports the window; freed through
// mpi_f08, it leaves nothing behind that a window made next could be taken
// for.
func TestFortranWindowFlavor(t *testing.T) {
	prog := FortranProg(t, "ip_fwindow")
	for _, j := range []Job{
		{Layout: Layout{N: 4, NodeSize: 2}, Prog: prog, Preload: true},
		{Layout: Layout{N: 2}, Prog: prog, Preload: true, Env: []string{"CSP_NG=0"}},
	} {
		t.Run(j.Layout.String()+strings.Join(j.Env, ""), func(t *testing.T) {
			res := Run(t, j)
			users := j.Layout.Users()
			if j.Env != nil {
				users = j.Layout.N
			}
			rs := ipRequireResults(t, res, users*6)
			for _, b := range []string{"mpi", "mpif", "f08", "query", "query-f08", "after-free"} {
				require.Len(t, Select(rs, "test=fwin-"+b), users, b)
			}
		})
	}
}
