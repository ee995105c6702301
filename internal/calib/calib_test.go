package calib

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const good = `# casperii calibration v1
# host: vm, 2 cores (AMD EPYC), Linux 6.1.0; MPICH 4.0.2 ch4:ucx; layout nodes=2,users=1,ghosts=1; 2026-11-25T05:00:00Z
# command: casperii calibrate
# size_bytes direct_us offload_us   (median ping-pong exchange time, post + wait, no compute, buffers untouched)
size 8 0.36 8.80
size 64 0.40 9.00

	# a comment after a blank line, indented
size 1024	1.00   10.00
size 4194304 600.00 700.00
`

func TestParseGood(t *testing.T) {
	tb, err := Parse(strings.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, []Point{
		{Size: 8, DirectUS: 0.36, OffloadUS: 8.80},
		{Size: 64, DirectUS: 0.40, OffloadUS: 9.00},
		{Size: 1024, DirectUS: 1.00, OffloadUS: 10.00},
		{Size: 4 << 20, DirectUS: 600, OffloadUS: 700},
	}, tb.Points)

	// CRLF line ends and no final newline are fine.
	tb, err = Parse(strings.NewReader(strings.ReplaceAll(Magic+"\nsize 8 1 2\nsize 16 3 4", "\n", "\r\n")))
	require.NoError(t, err)
	assert.Len(t, tb.Points, 2)
}

// Each kind of bad line is reported with its line number, and every bad
// line of a file is reported, not only the first.
func TestParseBadLines(t *testing.T) {
	for _, tc := range []struct {
		name, body string // body follows the magic line (line 2 on)
		line       int
		msg        string
	}{
		{"unknown keyword", "size 8 1 2\nlatency 8 1 2", 3, `unknown line "latency 8 1 2"`},
		{"too few fields", "size 8 1", 2, "2 fields after size; want 3"},
		{"too many fields", "size 8 1 2 3", 2, "4 fields after size; want 3"},
		{"size not a number", "size 8K 1 2", 2, `size "8K" is not a byte count`},
		{"size zero", "size 0 1 2", 2, `size "0" is not a byte count`},
		{"size negative", "size -8 1 2", 2, `size "-8" is not a byte count`},
		{"size too large", "size 4294967296 1 2", 2, `size "4294967296" is not a byte count from 1 to 2147483647`},
		{"direct not a number", "size 8 fast 2", 2, `direct_us "fast" is not a positive number`},
		{"direct zero", "size 8 0 2", 2, `direct_us "0" is not a positive number`},
		{"offload negative", "size 8 1 -2", 2, `offload_us "-2" is not a positive number`},
		{"offload NaN", "size 8 1 NaN", 2, `offload_us "NaN" is not a positive number`},
		{"offload Inf", "size 8 1 +Inf", 2, `offload_us "+Inf" is not a positive number`},
		{"duplicate size", "size 8 1 2\nsize 64 1 2\nsize 64 3 4", 4, "size 64 again (line 3 gave it)"},
		{"descending size", "size 64 1 2\nsize 8 1 2", 3, "size 8 after size 64: sizes must ascend"},
		{"no size lines", "# only comments\n", 2, "no size lines"},
		{"line too long", "size 8 1 2\n# " + strings.Repeat("x", 5000), 3, "longer than 4096 bytes"},
		{"rma_auto fields", "size 8 1 2\nrma_auto 50 80", 3, "2 fields after rma_auto; want 3"},
		{"rma_auto number", "size 8 1 2\nrma_auto 50 high 500", 3, `high_cr_pct "high" is not a number >= 0`},
		{"rma_auto order", "size 8 1 2\nrma_auto 80 50 500", 3, "want 0 < low_cr_pct < high_cr_pct < 100"},
		{"rma_auto 100", "size 8 1 2\nrma_auto 50 100 500", 3, "want 0 < low_cr_pct < high_cr_pct < 100"},
		{"rma_auto again", "rma_auto 50 80 500\nsize 8 1 2\nrma_auto 40 90 0", 4, "rma_auto again (line 2 gave it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(Magic + "\n" + tc.body))
			var pe *ParseError
			require.True(t, errors.As(err, &pe), "%v", err)
			require.Len(t, pe.Errs, 1, "%v", err)
			assert.Equal(t, tc.line, pe.Errs[0].Line, "%v", err)
			assert.Contains(t, pe.Errs[0].Msg, tc.msg)
			assert.Contains(t, err.Error(), "line ")
		})
	}

	for _, tc := range []struct{ in, msg string }{
		{"", "empty file"},
		{"size 8 1 2\n", "not a CasperII calibration file"},
		{"# casperii calibration v2\nsize 8 1 2\n", `format "v2" is not supported; this reader knows v1`},
		{"# casperii calibration v1 extra\nsize 8 1 2\n", `format "v1 extra" is not supported`},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		var pe *ParseError
		require.True(t, errors.As(err, &pe), "%q: %v", tc.in, err)
		assert.Equal(t, 1, pe.Errs[0].Line, tc.in)
		assert.Contains(t, pe.Errs[0].Msg, tc.msg, tc.in)
	}

	// Every bad line, in order.
	_, err := Parse(strings.NewReader("# not it\nsize 8 1 2\nsize x 1 2\nfoo\nsize 4 1 2\n"))
	var pe *ParseError
	require.True(t, errors.As(err, &pe))
	var lines []int
	for _, e := range pe.Errs {
		lines = append(lines, e.Line)
	}
	assert.Equal(t, []int{1, 3, 4, 5}, lines)
	assert.Equal(t, "line 1: not a CasperII calibration file: the first line must be \"# casperii calibration v1\"\n"+
		"line 3: size \"x\" is not a byte count from 1 to 2147483647\n"+
		"line 4: unknown line \"foo\"; want \"size <bytes> <direct_us> <offload_us>\", \"rma_auto <low_cr_pct> <high_cr_pct> <min_stretch_us>\" or a # comment\n"+
		"line 5: size 4 after size 8: sizes must ascend", err.Error())

	// A file of garbage lists at most maxErrors of them.
	_, err = Parse(strings.NewReader(Magic + "\n" + strings.Repeat("bad\n", 200)))
	require.True(t, errors.As(err, &pe))
	assert.Len(t, pe.Errs, maxErrors)
	assert.True(t, pe.More)
	assert.True(t, strings.HasSuffix(err.Error(), "(more errors not listed)"))
}

