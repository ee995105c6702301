package test

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// matchModes are the wildcard_used values: each selects an algorithm.
var matchModes = []string{"none", "any_tag_same_tag", "any_src|any_tag_same_tag", "any_src"}

// matchMessages is how many messages each run of rmatch sends.
const matchMessages = 10000

// TestRandomizedMatching runs the seeded randomized matching program
// (test/cprogs/rmatch.c) for every wildcard_used value, preloaded, on 2
// nodes x (1 ghost + 2 users), and compares what every receive got, message
// by message, with the same program run without ghosts (CSP_NG=0): random
// sources, tags, wildcards (where the mode allows them), sizes up to 1 MiB,
// send modes, persistent requests, probes, and completion calls. rmatch
// itself checks every payload and status.
//
// CASPERII_SOAK=<duration> (for example 5m; make soak) repeats the round
// of four modes with fresh seeds until the duration has passed, and
// reports how many receives were compared: any mismatch fails.
func TestRandomizedMatching(t *testing.T) {
	prog := CProg(t, "rmatch")
	soak := time.Duration(0)
	if v := os.Getenv("CASPERII_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "CASPERII_SOAK=%q is not a duration (for example 5m)", v)
		soak = d
	}
	start := time.Now()
	compared, runs := 0, 0
	for round := 0; round == 0 || time.Since(start) < soak; round++ {
		for i, mode := range matchModes {
			name := strings.ReplaceAll(mode, "|", "+")
			seed := 1000 + i
			if round > 0 {
				name = fmt.Sprintf("soak%d-%s", round, name)
				seed = 1000 + 100*round + i
			}
			t.Run(name, func(t *testing.T) {
				var opts []string
				if (i+round)%2 == 1 {
					opts = append(opts, "regist") // registered buffers: no bounce copies
				}
				n, _ := matchRun(t, prog, mode, fmt.Sprint(seed), matchMessages, opts...)
				compared += n
				runs++
			})
			if t.Failed() {
				t.Fatalf("stopped after a mismatch (round %d, mode %s, seed %d)", round, mode, seed)
			}
		}
	}
	if soak > 0 {
		t.Logf("soak: %d runs, %d receives compared with plain MPI, 0 mismatches, in %v", runs, compared, time.Since(start).Round(time.Second))
	}
}

// matchRun runs rmatch with seed, messages and opts (regist, switch) in
// mode under plain MPI and under CasperII, requires the two receive logs
// to be identical, and returns how many receives it compared and the
// users' CSP_STATS lines.
func matchRun(t *testing.T, prog, mode, seed string, messages int, opts ...string) (int, map[int]Stats) {
	args := append([]string{seed, fmt.Sprint(messages), mode}, opts...)
	regist := slices.Contains(opts, "regist")
	ref := Run(t, Job{Layout: Layout{N: 4}, Prog: prog, Args: args, Preload: true,
		Env: []string{"CSP_NG=0"}, Timeout: 180e9})
	require.Zero(t, ref.ExitCode, "plain MPI run:\n%s", ref.Output())
	csp := Run(t, Job{Layout: Layout{N: 6, NodeSize: 3}, Prog: prog, Args: args, Preload: true,
		Env: []string{"CSP_STATS=1"}, Timeout: 180e9})
	require.Zero(t, csp.ExitCode, "CasperII run:\n%s", csp.Output())

	want, got := matchLog(ref.Stdout), matchLog(csp.Stdout)
	require.GreaterOrEqual(t, len(want), messages, "every message is logged")
	require.Equal(t, len(want), len(got), "receives logged")
	for k := range want {
		require.Equal(t, want[k], got[k], "receive %d differs from plain MPI", k)
	}
	stats, err := StatsLines(csp.Stderr)
	require.NoError(t, err)
	require.Len(t, stats, 4)
	for _, s := range stats {
		require.Positive(t, s.IrecvOffloaded, "the offload path ran: %s", s.Fields.Line())
		if regist {
			require.Zero(t, s.Bounce, "registered buffers need no bounce copy: %s", s.Fields.Line())
		}
	}
	return len(want), stats
}

// TestRandomizedMatchingSwitch is TestRandomizedMatching with a change of
// route in every phase (rmatch's switch option: async_config flipped at
// seeded points, with the phase's receives posted or not), compared
// message by message with plain MPI. Both routes carried messages and
// switches were taken on every user.
func TestRandomizedMatchingSwitch(t *testing.T) {
	prog := CProg(t, "rmatch")
	for i, mode := range matchModes {
		t.Run(strings.ReplaceAll(mode, "|", "+"), func(t *testing.T) {
			_, stats := matchRun(t, prog, mode, fmt.Sprint(2000+i), 2400, "switch")
			for r, s := range stats {
				n, ok := s.Fields.Int("switches")
				require.True(t, ok, "rank %d: %s", r, s.Fields.Line())
				require.GreaterOrEqual(t, n, int64(10), "rank %d switched in most of the 50 phases: %s", r, s.Fields.Line())
				require.Positive(t, s.Direct, "rank %d sent on the direct route too: %s", r, s.Fields.Line())
			}
		})
	}
}

// matchLog returns rmatch's receive lines, sorted (ranks interleave).
func matchLog(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "R ") {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return lines
}
