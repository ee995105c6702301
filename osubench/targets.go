package osubench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Target is one of the project's performance targets, evaluated on the
// medians of one run, in one transport and one series.
type Target struct {
	Issue     string    `json:"issue"` // the issue that set it: "14", "5/6"
	Transport Transport `json:"transport"`
	Bench     Bench     `json:"bench"`
	Series    string    `json:"series"` // the series judged, e.g. "busy compute, touched"
	Mode      string    `json:"mode"`
	Goal      string    `json:"goal"`
	Status    string    `json:"status"` // met, MISSED, not measured
	Measured  string    `json:"measured"`
	Note      string    `json:"note,omitempty"` // conditions that differ from the target's
	// NotRun: the benchmark was not run at all in this transport
	// (WriteTargets summarizes such targets in one line).
	NotRun bool `json:"not_run,omitempty"`
}

const (
	statusMet     = "met"
	statusMissed  = "MISSED"
	statusNoValue = "not measured"
)

// TouchTolUs is the absolute tolerance of the touch-cost target (issue 14
// (c)): under CasperII touching may add at most 1.10 times what it adds
// under plain MPICH, plus TouchTolUs microseconds, so that timer and
// scheduling noise of a microsecond or two at small sizes, where touching
// costs next to nothing, does not decide it.
const TouchTolUs = 2.0

// TouchCostLimit is the most touching may add to CasperII's time per
// iteration when it adds mpiCost to plain MPICH's: 1.10 x mpiCost +
// TouchTolUs. A negative mpiCost (touched faster than untouched: noise)
// counts as 0.
func TouchCostLimit(mpiCost float64) float64 {
	return 1.10*math.Max(mpiCost, 0) + TouchTolUs
}

// EvaluateTargets checks the targets against the results, for every
// transport run and every CasperII mode present: issues 14 and 5/6 for
// static offload (cspii-tag, cspii-dup, go-tag, go-dup; the go-* modes run
// latency only), issue 15 for cspii-auto, cspii-hint and cspii-off, issue
// 16 (rma) for cspii.
func EvaluateTargets(results []*BenchResult) []Target {
	var transports []Transport
	for _, br := range results {
		if !containsT(transports, br.Transport) {
			transports = append(transports, br.Transport)
		}
	}
	var out []Target
	for _, tr := range transports {
		for _, mode := range []string{"cspii-tag", "cspii-dup", "go-tag", "go-dup", "cspii-auto", "cspii-hint", "cspii-off", "cspii"} {
			present := false
			for _, br := range results {
				present = present || (br.Transport == tr && (contains(br.Modes, mode) || br.Skipped[mode] != ""))
			}
			if !present {
				continue
			}
			switch mode {
			case "cspii":
				out = append(out, rmaTargets(results, tr, mode)...)
			case "cspii-auto", "cspii-hint", "cspii-off":
				out = append(out, issue15Targets(results, tr, mode)...)
			default:
				out = append(out, modeTargets(results, tr, mode)...)
			}
		}
	}
	return out
}

func containsT(ts []Transport, t Transport) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// ranIn reports whether benchmark b ran in transport tr (in any series).
func ranIn(results []*BenchResult, b Bench, tr Transport) bool {
	for _, br := range results {
		if br.Bench == b && br.Transport == tr {
			return true
		}
	}
	return false
}

// findSeries returns the result of benchmark b in the given series (nil if
// it was not run).
func findSeries(results []*BenchResult, b Bench, s Series) *BenchResult {
	for _, br := range results {
		if br.Bench == b && br.Series == s {
			return br
		}
	}
	return nil
}

type targetCtx struct {
	br   *BenchResult
	mode string
}

func (t targetCtx) med(mode, key string, size int64) float64 {
	return t.br.Summary(mode, key, size).Median
}

func (t targetCtx) ratio(key string, size int64) float64 {
	return Ratio(t.med(t.mode, key, size), t.med("mpi", key, size))
}

