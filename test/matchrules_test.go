package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// One focused check per matching and completion rule, as MPI defines them,
// on offloaded communicators: C programs (test/cprogs/mr_*.c, scaffolding
// in mr_common.c) preloaded with lib/libcasperii.so under mpiexec, on
// 2 nodes x (1 ghost + 1 user) and 2 nodes x (1 ghost + 2 users).
//
// Each job runs one program for every wildcard_used value in turn (a
// communicator per value, freed before the next), so a layout costs one
// job per program. A program prints one "result" line per check (with
// mode=<wildcard_used>) and exits non-zero if any failed; per mode and
// rank it also prints how many operations it posted on the offloaded
// communicator, and the runtime's CSP_STATS counters must cover them all,
// which proves that every mode's operations took the offload path.
//
// The rules (the sections of the programs, see each program's comment):
//
//  1. MPI_ANY_TAG receives return the real tag and count, also with a
//     specific source when two senders share a ghost (mr_match anytag).
//  2. MPI_ANY_SOURCE receives return the real user rank, with MPI_ANY_TAG
//     and with a specific tag (mr_match anysrc).
//  3. Senders sharing a ghost are told apart in every mode: the design's
//     b1/b2 example, receives posted first or after the sends, with a
//     specific tag and with MPI_ANY_TAG where allowed (mr_match shared).
//  4. MPI_ANY_SOURCE with a specific tag, several tags per sender
//     (mr_match bytag).
//  5. The completion family over offloaded and ordinary requests, nulls and
//     inactive persistent requests; Request_free, Cancel,
//     Request_get_status, MPI_STATUSES_IGNORE (mr_complete).
//  6. The probe family (mr_probe).
//  7. Persistent requests, synchronous mode kept (not timed: the receiver
//     posts only after the sender has seen its request incomplete), and
//     buffered mode completing locally (mr_persist).
//  8. Datatypes freed while operations use them (mr_dtype,
//     TestDatatypeLifetime in dtype_test.go).

// mrLayouts: two users behind separate ghosts; two users per ghost.
var mrLayouts = []Layout{{N: 4, NodeSize: 2}, {N: 6, NodeSize: 3}}

// mrTimeout bounds a job (a hang); the jobs take seconds.
const mrTimeout = 180 * time.Second

// mrLine is a result line a section must print in a mode.
type mrLine struct {
	test string
	who  string // "0": rank 0; "all": every user; "others": every user but rank 0
	per  int    // 0: one line per reporting rank; k > 0: k lines per peer of rank 0
}

// mrSection is a section of a program: what it prints in a mode, nil if it
// does not run in that mode.
type mrSection struct {
	name     string // the program's section name (its skip=<name> argument)
	rule     int
	minUsers int // the layout needs at least this many users
	lines    func(anysrc, anytag bool) []mrLine
}

type mrProg struct {
	name     string
	sections []mrSection
}

func mrAt0(tests ...string) []mrLine {
	out := make([]mrLine, len(tests))
	for i, t := range tests {
		out[i] = mrLine{test: t, who: "0"}
	}
	return out
}

func mrPerPeer(per int, tests ...string) []mrLine {
	out := make([]mrLine, len(tests))
	for i, t := range tests {
		out[i] = mrLine{test: t, who: "0", per: per}
	}
	return out
}

