package osubench

import (
	"fmt"
	"io"
	"math"
	"slices"
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
		{Key: "lat_us", Title: "latency (touch + post + wait) per iteration, mean", Unit: "us"},
		{Key: "touch_us", Title: "touch time per iteration (write the send buffer + read the receive buffer), mean", Unit: "us"},
		{Key: "post_p50_us", Title: "post time, median over the iterations", Unit: "us"},
		{Key: "wait_p50_us", Title: "wait time, median over the iterations", Unit: "us"},
		{Key: "lat_p50_us", Title: "latency (touch + post + wait), median over the iterations", Unit: "us"},
	},
	Overlap: {
		{Key: "total_us", Title: "T_total: time per iteration of touch + post + compute + wait", Unit: "us"},
		{Key: "overlap_pct", Title: "overlap = (T_comm + T_comp - T_total) / min(T_comm, T_comp)", Unit: "%", HigherBetter: true, NoRatio: true},
		{Key: "comm_us", Title: "T_comm: the ping-pong alone (touch + post + wait)", Unit: "us"},
		{Key: "comp_us", Title: "T_comp: the compute alone, measured", Unit: "us"},
		{Key: "target_us", Title: "compute asked for per iteration (plain MPI's median exchange time)", Unit: "us", NoRatio: true},
		{Key: "post_us", Title: "post time in the overlapped loop", Unit: "us"},
		{Key: "wait_us", Title: "wait time in the overlapped loop", Unit: "us"},
		{Key: "touch_us", Title: "touch time in the overlapped loop (write the send buffer + read the receive buffer)", Unit: "us"},
	},
	Rate: {
		{Key: "msg_rate", Title: "message rate (all pairs)", Unit: "msg/s", HigherBetter: true},
		{Key: "iter_us", Title: "sender's time per window (touch + 64 MPI_Isend + MPI_Waitall + ack)", Unit: "us"},
		{Key: "post_us", Title: "sender's post time per MPI_Isend", Unit: "us"},
		{Key: "wait_us", Title: "sender's MPI_Waitall per window", Unit: "us"},
		{Key: "touch_us", Title: "touch time per window (sender: write the buffer; receiver: read it), mean over users", Unit: "us"},
	},
	Halo: {
		{Key: "iter_us", Title: "time per iteration, touch + post + compute + wait (mean over users)", Unit: "us"},
		{Key: "post_us", Title: "post time (4 MPI_Irecv + 4 MPI_Isend)", Unit: "us"},
		{Key: "wait_us", Title: "wait time (MPI_Waitall of 8)", Unit: "us"},
		{Key: "comp_in_us", Title: "compute time in the loop, measured", Unit: "us"},
		{Key: "touch_us", Title: "touch time per iteration (write the 4 outgoing halos + read the 4 incoming)", Unit: "us"},
	},
	Phases: {
		{Key: "round_us", Title: "time per round, (a) + (b), set_info and barriers included (mean over rounds and users)", Unit: "us"},
		{Key: "small_us", Title: "(a) small-message phase per round: 8 B-4 KiB ping-pongs and message-rate windows", Unit: "us"},
		{Key: "large_us", Title: "(b) overlapped phase per round: exchanges with the neighbours at size, compute between post and wait", Unit: "us"},
		{Key: "round_p50_us", Title: "time per round, median over the rounds", Unit: "us"},
		{Key: "sync_us", Title: "MPI_Barrier + MPI_Comm_set_info (cspii-hint) + MPI_Barrier at the start of both phases, per round", Unit: "us"},
		{Key: "switch_us", Title: "one MPI_Comm_set_info that switches the route (cspii-hint), after a barrier", Unit: "us"},
		{Key: "barrier_us", Title: "one MPI_Barrier after a barrier (the second at each phase's start)", Unit: "us"},
		{Key: "pingpong_us", Title: "(a): the ping-pongs per round", Unit: "us"},
		{Key: "window_us", Title: "(a): the message-rate windows per round", Unit: "us"},
		{Key: "wait_us", Title: "(b): wait time (MPI_Waitall) per exchange", Unit: "us"},
		{Key: "touch_us", Title: "touch time per round (both phases)", Unit: "us"},
	},
	Probe: {
		{Key: "rtt_us", Title: "request round trip (touch + Irecv + Isend + Waitall + touch), mean over requests and clients", Unit: "us"},
		{Key: "server_comp_pct", Title: "server's compute throughput: its compute time over its wall time while serving", Unit: "%", HigherBetter: true},
		{Key: "rtt_p50_us", Title: "request round trip, median over the requests", Unit: "us"},
		{Key: "empty_probe_us", Title: "server's MPI_Iprobe that finds nothing, mean", Unit: "us"},
		{Key: "probes_per_req", Title: "server's MPI_Iprobe calls per request answered"},
		{Key: "req_per_s", Title: "requests answered per second", Unit: "req/s", HigherBetter: true},
	},
	RMA: rmaMetrics(),
	RMAGA: {
		{Key: "acc_per_s", Title: "accumulates completed per second, all origins (lock + MPI_Accumulate + unlock into user 0)", Unit: "acc/s", HigherBetter: true},
		{Key: "epoch_us", Title: "an origin's epoch, lock + accumulate + unlock, mean over epochs and origins", Unit: "us"},
		{Key: "epoch_max_us", Title: "the slowest origin's mean epoch", Unit: "us"},
		{Key: "comp_pct", Title: "user 0's compute time (CPU time of its slices) over its wall time in the phases", Unit: "%", HigherBetter: true, NoRatio: true},
		{Key: "ok", Title: "the target's window held the sum of every accumulate (1) or not (0)", NoRatio: true, HigherBetter: true},
		{Key: "touch_us", Title: "an origin's touching per epoch (writing its buffer)", Unit: "us"},
	},
}

