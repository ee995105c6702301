package test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Group and error-handler calls on MPI_COMM_WORLD behave as under plain
// MPI with the ghosts hidden: the world's group holds the users, and an
// application error handler is called with MPI_COMM_WORLD itself
// (internal/interpose/errhandler.c), not the user world's handle.
func TestInterposeWorldCalls(t *testing.T) {
	names := []string{"size", "group", "group-compare", "group-translate", "comm-create",
		"eh-default", "eh-return", "eh-get", "eh-user", "eh-call", "eh-dup"}
	check := func(t *testing.T, res Result, users int) {
		rs := ipRequireResults(t, res, users*len(names))
		for _, n := range names {
			require.Len(t, Select(rs, "test="+n), users, n)
		}
	}
	prog := CProg(t, "ip_world")
	for _, l := range ipLayouts {
		t.Run(l.String(), func(t *testing.T) {
			check(t, Run(t, Job{Layout: l, Prog: prog, Args: []string{fmt.Sprint(l.Users())}, Preload: true}), l.Users())
		})
	}
	t.Run("pass-through", func(t *testing.T) {
		check(t, Run(t, Job{Layout: Layout{N: 3}, Prog: prog, Args: []string{"3"}, Preload: true, Env: []string{"CSP_NG=0"}}), 3)
	})
}

// A program using MPICH's C++ bindings (which call the C functions) sees
// the user world and offloads; a handler of MPI::Comm::Create_errhandler,
// which MPICH calls through its C++ dispatch with an MPI::Comm object, is
// called with MPI::COMM_WORLD, a duplicate, and a duplicate's duplicate
// that inherits it (errhandler.c's MPII_Errhandler_set_cxx; MPICH's
// cxx/errhan/commcallx crashed in the handler, whose trampoline took the
// object for a C handle). Pass-through (CSP_NG=0) as well.
func TestInterposeCxx(t *testing.T) {
	names := []string{"size", "ring", "eh-world", "eh-dup"}
	prog := CxxProg(t, "ip_cxx")
	for _, l := range ipLayouts {
		t.Run(l.String(), func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Args: []string{fmt.Sprint(l.Users())}, Preload: true, Env: []string{"CSP_STATS=1"}})
			rs := ipRequireResults(t, res, l.Users()*len(names))
			for _, n := range names {
				require.Len(t, Select(rs, "test="+n), l.Users(), n)
			}
			for r, s := range ipRequireStats(t, res, l.Users()) {
				require.Positive(t, s.IsendOffloaded, "rank %d: %s", r, s.Fields.Line())
			}
		})
	}
	t.Run("pass-through", func(t *testing.T) {
		res := Run(t, Job{Layout: Layout{N: 3}, Prog: prog, Args: []string{"3"}, Preload: true, Env: []string{"CSP_NG=0"}})
		ipRequireResults(t, res, 3*len(names))
	})
}

// A bad CSP_WORLD_HINTS fails MPI_Init on every process with one line
// naming the accepted values, and the job ends at once (it used to leave
// the users running without their world while the ghosts waited).
func TestInterposeBadWorldHints(t *testing.T) {
	res := RunFailing(t, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: CProg(t, "ip_plain"), Args: []string{"2"}, Preload: true,
		Env: []string{"CSP_WORLD_HINTS=wildcard_used=nope"}, Timeout: 30 * time.Second})
	require.NotEqual(t, 0, res.ExitCode)
	require.Less(t, res.Duration, 10*time.Second)
	require.Contains(t, res.Stderr, `CSP_WORLD_HINTS="wildcard_used=nope": wildcard_used="nope" is not valid; accepted: any_src, any_tag_same_tag`)
	require.Empty(t, Results(res.Stdout), "no process got past MPI_Init")
}