func TestAt(t *testing.T) {
	tb := &Table{Points: []Point{{8, 1, 10}, {32, 3, 30}, {1024, 13, 20}}}
	at := func(size int64) [2]float64 { d, o := tb.At(size); return [2]float64{d, o} }
	assert.Equal(t, [2]float64{1, 10}, at(8), "a point")
	assert.Equal(t, [2]float64{3, 30}, at(32))
	assert.Equal(t, [2]float64{13, 20}, at(1024))
	assert.Equal(t, [2]float64{2, 20}, at(16), "halfway in log2 between 8 and 32")
	d, o := tb.At(181) // log2(181) = 7.4998: about halfway between 32 and 1024 (2^5, 2^10)
	assert.InDelta(t, 8, d, 0.001)
	assert.InDelta(t, 25, o, 0.001)
	assert.InDelta(t, 3+10*(math.Log2(181)-5)/5, d, 1e-12)
	assert.InDelta(t, 30-10*(math.Log2(181)-5)/5, o, 1e-12)
	assert.Equal(t, [2]float64{1, 10}, at(1), "clamped below")
	assert.Equal(t, [2]float64{1, 10}, at(0))
	assert.Equal(t, [2]float64{1, 10}, at(-5))
	assert.Equal(t, [2]float64{13, 20}, at(1<<30), "clamped above")

	one := &Table{Points: []Point{{64, 2, 4}}}
	d, o = one.At(8)
	assert.Equal(t, [2]float64{2, 4}, [2]float64{d, o})
	d, o = one.At(1 << 20)
	assert.Equal(t, [2]float64{2, 4}, [2]float64{d, o})
	d, _ = (&Table{}).At(8)
	assert.True(t, math.IsNaN(d))
}

func TestWriteRoundTrip(t *testing.T) {
	tb := &Table{Points: []Point{{8, 0.364, 8.8}, {64, 0.4, 9.005}, {4 << 20, 612.3456, 700}}}
	var b bytes.Buffer
	require.NoError(t, tb.Write(&b, Header{Host: "vm, 2 cores\n(odd)", Command: "casperii calibrate --reps 3"}))
	assert.Equal(t, Magic+`
# host: vm, 2 cores (odd)
# command: casperii calibrate --reps 3
`+Columns+`
size 8 0.36 8.80
size 64 0.40 9.01
size 4194304 612.35 700.00
`, b.String())
	back, err := Parse(&b)
	require.NoError(t, err)
	assert.Equal(t, []Point{{8, 0.36, 8.8}, {64, 0.4, 9.01}, {4 << 20, 612.35, 700}}, back.Points)
	assert.Nil(t, back.RMA, "no rma_auto line unless given")

	// The windows' thresholds, when given, come back exactly.
	tb.RMA = &RMAAuto{LowCRPct: 45.5, HighCRPct: 85, MinStretchUS: 750}
	b.Reset()
	require.NoError(t, tb.Write(&b, Header{}))
	assert.Contains(t, b.String(), "\nrma_auto 45.5 85 750\n")
	back, err = Parse(&b)
	require.NoError(t, err)
	assert.Equal(t, tb.RMA, back.RMA)
	tb.RMA = &RMAAuto{LowCRPct: 90, HighCRPct: 80}
	assert.Error(t, tb.Write(&bytes.Buffer{}, Header{}), "low above high")
	tb.RMA = nil

	for _, bad := range []*Table{
		{},
		{Points: []Point{{8, 0.004, 1}}},
		{Points: []Point{{8, 1, math.NaN()}}},
		{Points: []Point{{64, 1, 1}, {8, 1, 1}}},
		{Points: []Point{{0, 1, 1}}},
	} {
		assert.Error(t, bad.Write(&bytes.Buffer{}, Header{}), "%+v", bad.Points)
	}
}

