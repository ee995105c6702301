package test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

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
func TestRandomizedMatching(t *testing.T) {
	prog := CProg(t, "rmatch")
	for i, mode := range matchModes {
		t.Run(strings.ReplaceAll(mode, "|", "+"), func(t *testing.T) {
			seed := fmt.Sprint(1000 + i)
			args := []string{seed, fmt.Sprint(matchMessages), mode}
			if i%2 == 1 {
				args = append(args, "regist") // registered buffers: no bounce copies
			}
			ref := Run(t, Job{Layout: Layout{N: 4}, Prog: prog, Args: args, Preload: true,
				Env: []string{"CSP_NG=0"}, Timeout: 180e9})
			require.Zero(t, ref.ExitCode, "plain MPI run:\n%s", ref.Output())
			csp := Run(t, Job{Layout: Layout{N: 6, NodeSize: 3}, Prog: prog, Args: args, Preload: true,
				Env: []string{"CSP_STATS=1"}, Timeout: 180e9})
			require.Zero(t, csp.ExitCode, "CasperII run:\n%s", csp.Output())

			want, got := matchLog(ref.Stdout), matchLog(csp.Stdout)
			require.GreaterOrEqual(t, len(want), matchMessages, "every message is logged")
			require.Equal(t, len(want), len(got), "receives logged")
			for k := range want {
				require.Equal(t, want[k], got[k], "receive %d differs from plain MPI", k)
			}
			stats, err := StatsLines(csp.Stderr)
			require.NoError(t, err)
			require.Len(t, stats, 4)
			for _, s := range stats {
				require.Positive(t, s.IrecvOffloaded, "the offload path ran: %s", s.Fields.Line())
				if i%2 == 1 {
					require.Zero(t, s.Bounce, "registered buffers need no bounce copy: %s", s.Fields.Line())
				}
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
