package osubench

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Metric is one quantity a benchmark reports.
type Metric struct {
	Key          string `json:"key"`
	Title        string `json:"title"`
	Unit         string `json:"unit"`
	HigherBetter bool   `json:"higher_better,omitempty"`
	NoRatio      bool   `json:"no_ratio,omitempty"` // ratios against mpi make no sense (percentages)
}

// Metrics lists what each benchmark's table shows, the first being the one
// plotted first.
var Metrics = map[Bench][]Metric{
	Latency: {
		{Key: "post_us", Title: "post time (MPI_Isend + MPI_Irecv) per iteration, mean", Unit: "us"},
		{Key: "wait_us", Title: "wait time (MPI_Waitall) per iteration, mean", Unit: "us"},
		{Key: "lat_us", Title: "latency (post + wait) per iteration, mean", Unit: "us"},
		{Key: "post_p50_us", Title: "post time, median over the iterations", Unit: "us"},
		{Key: "wait_p50_us", Title: "wait time, median over the iterations", Unit: "us"},
		{Key: "lat_p50_us", Title: "latency, median over the iterations", Unit: "us"},
	},
	Overlap: {
		{Key: "total_us", Title: "T_total: time per iteration of post + compute + wait", Unit: "us"},
		{Key: "overlap_pct", Title: "overlap = (T_comm + T_comp - T_total) / min(T_comm, T_comp)", Unit: "%", HigherBetter: true, NoRatio: true},
		{Key: "comm_us", Title: "T_comm: the ping-pong alone (post + wait)", Unit: "us"},
		{Key: "comp_us", Title: "T_comp: the compute alone, measured", Unit: "us"},
		{Key: "target_us", Title: "compute asked for per iteration (plain MPI's median latency)", Unit: "us", NoRatio: true},
		{Key: "post_us", Title: "post time in the overlapped loop", Unit: "us"},
		{Key: "wait_us", Title: "wait time in the overlapped loop", Unit: "us"},
	},
	Rate: {
		{Key: "msg_rate", Title: "message rate (all pairs)", Unit: "msg/s", HigherBetter: true},
		{Key: "post_us", Title: "sender's post time per MPI_Isend", Unit: "us"},
		{Key: "wait_us", Title: "sender's MPI_Waitall per window", Unit: "us"},
	},
	Halo: {
		{Key: "iter_us", Title: "time per iteration (mean over users)", Unit: "us"},
		{Key: "post_us", Title: "post time (4 MPI_Irecv + 4 MPI_Isend)", Unit: "us"},
		{Key: "wait_us", Title: "wait time (MPI_Waitall of 8)", Unit: "us"},
		{Key: "comp_in_us", Title: "compute time in the loop, measured (300 us asked)", Unit: "us"},
	},
}

// diagKeys are the per-user diagnostics every program reports, shown
// together in one table per benchmark.
var diagKeys = []Metric{
	{Key: "cpu_pct", Title: "CPU %", Unit: "%", NoRatio: true},
	{Key: "vcsw", Title: "voluntary context switches per iteration", NoRatio: true},
	{Key: "ivcsw", Title: "involuntary context switches per iteration", NoRatio: true},
}