// FuzzParse: Parse never panics; what it accepts is a valid table (sizes
// ascending, times finite and positive) that At reproduces at its points
// and interpolates between them, and that Write and Parse give back
// within the 2 decimals written; what it refuses it explains line by line.
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add(Magic + "\nsize 8 1 2\n")
	f.Add(Magic + "\nsize 8 0.001 2\nsize 9 1e300 1e-300\n")
	f.Add("# casperii calibration v2\nsize 8 1 2\n")
	f.Add(Magic + "\nsize 64 1 2\nsize 8 1 2\nsize 8 x y\n")
	f.Add("")
	f.Add(Magic + "\nsize 8 1 2\nrma_auto 50 80 500\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := Parse(strings.NewReader(in))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errs) == 0 {
				t.Fatalf("error %v is not a ParseError listing lines", err)
			}
			for _, e := range pe.Errs {
				if e.Line < 1 || e.Msg == "" {
					t.Fatalf("bad line error %+v", e)
				}
			}
			return
		}
		if len(tb.Points) == 0 {
			t.Fatal("accepted a table without points")
		}
		small := false
		for i, p := range tb.Points {
			if p.Size < 1 || p.Size > MaxSize || !(p.DirectUS > 0) || !(p.OffloadUS > 0) || math.IsInf(p.DirectUS, 0) || math.IsInf(p.OffloadUS, 0) {
				t.Fatalf("accepted point %+v", p)
			}
			if i > 0 && p.Size <= tb.Points[i-1].Size {
				t.Fatalf("sizes not ascending: %+v", tb.Points)
			}
			if d, o := tb.At(p.Size); d != p.DirectUS || o != p.OffloadUS {
				t.Fatalf("At(%d) = %g, %g; the point is %+v", p.Size, d, o, p)
			}
			if i > 0 {
				a := tb.Points[i-1]
				mid := a.Size + (p.Size-a.Size)/2
				d, o := tb.At(mid)
				if d < math.Min(a.DirectUS, p.DirectUS)*(1-1e-12) || d > math.Max(a.DirectUS, p.DirectUS)*(1+1e-12) ||
					o < math.Min(a.OffloadUS, p.OffloadUS)*(1-1e-12) || o > math.Max(a.OffloadUS, p.OffloadUS)*(1+1e-12) {
					t.Fatalf("At(%d) = %g, %g outside %+v and %+v", mid, d, o, a, p)
				}
			}
			small = small || p.DirectUS < 0.005 || p.OffloadUS < 0.005
		}
		var b bytes.Buffer
		werr := tb.Write(&b, Header{Host: "h", Command: "c"})
		if small {
			if werr == nil {
				t.Fatal("wrote a time that rounds to 0.00")
			}
			return
		}
		if werr != nil {
			t.Fatalf("Write: %v", werr)
		}
		back, err := Parse(&b)
		if err != nil {
			t.Fatalf("Parse(Write(t)): %v\n%s", err, b.String())
		}
		if len(back.Points) != len(tb.Points) {
			t.Fatalf("round trip: %d points, want %d", len(back.Points), len(tb.Points))
		}
		if (back.RMA == nil) != (tb.RMA == nil) || (tb.RMA != nil && *back.RMA != *tb.RMA) {
			t.Fatalf("round trip: rma_auto %+v, want %+v", back.RMA, tb.RMA)
		}
		for i, p := range back.Points {
			q := tb.Points[i]
			tol := func(v float64) float64 { return 0.005 + 1e-12*v }
			if p.Size != q.Size || math.Abs(p.DirectUS-q.DirectUS) > tol(q.DirectUS) || math.Abs(p.OffloadUS-q.OffloadUS) > tol(q.OffloadUS) {
				t.Fatalf("round trip: %+v, want %+v", p, q)
			}
		}
	})
}
