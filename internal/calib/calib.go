// Package calib reads and writes CasperII's calibration file: per message
// size, the median ping-pong exchange time (post + wait, no compute,
// buffers untouched) of plain MPICH (the direct route) and of static
// offload through the ghosts, measured on this machine by
// `casperii calibrate`. The library reads it (CSP_CALIBRATION=path) to
// decide when offload pays (CSP_ASYNC_CONFIG=auto).
//
// The format, version 1:
//
//	# casperii calibration v1
//	# host: vm, 2 cores (AMD EPYC), Linux 6.1.0; MPICH 4.0.2 ch4:ucx; layout nodes=2,users=1,ghosts=1; 2026-11-25T05:00:00Z
//	# command: casperii calibrate
//	# size_bytes direct_us offload_us   (median ping-pong exchange time, post + wait, no compute, buffers untouched)
//	size 8 0.36 8.80
//	size 64 0.41 9.02
//
// The first line names the format and its version and must be exactly
// Magic. Every other line is a comment (starting with #), blank, or
// "size <bytes> <direct_us> <offload_us>": bytes a positive integer that
// fits an MPI count, both times finite and positive (microseconds),
// fields separated by spaces or tabs. Sizes ascend strictly; there is at
// least one. Parse reports every bad line with its number.
//
// One optional line gives the thresholds of the windows' automatic choice
// (Casper's HIGH_CR and LOW_CR, which its paper has measured offline per
// machine), "rma_auto <low_cr_pct> <high_cr_pct> <min_stretch_us>": a
// window is redirected when the targets it accessed spent less than
// low_cr_pct percent of their time in MPI, and no longer when more than
// high_cr_pct; a target entering MPI at least every min_stretch_us counts
// as in MPI. 0 < low < high < 100, min_stretch_us >= 0. casperii
// calibrate does not measure them (it writes the line only when given);
// without it the library's built-in thresholds hold.
package calib

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Magic is the first line of a version 1 file.
const Magic = "# casperii calibration v1"

// Columns is the comment line that names the columns of the size lines.
const Columns = "# size_bytes direct_us offload_us   (median ping-pong exchange time, post + wait, no compute, buffers untouched)"

// MaxSize is the largest size a line may give: an MPI count of bytes.
const MaxSize = math.MaxInt32

// Point is one size line: the median exchange times at Size bytes.
type Point struct {
	Size      int64
	DirectUS  float64 // plain MPICH (the direct route)
	OffloadUS float64 // through the ghosts (static offload)
}

// Table is a calibration: its points in ascending order of size, at least
// one.
type Table struct {
	Points []Point
	RMA    *RMAAuto // the rma_auto line; nil: none
}

// RMAAuto are the thresholds of the windows' automatic choice (the
// rma_auto line).
type RMAAuto struct {
	LowCRPct, HighCRPct float64 // on below, off above: percent of time in MPI
	MinStretchUS        float64 // a target entering MPI at least this often counts as in MPI
}

// RMAAutoLine names the fields of the rma_auto line.
const RMAAutoLine = "rma_auto <low_cr_pct> <high_cr_pct> <min_stretch_us>"