var mrProgs = []mrProg{
	{"mr_match", []mrSection{
		{"anytag", 1, 0, func(anysrc, anytag bool) []mrLine {
			if !anytag {
				return nil
			}
			return mrAt0("anytag-posted", "anytag-unexpected")
		}},
		{"anysrc", 2, 0, func(anysrc, anytag bool) []mrLine {
			if !anysrc {
				return nil
			}
			return mrAt0("anysrc-anytag", "anysrc-tag") // both modes with any_src allow MPI_ANY_TAG
		}},
		{"shared", 3, 4, func(anysrc, anytag bool) []mrLine {
			l := mrAt0("shared-posted", "shared-unexpected")
			if anytag {
				l = append(l, mrAt0("shared-anytag-posted", "shared-anytag-unexpected")...)
			}
			return l
		}},
		{"bytag", 4, 0, func(anysrc, anytag bool) []mrLine {
			if !anysrc {
				return nil
			}
			return mrAt0("anysrc-bytag")
		}},
	}},
	{"mr_complete", []mrSection{
		{"family", 5, 0, func(bool, bool) []mrLine {
			return append(mrAt0("waitany", "waitsome", "testany", "testsome"),
				mrLine{"waitany-send", "others", 0}, mrLine{"waitsome-send", "others", 0},
				mrLine{"testany-send", "others", 0}, mrLine{"testsome-send", "others", 0})
		}},
		{"reqfree", 5, 0, func(bool, bool) []mrLine { return mrAt0("reqfree-send", "reqfree-recv") }},
		{"cancel", 5, 0, func(bool, bool) []mrLine { return mrAt0("cancel-unmatched", "cancel-matched") }},
		{"status", 5, 0, func(bool, bool) []mrLine { return mrAt0("getstatus") }},
		{"null", 5, 0, func(bool, bool) []mrLine {
			return append(mrAt0("null-inactive-mixed", "ours-null-waitall", "ours-null-testall", "statuses-ignore"),
				mrLine{"null-inactive-all", "all", 0})
		}},
		{"anystatus", 5, 0, func(bool, bool) []mrLine { return []mrLine{{"any-empty-status", "all", 0}} }},
	}},
	{"mr_probe", []mrSection{
		mrProbeSection("iprobe"), mrProbeSection("probe"), mrProbeSection("mprobe"), mrProbeSection("improbe"),
	}},
	{"mr_persist", []mrSection{
		{"persist", 7, 0, func(bool, bool) []mrLine { return mrPerPeer(1, "persist") }},
		{"issend", 7, 0, func(bool, bool) []mrLine {
			return append(mrPerPeer(1, "issend-small", "issend-large", "issend-probed", "ssend"),
				mrPerPeer(2, "ssend-init")...) // started twice
		}},
		{"bsend", 7, 0, func(bool, bool) []mrLine { return mrPerPeer(1, "bsend-local", "ibsend-local") }},
		{"bsendinit", 7, 0, func(bool, bool) []mrLine {
			return mrPerPeer(2, "bsend-init-local", "bsend-init-plain") // started twice
		}},
	}},
}

// mrProbeSection: one line per probe spec the mode allows: st (source,
// tag), sa (source, MPI_ANY_TAG), as (MPI_ANY_SOURCE, tag), aa (both).
func mrProbeSection(check string) mrSection {
	return mrSection{check, 6, 0, func(anysrc, anytag bool) []mrLine {
		l := mrAt0(check + "-st")
		if anytag {
			l = append(l, mrAt0(check+"-sa")...)
		}
		if anysrc {
			l = append(l, mrAt0(check+"-as")...)
		}
		if anysrc && anytag {
			l = append(l, mrAt0(check+"-aa")...)
		}
		return l
	}}
}

// mrBugs are the runtime bugs these tests found, by "<program>/<section>"
// (every mode) or "<program>/<section>@<mode>": the section does not run
// and its subtests skip with the message.
var mrBugs = map[string]string{}

// mrBug returns the bug message for a section in a mode, or "".
func mrBug(prog, section, mode string) string {
	if m := mrBugs[prog+"/"+section]; m != "" {
		return m
	}
	return mrBugs[prog+"/"+section+"@"+mode]
}

func mrRanks(who string, users int) []int {
	var out []int
	for r := 0; r < users; r++ {
		if who == "all" || (who == "0" && r == 0) || (who == "others" && r != 0) {
			out = append(out, r)
		}
	}
	return out
}

// mrRuns reports whether some section of p runs in mode with this many
// users (and is not skipped for a bug).
func mrRuns(p mrProg, users int, mode string) bool {
	for _, s := range p.sections {
		if users >= s.minUsers && s.lines(mrFlags(mode)) != nil && mrBug(p.name, s.name, mode) == "" {
			return true
		}
	}
	return false
}

func mrFlags(mode string) (anysrc, anytag bool) {
	return strings.Contains(mode, "any_src"), strings.Contains(mode, "any_tag_same_tag") || mode == "any_src"
}

func TestMatchRules(t *testing.T) {
	for _, l := range mrLayouts {
		for _, p := range mrProgs {
			t.Run(fmt.Sprintf("%v/%s", l, p.name), func(t *testing.T) {
				mrRun(t, l, p)
			})
		}
	}
}

