package test

import (
	"regexp"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFinalizeLending: on a host where each ghost shares its user's core
// at a lowered priority, a user lends its core to the ghost while MPICH
// finalizes (internal/user/lendtimer.c), timed by a real-time signal nobody
// handles; the program's own handler and every disposition are as before
// once MPI_Finalize returns, and nothing fires afterwards
// (test/cprogs/ip_finalize.c), and a signal it keeps blocked for sigwait
// is not borrowed either. With the ghost at the users' priority
// nothing is borrowed at MPI_Finalize. Every process of a host running
// more processes than it has CPUs also lends its core while MPI and the
// runtime initialize, and the same checks cover that timer.
// CSP_LEND_TIMER=off borrows no signal at all. CSP_VERBOSE=2 also says
// where MPI_Init's and MPI_Finalize's time went, step by step.
func TestFinalizeLending(t *testing.T) {
	l := Layout{N: 4, NodeSize: 2}
	prog := CProg(t, "ip_finalize")
	lent := regexp.MustCompile(`MPI_Finalize: lent the core to the ghost (\d+) times \(timer signal (\d+)\)`)
	// At MPI_Init the handler yields (every process at one priority), at
	// MPI_Finalize it sleeps (the ghost at nice 19): lendtimer.c.
	initLent := regexp.MustCompile(`rank (\d+): MPI_Init: lent the core (\d+) times, (\d+) by yielding \(timer signal (\d+)\)`)
	oversubscribed := runtime.NumCPU() < l.N
	for _, c := range []struct {
		name  string
		env   []string
		lend  bool
		timer bool // CSP_LEND_TIMER allows the timer
	}{{"nice19", nil, true, true}, {"nice0", []string{"CSP_GHOST_NICE=0"}, false, true},
		{"timer_off", []string{"CSP_LEND_TIMER=off"}, true, false}} {
		t.Run(c.name, func(t *testing.T) {
			res := Run(t, Job{Layout: l, Prog: prog, Preload: true, Env: append([]string{"CSP_VERBOSE=2"}, c.env...)})
			rs := relResults(t, res)
			require.Len(t, Select(rs, "test=signals"), l.Users(), res.Output())
			own := Select(rs, "test=own_handler")
			require.Len(t, own, l.Users(), res.Output())
			ownSig, ok := own[0].Int("sig")
			require.True(t, ok, own[0].Line())
			waited, ok := own[0].Int("waited")
			require.True(t, ok, own[0].Line())
			borrowable := func(line string, sig int) {
				require.NotEqual(t, int(ownSig), sig, "the program's own signal is not borrowed: %s", line)
				require.NotEqual(t, int(waited), sig, "a signal the program blocks (for sigwait) is not borrowed: %s", line)
			}
			im := initLent.FindAllStringSubmatch(res.Stderr, -1)
			if oversubscribed && c.timer {
				require.Len(t, im, l.N, "every process lent its core at MPI_Init:\n%s", res.Stderr)
				for _, x := range im {
					sig, _ := strconv.Atoi(x[4])
					borrowable(x[0], sig)
					require.Equal(t, x[2], x[3], "every lend at MPI_Init yields: %s", x[0])
				}
			} else {
				require.Empty(t, im, "no lending at MPI_Init with a CPU per process or CSP_LEND_TIMER=off:\n%s", res.Stderr)
			}
			// CSP_VERBOSE=2 times the steps of MPI_Init on every process
			// and of MPI_Finalize on every user: each named, none
			// negative, MPICH's own first.
			steps := regexp.MustCompile(`(user|ghost) \d+: (MPI_Init|MPI_Finalize) took ([0-9.]+) ms: ((?:[a-zA-Z]+ [0-9.]+ ?)+)\(ms\)`)
			sm := steps.FindAllStringSubmatch(res.Stderr, -1)
			inits := 0
			for _, x := range sm {
				if x[2] == "MPI_Init" {
					inits++
					require.Regexp(t, `^MPICH [0-9.]+ config [0-9.]+ layout [0-9.]+ pool [0-9.]+ channels [0-9.]+ rma [0-9.]+ ( ?user [0-9.]+ )?$`, x[4], x[0])
				} else {
					require.Regexp(t, `^user [0-9.]+ MPICH [0-9.]+ $`, x[4], x[0])
				}
			}
			require.Equal(t, l.N, inits, "every process times its MPI_Init:\n%s", res.Stderr)
			require.Len(t, sm, l.N+l.Users(), "and every user its MPI_Finalize:\n%s", res.Stderr)
			m := lent.FindAllStringSubmatch(res.Stderr, -1)
			if !c.lend || !c.timer {
				require.Empty(t, m, "no lending with the ghost at the users' priority or CSP_LEND_TIMER=off:\n%s", res.Stderr)
				return
			}
			require.Len(t, m, l.Users(), "one lending line per user:\n%s", res.Stderr)
			for _, x := range m {
				sig, _ := strconv.Atoi(x[2])
				borrowable(x[0], sig)
			}
		})
	}
}