// LineError is what is wrong with one line of a file.
type LineError struct {
	Line int // 1-based
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ParseError lists every bad line of a file, in order.
type ParseError struct {
	Errs []*LineError
	More bool // more lines were bad than Errs lists (maxErrors)
}

func (e *ParseError) Error() string {
	parts := make([]string, 0, len(e.Errs)+1)
	for _, l := range e.Errs {
		parts = append(parts, l.Error())
	}
	if e.More {
		parts = append(parts, "(more errors not listed)")
	}
	return strings.Join(parts, "\n")
}

// maxErrors bounds the errors a ParseError lists.
const maxErrors = 50

// maxLine bounds the length of a line.
const maxLine = 4096

// Parse reads a calibration file. The error, if any, is a *ParseError
// listing every bad line.
func Parse(r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256), maxLine)
	pe := &ParseError{}
	fail := func(line int, format string, args ...any) {
		if len(pe.Errs) == maxErrors {
			pe.More = true
			return
		}
		pe.Errs = append(pe.Errs, &LineError{Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	t := &Table{}
	lineOf := map[int64]int{} // size -> the line that gave it
	n, rmaLine := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), " \t\r")
		if n == 1 {
			checkMagic(line, fail)
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		f := strings.Fields(trimmed)
		if len(f) == 0 { // only other white space ("\f"): blank
			continue
		}
		if f[0] == "rma_auto" {
			rmaLine = parseRMA(n, f, t, rmaLine, fail)
			continue
		}
		if f[0] != "size" {
			fail(n, "unknown line %q; want %q, %q or a # comment", clip(trimmed), "size <bytes> <direct_us> <offload_us>", RMAAutoLine)
			continue
		}
		if len(f) != 4 {
			fail(n, "%d fields after size; want 3: <bytes> <direct_us> <offload_us>", len(f)-1)
			continue
		}
		p, ok := Point{}, true
		if v, err := strconv.ParseInt(f[1], 10, 64); err != nil || v < 1 || v > MaxSize {
			fail(n, "size %q is not a byte count from 1 to %d", clip(f[1]), int64(MaxSize))
			ok = false
		} else {
			p.Size = v
		}
		for i, dst := range []*float64{&p.DirectUS, &p.OffloadUS} {
			name := []string{"direct_us", "offload_us"}[i]
			v, err := strconv.ParseFloat(f[2+i], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
				fail(n, "%s %q is not a positive number of microseconds", name, clip(f[2+i]))
				ok = false
				continue
			}
			*dst = v
		}
		if !ok {
			continue
		}
		if prev, dup := lineOf[p.Size]; dup {
			fail(n, "size %d again (line %d gave it)", p.Size, prev)
			continue
		}
		if k := len(t.Points); k > 0 && p.Size < t.Points[k-1].Size {
			fail(n, "size %d after size %d: sizes must ascend", p.Size, t.Points[k-1].Size)
			continue
		}
		lineOf[p.Size] = n
		t.Points = append(t.Points, p)
	}
	if err := sc.Err(); err != nil {
		msg := err.Error()
		if errors.Is(err, bufio.ErrTooLong) {
			msg = fmt.Sprintf("longer than %d bytes", maxLine)
		}
		fail(n+1, "%s", msg)
	}
	switch {
	case n == 0:
		fail(1, "empty file; the first line must be %q", Magic)
	case len(t.Points) == 0 && len(pe.Errs) == 0:
		fail(n, "no size lines: a calibration needs at least one")
	}
	if len(pe.Errs) > 0 {
		return nil, pe
	}
	return t, nil
}

// parseRMA parses the rma_auto line f (line n) into t, and returns the
// number of the line that gave it (prev: an earlier one, or 0).
func parseRMA(n int, f []string, t *Table, prev int, fail func(int, string, ...any)) int {
	if prev != 0 {
		fail(n, "rma_auto again (line %d gave it)", prev)
		return prev
	}
	if len(f) != 4 {
		fail(n, "%d fields after rma_auto; want 3: %s", len(f)-1, strings.TrimPrefix(RMAAutoLine, "rma_auto "))
		return n
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[1+i], 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			fail(n, "%s %q is not a number >= 0", []string{"low_cr_pct", "high_cr_pct", "min_stretch_us"}[i], clip(f[1+i]))
			return n
		}
		v[i] = x
	}
	if !(v[0] > 0 && v[0] < v[1] && v[1] < 100) {
		fail(n, "rma_auto %s %s: want 0 < low_cr_pct < high_cr_pct < 100", f[1], f[2])
		return n
	}
	t.RMA = &RMAAuto{LowCRPct: v[0], HighCRPct: v[1], MinStretchUS: v[2]}
	return n
}

