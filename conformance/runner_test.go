package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/test"
)

// TestMain removes the programs the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	test.Cleanup()
	os.Exit(code)
}

// runCell runs s in mode m through the test harness and judges the
// outcome against plain (the program's plain outcome, nil if not run).
func runCell(t *testing.T, s Spec, m Mode, plain *Outcome) (Cell, time.Duration) {
	prog := test.CFile(t, filepath.Join("conformance", s.Path))
	j := test.Job{Prog: prog, Timeout: s.Timeout, Layout: test.Layout{N: s.NP}}
	if m != Plain {
		j.Layout = test.Layout{N: 2 * s.NP, NodeSize: 2, NG: 1}
		j.Preload = true
		j.Env = []string{"CSP_STATS=1", "CSP_WORLD_HINTS=wildcard_used=" + string(m)}
	}
	c := test.RunCollected(t, j)
	r := Run{Finished: c.Finished, ExitCode: c.ExitCode, Stdout: c.Stdout, Stderr: c.Stderr, Problems: c.Problems}
	o := Classify(s, m, r)
	cell := Cell{Mode: m, Outcome: o, Verdict: Judge(s, m, o, plain), Cmd: c.Cmd}
	if cell.Cmd == "" {
		cell.Cmd = strings.TrimSpace(c.Log)
	}
	if cell.Verdict == Unexpected {
		cell.Output = lastLines(c.Stdout+c.Stderr, 20)
	}
	return cell, c.Duration
}

