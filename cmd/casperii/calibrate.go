package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/casperii/casperii/internal/calib"
	"github.com/casperii/casperii/internal/shellquote"
	"github.com/casperii/casperii/osubench"
)

// argv0 is how casperii was invoked (main sets it): the command line a
// calibration records starts with it.
var argv0 = "casperii"

// Calibration defaults: the file the library reads with CSP_CALIBRATION,
// and the sizes measured.
const (
	defaultCalibrationOut   = "casperii-calibration.txt"
	defaultCalibrationSizes = "8,64,512,4K,16K,64K,256K,1M,4M"
)

const calibrateUsage = `casperii calibrate: measure what offload costs on this machine, for CSP_ASYNC_CONFIG=auto.

Usage:
  casperii calibrate [flags]           measure and write the calibration file
  casperii calibrate --check FILE      check a calibration file (errors with line numbers)

It runs osubench's nonblocking ping-pong (osub-latency: Isend + Irecv, Waitall;
no compute, buffers untouched) with plain MPICH (the direct route) and with
CasperII's static offload (CSP_ASYNC_CONFIG=on, wildcard_used=none, tag
encoding), 2 nodes x (1 user + 1 ghost), interleaved over the repetitions,
and writes per size the medians over the repetitions of each job's median
exchange time (post + wait), in microseconds. The library reads the file
with CSP_CALIBRATION=path. Run it on a quiet machine: it takes about a minute.

Flags:
  --out PATH     the file to write (default casperii-calibration.txt)
  --check FILE   parse FILE and report its errors; measure nothing
  --reps N       interleaved repetitions (default 3)
  --budget MS    time budget per size and job, ms (default 200)
  --sizes LIST   message sizes (default 8,64,512,4K,16K,64K,256K,1M,4M)
  --transport T  shm (default: MPICH's shared memory between the 2 nodes) or tcp
                 (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp,self: the nodes talk as over a
                 network)
  --lib PATH     the library (default: found as 'casperii version' shows)
  --cache DIR    where osubench builds its programs (default ~/.cache/casperii-osubench)

Exit status: 0 done (or the file is valid), 1 the measurement failed (no
file written) or the file has errors, 2 a usage error.
`

func cmdCalibrate(args []string, st stdio) int {
	fs := flag.NewFlagSet("casperii calibrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", defaultCalibrationOut, "")
	check := fs.String("check", "", "")
	reps := fs.Int("reps", 3, "")
	budget := fs.Float64("budget", 200, "")
	sizes := fs.String("sizes", defaultCalibrationSizes, "")
	lib := fs.String("lib", "", "")
	cache := fs.String("cache", "", "")
	transport := fs.String("transport", string(osubench.SHM), "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(st.out, calibrateUsage)
			return 0
		}
		fmt.Fprintln(st.err, calibrateFlagError(fs, err))
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(st.err, "casperii calibrate: unexpected argument %q; see casperii calibrate -help\n", fs.Arg(0))
		return exitUsage
	}
	if *check != "" {
		return checkCalibration(*check, st)
	}
	ss, err := osubench.ParseSizes(*sizes)
	ts, terr := osubench.ParseTransports(*transport)
	switch {
	case err != nil:
		fmt.Fprintf(st.err, "casperii calibrate: --sizes: %v\n", err)
		return exitUsage
	case terr != nil || len(ts) != 1:
		fmt.Fprintf(st.err, "casperii calibrate: --transport %q: want shm or tcp (one of them)\n", *transport)
		return exitUsage
	case *reps < 1:
		fmt.Fprintf(st.err, "casperii calibrate: --reps %d: want 1 or more\n", *reps)
		return exitUsage
	case !(*budget > 0):
		fmt.Fprintf(st.err, "casperii calibrate: --budget %g: want a positive number of ms\n", *budget)
		return exitUsage
	case ss[0] < 1:
		fmt.Fprintf(st.err, "casperii calibrate: --sizes: size 0 cannot be calibrated; start at 1 byte\n")
		return exitUsage
	}
	found, err := newLibFinder(st.err).find(*lib)
	if err != nil {
		fmt.Fprintln(st.err, err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmdline := append([]string{argv0, "calibrate"}, args...)
	cfg := calibrationConfig(ss, ts[0], *reps, *budget, found.path, *cache, cmdline, st.err)
	t, hdr, cmds, err := calibrate(ctx, cfg)
	if err != nil {
		fmt.Fprintf(st.err, "casperii calibrate: %v; no file written\n", err)
		return 1
	}
	if err := writeCalibration(*out, t, hdr); err != nil {
		fmt.Fprintf(st.err, "casperii calibrate: %v\n", err)
		return 1
	}
	printCalibration(st.out, t, hdr, cmds, *out)
	return 0
}

// calibrateFlagError is one line naming the fix for a bad flag.
func calibrateFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest(strings.TrimLeft(name, "-"), names); s != "" {
			return fmt.Sprintf("casperii calibrate: unknown flag %s; did you mean --%s?", name, s)
		}
		return fmt.Sprintf("casperii calibrate: unknown flag %s; see casperii calibrate -help", name)
	}
	return "casperii calibrate: " + msg + "; see casperii calibrate -help"
}