// RMAOps and RMADatatypes are rma's cells: every operation on every
// target datatype (keys <op>_<dt>_<what>).
var (
	RMAOps       = []string{"acc", "put", "get"}
	RMADatatypes = []string{"contig", "strided"}
	rmaOpName    = map[string]string{"acc": "MPI_Accumulate(SUM, doubles)", "put": "MPI_Put", "get": "MPI_Get"}
	rmaDtName    = map[string]string{"contig": "contiguous", "strided": "strided (MPI_Type_vector, rows of 256 B, stride 2 rows)"}
)

// RMAKey is rma's metric key of what (epoch_us, flush_us, ...) for an
// operation on a target datatype: acc_contig_epoch_us.
func RMAKey(op, dt, what string) string { return op + "_" + dt + "_" + what }

// rmaMetrics are rma's metrics: per cell the epoch, its parts and the
// target's stretch; then the means over the cells.
func rmaMetrics() []Metric {
	var out []Metric
	for _, op := range RMAOps {
		for _, dt := range RMADatatypes {
			cell := rmaOpName[op] + ", " + rmaDtName[dt] + " target type"
			out = append(out,
				Metric{Key: RMAKey(op, dt, "epoch_us"), Title: "epoch: MPI_Win_lock(SHARED) + " + cell + " + MPI_Win_flush + MPI_Win_unlock, mean", Unit: "us"},
				Metric{Key: RMAKey(op, dt, "flush_us"), Title: "time in MPI_Win_flush after " + cell + ", mean", Unit: "us"})
		}
	}
	for _, op := range RMAOps {
		for _, dt := range RMADatatypes {
			for _, p := range []string{"lock", "op", "unlock"} {
				out = append(out, Metric{Key: RMAKey(op, dt, p+"_us"), Title: p + " time of " + op + " " + dt, Unit: "us"})
			}
			out = append(out, Metric{Key: RMAKey(op, dt, "stretch_pct"), Title: "target's compute stretch during " + op + " " + dt, Unit: "%", NoRatio: true})
		}
	}
	return append(out,
		Metric{Key: "stretch_pct", Title: "target's compute stretch: how much longer its fixed compute took than asked, 100 (measured / asked - 1), mean over the cells", Unit: "%", NoRatio: true},
		Metric{Key: "comp_us", Title: "target's compute per epoch, measured (wall)", Unit: "us", NoRatio: true},
		Metric{Key: "touch_us", Title: "touching per iteration (origin: write its buffer / read it after a get; target: read the window), mean of the two", Unit: "us"})
}