// paired appends to a target's measured text, at the sizes where it
// differs from the ratio of medians, the median of the mode's ratio to
// plain MPICH within each repetition (BenchResult.PairedRatio), and the
// ratio over the jobs in the host's fast touch regime where the jobs ran
// in both (BenchResult.FastRegimeRatio). The verdict stays on the ratio
// of medians; where the others disagree the host changed under the jobs
// between repetitions.
func (t targetCtx) paired(st, msr, key string, ss []int64) (string, string) {
	if st == statusNoValue {
		return st, msr
	}
	var parts, fast []string
	for _, s := range ss {
		m := fmt.Sprintf("%.2fx", t.ratio(key, s))
		if r := t.br.PairedRatio(t.mode, "mpi", key, s); r.N > 0 && !math.IsNaN(r.Median) {
			if p := fmt.Sprintf("%.2fx", r.Median); p != m {
				parts = append(parts, FormatSize(s)+": "+p)
			}
		}
		if r, fa, na, fb, nb, ok := t.br.FastRegimeRatio(t.mode, "mpi", key, s); ok && (fa < na || fb < nb) {
			fast = append(fast, fmt.Sprintf("%s: %.2fx (%d of %d vs %d of %d)", FormatSize(s), r, fa, na, fb, nb))
		}
	}
	if len(parts) > 0 {
		msr += "; paired per repetition: " + strings.Join(parts, ", ")
	}
	if len(fast) > 0 {
		msr += "; jobs in the fast touch regime only: " + strings.Join(fast, ", ")
	}
	return st, msr
}

// ratioAtMost checks the mode's ratio to mpi of key at each size of ss
// against limit, with the paired ratios where they differ.
func (t targetCtx) ratioAtMost(key string, ss []int64, limit float64) (string, string) {
	st, msr := every(ss, func(s int64) float64 { return t.ratio(key, s) }, func(r float64) bool { return r <= limit }, "%.2fx")
	return t.paired(st, msr, key, ss)
}

func sizesAtLeast(ss []int64, min int64) []int64 {
	return sizesIn(ss, min, math.MaxInt64)
}

// sizesIn returns the sizes of ss in [lo, hi].
func sizesIn(ss []int64, lo, hi int64) []int64 {
	var out []int64
	for _, s := range ss {
		if s >= lo && s <= hi {
			out = append(out, s)
		}
	}
	return out
}

func hasSize(ss []int64, s int64) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// sizesOf returns those of want that ss has.
func sizesOf(ss []int64, want ...int64) []int64 {
	var out []int64
	for _, w := range want {
		if hasSize(ss, w) {
			out = append(out, w)
		}
	}
	return out
}