// WriteHeader prints the environment and the configuration.
func WriteHeader(w io.Writer, r *Runner) {
	e := r.Env
	c := &r.Cfg
	fmt.Fprintf(w, "# osubench: CasperII vs MPICH (paper section V experiments)\n")
	fmt.Fprintf(w, "# command:  %s\n", ShellQuote(c.Argv))
	fmt.Fprintf(w, "# date:     %s\n", e.Time)
	fmt.Fprintf(w, "# host:     %s, %d cores (%s), Linux %s, load average %s\n", e.Host, e.Cores, e.CPUModel, e.Kernel, e.LoadStart)
	fmt.Fprintf(w, "# MPI:      %s\n", e.MPICH)
	fmt.Fprintf(w, "# Go:       %s\n", e.Go)
	if e.Lib != "" {
		fmt.Fprintf(w, "# library:  %s\n", e.Lib)
	}
	if e.LibNote != "" {
		fmt.Fprintf(w, "# library note: %s\n", e.LibNote)
	}
	var ms []string
	for _, m := range c.Modes {
		ms = append(ms, m.Name)
	}
	fmt.Fprintf(w, "# modes:    %s (interleaved: every repetition runs each mode once, in this order)\n", strings.Join(ms, ", "))
	fmt.Fprintf(w, "# compute:  %s (%s)\n", c.Compute, map[Compute]string{
		Sleep: "nanosleep with 1 ns timer slack: leaves the core to the ghosts/progress threads",
		Busy:  "busy-spin on the clock: only fair when every process has its own core",
	}[c.Compute])
	fmt.Fprintf(w, "# reps:     %d; %g ms budget per size and phase (iterations adapt, %d..%d); a job's value is the mean over its iterations (p50: the median) and over the users; tables show the median [min, max] over reps\n",
		c.Reps, c.BudgetMs, c.MinIters, c.MaxIters)
	fmt.Fprintf(w, "# buffers:  MPI_Alloc_mem(shmbuf_regist=true); communicator: MPI_Comm_dup_with_info(MPI_COMM_WORLD, wildcard_used=none (cspii-tag) | any_tag_same_tag (cspii-dup) | no hint (mpi, thread))\n")
	fmt.Fprintf(w, "# thread:   MPIR_CVAR_ASYNC_PROGRESS=1 and MPI_Init_thread(MPI_THREAD_MULTIPLE)\n")
}

// WriteBench prints one benchmark's commands, checks and tables.
func WriteBench(w io.Writer, br *BenchResult) {
	fmt.Fprintf(w, "\n## %s  (layout %s", br.Bench, br.Layout)
	fmt.Fprintf(w, "; sizes %s)\n", formatSizes(br.Sizes))
	cmds := br.Commands()
	for _, m := range br.Modes {
		if c, ok := cmds[m]; ok {
			fmt.Fprintf(w, "# %-10s %s\n", m+":", c)
		}
	}
	for _, m := range sortedKeys(br.Skipped) {
		fmt.Fprintf(w, "# %-10s SKIPPED: %s\n", m+":", br.Skipped[m])
	}
	for _, n := range br.Notes {
		fmt.Fprintf(w, "# note: %s\n", n)
	}
	for _, j := range br.Jobs {
		if j.Error != "" {
			fmt.Fprintf(w, "# FAILED %s rep %d: %s\n", j.Mode, j.Rep, j.Error)
		}
	}
	WriteChecks(w, br)
	for _, m := range Metrics[br.Bench] {
		WriteTable(w, br, m)
	}
	WriteDiagTable(w, br)
}