// tableKeys are the metrics a benchmark's tables show when not all of
// Metrics (every metric is in the CSV and JSON files).
var tableKeys = map[Bench][]string{
	RMA: {RMAKey("acc", "contig", "epoch_us"), RMAKey("acc", "contig", "flush_us"), RMAKey("acc", "strided", "epoch_us"),
		RMAKey("put", "contig", "epoch_us"), RMAKey("put", "strided", "epoch_us"),
		RMAKey("get", "contig", "epoch_us"), RMAKey("get", "strided", "epoch_us"), "stretch_pct"},
}

// IterMetric is the time per iteration of benchmark b as an application
// sees it (touching included): what the touch-cost target compares, and
// issue 15's targets per cell.
func IterMetric(b Bench) string {
	switch b {
	case Latency:
		return "lat_us"
	case Overlap:
		return "total_us"
	case Phases:
		return "round_us"
	case Probe:
		return "rtt_us"
	case RMA:
		return RMAKey("acc", "contig", "epoch_us")
	case RMAGA:
		return "epoch_us"
	}
	return "iter_us"
}

// iterName is what one iteration of benchmark b is called in the tables.
func iterName(b Bench) string {
	switch b {
	case Phases:
		return "round"
	case Probe:
		return "request"
	case RMA, RMAGA:
		return "epoch"
	}
	return "iteration"
}

// breakdown lists the parts of an iteration shown together in one table
// (per size and mode, medians): post / compute / wait / touch.
var breakdown = map[Bench][]string{
	Latency: {"post_us", "wait_us", "touch_us"},
	Overlap: {"post_us", "comp_in_us", "wait_us", "touch_us"},
	Halo:    {"post_us", "comp_in_us", "wait_us", "touch_us"},
	Phases:  {"small_us", "large_us", "sync_us", "touch_us"},
	Probe:   {"post_us", "wait_us", "touch_us"},
	RMA:     {RMAKey("acc", "contig", "lock_us"), RMAKey("acc", "contig", "op_us"), RMAKey("acc", "contig", "flush_us"), RMAKey("acc", "contig", "unlock_us")},
}

var partName = map[string]string{"post_us": "post", "comp_in_us": "compute", "wait_us": "wait", "touch_us": "touch",
	"small_us": "(a) small", "large_us": "(b) large", "sync_us": "barriers + set_info",
	"acc_contig_lock_us": "lock", "acc_contig_op_us": "accumulate", "acc_contig_flush_us": "flush", "acc_contig_unlock_us": "unlock"}

