package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultTimeout is a job's timeout when its program declares none.
const DefaultTimeout = 120 * time.Second

// Wildcards a program may declare in its uses: line.
const (
	AnySrc = "any_src" // MPI_ANY_SOURCE
	AnyTag = "any_tag" // MPI_ANY_TAG
)

// Spec is what a program's opening comment declares.
type Spec struct {
	Name     string // the file's name without .c
	Path     string // the file, as given to Parse
	NP       int
	Uses     map[string]bool // AnySrc, AnyTag
	Timeout  time.Duration
	Stats    map[string]int64 // casperii-stats fields every user must report under the library
	Known    string           // the issue item fixing a known difference ("18.1"), "" if none
	KnownWhy string
	MPICHBug string // why plain MPICH fails it, "" if it does not
}

var keyLine = regexp.MustCompile(`^(np|uses|timeout|stats|known|mpich-bug):\s*(.*?)$`)

// Parse reads the declarations of the C program at path: the "key: value"
// lines of the comment that opens it (/* ... */ or // lines). The values
// of known: and mpich-bug: may go on over the following lines, up to a
// blank one or the next key.
func Parse(path string) (Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, err
	}
	s := Spec{Name: strings.TrimSuffix(filepath.Base(path), ".c"), Path: path, Uses: map[string]bool{},
		Timeout: DefaultTimeout, Stats: map[string]int64{}}
	bad := func(format string, args ...any) (Spec, error) {
		return Spec{}, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	lines := strings.Split(string(b), "\n")
	block := strings.HasPrefix(strings.TrimSpace(lines[0]), "/*")
	if !block && !strings.HasPrefix(strings.TrimSpace(lines[0]), "//") {
		return bad("does not open with a comment declaring np:")
	}
	var last *string // the value a continuation line extends
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		if !block && !strings.HasPrefix(line, "//") {
			break
		}
		end := block && strings.HasSuffix(line, "*/")
		text := strings.TrimSuffix(line, "*/")
		for _, p := range []string{"/*", "//", "*"} {
			text = strings.TrimPrefix(text, p)
		}
		text = strings.TrimSpace(text)
		if m := keyLine.FindStringSubmatch(text); m != nil {
			last = nil
			if err := s.set(m[1], strings.TrimSpace(m[2]), &last); err != nil {
				return bad("%v", err)
			}
		} else if text == "" {
			last = nil
		} else if last != nil {
			*last += " " + text
		}
		if end {
			break
		}
	}
	if s.NP == 0 {
		return bad("its opening comment has no np: line")
	}
	return s, nil
}