func mrRun(t *testing.T, l Layout, p mrProg) {
	users := l.Users()
	args := []string{strings.Join(matchModes, ",")}
	for _, s := range p.sections {
		for _, mode := range matchModes {
			if mrBug(p.name, s.name, mode) != "" {
				args = append(args, "skip="+s.name+"@"+mode)
			}
		}
	}
	res := Run(t, Job{Layout: l, Prog: CProg(t, p.name), Args: args, Preload: true,
		Env: []string{"CSP_STATS=1"}, Timeout: mrTimeout})
	rs := Results(res.Stdout)

	// Every expected line, per section and mode, in subtests named after
	// the rule (a failure names its section and mode).
	mrRequireLines(t, p, users, rs)

	// No other check failed, and the program says so.
	for _, f := range rs {
		require.True(t, f.Match("ok=1"), "a check failed: %s", f.Line())
	}
	require.Equal(t, 0, res.ExitCode, "the program reported a failed check or died")
	mrRequireOffloaded(t, res, rs, users, func(mode string) bool { return mrRuns(p, users, mode) })
}

// mrRequireOffloaded checks that the offload path ran: every mode in which
// runs(mode) posted on its offloaded communicator, and the runtime counted
// every such post as offloaded (and bounced as the program says).
func mrRequireOffloaded(t *testing.T, res Result, rs []Fields, users int, runs func(mode string) bool) {
	t.Helper()
	stats, err := StatsLines(res.Stderr)
	require.NoError(t, err)
	require.Len(t, stats, users, "one casperii-stats line per user")
	isend, irecv, bounce, regist := map[int]int64{}, map[int]int64{}, map[int]int64{}, map[int]int64{}
	for _, mode := range matchModes {
		posts := Select(rs, "test=posts", "mode="+mode)
		require.Len(t, posts, users, "mode %s: a posts line per user", mode)
		var total int64
		for _, f := range posts {
			r, _ := f.Int("rank")
			s, ok1 := f.Int("isend")
			v, ok2 := f.Int("irecv")
			b, ok3 := f.Int("bounce")
			g, ok4 := f.Int("regist")
			require.True(t, ok1 && ok2 && ok3 && ok4, f.Line())
			isend[int(r)] += s
			irecv[int(r)] += v
			bounce[int(r)] += b
			regist[int(r)] += g
			total += s + v
		}
		if runs(mode) {
			require.Positive(t, total, "mode %s: the program posted on its offloaded communicator", mode)
		}
	}
	for r, s := range stats {
		require.GreaterOrEqual(t, s.IsendOffloaded, isend[r],
			"rank %d: every send posted on an offloaded communicator is offloaded: %s", r, s.Fields.Line())
		require.GreaterOrEqual(t, s.IrecvOffloaded, irecv[r],
			"rank %d: every receive posted on an offloaded communicator is offloaded: %s", r, s.Fields.Line())
		// The posts the program says must bounce did, and the ones it says
		// travel in place (contiguous, registered) did not.
		require.GreaterOrEqual(t, s.Bounce, bounce[r],
			"rank %d: every post that must bounce bounced: %s", r, s.Fields.Line())
		require.LessOrEqual(t, s.Bounce, s.IsendOffloaded+s.IrecvOffloaded-regist[r],
			"rank %d: no post of registered contiguous data bounced: %s", r, s.Fields.Line())
	}
}

// mrRequireLines checks, in a subtest per section and mode, that every
// line the section must print is there, as many times as it must, ok=1.
func mrRequireLines(t *testing.T, p mrProg, users int, rs []Fields) {
	for _, s := range p.sections {
		if users < s.minUsers {
			continue
		}
		for _, mode := range matchModes {
			lines := s.lines(mrFlags(mode))
			if lines == nil {
				continue // the mode rules the section's wildcards out
			}
			name := fmt.Sprintf("rule%d-%s/%s", s.rule, s.name, strings.ReplaceAll(mode, "|", "+"))
			t.Run(name, func(t *testing.T) {
				if bug := mrBug(p.name, s.name, mode); bug != "" {
					t.Skip(bug)
				}
				for _, want := range lines {
					n := 1
					if want.per > 0 {
						n = want.per * (users - 1)
					}
					for _, r := range mrRanks(want.who, users) {
						got := Select(rs, fmt.Sprintf("rank=%d", r), "test="+want.test, "mode="+mode)
						require.Len(t, got, n, "rank %d, %s: result lines", r, want.test)
						for _, f := range got {
							require.True(t, f.Match("ok=1"), f.Line())
						}
					}
				}
			})
		}
	}
}