// breakdownTitle names what a benchmark's breakdown is of ("" : an
// iteration).
var breakdownTitle = map[Bench]string{RMA: "contiguous accumulate epoch"}

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
	fmt.Fprintf(w, "# modes:    %s (interleaved: every repetition runs each series once and in it each mode once, in this order)\n", strings.Join(ms, ", "))
	fmt.Fprintf(w, "# series:   every benchmark runs once per transport x touch x compute kind (latency and rate do not compute); ratios are against plain MPICH (mpi) in the same series of the same run\n")
	for _, cp := range c.Computes {
		fmt.Fprintf(w, "# compute:  %s (%s) [overlap, halo]\n", cp, map[Compute]string{
			Sleep: "nanosleep with 1 ns timer slack: leaves the core to the ghosts/progress threads",
			Busy:  "busy-spin on the clock: the user keeps its core, as a CPU-bound application does",
		}[cp])
	}
	if slices.ContainsFunc(c.Benches, Bench.IsRMA) {
		fmt.Fprintf(w, "# compute:  idle [rma, rma-ga]: the target does not compute, it waits inside MPI (MPI_Barrier): the reference; rma's busy compute spins until the target has used its CPU time (CLOCK_THREAD_CPUTIME_ID), a fixed amount of work that others on its core stretch\n")
		var ps []string
		for _, p := range c.Placements {
			if p == PlaceAuto {
				ps = append(ps, "auto (CasperII's CSP_BIND: each virtual node on its share of the CPUs, a ghost on its users' core)")
			} else {
				ps = append(ps, string(p)+" (the ghosts on CPUs of their own, the users on the others: mpiexec -bind-to user:...)")
			}
		}
		fmt.Fprintf(w, "# placement: %s [rma]\n", strings.Join(ps, "; "))
	}
	for _, t := range c.Touches {
		if t {
			fmt.Fprintf(w, "# touch:    on (primary): the send buffer(s) written before each post, the receive buffer(s) read after each wait (rate: per window), counted in the iteration and shown apart as touch\n")
		} else {
			fmt.Fprintf(w, "# touch:    off (secondary series): buffers never touched between iterations; flatters offload, shown for comparison and the touch-cost target\n")
		}
	}
	for _, t := range c.Transports {
		env := "MPICH's defaults (shared memory between the processes of the host)"
		if e := t.Env(); len(e) > 0 {
			env = "-genv " + strings.Join(e, " -genv ") + " (every process remote to every other, UCX over TCP)"
		}
		fmt.Fprintf(w, "# transport: %s: %s\n", t, strings.ReplaceAll(env, "=", " "))
	}
	if e.Estimate != "" {
		fmt.Fprintf(w, "# estimate: %s\n", e.Estimate)
	}
	fmt.Fprintf(w, "# reps:     %d; %g ms budget per size and phase (iterations adapt, %d..%d); a job's value is the mean over its iterations (p50: the median) and over the users; tables show the median [min, max] over reps\n",
		c.Reps, c.BudgetMs, c.MinIters, c.MaxIters)
	fmt.Fprintf(w, "# buffers:  MPI_Alloc_mem(shmbuf_regist=true); communicator: MPI_Comm_dup_with_info(MPI_COMM_WORLD, the mode's wildcard_used hint; none for mpi and thread)\n")
	for _, m := range c.Modes {
		fmt.Fprintf(w, "# %-10s %s\n", m.Name+":", m.Describe())
	}
}

// WriteBench prints one series of a benchmark: commands, checks and
// tables, every table labelled with the series. A secondary (untouched)
// series gets its headline tables only (every metric is in the CSV files).
func WriteBench(w io.Writer, br *BenchResult) {
	fmt.Fprintf(w, "\n## %s  (layout %s", br.Label(), br.Layout)
	fmt.Fprintf(w, "; sizes %s)\n", formatSizes(br.Sizes))
	if br.Secondary() {
		fmt.Fprintf(w, "# SECONDARY series: buffers untouched (no application runs like this; it flatters offload). Headline tables only.\n")
	}
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
			what := "FAILED"
			if j.StartFailed() {
				what = "FAILED TO START"
			}
			fmt.Fprintf(w, "# %s %s rep %d: %s\n", what, j.Mode, j.Rep, j.Error)
		}
	}
	for _, m := range br.Modes {
		if br.Succeeded(m) == 0 {
			fmt.Fprintf(w, "# %-10s NO RESULTS in this series: every job failed (see above)\n", m+":")
		}
	}
	WriteChecks(w, br)
	for _, m := range Metrics[br.Bench] {
		if br.Secondary() && !slices.Contains(plotPanels[br.Bench], m.Key) {
			continue
		}
		if ks, ok := tableKeys[br.Bench]; ok && !slices.Contains(ks, m.Key) {
			continue
		}
		WriteTable(w, br, m)
	}
	WriteBreakdown(w, br)
	if !br.Secondary() {
		WriteDiagTable(w, br)
	}
}