// set records the declaration key: val; *last becomes the value that
// continuation lines extend, if it may go on.
func (s *Spec) set(key, val string, last **string) error {
	switch key {
	case "np":
		np, err := strconv.Atoi(val)
		if err != nil || np < 1 {
			return fmt.Errorf("np: %q is not a number of processes", val)
		}
		s.NP = np
	case "uses":
		for _, w := range strings.Fields(val) {
			if w != AnySrc && w != AnyTag {
				return fmt.Errorf("uses: %q is not %s or %s", w, AnySrc, AnyTag)
			}
			s.Uses[w] = true
		}
	case "timeout":
		sec, err := strconv.Atoi(val)
		if err != nil || sec < 1 {
			return fmt.Errorf("timeout: %q is not a number of seconds", val)
		}
		s.Timeout = time.Duration(sec) * time.Second
	case "stats":
		for _, kv := range strings.Fields(val) {
			k, v, ok := strings.Cut(kv, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil {
				return fmt.Errorf("stats: %q is not field=number", kv)
			}
			s.Stats[k] = n
		}
	case "known":
		item, why, _ := strings.Cut(val, " ")
		if item == "" {
			return fmt.Errorf("known: needs the issue item that fixes it")
		}
		s.Known, s.KnownWhy = item, strings.TrimSpace(why)
		*last = &s.KnownWhy
	case "mpich-bug":
		if val == "" {
			return fmt.Errorf("mpich-bug: needs the reason")
		}
		s.MPICHBug = val
		*last = &s.MPICHBug
	}
	return nil
}

// Programs parses every program of dir (*.c) whose name matches match
// (nil: all), sorted by name.
func Programs(dir string, match *regexp.Regexp) ([]Spec, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var specs []Spec
	for _, f := range files {
		s, err := Parse(f)
		if err != nil {
			return nil, err
		}
		if match == nil || match.MatchString(s.Name) {
			specs = append(specs, s)
		}
	}
	return specs, nil
}

// Mode is a column of the table: "plain", or a wildcard_used value.
type Mode string

// Plain is the column without the library.
const Plain Mode = "plain"

// Modes are the table's columns, in order.
var Modes = []Mode{Plain, "none", "any_tag_same_tag", "any_src|any_tag_same_tag", "any_src"}

// ParseModes reads a comma-separated list of modes ("" or "all": every one).
func ParseModes(s string) ([]Mode, error) {
	if s == "" || s == "all" {
		return Modes, nil
	}
	var out []Mode
	for _, f := range strings.Split(s, ",") {
		m := Mode(strings.TrimSpace(f))
		found := false
		for _, k := range Modes {
			found = found || k == m
		}
		if !found {
			return nil, fmt.Errorf("mode %q: use plain, none, any_tag_same_tag, any_src|any_tag_same_tag or any_src", m)
		}
		out = append(out, m)
	}
	return out, nil
}

// Allows reports whether the hint of m lets the application use wildcard w.
func (m Mode) Allows(w string) bool {
	switch m {
	case Plain, "any_src", "any_src|any_tag_same_tag":
		return true
	case "any_tag_same_tag":
		return w == AnyTag
	}
	return false
}

// Run is what a job produced, as the runner saw it.
type Run struct {
	Finished bool // the job ended by itself
	ExitCode int
	Stdout   string
	Stderr   string
	Problems []string // the harness's findings (timeout, leftovers)
}

// Kind is what happened to a program in one column.
type Kind string

const (
	OK       Kind = "ok"
	Fail     Kind = "FAIL"      // the program found something wrong
	Crash    Kind = "crash"     // non-zero exit without a FAIL line
	NoResult Kind = "no-result" // exit 0 without the ok line
	Timeout  Kind = "timeout"
	Leftover Kind = "leftover" // processes or /dev/shm entries left behind
	Refused  Kind = "refused"  // the library stopped a wildcard its hint rules out
	Stats    Kind = "stats"    // the casperii-stats lines are missing, show a leak or differ from the stats: line
)

// Outcome is a Kind with what explains it.
type Outcome struct {
	Kind     Kind
	Detail   string // the FAIL line's reason, the refused wildcard, the stats problem...
	Wildcard string // Refused: AnySrc or AnyTag
}

var refusal = regexp.MustCompile(`MPI_ANY_(SOURCE|TAG) on a communicator (?:whose|with) wildcard_used=\S+`)

// leakFields must be 0 in every casperii-stats line (docs: "Nothing leaks").
var leakFields = []string{"cells_in_use", "ops_live", "heap_in_use"}

// Classify tells what a run of s in mode m came to.
func Classify(s Spec, m Mode, r Run) Outcome {
	if !r.Finished {
		for _, p := range r.Problems {
			if strings.Contains(p, "timed out") {
				return Outcome{Kind: Timeout, Detail: fmt.Sprintf("no end after %v", s.Timeout)}
			}
		}
		return Outcome{Kind: Crash, Detail: "the harness could not run it: " + strings.Join(r.Problems, "; ")}
	}
	out := r.Stdout + "\n" + r.Stderr
	failLine := ""
	okLine := false
	for _, line := range strings.Split(r.Stdout, "\n") {
		line = strings.TrimSpace(line)
		if line == "ok "+s.Name {
			okLine = true
		} else if strings.HasPrefix(line, "FAIL "+s.Name+":") && failLine == "" {
			failLine = strings.TrimSpace(strings.TrimPrefix(line, "FAIL "+s.Name+":"))
		}
	}
	var o Outcome
	switch {
	case m != Plain && r.ExitCode != 0 && refusal.MatchString(out):
		w := AnySrc
		if refusal.FindStringSubmatch(out)[1] == "TAG" {
			w = AnyTag
		}
		o = Outcome{Kind: Refused, Wildcard: w, Detail: refusal.FindString(out)}
	case failLine != "":
		o = Outcome{Kind: Fail, Detail: failLine}
	case r.ExitCode != 0:
		o = Outcome{Kind: Crash, Detail: fmt.Sprintf("exit code %d; %s", r.ExitCode, firstLines(r.Stderr, 2))}
	case !okLine:
		o = Outcome{Kind: NoResult, Detail: "exit code 0 without the line \"ok " + s.Name + "\""}
	default:
		o = Outcome{Kind: OK}
	}
	if len(r.Problems) > 0 && o.Kind != Crash {
		return Outcome{Kind: Leftover, Detail: strings.Join(r.Problems, "; ")}
	}
	if o.Kind == OK && m != Plain {
		if why := checkStats(s, r.Stderr); why != "" {
			return Outcome{Kind: Stats, Detail: why}
		}
	}
	return o
}

// checkStats checks the casperii-stats lines of a library run that
// succeeded: one per user, no leak, and the spec's stats: values.
func checkStats(s Spec, stderr string) string {
	var lines []map[string]string
	for _, line := range strings.Split(stderr, "\n") {
		i := strings.Index(line, "casperii-stats ")
		if i < 0 {
			continue
		}
		f := map[string]string{"": strings.TrimSpace(line[i:])}
		for _, w := range strings.Fields(line[i+len("casperii-stats "):]) {
			if k, v, ok := strings.Cut(w, "="); ok {
				f[k] = v
			}
		}
		lines = append(lines, f)
	}
	if len(lines) != s.NP {
		return fmt.Sprintf("%d casperii-stats lines for %d users", len(lines), s.NP)
	}
	want := map[string]int64{}
	for _, k := range leakFields {
		want[k] = 0
	}
	for k, v := range s.Stats {
		want[k] = v
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, f := range lines {
		for _, k := range keys {
			if got, ok := f[k]; !ok || got != strconv.FormatInt(want[k], 10) {
				return fmt.Sprintf("%s is %q, want %d: %s", k, got, want[k], f[""])
			}
		}
	}
	return ""
}

func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "casperii-stats ") {
			out = append(out, l)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, " | ")
}