// calibrationConfig is the osubench run of a calibration: the latency
// benchmark, untouched (no compute), plain MPICH and cspii-tag, on the
// default layout, over transport tr.
func calibrationConfig(sizes []int64, tr osubench.Transport, reps int, budgetMs float64, lib, cache string, argv []string, progress io.Writer) osubench.Config {
	modes, _ := osubench.ParseModes("mpi,cspii-tag")
	layout := osubench.DefaultLayout
	return osubench.Config{
		Benches: []osubench.Bench{osubench.Latency}, Modes: modes, Sizes: sizes, Layout: &layout,
		Touches: []bool{false}, Transports: []osubench.Transport{tr},
		Reps: reps, BudgetMs: budgetMs, Lib: lib, Cache: cache, Progress: progress, Argv: argv,
	}
}

// calibrate runs the calibration jobs and returns the table, the header
// of the file and the first command of each mode.
func calibrate(ctx context.Context, cfg osubench.Config) (*calib.Table, calib.Header, map[string]string, error) {
	var hdr calib.Header
	r := &osubench.Runner{Cfg: cfg}
	if err := r.Prepare(); err != nil {
		return nil, hdr, nil, err
	}
	if r.Lib == nil {
		return nil, hdr, nil, errors.New("no CasperII library to measure offload with")
	}
	if r.Lib.Err != nil {
		return nil, hdr, nil, fmt.Errorf("no CasperII library to measure offload with: %v", r.Lib.Err)
	}
	jobs, est := r.Estimate()
	fmt.Fprintf(cfg.Progress, "casperii calibrate: %d jobs, about %s\n", jobs, est.Round(time.Second))
	if err := r.Run(ctx, nil); err != nil {
		return nil, hdr, nil, err
	}
	if len(r.Results) != 1 {
		return nil, hdr, nil, fmt.Errorf("%d benchmark results, want 1", len(r.Results))
	}
	br := r.Results[0]
	t, err := tableFrom(br)
	if err != nil {
		return nil, hdr, nil, err
	}
	e := r.Env
	hdr.Host = fmt.Sprintf("%s, %d cores (%s), Linux %s; %s; layout %s; transport %s; %s",
		e.Host, e.Cores, e.CPUModel, e.Kernel, e.MPICH, br.Layout, cfg.Transports[0], e.Time)
	hdr.Command = shellquote.Join(cfg.Argv)
	return t, hdr, br.Commands(), nil
}

// The calibration's modes and metric: plain MPICH is the direct route,
// cspii-tag static offload; lat_p50_us is a job's median exchange time
// (untouched: post + wait).
const (
	calibDirect  = "mpi"
	calibOffload = "cspii-tag"
	calibMetric  = "lat_p50_us"
)