// runAll runs every program in every mode, plain first, and logs one line
// per job.
func runAll(t *testing.T, specs []Spec, modes []Mode) []Row {
	var rows []Row
	for _, s := range specs {
		row := Row{Spec: s}
		var plain *Outcome
		for _, m := range modes {
			cell, d := runCell(t, s, m, plain)
			if m == Plain {
				o := cell.Outcome
				plain = &o
			}
			t.Logf("%-18s %-25s %-22s %5.1fs", s.Name, m, cell.Text(s), d.Seconds())
			row.Cells = append(row.Cells, cell)
		}
		rows = append(rows, row)
	}
	return rows
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("(%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// The runner on three programs, plain and under wildcard_used=none: a
// program that passes in both, one whose MPI_ANY_TAG the hint rules out
// (the library's one-line error: expected), and one that fails only
// under the library (an unexpected difference, listed with its command).
func TestRunner(t *testing.T) {
	var specs []Spec
	for _, p := range []string{"progs/zerosize.c", "progs/anytag.c", "testdata/libfail.c"} {
		s, err := Parse(p)
		require.NoError(t, err)
		specs = append(specs, s)
	}
	rows := runAll(t, specs, []Mode{Plain, "none"})
	require.Len(t, rows, 3)
	verdicts := func(r Row) []string {
		var v []string
		for _, c := range r.Cells {
			v = append(v, string(c.Outcome.Kind)+"/"+string(c.Verdict))
		}
		return v
	}
	assert.Equal(t, []string{"ok/expected", "ok/expected"}, verdicts(rows[0]), "zerosize")
	assert.Equal(t, []string{"ok/expected", "refused/expected-error"}, verdicts(rows[1]), "anytag")
	assert.Equal(t, AnyTag, rows[1].Cells[1].Outcome.Wildcard)
	assert.Equal(t, []string{"ok/expected", "FAIL/unexpected"}, verdicts(rows[2]), "libfail")
	assert.Contains(t, rows[2].Cells[1].Outcome.Detail, "preloaded")

	text, unexpected := Report([]Mode{Plain, "none"}, rows)
	t.Log("\n" + text)
	assert.Equal(t, 1, unexpected)
	assert.Regexp(t, `(?m)^zerosize\s+2\s+ok\s+ok$`, text)
	assert.Regexp(t, `(?m)^anytag\s+2\s+ok\s+expected-error$`, text)
	assert.Regexp(t, `(?m)^libfail\s+2\s+ok\s+!FAIL$`, text)
	assert.Contains(t, text, "libfail [none]: FAIL: ")
	assert.Contains(t, text, "libfail: mpicc -O2 conformance/testdata/libfail.c, then")
	assert.Contains(t, text, "LD_PRELOAD", "the unexpected difference's command line")
	assert.Contains(t, text, "3 programs, 6 jobs: 4 as expected, 1 expected errors, 0 known differences, 0 MPICH bugs, 1 unexpected differences")
}

// Every program parses, names itself and its process count in conf_init
// as its opening comment does, and declares the wildcards its code passes
// to MPI: a wildcard argument the declaration lacks would be reported as
// an unexpected refusal, one it declares but never passes misleads.
func TestProgramsDeclared(t *testing.T) {
	specs, err := Programs("progs", nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(specs), 40)
	arg := regexp.MustCompile(`[,(?:]\s*MPI_ANY_(SOURCE|TAG)\b`) // an argument, not a comparison
	comment := regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	initCall := regexp.MustCompile(`conf_init\(&argc, &argv, "([^"]*)", (\d+)\)`)
	for _, s := range specs {
		src, err := os.ReadFile(s.Path)
		require.NoError(t, err)
		code := string(src)
		if s.Name == "truncate_status" { // truncate.c's code with one more check
			b, _ := os.ReadFile("progs/truncate.c")
			code = string(b)
		}
		code = comment.ReplaceAllString(code, "")
		used := map[string]bool{}
		for _, m := range arg.FindAllStringSubmatch(code, -1) {
			used[map[string]string{"SOURCE": AnySrc, "TAG": AnyTag}[m[1]]] = true
		}
		assert.Equal(t, used, s.Uses, "%s: the wildcards its code passes and its uses: line", s.Name)
		if m := initCall.FindStringSubmatch(code); m != nil {
			assert.Equal(t, []string{s.Name, strconv.Itoa(s.NP)}, m[1:], "%s: conf_init's name and np", s.Name)
		} else {
			assert.Contains(t, code, `conf_init(&argc, &argv, NAME, `+strconv.Itoa(s.NP)+`)`, s.Name)
		}
	}
}

func TestParse(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	s, err := Parse(write("a.c", `/*
 * a: what it does.
 *
 * np: 3
 * uses: any_src any_tag
 * timeout: 30
 * stats: bounce=0 held=0
 * known: 18.1 a difference that goes on
 * over two lines
 * mpich-bug: MPICH fails
 */
#include "conf.h"
/* np: 9 is not in the opening comment */
`))
	require.NoError(t, err)
	assert.Equal(t, "a", s.Name)
	assert.Equal(t, 3, s.NP)
	assert.Equal(t, map[string]bool{AnySrc: true, AnyTag: true}, s.Uses)
	assert.Equal(t, 30*time.Second, s.Timeout)
	assert.Equal(t, map[string]int64{"bounce": 0, "held": 0}, s.Stats)
	assert.Equal(t, "18.1", s.Known)
	assert.Equal(t, "a difference that goes on over two lines", s.KnownWhy)
	assert.Equal(t, "MPICH fails", s.MPICHBug)

	s, err = Parse(write("b.c", "// b\n// np: 1\nint x;\n"))
	require.NoError(t, err)
	assert.Equal(t, 1, s.NP)
	assert.Empty(t, s.Uses)
	assert.Equal(t, DefaultTimeout, s.Timeout)

	for text, msg := range map[string]string{
		"/* no np */\n":             "no np: line",
		"int x;\n":                  "does not open with a comment",
		"/* np: 2\n uses: any */\n": `uses: "any"`,
		"/* np: x */\n":             `np: "x"`,
		"/* np: 2\n stats: b */\n":  `stats: "b"`,
	} {
		_, err := Parse(write("bad.c", text))
		assert.ErrorContains(t, err, msg, "%q", text)
	}
}

func TestModes(t *testing.T) {
	m, err := ParseModes("")
	require.NoError(t, err)
	assert.Equal(t, Modes, m)
	m, err = ParseModes("plain, any_src|any_tag_same_tag")
	require.NoError(t, err)
	assert.Equal(t, []Mode{Plain, "any_src|any_tag_same_tag"}, m)
	_, err = ParseModes("anysrc")
	assert.ErrorContains(t, err, `mode "anysrc"`)

	for _, c := range []struct {
		m              Mode
		anySrc, anyTag bool
	}{{Plain, true, true}, {"none", false, false}, {"any_tag_same_tag", false, true},
		{"any_src|any_tag_same_tag", true, true}, {"any_src", true, true}} {
		assert.Equal(t, c.anySrc, c.m.Allows(AnySrc), "%s any_src", c.m)
		assert.Equal(t, c.anyTag, c.m.Allows(AnyTag), "%s any_tag", c.m)
	}
}

func TestClassify(t *testing.T) {
	s := Spec{Name: "p", NP: 2, Uses: map[string]bool{AnySrc: true}, Stats: map[string]int64{"bounce": 0}}
	stats := func(bounce, ops int) string {
		return fmt.Sprintf("casperii-stats rank=0 bounce=%d cells_in_use=0 ops_live=%d heap_in_use=0\n"+
			"casperii-stats rank=1 bounce=0 cells_in_use=0 ops_live=0 heap_in_use=0\n", bounce, ops)
	}
	cases := []struct {
		name string
		m    Mode
		r    Run
		want Outcome
	}{
		{"ok", Plain, Run{Finished: true, Stdout: "ok p\n"}, Outcome{Kind: OK}},
		{"ok with stats", "none", Run{Finished: true, Stdout: "ok p\n", Stderr: stats(0, 0)}, Outcome{Kind: OK}},
		{"fail", Plain, Run{Finished: true, ExitCode: 1, Stdout: "FAIL p: 2 check(s) failed; first: x\n"},
			Outcome{Kind: Fail, Detail: "2 check(s) failed; first: x"}},
		{"crash", Plain, Run{Finished: true, ExitCode: 134, Stderr: "Assertion failed\nmore\nmore\n"},
			Outcome{Kind: Crash, Detail: "exit code 134; Assertion failed | more"}},
		{"no result", Plain, Run{Finished: true, Stdout: "ok q\n"}, Outcome{Kind: NoResult, Detail: `exit code 0 without the line "ok p"`}},
		{"timeout", Plain, Run{Problems: []string{"harness: job timed out after 2s; killed 2 process(es)"}},
			Outcome{Kind: Timeout, Detail: "no end after 0s"}},
		{"leftover", Plain, Run{Finished: true, Stdout: "ok p\n", Problems: []string{"harness: the job left 1 new entries in /dev/shm"}},
			Outcome{Kind: Leftover, Detail: "harness: the job left 1 new entries in /dev/shm"}},
		{"refused source", "none", Run{Finished: true, ExitCode: 6,
			Stderr: "casperii: rank 1: MPI_ANY_SOURCE on a communicator whose wildcard_used=none promises no wildcards; set ...\n"},
			Outcome{Kind: Refused, Wildcard: AnySrc, Detail: "MPI_ANY_SOURCE on a communicator whose wildcard_used=none"}},
		{"refused tag", "none", Run{Finished: true, ExitCode: 6,
			Stderr: "casperii: rank 0: MPI_ANY_TAG on a communicator whose wildcard_used=none promises no wildcards\n"},
			Outcome{Kind: Refused, Wildcard: AnyTag, Detail: "MPI_ANY_TAG on a communicator whose wildcard_used=none"}},
		{"refused through the program", "any_tag_same_tag", Run{Finished: true, ExitCode: 1,
			Stdout: "FAIL p: MPI_Recv returned 5 (class 6: CasperII: MPI_ANY_SOURCE on a communicator with wildcard_used=any_tag_same_tag; set ...)\n"},
			Outcome{Kind: Refused, Wildcard: AnySrc, Detail: "MPI_ANY_SOURCE on a communicator with wildcard_used=any_tag_same_tag;"}},
		{"plain never refuses", Plain, Run{Finished: true, ExitCode: 1,
			Stdout: "FAIL p: MPI_ANY_SOURCE on a communicator whose wildcard_used=none\n"},
			Outcome{Kind: Fail, Detail: "MPI_ANY_SOURCE on a communicator whose wildcard_used=none"}},
		{"stats missing", "none", Run{Finished: true, Stdout: "ok p\n"}, Outcome{Kind: Stats, Detail: "0 casperii-stats lines for 2 users"}},
		{"leak", "none", Run{Finished: true, Stdout: "ok p\n", Stderr: stats(0, 3)},
			Outcome{Kind: Stats, Detail: `ops_live is "3", want 0: casperii-stats rank=0 bounce=0 cells_in_use=0 ops_live=3 heap_in_use=0`}},
		{"bounce", "none", Run{Finished: true, Stdout: "ok p\n", Stderr: stats(4, 0)},
			Outcome{Kind: Stats, Detail: `bounce is "4", want 0: casperii-stats rank=0 bounce=4 cells_in_use=0 ops_live=0 heap_in_use=0`}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Classify(s, c.m, c.r), c.name)
	}
}

func TestJudge(t *testing.T) {
	plainOK, plainFail := Outcome{Kind: OK}, Outcome{Kind: Fail}
	uses := Spec{Name: "w", Uses: map[string]bool{AnySrc: true}}
	known := Spec{Name: "k", Known: "18.1"}
	bug := Spec{Name: "b", MPICHBug: "MPICH fails"}
	refusedSrc := Outcome{Kind: Refused, Wildcard: AnySrc}
	refusedTag := Outcome{Kind: Refused, Wildcard: AnyTag}
	cases := []struct {
		name  string
		s     Spec
		m     Mode
		o     Outcome
		plain *Outcome
		want  Verdict
	}{
		{"plain ok", uses, Plain, plainOK, nil, AsExpected},
		{"plain fails", uses, Plain, plainFail, nil, Unexpected},
		{"plain fails as the mpich-bug line says", bug, Plain, plainFail, nil, MPICHBug},
		{"plain times out, not an MPICH bug", bug, Plain, Outcome{Kind: Timeout}, nil, Unexpected},
		{"library ok", uses, "none", plainOK, &plainOK, AsExpected},
		{"declared wildcard ruled out", uses, "none", refusedSrc, &plainOK, ExpectedError},
		{"declared wildcard ruled out by any_tag_same_tag", uses, "any_tag_same_tag", refusedSrc, &plainOK, ExpectedError},
		{"declared wildcard allowed yet refused", uses, "any_src", refusedSrc, &plainOK, Unexpected},
		{"undeclared wildcard refused", uses, "none", refusedTag, &plainOK, Unexpected},
		{"library fails", uses, "none", plainFail, &plainOK, Unexpected},
		{"known", known, "any_src", Outcome{Kind: Crash}, &plainOK, KnownDiff},
		{"fails as plain under an MPICH bug", bug, "none", plainFail, &plainFail, AsExpected},
		{"fails otherwise under an MPICH bug", bug, "none", Outcome{Kind: Timeout}, &plainFail, Unexpected},
		{"library right where MPICH is not", bug, "none", plainOK, &plainFail, AsExpected},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Judge(c.s, c.m, c.o, c.plain), c.name)
	}
}

func TestReport(t *testing.T) {
	known := Spec{Name: "k", NP: 2, Known: "18.1", KnownWhy: "types freed while pending"}
	fixed := Spec{Name: "f", NP: 2, Known: "18.2", KnownWhy: "MPI_ERROR"}
	bug := Spec{Name: "bug", Path: "bug.c", NP: 1, MPICHBug: "MPICH fails"}
	rows := []Row{
		{Spec: known, Cells: []Cell{{Mode: Plain, Outcome: Outcome{Kind: OK}, Verdict: AsExpected},
			{Mode: "none", Outcome: Outcome{Kind: Crash, Detail: "exit code 6"}, Verdict: KnownDiff}}},
		{Spec: fixed, Cells: []Cell{{Mode: Plain, Outcome: Outcome{Kind: OK}, Verdict: AsExpected},
			{Mode: "none", Outcome: Outcome{Kind: OK}, Verdict: AsExpected}}},
		{Spec: bug, Cells: []Cell{{Mode: Plain, Outcome: Outcome{Kind: Fail}, Verdict: MPICHBug},
			{Mode: "none", Outcome: Outcome{Kind: Timeout, Detail: "no end"}, Verdict: Unexpected, Cmd: "mpiexec -n 2 x",
				Output: "line 1\nline 2"}}},
	}
	text, unexpected := Report([]Mode{Plain, "none"}, rows)
	assert.Equal(t, 1, unexpected)
	assert.Regexp(t, `^program\s+np\s+plain\s+none\n-+\n`, text)
	assert.Regexp(t, `(?m)^k\s+2\s+ok\s+crash \(known 18\.1\)$`, text)
	assert.Regexp(t, `(?m)^bug\s+1\s+FAIL \(mpich\)\s+!timeout$`, text)
	assert.Contains(t, text, "3 programs, 6 jobs: 3 as expected, 0 expected errors, 1 known differences, 1 MPICH bugs, 1 unexpected differences")
	assert.Contains(t, text, "  bug [none]: timeout: no end\n    bug: mpicc -O2 conformance/bug.c, then\n    mpiexec -n 2 x\n      line 1\n      line 2\n")
	assert.Contains(t, text, "  k: 18.1: types freed while pending\n")
	assert.Contains(t, text, "  bug: MPICH fails\n")
	assert.Contains(t, text, "f: the known difference (MPI_ERROR) did not show: if 18.2's fix is in, drop the known: line")
}