// Verdict is how an outcome compares with what the program and plain
// MPICH lead to expect.
type Verdict string

const (
	AsExpected    Verdict = "expected"       // ok, or the same as plain MPICH
	ExpectedError Verdict = "expected-error" // the library refused a declared wildcard its hint rules out
	KnownDiff     Verdict = "known"          // a difference an issue item is fixing (the known: line)
	MPICHBug      Verdict = "mpich-bug"      // plain MPICH fails, as the mpich-bug: line says
	Unexpected    Verdict = "unexpected"
)

// Cell is one program in one column.
type Cell struct {
	Mode    Mode
	Outcome Outcome
	Verdict Verdict
	Cmd     string // the job's command line
	Output  string // the job's output (for unexpected cells)
}

// Judge gives the verdict on o, the outcome of s in mode m, where plain is
// the program's outcome under plain MPICH (nil if that column was not
// run).
func Judge(s Spec, m Mode, o Outcome, plain *Outcome) Verdict {
	if m == Plain {
		switch {
		case o.Kind == OK:
			return AsExpected
		case s.MPICHBug != "" && (o.Kind == Fail || o.Kind == Crash):
			return MPICHBug
		}
		return Unexpected
	}
	switch {
	case o.Kind == OK:
		return AsExpected
	case o.Kind == Refused && s.Uses[o.Wildcard] && !m.Allows(o.Wildcard):
		return ExpectedError
	case s.MPICHBug != "" && plain != nil && plain.Kind != OK && plain.Kind == o.Kind:
		return AsExpected
	case s.Known != "":
		return KnownDiff
	}
	return Unexpected
}

// Text is how the cell reads in the table.
func (c Cell) Text(s Spec) string {
	switch c.Verdict {
	case AsExpected:
		if c.Outcome.Kind == OK {
			return "ok"
		}
		return string(c.Outcome.Kind) + " (as plain)"
	case ExpectedError:
		return "expected-error"
	case KnownDiff:
		return string(c.Outcome.Kind) + " (known " + s.Known + ")"
	case MPICHBug:
		return string(c.Outcome.Kind) + " (mpich)"
	}
	return "!" + string(c.Outcome.Kind)
}