// WriteDiagTable prints, per size and mode, the medians of the users' CPU
// time over wall time and of their voluntary and involuntary context
// switches per iteration in the timed loop (per window for rate).
func WriteDiagTable(w io.Writer, br *BenchResult) {
	if len(br.Modes) == 0 {
		return
	}
	fmt.Fprintf(w, "\n# %s: users' CPU %% / voluntary / involuntary context switches per iteration (medians)\n", br.Bench)
	rows := [][]string{append([]string{"size"}, br.Modes...)}
	for _, s := range br.Sizes {
		row := []string{FormatSize(s)}
		for _, mo := range br.Modes {
			var parts []string
			for _, d := range diagKeys {
				v := br.Summary(mo, d.Key, s).Median
				if math.IsNaN(v) {
					parts = append(parts, "-")
				} else if d.Key == "cpu_pct" {
					parts = append(parts, strconv.FormatFloat(v, 'f', 0, 64)+"%")
				} else {
					parts = append(parts, strconv.FormatFloat(v, 'f', 2, 64))
				}
			}
			row = append(row, strings.Join(parts, " / "))
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

// WriteChecks prints, per mode, the offload counters (CSP_STATS) and the
// CPU use of the jobs.
func WriteChecks(w io.Writer, br *BenchResult) {
	for _, mode := range br.Modes {
		var n int
		var cpu, ucpu, gcpu, mcpu, wall float64
		var stats []CSPStats
		for _, j := range br.Jobs {
			if j.Mode != mode || j.Error != "" || j.Job == nil {
				continue
			}
			n++
			cpu += j.Job.CPU
			ucpu += j.Job.UserCPU
			gcpu += j.Job.GhostCPU
			mcpu += j.Job.MachineCPU
			wall += j.Job.Wall.Seconds()
			if stats == nil {
				stats = j.Stats
			}
		}
		if n == 0 {
			continue
		}
		line := fmt.Sprintf("# %-10s CPU per wall second over its %d jobs: %.2f cores in all (users %.2f", mode+":", n, cpu/wall, ucpu/wall)
		if m, _ := LookupMode(mode); m.Ghosts() {
			line += fmt.Sprintf(", ghosts %.2f", gcpu/wall)
		}
		line += fmt.Sprintf("); other processes of the host: %.2f cores", math.Max(0, mcpu-cpu)/wall)
		if m, _ := LookupMode(mode); m.Ghosts() {
			if len(stats) == 0 {
				line += "; no casperii-stats lines (CSP_STATS=1 was set)"
			} else {
				t := SumStats(stats)
				line += fmt.Sprintf("; CSP_STATS rep 1, all users: isend_offloaded=%d irecv_offloaded=%d direct=%d bounce=%d",
					t["isend_offloaded"], t["irecv_offloaded"], t["direct"], t["bounce"])
				for _, k := range []string{"held", "yields", "sleeps"} {
					if v, ok := t[k]; ok {
						line += fmt.Sprintf(" %s=%d", k, v)
					}
				}
				if t["isend_offloaded"] == 0 || t["irecv_offloaded"] == 0 {
					line += "  <- NOT OFFLOADED"
				} else if t["bounce"] > 0 {
					line += "  <- bounce copies: buffers not registered"
				}
			}
		}
		fmt.Fprintln(w, line)
	}
}

// WriteTable prints metric m of br as an OSU-style table: one row per size,
// each mode's median [min, max], then each mode's median over mpi's.
func WriteTable(w io.Writer, br *BenchResult, m Metric) {
	modes := br.Modes
	if len(modes) == 0 {
		return
	}
	hasMPI := contains(modes, "mpi")
	better := "lower is better"
	if m.HigherBetter {
		better = "higher is better"
	}
	unit := ""
	if m.Unit != "" {
		unit = " [" + m.Unit + "]"
	}
	fmt.Fprintf(w, "\n# %s: %s%s, %s\n", br.Bench, m.Title, unit, better)
	head := []string{"size"}
	head = append(head, modes...)
	if hasMPI && !m.NoRatio {
		for _, mo := range modes {
			if mo != "mpi" {
				head = append(head, mo+"/mpi")
			}
		}
	}
	rows := [][]string{head}
	for _, s := range br.Sizes {
		row := []string{FormatSize(s)}
		med := map[string]float64{}
		for _, mo := range modes {
			sp := br.Summary(mo, m.Key, s)
			med[mo] = sp.Median
			cell := fmtNum(sp.Median)
			if sp.N > 1 {
				cell += " [" + fmtNum(sp.Min) + "," + fmtNum(sp.Max) + "]"
			}
			row = append(row, cell)
		}
		if hasMPI && !m.NoRatio {
			for _, mo := range modes {
				if mo != "mpi" {
					row = append(row, fmtRatio(Ratio(med[mo], med["mpi"])))
				}
			}
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

func fmtRatio(r float64) string {
	if math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

func writeAligned(w io.Writer, rows [][]string) {
	width := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	for ri, r := range rows {
		var b strings.Builder
		if ri == 0 {
			b.WriteString("# ")
		} else {
			b.WriteString("  ")
		}
		for i, c := range r {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", width[i], c)
			} else {
				fmt.Fprintf(&b, "  %*s", width[i], c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func formatSizes(ss []int64) string {
	var out []string
	for _, s := range ss {
		out = append(out, FormatSize(s))
	}
	return strings.Join(out, ",")
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