// WriteBreakdown prints, per size and mode, the medians of the parts of an
// iteration: post / compute / wait / touch (latency: post / wait / touch).
func WriteBreakdown(w io.Writer, br *BenchResult) {
	keys := breakdown[br.Bench]
	if len(keys) == 0 || len(br.Modes) == 0 {
		return
	}
	var names []string
	for _, k := range keys {
		names = append(names, partName[k])
	}
	of := iterName(br.Bench)
	if t := breakdownTitle[br.Bench]; t != "" {
		of = t
	}
	fmt.Fprintf(w, "\n# %s: %s per %s [us] (medians)\n", br.Label(), strings.Join(names, " / "), of)
	rows := [][]string{append([]string{"size"}, br.Modes...)}
	for _, sz := range br.Sizes {
		row := []string{FormatSize(sz)}
		for _, mo := range br.Modes {
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmtNum(br.Summary(mo, k, sz).Median))
			}
			row = append(row, strings.Join(parts, " / "))
		}
		rows = append(rows, row)
	}
	writeAligned(w, rows)
}

// WriteDiagTable prints, per size and mode, the medians of the users' CPU
// time over wall time and of their voluntary and involuntary context
// switches per iteration in the timed loop (per window for rate).
func WriteDiagTable(w io.Writer, br *BenchResult) {
	if len(br.Modes) == 0 {
		return
	}
	fmt.Fprintf(w, "\n# %s: users' CPU %% / voluntary / involuntary context switches per %s (medians)\n", br.Label(), iterName(br.Bench))
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
			} else if br.Bench.IsRMA() {
				t := SumStats(stats)
				line += fmt.Sprintf("; CSP_STATS rep 1, all users: rma_windows=%d rma_redirected=%d rma_local=%d rma_lock_retries=%d isend_offloaded=%d",
					t["rma_windows"], t["rma_redirected"], t["rma_local"], t["rma_lock_retries"], t["isend_offloaded"])
				if m.AsyncConfig == "auto" {
					line += fmt.Sprintf(" rma_switches=%d rma_agreements=%d rma_agree_us=%d rma_regrets=%d", t["rma_switches"], t["rma_agreements"], t["rma_agree_us"], t["rma_regrets"])
				}
				line += rmaCheck(m, t)
			} else {
				t := SumStats(stats)
				line += fmt.Sprintf("; CSP_STATS rep 1, all users: isend_offloaded=%d irecv_offloaded=%d direct=%d bounce=%d",
					t["isend_offloaded"], t["irecv_offloaded"], t["direct"], t["bounce"])
				for _, k := range []string{"held", "yields", "sleeps", "probes", "switches"} {
					if v, ok := t[k]; ok {
						line += fmt.Sprintf(" %s=%d", k, v)
					}
				}
				line += offloadCheck(m, t)
			}
		}
		fmt.Fprintln(w, line)
	}
}

// rmaCheck flags RMA counters that contradict what mode m asks for:
// windows or operations redirected under CSP_ASYNC_MODE=pt2pt, none
// otherwise (carried by ghosts, or applied by the origins on windows
// within one node: rma_local).
func rmaCheck(m Mode, t CSPStats) string {
	pt2ptOnly := m.AsyncMode != "" && !strings.Contains(m.AsyncMode, "rma")
	served := t["rma_redirected"] + t["rma_local"]
	switch {
	case pt2ptOnly && (served > 0 || t["rma_windows"] > 0):
		return "  <- REDIRECTED although CSP_ASYNC_MODE=" + m.AsyncMode
	case pt2ptOnly:
		return "  (windows MPICH's, as the mode asks)"
	case t["rma_windows"] == 0:
		return "  <- NO WINDOW REDIRECTED"
	case served == 0 && m.AsyncConfig == "auto":
		return "  (auto: the windows stayed on MPICH's path)"
	case served == 0:
		return "  <- NOT REDIRECTED"
	}
	return ""
}