// Row is a program's cells, in the order of the columns run.
type Row struct {
	Spec  Spec
	Cells []Cell
}

// Report is the table and the lists under it. Unexpected counts the
// unexpected differences.
func Report(modes []Mode, rows []Row) (text string, unexpected int) {
	var b strings.Builder
	head := []string{"program", "np"}
	for _, m := range modes {
		head = append(head, string(m))
	}
	table := [][]string{head}
	counts := map[Verdict]int{}
	var notes, unexp, known []string
	for _, r := range rows {
		line := []string{r.Spec.Name, strconv.Itoa(r.Spec.NP)}
		knownSeen := false
		libRun := false
		for _, c := range r.Cells {
			line = append(line, c.Text(r.Spec))
			counts[c.Verdict]++
			switch c.Verdict {
			case Unexpected:
				unexp = append(unexp, fmt.Sprintf("%s [%s]: %s: %s\n    %s: mpicc -O2 conformance/%s, then\n    %s%s",
					r.Spec.Name, c.Mode, c.Outcome.Kind, c.Outcome.Detail, r.Spec.Name, r.Spec.Path, c.Cmd, indent(c.Output)))
			case KnownDiff:
				knownSeen = true
				known = append(known, fmt.Sprintf("%s [%s]: %s: %s", r.Spec.Name, c.Mode, c.Outcome.Kind, c.Outcome.Detail))
			}
			if c.Mode != Plain {
				libRun = true
			}
			if c.Mode == Plain && r.Spec.MPICHBug != "" && c.Outcome.Kind == OK {
				notes = append(notes, fmt.Sprintf("%s: plain MPICH passes: the mpich-bug: line may be stale", r.Spec.Name))
			}
		}
		if r.Spec.Known != "" && libRun && !knownSeen {
			notes = append(notes, fmt.Sprintf("%s: the known difference (%s) did not show: if %s's fix is in, drop the known: line",
				r.Spec.Name, r.Spec.KnownWhy, r.Spec.Known))
		}
		table = append(table, line)
	}
	widths := make([]int, len(head))
	for _, l := range table {
		for i, c := range l {
			widths[i] = max(widths[i], len(c))
		}
	}
	for i, l := range table {
		for j, c := range l {
			if j > 0 {
				b.WriteString("  ")
			}
			if j == len(l)-1 {
				b.WriteString(c)
			} else {
				fmt.Fprintf(&b, "%-*s", widths[j], c)
			}
		}
		b.WriteString("\n")
		if i == 0 {
			total := 2 * (len(widths) - 1)
			for _, w := range widths {
				total += w
			}
			b.WriteString(strings.Repeat("-", total) + "\n")
		}
	}
	jobs := 0
	for _, n := range counts {
		jobs += n
	}
	fmt.Fprintf(&b, "\n%d programs, %d jobs: %d as expected, %d expected errors, %d known differences, %d MPICH bugs, %d unexpected differences\n",
		len(rows), jobs, counts[AsExpected], counts[ExpectedError], counts[KnownDiff], counts[MPICHBug], counts[Unexpected])
	var bugs []string
	for _, r := range rows {
		if r.Spec.MPICHBug != "" {
			bugs = append(bugs, fmt.Sprintf("%s: %s", r.Spec.Name, r.Spec.MPICHBug))
		}
	}
	section := func(title string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(&b, "\n%s:\n", title)
			for _, it := range items {
				b.WriteString("  " + it + "\n")
			}
		}
	}
	section("unexpected differences", unexp)
	var knownWhy []string
	for _, r := range rows {
		if r.Spec.Known != "" {
			knownWhy = append(knownWhy, fmt.Sprintf("%s: %s: %s", r.Spec.Name, r.Spec.Known, r.Spec.KnownWhy))
		}
	}
	section("known differences (the issue items fixing them)", knownWhy)
	section("known differences seen", known)
	section("MPICH bugs (the plain column)", bugs)
	section("notes", notes)
	return b.String(), counts[Unexpected]
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "\n      " + strings.ReplaceAll(s, "\n", "\n      ")
}