// checkMagic checks the first line.
func checkMagic(line string, fail func(int, string, ...any)) {
	if line == Magic {
		return
	}
	const prefix = "# casperii calibration "
	if v, ok := strings.CutPrefix(line, prefix); ok {
		fail(1, "format %q is not supported; this reader knows v1 (first line %q)", clip(v), Magic)
		return
	}
	fail(1, "not a CasperII calibration file: the first line must be %q", Magic)
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// At returns the direct and offload times at size, interpolated linearly
// in log2(size) between the two nearest points, and clamped to the first
// and last points outside their range (a size below 1 counts as 1).
func (t *Table) At(size int64) (direct, offload float64) {
	ps := t.Points
	if len(ps) == 0 {
		return math.NaN(), math.NaN()
	}
	if size <= ps[0].Size {
		return ps[0].DirectUS, ps[0].OffloadUS
	}
	last := ps[len(ps)-1]
	if size >= last.Size {
		return last.DirectUS, last.OffloadUS
	}
	// ps[i-1].Size < size <= ps[i].Size
	i := sort.Search(len(ps), func(i int) bool { return ps[i].Size >= size })
	a, b := ps[i-1], ps[i]
	f := (math.Log2(float64(size)) - math.Log2(float64(a.Size))) / (math.Log2(float64(b.Size)) - math.Log2(float64(a.Size)))
	return a.DirectUS + f*(b.DirectUS-a.DirectUS), a.OffloadUS + f*(b.OffloadUS-a.OffloadUS)
}

// Header is what the comment lines of a written file say.
type Header struct {
	// Host describes the machine and the measurement: "vm, 2 cores (...),
	// Linux ...; MPICH ...; layout ...; <date>".
	Host string
	// Command is the command line that measured it.
	Command string
}

// Write writes t in the version 1 format, each time with 2 decimals. A
// time that would be written as 0.00 is an error (Parse would refuse it).
func (t *Table) Write(w io.Writer, h Header) error {
	if len(t.Points) == 0 {
		return errors.New("calibration: no points to write")
	}
	var b strings.Builder
	b.WriteString(Magic + "\n")
	fmt.Fprintf(&b, "# host: %s\n", oneLine(h.Host))
	fmt.Fprintf(&b, "# command: %s\n", oneLine(h.Command))
	b.WriteString(Columns + "\n")
	for i, p := range t.Points {
		if i > 0 && p.Size <= t.Points[i-1].Size {
			return fmt.Errorf("calibration: size %d after %d: sizes must ascend", p.Size, t.Points[i-1].Size)
		}
		if p.Size < 1 || p.Size > MaxSize {
			return fmt.Errorf("calibration: size %d out of range", p.Size)
		}
		d, o := strconv.FormatFloat(p.DirectUS, 'f', 2, 64), strconv.FormatFloat(p.OffloadUS, 'f', 2, 64)
		for _, v := range []float64{p.DirectUS, p.OffloadUS} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0.005 {
				return fmt.Errorf("calibration: size %d: time %g us cannot be written with 2 decimals", p.Size, v)
			}
		}
		fmt.Fprintf(&b, "size %d %s %s\n", p.Size, d, o)
	}
	if r := t.RMA; r != nil {
		if !(r.LowCRPct > 0 && r.LowCRPct < r.HighCRPct && r.HighCRPct < 100) || math.IsNaN(r.MinStretchUS) || math.IsInf(r.MinStretchUS, 0) || r.MinStretchUS < 0 {
			return fmt.Errorf("calibration: rma_auto %g %g %g out of range", r.LowCRPct, r.HighCRPct, r.MinStretchUS)
		}
		b.WriteString("# " + RMAAutoLine + "   (windows' automatic choice: on below, off above that share of time in MPI)\n")
		fmt.Fprintf(&b, "rma_auto %s %s %s\n", strconv.FormatFloat(r.LowCRPct, 'f', -1, 64),
			strconv.FormatFloat(r.HighCRPct, 'f', -1, 64), strconv.FormatFloat(r.MinStretchUS, 'f', -1, 64))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine keeps a header value on its comment line.
func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