// offloadCheck flags counters that contradict what mode m asks for:
// nothing offloaded where offload is on, anything offloaded where it is
// off, bounce copies (buffers not registered). auto may do either.
func offloadCheck(m Mode, t CSPStats) string {
	off := t["isend_offloaded"] == 0 || t["irecv_offloaded"] == 0
	switch {
	case m.AsyncConfig == "off" && t["isend_offloaded"]+t["irecv_offloaded"] > 0:
		return "  <- OFFLOADED although CSP_ASYNC_CONFIG=off"
	case m.AsyncConfig == "off":
		return "  (offload off, as the mode asks)"
	case m.AsyncConfig == "auto" && off:
		return "  (auto: stayed on the direct route)"
	case off:
		return "  <- NOT OFFLOADED"
	case t["bounce"] > 0:
		return "  <- bounce copies: buffers not registered"
	}
	return ""
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
	fmt.Fprintf(w, "\n# %s: %s%s, %s\n", br.Label(), m.Title, unit, better)
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

// touchPair is the touched and the untouched series of one benchmark,
// transport and compute kind.
type touchPair struct{ touched, untouched *BenchResult }

// touchPairs finds, in results, every benchmark series that was run both
// touched and untouched.
func touchPairs(results []*BenchResult) []touchPair {
	var out []touchPair
	for _, t := range results {
		if !t.Touch {
			continue
		}
		for _, u := range results {
			if !u.Touch && u.Bench == t.Bench && u.Transport == t.Transport && u.Compute == t.Compute && u.Place == t.Place {
				out = append(out, touchPair{t, u})
				break
			}
		}
	}
	return out
}

// TouchCost is what touching adds to the time per iteration (IterMetric)
// of mode at size: the touched series' median minus the untouched one's
// (NaN if either is missing).
func TouchCost(touched, untouched *BenchResult, mode string, size int64) float64 {
	k := IterMetric(touched.Bench)
	return touched.Summary(mode, k, size).Median - untouched.Summary(mode, k, size).Median
}

// WriteTouchCost prints, for every benchmark series run both touched and
// untouched, what touching adds per iteration in each mode and, for the
// other modes, that over what it adds to plain MPICH.
func WriteTouchCost(w io.Writer, results []*BenchResult) {
	pairs := touchPairs(results)
	if len(pairs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## touch cost: what touching adds to the time per iteration, median touched - median untouched [us] (x: over what it adds to mpi)\n")
	for _, p := range pairs {
		t, u := p.touched, p.untouched
		var modes []string
		for _, m := range t.Modes {
			if contains(u.Modes, m) {
				modes = append(modes, m)
			}
		}
		if len(modes) == 0 {
			continue
		}
		hasMPI := contains(modes, "mpi")
		fmt.Fprintf(w, "\n# %s, %s, %s: %s touched - untouched\n", t.Bench, t.ComputeLabel(), t.Transport, IterMetric(t.Bench))
		head := append([]string{"size"}, modes...)
		for _, m := range modes {
			if hasMPI && m != "mpi" {
				head = append(head, m+"/mpi")
			}
		}
		rows := [][]string{head}
		for _, sz := range t.Sizes {
			if !slices.Contains(u.Sizes, sz) {
				continue
			}
			row := []string{FormatSize(sz)}
			for _, m := range modes {
				row = append(row, fmtSigned(TouchCost(t, u, m, sz)))
			}
			for _, m := range modes {
				if hasMPI && m != "mpi" {
					row = append(row, fmtRatio(Ratio(TouchCost(t, u, m, sz), TouchCost(t, u, "mpi", sz))))
				}
			}
			rows = append(rows, row)
		}
		writeAligned(w, rows)
	}
}

func fmtSigned(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if v >= 0 {
		return "+" + fmtNum(v)
	}
	return fmtNum(v)
}

// PrimaryFirst orders results as a run prints them: per benchmark, the
// primary (touched) series, then the secondary ones.
func PrimaryFirst(results []*BenchResult) []*BenchResult {
	out := append([]*BenchResult(nil), results...)
	order := map[Bench]int{}
	for _, br := range results {
		if _, ok := order[br.Bench]; !ok {
			order[br.Bench] = len(order)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if order[a.Bench] != order[b.Bench] {
			return order[a.Bench] < order[b.Bench]
		}
		return !a.Secondary() && b.Secondary()
	})
	return out
}
