package osubench

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Target is one of the project's performance targets, evaluated on the
// medians of one run.
type Target struct {
	Bench    Bench  `json:"bench"`
	Mode     string `json:"mode"`
	Goal     string `json:"goal"`
	Status   string `json:"status"` // met, MISSED, not measured
	Measured string `json:"measured"`
	Note     string `json:"note,omitempty"` // conditions that differ from the target's
}

const (
	statusMet     = "met"
	statusMissed  = "MISSED"
	statusNoValue = "not measured"
)

// EvaluateTargets checks the targets against the results, for every
// CasperII mode present (cspii-tag, cspii-dup, go-tag, go-dup).
func EvaluateTargets(results []*BenchResult, compute Compute) []Target {
	by := map[Bench]*BenchResult{}
	for _, br := range results {
		by[br.Bench] = br
	}
	var out []Target
	for _, mode := range []string{"cspii-tag", "cspii-dup", "go-tag", "go-dup"} {
		present := false
		for _, br := range results {
			present = present || contains(br.Modes, mode)
		}
		if !present {
			continue
		}
		out = append(out, modeTargets(by, mode, compute)...)
	}
	return out
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

func sizesAtLeast(ss []int64, min int64) []int64 {
	var out []int64
	for _, s := range ss {
		if s >= min {
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

func modeTargets(by map[Bench]*BenchResult, mode string, compute Compute) []Target {
	const K, M = 1 << 10, 1 << 20
	var out []Target
	// add evaluates goal on br for mode: check returns status and measured text.
	add := func(b Bench, goal string, want Layout, needSleep, needMPI bool, check func(t targetCtx) (string, string)) {
		tg := Target{Bench: b, Mode: mode, Goal: goal, Status: statusNoValue}
		br := by[b]
		switch {
		case br == nil:
			tg.Measured = b.String() + " not run"
		case !contains(br.Modes, mode):
			tg.Measured = mode + " not run (" + br.Skipped[mode] + ")"
		case needMPI && !contains(br.Modes, "mpi"):
			tg.Measured = "mpi not run"
		default:
			tg.Status, tg.Measured = check(targetCtx{br: br, mode: mode})
			var notes []string
			if br.Layout != want {
				notes = append(notes, "layout "+br.Layout.String()+", target is for "+want.String())
			}
			if needSleep && compute != Sleep {
				notes = append(notes, "compute "+string(compute)+", target is for sleep")
			}
			tg.Note = strings.Join(notes, "; ")
		}
		out = append(out, tg)
	}
	verdict := func(ok bool, nvals int) string {
		switch {
		case nvals == 0:
			return statusNoValue
		case ok:
			return statusMet
		}
		return statusMissed
	}
	// every checks pred on each size of ss, describing each value.
	every := func(t targetCtx, ss []int64, val func(int64) float64, pred func(float64) bool, f string) (string, string) {
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
		if len(ss) == 0 {
			return statusNoValue, "no size in range"
		}
		return verdict(ok, n), strings.Join(parts, ", ")
	}
	pair := DefaultLayout
	halo := DefaultHaloLayout

	add(Overlap, "overlap >= 80% at >= 64K (mpi far lower)", pair, true, false, func(t targetCtx) (string, string) {
		ss := sizesAtLeast(t.br.Sizes, 64*K)
		st, m := every(t, ss, func(s int64) float64 { return t.med(t.mode, "overlap_pct", s) }, func(v float64) bool { return v >= 80 }, "%.0f%%")
		// Above 100%, the overlapped loop beat the longer of its parts run
		// alone: the formula is then saturated by a slow T_comm, say so.
		var odd []string
		for _, s := range ss {
			if o := t.med(t.mode, "overlap_pct", s); o > 100 {
				odd = append(odd, fmt.Sprintf("%s: T_comm %s, T_comp %s, T_total %s us", FormatSize(s),
					fmtNum(t.med(t.mode, "comm_us", s)), fmtNum(t.med(t.mode, "comp_us", s)), fmtNum(t.med(t.mode, "total_us", s))))
			}
		}
		if len(odd) > 0 {
			m += " (over 100%: T_total < max(T_comm, T_comp), the ping-pong alone ran slower than with compute; " + strings.Join(odd, "; ") + ")"
		}
		if contains(t.br.Modes, "mpi") {
			_, mm := every(t, ss, func(s int64) float64 { return t.med("mpi", "overlap_pct", s) }, func(float64) bool { return true }, "%.0f%%")
			m += "; mpi " + mm
		}
		return st, m
	})
	add(Overlap, "total time <= 0.6x mpi at 1M", pair, true, true, func(t targetCtx) (string, string) {
		if !hasSize(t.br.Sizes, 1*M) {
			return statusNoValue, "1M not in the sizes"
		}
		r := t.ratio("total_us", 1*M)
		return verdict(r <= 0.6, btoi(!math.IsNaN(r))), fmt.Sprintf("%.2fx (%s us vs mpi %s us)", r, fmtNum(t.med(t.mode, "total_us", 1*M)), fmtNum(t.med("mpi", "total_us", 1*M)))
	})
	// The latency targets are judged on the means over iterations (as OSU
	// reports); the medians over iterations are shown alongside.
	withP50 := func(t targetCtx, st, m, key string, ss []int64) (string, string) {
		var parts []string
		for _, s := range ss {
			parts = append(parts, fmt.Sprintf("%s: %.2fx", FormatSize(s), t.ratio(key, s)))
		}
		return st, m + "; per-iteration medians: " + strings.Join(parts, ", ")
	}
	add(Latency, "post time <= 1.0x mpi at 8 B", pair, false, true, func(t targetCtx) (string, string) {
		st, m := atSize(t, "post_us", 8, func(r float64) bool { return r <= 1.0 })
		return withP50(t, st, m, "post_p50_us", []int64{8})
	})
	add(Latency, "post time <= 0.5x mpi at >= 64K", pair, false, true, func(t targetCtx) (string, string) {
		ss := sizesAtLeast(t.br.Sizes, 64*K)
		st, m := every(t, ss, func(s int64) float64 { return t.ratio("post_us", s) }, func(r float64) bool { return r <= 0.5 }, "%.2fx")
		return withP50(t, st, m, "post_p50_us", ss)
	})
	add(Latency, "wait time <= 1.5x mpi at 8 B", pair, false, true, func(t targetCtx) (string, string) {
		st, m := atSize(t, "wait_us", 8, func(r float64) bool { return r <= 1.5 })
		return withP50(t, st, m, "wait_p50_us", []int64{8})
	})
	add(Rate, "message rate >= 0.67x mpi at 8 B", pair, false, true, func(t targetCtx) (string, string) {
		return atSize(t, "msg_rate", 8, func(r float64) bool { return r >= 0.67 })
	})
	add(Rate, "message rate >= 0.9x mpi at >= 64K", pair, false, true, func(t targetCtx) (string, string) {
		return every(t, sizesAtLeast(t.br.Sizes, 64*K), func(s int64) float64 { return t.ratio("msg_rate", s) }, func(r float64) bool { return r >= 0.9 }, "%.2fx")
	})
	add(Halo, "time per iteration >= 25% less than mpi (<= 0.75x) at >= 64K", halo, true, true, func(t targetCtx) (string, string) {
		return every(t, sizesAtLeast(t.br.Sizes, 64*K), func(s int64) float64 { return t.ratio("iter_us", s) }, func(r float64) bool { return r <= 0.75 }, "%.2fx")
	})
	add(Halo, "time per iteration below thread mode at every size", halo, true, false, func(t targetCtx) (string, string) {
		if !contains(t.br.Modes, "thread") {
			return statusNoValue, "thread not run"
		}
		return every(t, t.br.Sizes, func(s int64) float64 {
			return Ratio(t.med(t.mode, "iter_us", s), t.med("thread", "iter_us", s))
		}, func(r float64) bool { return r < 1 }, "%.2fx of thread")
	})
	return out
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

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (b Bench) String() string { return string(b) }

// WriteTargets prints the targets.
func WriteTargets(w io.Writer, ts []Target) {
	if len(ts) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## targets (medians of this run; ratios are median over mpi's median)\n")
	rows := [][]string{{"status", "mode", "bench", "goal", "measured"}}
	for _, t := range ts {
		m := t.Measured
		if t.Note != "" {
			m += "  [" + t.Note + "]"
		}
		rows = append(rows, []string{t.Status, t.Mode, string(t.Bench), t.Goal, m})
	}
	width := map[int]int{}
	for _, r := range rows {
		for i, c := range r[:4] {
			width[i] = max(width[i], len(c))
		}
	}
	for i, r := range rows {
		lead := "  "
		if i == 0 {
			lead = "# "
		}
		fmt.Fprintf(w, "%s%-*s  %-*s  %-*s  %-*s  %s\n", lead, width[0], r[0], width[1], r[1], width[2], r[2], width[3], r[3], r[4])
	}
}