// tableFrom builds the calibration from the latency results: per size,
// each mode's median over its jobs of lat_p50_us. Every size needs a value
// of both modes.
func tableFrom(br *osubench.BenchResult) (*calib.Table, error) {
	for _, m := range []string{calibDirect, calibOffload} {
		if why, ok := br.Skipped[m]; ok {
			return nil, fmt.Errorf("mode %s did not run: %s", m, why)
		}
		if br.Succeeded(m) == 0 {
			return nil, fmt.Errorf("every %s job failed%s", m, firstJobError(br, m))
		}
	}
	t := &calib.Table{}
	for _, sz := range br.Sizes {
		d, o := br.Summary(calibDirect, calibMetric, sz), br.Summary(calibOffload, calibMetric, sz)
		if d.N == 0 || o.N == 0 {
			return nil, fmt.Errorf("no %s value at size %d", calibMetric, sz)
		}
		t.Points = append(t.Points, calib.Point{Size: sz, DirectUS: d.Median, OffloadUS: o.Median})
	}
	return t, nil
}

// firstJobError is ": <the first failed job's error>" of mode, or "".
func firstJobError(br *osubench.BenchResult, mode string) string {
	for _, j := range br.Jobs {
		if j.Mode == mode && j.Error != "" {
			first, _, _ := strings.Cut(j.Error, " | ")
			return ": " + first
		}
	}
	return ""
}

// writeCalibration writes the file whole or not at all (a temporary file
// renamed over it).
func writeCalibration(path string, t *calib.Table, hdr calib.Header) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".casperii-calibration-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := t.Write(tmp, hdr); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// printCalibration shows what was measured and where it went.
func printCalibration(w io.Writer, t *calib.Table, hdr calib.Header, cmds map[string]string, path string) {
	fmt.Fprintf(w, "# host: %s\n", hdr.Host)
	fmt.Fprintf(w, "# command: %s\n", hdr.Command)
	for _, m := range []string{calibDirect, calibOffload} {
		fmt.Fprintf(w, "# %-10s %s\n", m+":", cmds[m])
	}
	fmt.Fprintf(w, "%10s  %10s  %10s  %s\n", "size", "direct_us", "offload_us", "offload/direct")
	for _, p := range t.Points {
		fmt.Fprintf(w, "%10s  %10.2f  %10.2f  %.2fx\n", osubench.FormatSize(p.Size), p.DirectUS, p.OffloadUS, p.OffloadUS/p.DirectUS)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	fmt.Fprintf(w, "casperii calibrate: wrote %s (%d sizes); the library reads it with CSP_CALIBRATION=%s\n", path, len(t.Points), abs)
}

// checkCalibration parses path and reports its errors, one line each,
// with the file name and line number.
func checkCalibration(path string, st stdio) int {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(st.err, "casperii calibrate --check: %v\n", err)
		return 1
	}
	defer f.Close()
	t, err := calib.Parse(f)
	if err != nil {
		var pe *calib.ParseError
		if !errors.As(err, &pe) {
			fmt.Fprintf(st.err, "%s: %v\n", path, err)
			return 1
		}
		for _, e := range pe.Errs {
			fmt.Fprintf(st.err, "%s:%d: %s\n", path, e.Line, e.Msg)
		}
		if pe.More {
			fmt.Fprintf(st.err, "%s: more errors not listed\n", path)
		}
		return 1
	}
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	fmt.Fprintf(st.out, "%s: a valid calibration (v1): %d sizes from %s to %s; offload/direct %.2fx at %s, %.2fx at %s\n",
		path, len(t.Points), osubench.FormatSize(first.Size), osubench.FormatSize(last.Size),
		first.OffloadUS/first.DirectUS, osubench.FormatSize(first.Size), last.OffloadUS/last.DirectUS, osubench.FormatSize(last.Size))
	return 0
}
