package osubench

import (
	"fmt"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plotPanels are the metrics drawn for each benchmark, one panel each.
var plotPanels = map[Bench][]string{
	Latency: {"post_us", "wait_us"},
	Overlap: {"total_us", "overlap_pct"},
	Rate:    {"msg_rate"},
	Halo:    {"iter_us", "wait_us"},
	Phases:  {"small_us", "large_us", "round_us"},
	Probe:   {"rtt_us", "server_comp_pct"},
	RMA:     {"acc_contig_epoch_us", "acc_contig_flush_us", "stretch_pct"},
	RMAGA:   {"acc_per_s", "epoch_us"},
}

var panelTitle = map[Bench]string{
	"latency:post_us":         "post time (Isend + Irecv)",
	"latency:wait_us":         "wait time (Waitall)",
	"overlap:total_us":        "total time (touch + post + compute + wait)",
	"overlap:overlap_pct":     "overlap %",
	"rate:msg_rate":           "message rate",
	"halo:iter_us":            "time per iteration",
	"halo:wait_us":            "wait time (Waitall)",
	"phases:small_us":         "(a) small-message phase per round",
	"phases:large_us":         "(b) overlapped phase per round",
	"phases:round_us":         "time per round, (a) + (b)",
	"probe:rtt_us":            "request round trip",
	"probe:server_comp_pct":   "server's compute throughput",
	"rma:acc_contig_epoch_us": "lock + accumulate + flush + unlock",
	"rma:acc_contig_flush_us": "time in MPI_Win_flush (accumulate)",
	"rma:stretch_pct":         "target's compute stretch",
	"rma-ga:acc_per_s":        "accumulates per second",
	"rma-ga:epoch_us":         "lock + accumulate + unlock",
}

func metricOf(b Bench, key string) Metric {
	for _, m := range Metrics[b] {
		if m.Key == key {
			return m
		}
	}
	return Metric{Key: key, Title: key}
}

// sizeAxis labels the x axis of benchmark b: what its size is.
func sizeAxis(b Bench) string {
	switch b {
	case Phases:
		return "size of the overlapped phase's messages (bytes)"
	case Probe:
		return "request and response size (bytes)"
	case RMA, RMAGA:
		return "bytes per operation"
	}
	return "message size (bytes)"
}

// sizeX maps a message size to the log-scale x axis (0 is drawn at 0.5).
func sizeX(s int64) float64 {
	if s <= 0 {
		return 0.5
	}
	return float64(s)
}

// sizeTicks labels the measured sizes.
type sizeTicks []int64

func (t sizeTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	step := 1
	if len(t) > 12 {
		step = (len(t) + 11) / 12
	}
	for i, s := range t {
		x := sizeX(s)
		if x < min || x > max {
			continue
		}
		lbl := ""
		if i%step == 0 {
			lbl = FormatSize(s)
		}
		out = append(out, plot.Tick{Value: x, Label: lbl})
	}
	return out
}

type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// panel draws metric key of br: one series per mode (median, with min-max
// error bars), sizes on a log scale.
func panel(br *BenchResult, key string) (*plot.Plot, error) {
	m := metricOf(br.Bench, key)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s\n%s", br.Bench, panelTitle[br.Bench+":"+Bench(key)], br.Series.Label())
	p.X.Label.Text = sizeAxis(br.Bench)
	p.Y.Label.Text = fmt.Sprintf("%s [%s]", m.Key, m.Unit)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = sizeTicks(br.Sizes)
	logY := m.Unit != "%"
	// Percentages (overlap) can run to thousands below zero when a mode is
	// far slower than the compute it should hide: clip them to a readable range.
	const pctLo, pctHi = -100.0, 200.0
	clip := func(v float64) float64 {
		if logY {
			return v
		}
		return math.Max(pctLo, math.Min(pctHi, v))
	}
	clipped := false
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, mode := range br.Modes {
		var pts errPoints
		for _, s := range br.Sizes {
			sp := br.Summary(mode, key, s)
			if sp.N == 0 || (logY && !(sp.Min > 0)) {
				continue
			}
			med, mn, mx := clip(sp.Median), clip(sp.Min), clip(sp.Max)
			clipped = clipped || med != sp.Median || mn != sp.Min || mx != sp.Max
			pts.XYs = append(pts.XYs, plotter.XY{X: sizeX(s), Y: med})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{med - mn, mx - med})
			lo, hi = math.Min(lo, sp.Min), math.Max(hi, sp.Max)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		s.Color = plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color = plotutil.Color(i)
		p.Add(l, s, eb)
		p.Legend.Add(mode, l, s)
	}
	// Fix the x range to the sizes (a log axis cannot take gonum's default
	// range of an empty plot).
	if len(br.Sizes) > 0 {
		p.X.Min, p.X.Max = sizeX(br.Sizes[0])/1.5, sizeX(br.Sizes[len(br.Sizes)-1])*1.5
	}
	if math.IsInf(lo, 0) {
		p.Title.Text += " (no data)"
		p.Y.Min, p.Y.Max = 1, 10
	}
	if logY && hi > 0 {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		// A log axis needs a range of at least a decade to get labels.
		if hi/lo < 10 {
			mid := math.Sqrt(lo * hi)
			p.Y.Min, p.Y.Max = mid/math.Sqrt(10), mid*math.Sqrt(10)
		}
	}
	if clipped {
		p.Title.Text += fmt.Sprintf(" (clipped to %g..%g)", pctLo, pctHi)
	}
	p.Legend.Top = true
	p.Legend.Left = !m.HigherBetter || m.Unit == "%" // curves rise to the right, except the message rate
	p.Add(plotter.NewGrid())
	return p, nil
}

// PlotBench draws br's panels side by side into a PNG file.
func PlotBench(br *BenchResult, path string) error {
	keys := plotPanels[br.Bench]
	row := make([]*plot.Plot, 0, len(keys))
	for _, k := range keys {
		p, err := panel(br, k)
		if err != nil {
			return err
		}
		row = append(row, p)
	}
	w := vg.Length(len(row)) * 5 * vg.Inch
	h := 4 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