// missingSizes lists those of want that ss lacks ("" if none).
func missingSizes(ss, want []int64) string {
	var miss []string
	for _, w := range want {
		if !hasSize(ss, w) {
			miss = append(miss, FormatSize(w))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "not measured at " + strings.Join(miss, ", ")
}

func verdict(ok bool, nvals int) string {
	switch {
	case nvals == 0:
		return statusNoValue
	case ok:
		return statusMet
	}
	return statusMissed
}

// every checks pred on the value at each size of ss, describing each
// value with format f; sizes without a value are shown as "-" and do not
// count (all missing: not measured).
func every(ss []int64, val func(int64) float64, pred func(float64) bool, f string) (string, string) {
	if len(ss) == 0 {
		return statusNoValue, "no size in range"
	}
	ok, n := true, 0
	var parts []string
	for _, s := range ss {
		v := val(s)
		if math.IsNaN(v) {
			parts = append(parts, FormatSize(s)+": -")
			continue
		}
		n++
		ok = ok && pred(v)
		parts = append(parts, FormatSize(s)+": "+fmt.Sprintf(f, v))
	}
	return verdict(ok, n), strings.Join(parts, ", ")
}

func modeTargets(results []*BenchResult, tr Transport, mode string) []Target {
	const K, M = 1 << 10, 1 << 20
	m, _ := LookupMode(mode)
	var out []Target
	// add evaluates goal on benchmark b's series s for mode: check returns
	// status and measured text.
	add := func(issue string, b Bench, s Series, goal string, want Layout, needMPI bool, check func(t targetCtx) (string, string)) {
		if m.GoAPI && b != Latency {
			return // the Go-API program is the latency test only
		}
		out = append(out, judge(results, tr, issue, mode, b, s, goal, want, needMPI, check))
	}
	pair, halo := DefaultLayout, DefaultHaloLayout
	busyT := Series{Transport: tr, Compute: Busy, Touch: true}
	sleepT := Series{Transport: tr, Compute: Sleep, Touch: true}
	withMissing := func(st, msr string, ss, want []int64) (string, string) {
		if miss := missingSizes(ss, want); miss != "" {
			msr += " (" + miss + ")"
		}
		return st, msr
	}

	// Issue 14 (a): CPU-bound compute with touched buffers: offload must
	// not cost more than 10% where there is data to move.
	add("14", Overlap, busyT, "T_total <= 1.10x mpi at every size 256K-4M", pair, true, func(t targetCtx) (string, string) {
		st, msr := t.ratioAtMost("total_us", sizesIn(t.br.Sizes, 256*K, 4*M), 1.10)
		return withMissing(st, msr, t.br.Sizes, []int64{256 * K, 1 * M, 4 * M})
	})
	add("14", Overlap, busyT, "T_total <= 1.5x mpi at 64K", pair, true, func(t targetCtx) (string, string) {
		return atSize(t, "total_us", 64*K, func(r float64) bool { return r <= 1.5 })
	})
	add("14", Halo, busyT, "time per iteration <= 1.10x mpi at >= 256K", halo, true, func(t targetCtx) (string, string) {
		st, msr := t.ratioAtMost("iter_us", sizesAtLeast(t.br.Sizes, 256*K), 1.10)
		return withMissing(st, msr, t.br.Sizes, []int64{256 * K, 1 * M, 4 * M})
	})
	// Issue 14 (b): compute that leaves the core, touched buffers: the
	// transfer is hidden.
	add("14", Overlap, sleepT, "overlap >= 70% at 1M and 4M", pair, false, func(t targetCtx) (string, string) {
		ss := sizesOf(t.br.Sizes, 1*M, 4*M)
		st, msr := every(ss, func(s int64) float64 { return t.med(t.mode, "overlap_pct", s) }, func(v float64) bool { return v >= 70 }, "%.0f%%")
		if t.br.Succeeded("mpi") > 0 {
			_, mm := every(ss, func(s int64) float64 { return t.med("mpi", "overlap_pct", s) }, func(float64) bool { return true }, "%.0f%%")
			msr += "; mpi " + mm
		}
		return withMissing(st, msr, t.br.Sizes, []int64{1 * M, 4 * M})
	})
	add("14", Overlap, sleepT, "T_total <= 0.7x mpi at 1M and 4M", pair, true, func(t targetCtx) (string, string) {
		st, msr := t.ratioAtMost("total_us", sizesOf(t.br.Sizes, 1*M, 4*M), 0.7)
		return withMissing(st, msr, t.br.Sizes, []int64{1 * M, 4 * M})
	})
	add("14", Halo, sleepT, "time per iteration <= 0.333x mpi (3x faster) at 64K-256K", halo, true, func(t targetCtx) (string, string) {
		st, msr := t.ratioAtMost("iter_us", sizesIn(t.br.Sizes, 64*K, 256*K), 0.333)
		return withMissing(st, msr, t.br.Sizes, []int64{64 * K, 256 * K})
	})
	// Issue 14 (c): touching costs CasperII at most 10% more than it costs
	// plain MPICH (plus TouchTolUs), at every size both series ran, per
	// benchmark series.
	for _, tc := range []struct {
		b Bench
		c Compute
	}{{Latency, NoCompute}, {Overlap, Busy}, {Overlap, Sleep}, {Rate, NoCompute}, {Halo, Busy}, {Halo, Sleep}} {
		touched := Series{Transport: tr, Compute: tc.c, Touch: true}
		untouched := touched
		untouched.Touch = false
		want := pair
		if tc.b == Halo {
			want = halo
		}
		goal := fmt.Sprintf("touching adds <= 1.10x what it adds to mpi + %g us (%s), every size run untouched", TouchTolUs, IterMetric(tc.b))
		add("14", tc.b, touched, goal, want, true, func(t targetCtx) (string, string) {
			u := findSeries(results, tc.b, untouched)
			switch {
			case u == nil:
				return statusNoValue, "the untouched series was not run (--touch both)"
			case u.Succeeded(t.mode) == 0 || u.Succeeded("mpi") == 0:
				return statusNoValue, "no untouched result of " + t.mode + " or mpi"
			}
			ok, n := true, 0
			var parts []string
			for _, s := range t.br.Sizes {
				if !hasSize(u.Sizes, s) {
					continue // the untouched series runs fewer sizes (SecondarySizes)
				}
				dc, dm := TouchCost(t.br, u, t.mode, s), TouchCost(t.br, u, "mpi", s)
				if math.IsNaN(dc) || math.IsNaN(dm) {
					parts = append(parts, FormatSize(s)+": -")
					continue
				}
				n++
				ok = ok && dc <= TouchCostLimit(dm)
				parts = append(parts, fmt.Sprintf("%s: %s vs mpi %s us", FormatSize(s), fmtSigned(dc), fmtSigned(dm)))
			}
			return verdict(ok, n), strings.Join(parts, ", ")
		})
	}

	// Issue 5/6: the post and wait times of the nonblocking ping-pong and
	// the message rate, judged on the primary (touched) series if it ran.
	// The latency targets are judged on the means over iterations (as OSU
	// reports); the medians over iterations are shown alongside.
	latS, rateS := primarySeries(results, Latency, tr), primarySeries(results, Rate, tr)
	withP50 := func(t targetCtx, st, msr, key string, ss []int64) (string, string) {
		if st == statusNoValue {
			return st, msr
		}
		var parts []string
		for _, s := range ss {
			parts = append(parts, fmt.Sprintf("%s: %.2fx", FormatSize(s), t.ratio(key, s)))
		}
		return st, msr + "; per-iteration medians: " + strings.Join(parts, ", ")
	}
	add("5/6", Latency, latS, "post time <= 1.0x mpi at 8 B", pair, true, func(t targetCtx) (string, string) {
		st, msr := atSize(t, "post_us", 8, func(r float64) bool { return r <= 1.0 })
		return withP50(t, st, msr, "post_p50_us", []int64{8})
	})
	add("5/6", Latency, latS, "post time <= 0.5x mpi at >= 64K", pair, true, func(t targetCtx) (string, string) {
		ss := sizesAtLeast(t.br.Sizes, 64*K)
		st, msr := t.ratioAtMost("post_us", ss, 0.5)
		return withP50(t, st, msr, "post_p50_us", ss)
	})
	add("5/6", Latency, latS, "wait time <= 1.5x mpi at 8 B", pair, true, func(t targetCtx) (string, string) {
		st, msr := atSize(t, "wait_us", 8, func(r float64) bool { return r <= 1.5 })
		return withP50(t, st, msr, "wait_p50_us", []int64{8})
	})
	add("5/6", Rate, rateS, "message rate >= 0.67x mpi at 8 B", pair, true, func(t targetCtx) (string, string) {
		return atSize(t, "msg_rate", 8, func(r float64) bool { return r >= 0.67 })
	})
	add("5/6", Rate, rateS, "message rate >= 0.9x mpi at >= 64K", pair, true, func(t targetCtx) (string, string) {
		return every(sizesAtLeast(t.br.Sizes, 64*K), func(s int64) float64 { return t.ratio("msg_rate", s) }, func(r float64) bool { return r >= 0.9 }, "%.2fx")
	})
	return out
}

// judge evaluates goal for mode on benchmark b's series s in transport
// tr: check returns the status and the measured text; judge answers for
// what is missing (the series not run, the mode skipped or failed, no mpi
// result) and notes a layout other than want.
func judge(results []*BenchResult, tr Transport, issue, mode string, b Bench, s Series, goal string, want Layout, needMPI bool, check func(t targetCtx) (string, string)) Target {
	tg := Target{Issue: issue, Transport: tr, Bench: b, Series: seriesShort(s), Mode: mode, Goal: goal, Status: statusNoValue}
	br := findSeries(results, b, s)
	switch {
	case br == nil:
		tg.Measured = b.String() + " [" + s.Label() + "] not run"
		tg.NotRun = !ranIn(results, b, tr)
	case !contains(br.Modes, mode):
		tg.Measured = mode + " not run (" + br.Skipped[mode] + ")"
	case br.Succeeded(mode) == 0:
		tg.Measured = mode + ": every job failed" + firstError(br, mode)
	case needMPI && br.Succeeded("mpi") == 0:
		tg.Measured = "no mpi result"
	default:
		tg.Status, tg.Measured = check(targetCtx{br: br, mode: mode})
		if br.Layout != want {
			tg.Note = "layout " + br.Layout.String() + ", target is for " + want.String()
		}
	}
	return tg
}

// issue15Benches are the benchmarks issue 15's cspii-off target covers:
// every benchmark there was then (issue 16's rma came later and has its
// own targets).
var issue15Benches = []Bench{Latency, Overlap, Rate, Halo, Phases, Probe}

// Issue 16's limits on rma's contiguous 8 KiB accumulate epoch (lock +
// MPI_Accumulate + flush + unlock) while the target computes 20 ms
// (busy, touched): at most RMAMaxRatio x plain MPICH's where the ghost
// shares the target's core (the default placement), at most
// RMAIdleMaxRatio x plain MPICH's with an idle target where the ghosts
// have CPUs of their own (placement ghost-cores).
const (
	RMATargetSize   = 8 << 10
	RMAMaxRatio     = 0.10
	RMAIdleMaxRatio = 1.5
)

// rmaTargets are issue 16's targets of mode (cspii) in transport tr.
func rmaTargets(results []*BenchResult, tr Transport, mode string) []Target {
	key := RMAKey("acc", "contig", "epoch_us")
	busy := Series{Transport: tr, Compute: Busy, Touch: true}
	gc := busy
	gc.Place = PlaceGhostCores
	idle := Series{Transport: tr, Compute: Idle, Touch: true}
	sz := FormatSize(RMATargetSize)
	a := judge(results, tr, "16", mode, RMA, busy, fmt.Sprintf("8K accumulate epoch (%s), target computing %s, <= %.2fx mpi's", key, "busy", RMAMaxRatio),
		DefaultLayout, true, func(t targetCtx) (string, string) {
			return atSize(t, key, RMATargetSize, func(r float64) bool { return r <= RMAMaxRatio })
		})
	// The ghost-cores series runs in the layout that gives every ghost a
	// CPU of its own on the host (GhostCoresLayout).
	gcWant := DefaultLayout
	if br := findSeries(results, RMA, gc); br != nil && ghostCoresOf(br.Layout, DefaultLayout) {
		gcWant = br.Layout
	}
	b := judge(results, tr, "16", mode, RMA, gc, fmt.Sprintf("8K accumulate epoch, target computing busy, ghosts on CPUs of their own, <= %.1fx mpi's with an idle target (%s)", RMAIdleMaxRatio, idle.Label()),
		gcWant, false, func(t targetCtx) (string, string) {
			ref := findSeries(results, RMA, idle)
			switch {
			case !hasSize(t.br.Sizes, RMATargetSize):
				return statusNoValue, sz + " not in the sizes"
			case ref == nil:
				return statusNoValue, "the idle series (" + idle.Label() + ") was not run"
			case ref.Succeeded("mpi") == 0:
				return statusNoValue, "no mpi result with an idle target"
			}
			v, base := t.med(t.mode, key, RMATargetSize), ref.Summary("mpi", key, RMATargetSize).Median
			r := Ratio(v, base)
			if math.IsNaN(r) {
				return statusNoValue, "no value at " + sz
			}
			msr := fmt.Sprintf("%.2fx (%s vs mpi idle %s us", r, fmtNum(v), fmtNum(base))
			if m := t.med("mpi", key, RMATargetSize); !math.IsNaN(m) {
				msr += fmt.Sprintf("; mpi in this series %s us", fmtNum(m))
			}
			return verdict(r <= RMAIdleMaxRatio, 1), msr + ")"
		})
	return []Target{a, b}
}

// ghostCoresOf reports whether layout got is what GhostCoresLayout makes
// of def on some number of CPUs.
func ghostCoresOf(got, def Layout) bool {
	for n := 2; n <= 2+def.Nodes*def.Ghosts; n++ {
		if GhostCoresLayout(def, n) == got {
			return true
		}
	}
	return false
}

// Issue 15's limits: against plain MPICH in the same series, at every
// size.
const (
	AutoMaxRatio = 1.10 // cspii-auto: at most 10% slower than mpi, every cell of run all (and probe)
	AutoKeepGain = 0.80 // cspii-auto keeps 80% of cspii-tag's gain where cspii-tag beats mpi
	OffMaxRatio  = 1.05 // cspii-off: the library's presence costs at most 5%, everywhere
	PhasesMax    = 0.80 // phases: cspii-auto and cspii-hint 20% faster than both mpi and cspii-tag
	// SwitchMaxBarriers: cspii-hint's switch (one MPI_Comm_set_info that
	// changes the route, phases' switch_us) costs at most this many of
	// mpi's MPI_Barrier on the communicator (phases' barrier_us), both
	// measured on members a barrier aligned.
	SwitchMaxBarriers = 2.0
)

// issue15Targets are issue 15's targets of mode (cspii-auto, cspii-hint
// or cspii-off) in transport tr, each judged per primary series (touched;
// the untouched one where only it ran) on the time per iteration
// (IterMetric) at every size:
//
//   - cspii-auto: latency, rate, overlap and halo (busy and sleep) <=
//     1.10x mpi, and >= 80% of cspii-tag's gain kept wherever cspii-tag
//     beats mpi; probe's round trip <= 1.10x mpi and the server's compute
//     >= 1/1.10 of mpi's; phases' time per round <= 0.80x both mpi's and
//     cspii-tag's.
//   - cspii-hint: phases, as cspii-auto; and its switch (switch_us) at
//     most SwitchMaxBarriers x mpi's barrier (barrier_us).
//   - cspii-off: every benchmark <= 1.05x mpi (probe: and the server's
//     compute >= 1/1.05 of mpi's).
func issue15Targets(results []*BenchResult, tr Transport, mode string) []Target {
	var out []Target
	add := func(b Bench, s Series, goal string, check func(t targetCtx) (string, string)) {
		want := DefaultLayout
		if b == Halo {
			want = DefaultHaloLayout
		}
		out = append(out, judge(results, tr, "15", mode, b, s, goal, want, true, check))
	}
	atMost := func(b Bench, s Series, limit float64) {
		key := IterMetric(b)
		add(b, s, fmt.Sprintf("%s <= %.2fx mpi at every size", key, limit), func(t targetCtx) (string, string) {
			return t.ratioAtMost(key, t.br.Sizes, limit)
		})
	}
	serverCompute := func(s Series, limit float64) {
		add(Probe, s, fmt.Sprintf("server_comp_pct >= %.2fx mpi's (1/%.2f) at every size", 1/limit, limit), func(t targetCtx) (string, string) {
			return every(t.br.Sizes, func(sz int64) float64 { return t.ratio("server_comp_pct", sz) }, func(r float64) bool { return r >= 1/limit-1e-9 }, "%.2fx")
		})
	}
	phases := func() {
		for _, s := range primariesOf(results, Phases, tr) {
			add(Phases, s, fmt.Sprintf("round_us <= %.2fx both mpi's and cspii-tag's at every size", PhasesMax), func(t targetCtx) (string, string) {
				st, msr := beatsBoth(t, "round_us", PhasesMax)
				return st, msr + phasesBound(t)
			})
		}
	}
	switch mode {
	case "cspii-auto":
		for _, b := range AllBenches {
			for _, s := range primariesOf(results, b, tr) {
				atMost(b, s, AutoMaxRatio)
				key := IterMetric(b)
				add(b, s, fmt.Sprintf("keeps >= %.0f%% of cspii-tag's gain over mpi where cspii-tag beats it (%s)", 100*AutoKeepGain, key), func(t targetCtx) (string, string) {
					return keepsGain(t, key, AutoKeepGain)
				})
			}
		}
		for _, s := range primariesOf(results, Probe, tr) {
			atMost(Probe, s, AutoMaxRatio)
			serverCompute(s, AutoMaxRatio)
		}
		phases()
	case "cspii-hint":
		phases()
		for _, s := range primariesOf(results, Phases, tr) {
			add(Phases, s, fmt.Sprintf("switch_us <= %.0fx mpi's barrier_us at every size (a switching MPI_Comm_set_info against an MPI_Barrier)", SwitchMaxBarriers), switchCost)
		}
	case "cspii-off":
		for _, b := range issue15Benches {
			for _, s := range primariesOf(results, b, tr) {
				atMost(b, s, OffMaxRatio)
				if b == Probe {
					serverCompute(s, OffMaxRatio)
				}
			}
		}
	}
	return out
}

// keepsGain checks that t.mode keeps at least keep of cspii-tag's gain
// over mpi (mpi - cspii-tag, lower is better) at every size where
// cspii-tag beats mpi: mpi - value >= keep x (mpi - cspii-tag).
func keepsGain(t targetCtx, key string, keep float64) (string, string) {
	if !contains(t.br.Modes, "cspii-tag") || t.br.Succeeded("cspii-tag") == 0 {
		return statusNoValue, "no cspii-tag result in this series (the gain to keep is static offload's)"
	}
	ok, wins, n := true, 0, 0
	var parts []string
	for _, sz := range t.br.Sizes {
		mpi, tag, v := t.med("mpi", key, sz), t.med("cspii-tag", key, sz), t.med(t.mode, key, sz)
		if math.IsNaN(mpi) || math.IsNaN(tag) || !(tag < mpi) {
			continue
		}
		wins++
		if math.IsNaN(v) {
			parts = append(parts, FormatSize(sz)+": -")
			continue
		}
		n++
		kept := (mpi - v) / (mpi - tag)
		ok = ok && kept >= keep-1e-9
		parts = append(parts, fmt.Sprintf("%s: %.0f%% (%s vs cspii-tag %s, mpi %s)", FormatSize(sz), 100*kept, fmtNum(v), fmtNum(tag), fmtNum(mpi)))
	}
	if wins == 0 {
		return statusMet, "cspii-tag beats mpi at no size: no gain to keep"
	}
	return verdict(ok, n), strings.Join(parts, ", ")
}

// switchCost checks that t.mode's switch (switch_us, one MPI_Comm_set_info
// that changes the route) costs at most SwitchMaxBarriers x mpi's
// MPI_Barrier (barrier_us) at every size; the mode's own barrier is shown
// beside.
func switchCost(t targetCtx) (string, string) {
	ok, n := true, 0
	var parts []string
	for _, sz := range t.br.Sizes {
		sw, bar, own := t.med(t.mode, "switch_us", sz), t.med("mpi", "barrier_us", sz), t.med(t.mode, "barrier_us", sz)
		r := Ratio(sw, bar)
		if math.IsNaN(r) {
			parts = append(parts, FormatSize(sz)+": -")
			continue
		}
		n++
		ok = ok && r <= SwitchMaxBarriers
		parts = append(parts, fmt.Sprintf("%s: %.2fx (%s us vs mpi's barrier %s us; %s's barrier %s us)", FormatSize(sz), r, fmtNum(sw), fmtNum(bar), t.mode, fmtNum(own)))
	}
	return verdict(ok, n), strings.Join(parts, ", ")
}

// beatsBoth checks that t.mode's value is at most limit x mpi's and at
// most limit x cspii-tag's at every size.
func beatsBoth(t targetCtx, key string, limit float64) (string, string) {
	if !contains(t.br.Modes, "cspii-tag") || t.br.Succeeded("cspii-tag") == 0 {
		return statusNoValue, "no cspii-tag result in this series (the target compares with static offload too)"
	}
	ok, n := true, 0
	var parts []string
	for _, sz := range t.br.Sizes {
		v := t.med(t.mode, key, sz)
		rm, rt := Ratio(v, t.med("mpi", key, sz)), Ratio(v, t.med("cspii-tag", key, sz))
		if math.IsNaN(rm) || math.IsNaN(rt) {
			parts = append(parts, FormatSize(sz)+": -")
			continue
		}
		n++
		ok = ok && rm <= limit && rt <= limit
		parts = append(parts, fmt.Sprintf("%s: %.2fx mpi, %.2fx cspii-tag", FormatSize(sz), rm, rt))
	}
	return verdict(ok, n), strings.Join(parts, ", ")
}

// phasesBound is what the phases target allows at all: the round of a
// route choice that knew each phase's faster route (mpi or cspii-tag) and
// switched for nothing, from the phases' medians, (a) small_us and (b)
// large_us (each with its phase's barriers: round_us is their sum) each
// at the faster of the two, as ratios to mpi's and cspii-tag's round_us.
// Where that is over the limit no choice of route meets the target in
// this series: the gain is not there to take. "" without the phase times.
func phasesBound(t targetCtx) string {
	var parts []string
	for _, sz := range t.br.Sizes {
		m := func(mode, key string) float64 { return t.med(mode, key, sz) }
		best := math.Min(m("mpi", "small_us"), m("cspii-tag", "small_us")) +
			math.Min(m("mpi", "large_us"), m("cspii-tag", "large_us"))
		rm, rt := Ratio(best, m("mpi", "round_us")), Ratio(best, m("cspii-tag", "round_us"))
		if math.IsNaN(rm) || math.IsNaN(rt) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %.2fx mpi, %.2fx cspii-tag", FormatSize(sz), rm, rt))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; each phase on its faster route, switched for free (bound): " + strings.Join(parts, ", ")
}

// primariesOf lists the series of benchmark b in transport tr that issue
// 15 judges: per compute kind (none for latency and rate) the touched
// series, or the untouched one where only it ran.
func primariesOf(results []*BenchResult, b Bench, tr Transport) []Series {
	cs := []Compute{NoCompute}
	if b.Computes() {
		cs = []Compute{Busy, Sleep}
	}
	var out []Series
	for _, c := range cs {
		s := Series{Transport: tr, Compute: c, Touch: true}
		if findSeries(results, b, s) == nil {
			if u := (Series{Transport: tr, Compute: c}); findSeries(results, b, u) != nil {
				s = u
			}
		}
		out = append(out, s)
	}
	return out
}

// firstError is " (<the first failed job's first error line>)" of mode
// in br, or "".
func firstError(br *BenchResult, mode string) string {
	for _, j := range br.Jobs {
		if j.Mode == mode && j.Error != "" {
			return " (" + firstCause(j.Error) + ")"
		}
	}
	return ""
}

// primarySeries is the series of b (which does not compute) that the
// issue 5/6 targets judge: touched if it ran, else untouched.
func primarySeries(results []*BenchResult, b Bench, tr Transport) Series {
	return primariesOf(results, b, tr)[0]
}

// seriesShort is the series label without the transport (the targets are
// grouped by transport).
func seriesShort(s Series) string {
	t := s.TouchLabel()
	if s.Place != PlaceAuto {
		t += ", " + string(s.Place)
	}
	if s.Compute == NoCompute || s.Compute == "" {
		return t
	}
	return string(s.Compute) + ", " + t
}

func atSize(t targetCtx, key string, size int64, ok func(float64) bool) (string, string) {
	if !hasSize(t.br.Sizes, size) {
		return statusNoValue, FormatSize(size) + " not in the sizes"
	}
	r := t.ratio(key, size)
	if math.IsNaN(r) {
		return statusNoValue, "no value"
	}
	st := statusMissed
	if ok(r) {
		st = statusMet
	}
	return st, fmt.Sprintf("%.2fx (%s vs mpi %s)", r, fmtNum(t.med(t.mode, key, size)), fmtNum(t.med("mpi", key, size)))
}

func (b Bench) String() string { return string(b) }

// runList is the benchmark list of a run command that runs benches (in
// KnownBenches order): "all" stands for AllBenches when all are in it.
func runList(benches []string) string {
	all := true
	for _, b := range AllBenches {
		all = all && slices.Contains(benches, string(b))
	}
	var out []string
	if all {
		out = append(out, "all")
	}
	for _, b := range benches {
		if !all || !slices.Contains(AllBenches, Bench(b)) {
			out = append(out, b)
		}
	}
	return strings.Join(out, ",")
}

// WriteTargets prints the targets, one table per transport.
func WriteTargets(w io.Writer, ts []Target) {
	if len(ts) == 0 {
		return
	}
	var trs []Transport
	for _, t := range ts {
		if !containsT(trs, t.Transport) {
			trs = append(trs, t.Transport)
		}
	}
	for _, tr := range trs {
		fmt.Fprintf(w, "\n## targets, transport %s (medians of this run; ratios are a mode's median over mpi's median in the same series; touch cost limit: 1.10 x mpi's + %g us)\n", tr, TouchTolUs)
		rows := [][]string{{"status", "issue", "mode", "bench", "series", "goal", "measured"}}
		notRun := map[Bench]int{}
		var notRunOrder []string
		for _, t := range ts {
			if t.Transport != tr {
				continue
			}
			if t.NotRun {
				if notRun[t.Bench] == 0 {
					notRunOrder = append(notRunOrder, string(t.Bench))
				}
				notRun[t.Bench]++
				continue
			}
			m := t.Measured
			if t.Note != "" {
				m += "  [" + t.Note + "]"
			}
			rows = append(rows, []string{t.Status, t.Issue, t.Mode, string(t.Bench), t.Series, t.Goal, m})
		}
		const ncol = 6 // aligned columns; the measured text runs on
		width := map[int]int{}
		for _, r := range rows {
			for i, c := range r[:ncol] {
				width[i] = max(width[i], len(c))
			}
		}
		for i, r := range rows {
			var b strings.Builder
			if i == 0 {
				b.WriteString("# ")
			} else {
				b.WriteString("  ")
			}
			for c := 0; c < ncol; c++ {
				fmt.Fprintf(&b, "%-*s  ", width[c], r[c])
			}
			b.WriteString(r[ncol])
			fmt.Fprintln(w, b.String())
		}
		if len(notRunOrder) > 0 {
			n := 0
			for _, c := range notRun {
				n += c
			}
			slices.SortStableFunc(notRunOrder, func(a, b string) int {
				return slices.Index(KnownBenches, Bench(a)) - slices.Index(KnownBenches, Bench(b))
			})
			how := "osubench run " + runList(notRunOrder) + " runs them"
			fmt.Fprintf(w, "# not measured, benchmark not run: %d more targets, of %s (%s)\n", n, strings.Join(notRunOrder, ", "), how)
		}
	}
}
