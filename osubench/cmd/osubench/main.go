// Command osubench runs the CasperII paper's experiments (section V) side
// by side: the same C benchmark programs under plain MPICH (mpi), MPICH's
// progress thread (thread) and CasperII through the preloaded library
// (cspii-tag: wildcard_used=none, tag encoding; cspii-dup:
// wildcard_used=any_tag_same_tag, communicator duplication; cspii-off:
// offload off; cspii-auto: adaptive offload; cspii-hint: the program
// switches per phase), interleaved over repetitions. Issue 15 adds two
// benchmarks: phases (a latency-bound phase alternating with a
// compute-overlapped one) and probe (a server polling MPI_Iprobe). Every benchmark runs in series: touched buffers (the
// default, as applications do) or untouched, busy or sleep compute
// (overlap, halo), shm or tcp transport. It prints OSU-style tables
// (medians, spread, ratios against plain MPICH in the same series) and the
// project's targets, and writes CSV, JSON and PNG plots.
//
//	go run ./osubench/cmd/osubench run overlap --quick
//	go run ./osubench/cmd/osubench run all --reps 5
//	go run ./osubench/cmd/osubench run phases
//	go run ./osubench/cmd/osubench run probe
//	go run ./osubench/cmd/osubench run overlap --sizes 64K,1M --modes mpi,cspii-tag --transport shm,tcp
//	go run ./osubench/cmd/osubench run latency --sizes 0,8,1K,64K,1M --modes mpi,cspii-tag,go-tag
//
// Run `osubench help` for the options.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/pkg/profile"

	"github.com/casperii/casperii/osubench"
)

const usage = `usage: osubench run latency|overlap|rate|halo|phases|probe|rma|all|<list> [options]
       osubench report DIR    (tables, targets and plots again from DIR/results.json)

Benchmarks (paper section V; all = these four):
  latency   nonblocking ping-pong: post time (Isend+Irecv) and wait time (Waitall), Fig. 3(a,b)
  overlap   touch, post, compute, wait; compute = plain MPI's latency per size; overlap %%, Fig. 4/5
  rate      windowed message rate (osu_mbw_mr: window of 64, ack), Fig. 3(c)
  halo      2D Cartesian 4-neighbour exchange, 300 us compute between post and wait, Fig. 6
Issue 15 (run on their own, or e.g. all,phases,probe):
  phases    rounds of (a) 8 B-4 KiB ping-pongs and rate windows, (b) exchanges with 2 or 4
            neighbours at the size, compute between post and wait; time per phase and round
  probe     a server polls MPI_Iprobe(MPI_ANY_SOURCE) between compute slices and answers the
            clients' requests; request round trip, server's compute throughput
Issue 16 (run on their own: rma = rma-flush and rma-ga):
  rma-flush passive-target epochs lock(SHARED) + put/get/accumulate (contiguous and strided
            target type) + flush + unlock, origin 0 to target 1, while the target computes
            --rma-compute without calling MPI (busy, sleep) or idles in MPI_Barrier (idle, the
            reference); epoch and flush time, the target's compute stretch. Results as "rma".
  rma-ga    Global-Arrays-like: every user but 0 locks, accumulates 8 KiB of doubles and
            unlocks into user 0, which computes in slices; accumulates per second, sums checked

Modes: mpi (plain MPICH), thread (MPIR_CVAR_ASYNC_PROGRESS=1 + MPI_THREAD_MULTIPLE),
  cspii-tag / cspii-dup (LD_PRELOAD libcasperii.so, CSP_ASYNC_CONFIG=on, wildcard_used=none /
  any_tag_same_tag), cspii-off (CSP_ASYNC_CONFIG=off), cspii-auto (CSP_ASYNC_CONFIG=auto),
  cspii-hint (phases only: the program sets async_config off/on per phase),
  go-tag / go-dup (the Go-API latency program; latency only), cspii (LD_PRELOAD,
  CSP_ASYNC_MODE=rma|pt2pt: windows redirected to the ghosts), cspii-pt2pt (LD_PRELOAD,
  CSP_ASYNC_MODE=pt2pt: windows MPICH's); with rma, cspii-auto's windows choose redirection
  themselves at fences (use --rma-sync fence to give rma-flush fences). probe: the CasperII modes'
  communicator allows MPI_ANY_SOURCE (wildcard_used=any_src).
  Default modes: mpi,thread,cspii-tag,cspii-dup,cspii-off,cspii-auto (phases: mpi,cspii-tag,
  cspii-off,cspii-auto,cspii-hint; probe: mpi,cspii-tag,cspii-off,cspii-auto; rma: mpi,thread,
  cspii,cspii-pt2pt).

Series: every benchmark runs once per transport x touch setting x compute kind
  (latency and rate do not compute), each mode in each; ratios are against mpi
  in the same series. Touched (the default) = the send buffer written before
  each post, the receive buffer read after each wait, as applications do;
  untouched series are secondary (they flatter offload). rma adds the idle
  series (the target waits in MPI) and, by default, the placement ghost-cores.

Options:
`

func main() {
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintf(os.Stderr, usage)
		newFlags(&opts{}).PrintDefaults()
		os.Exit(2)
	}
	if os.Args[1] == "report" && len(os.Args) == 3 {
		if err := report(os.Args[2]); err != nil {
			fmt.Fprintf(os.Stderr, "osubench: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if os.Args[1] != "run" {
		fmt.Fprintf(os.Stderr, "osubench: unknown command %q\n\n", os.Args[1])
		fmt.Fprintf(os.Stderr, usage)
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "osubench: %v\n", err)
		os.Exit(1)
	}
}

type opts struct {
	sizes, modes, layout, compute, touch, transport, out, prof, lib, cache, overlapCompute string
	placement                                                                              string
	rmaCompute                                                                             time.Duration
	gaSlice                                                                                float64
	rmaMinIters                                                                            int
	rmaSync                                                                                string
	reps, minIters, maxIters, window                                                       int
	budget, haloUs                                                                         float64
	phaseUs, probeSlice, probeThink                                                        float64
	phasePingPongs, phaseWindows, phaseExchanges                                           int
	timeout, quietWait                                                                     time.Duration
	quietCores                                                                             float64
	quick, check, setinfo, noPlots                                                         bool
	genv                                                                                   multiFlag
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*m = append(*m, v)
	return nil
}

func newFlags(o *opts) *flag.FlagSet {
	fs := flag.NewFlagSet("osubench run", flag.ContinueOnError)
	fs.StringVar(&o.sizes, "sizes", "", "message sizes, e.g. 1,8,1K,64K,1M or a power-of-two range 0-4M (default: per benchmark)")
	fs.StringVar(&o.modes, "modes", "", "modes to compare (default: the benchmarks' default modes, see above)")
	fs.StringVar(&o.layout, "layout", "", "nodes=N,users=U,ghosts=G (default nodes=2,users=1,ghosts=1; halo nodes=2,users=2,ghosts=1)")
	fs.StringVar(&o.compute, "compute", "both", "compute emulation of overlap, halo, phases, probe and rma, each a series: busy (spin: the user keeps its core, like CPU-bound code), sleep (nanosleep: leaves the core), both, or a list; rma always adds idle (the target waits in MPI_Barrier)")
	fs.StringVar(&o.placement, "placement", "", "rma: auto (CasperII's placement: a ghost shares its users' core), ghost-cores (mpiexec -bind-to user: the ghosts on CPUs of their own, the users on the others), or both, each a series (default both with rma)")
	fs.DurationVar(&o.rmaCompute, "rma-compute", 20*time.Millisecond, "rma: the target's compute per epoch")
	fs.IntVar(&o.rmaMinIters, "rma-min-iters", 4, "rma: minimum epochs per size, operation and datatype (each lasts --rma-compute)")
	fs.Float64Var(&o.gaSlice, "ga-slice", 100, "rma-ga: user 0's compute slice, us")
	fs.StringVar(&o.rmaSync, "rma-sync", "barrier", "rma-flush: each epoch's first synchronization, barrier or fence (MPI_Win_fence opening no epoch: where async_config=auto, mode cspii-auto, may switch the window)")
	fs.StringVar(&o.touch, "touch", "", "touch the buffers every iteration (write the send buffer before the post, read the receive buffer after the wait): on, off, both (off: a secondary series) (default on; run all: both)")
	fs.StringVar(&o.transport, "transport", "shm", "shm (MPICH's shared memory), tcp (-genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp,self: every process remote, UCX over TCP), or a list, e.g. shm,tcp")
	fs.IntVar(&o.reps, "reps", 0, "repetitions per mode, interleaved (default 5; 3 with --quick)")
	fs.StringVar(&o.out, "out", "", "output directory (default osubench-out/<time>)")
	fs.StringVar(&o.prof, "profile", "", "profile the Go driver: cpu or mem (github.com/pkg/profile, written to --out)")
	fs.BoolVar(&o.quick, "quick", false, "a short run: few sizes, 3 repetitions, 100 ms budget")
	fs.Float64Var(&o.budget, "budget", 0, "time budget per size and phase in ms; iterations adapt to it (default 200; 100 with --quick)")
	fs.IntVar(&o.minIters, "min-iters", 10, "minimum iterations per size and phase")
	fs.IntVar(&o.maxIters, "max-iters", 100000, "maximum iterations per size and phase")
	fs.DurationVar(&o.timeout, "timeout", 0, "timeout per mpiexec job (default: from the sizes and budget)")
	fs.StringVar(&o.lib, "lib", "auto", "CasperII library: auto (lib/libcasperii.so, else make build, else go build into the cache), build (go build from the current sources), or a path")
	fs.StringVar(&o.cache, "cache", "", "build cache directory (default "+osubench.CacheDir()+")")
	fs.StringVar(&o.overlapCompute, "overlap-compute", "mpi", "overlap compute per size: mpi (plain MPI's latency, same for all modes) or self (each mode's own latency)")
	fs.Float64Var(&o.haloUs, "halo-compute", 300, "halo compute between post and wait, us")
	fs.IntVar(&o.window, "window", 64, "message rate window (rate and phases)")
	fs.Float64Var(&o.phaseUs, "phase-compute", 200, "phases: compute between post and wait of each large exchange, us")
	fs.IntVar(&o.phasePingPongs, "phase-pingpongs", 25, "phases: ping-pongs per small size (8, 64, 512, 4096 B) per small-message phase")
	fs.IntVar(&o.phaseWindows, "phase-windows", 2, "phases: message-rate windows per small size per small-message phase")
	fs.IntVar(&o.phaseExchanges, "phase-exchanges", 4, "phases: large exchanges per overlapped phase")
	fs.Float64Var(&o.probeSlice, "probe-slice", 20, "probe: the server's compute slice between two MPI_Iprobe polls, us")
	fs.Float64Var(&o.probeThink, "probe-think", 50, "probe: the clients' compute between requests, us")
	fs.BoolVar(&o.check, "check", false, "verify the received data once per size")
	fs.BoolVar(&o.setinfo, "setinfo", false, "halo: also MPI_Comm_set_info the hint on the Cartesian communicator")
	fs.BoolVar(&o.noPlots, "no-plots", false, "do not draw PNG plots")
	fs.DurationVar(&o.quietWait, "quiet-wait", 0, "before each job, wait up to this long for the rest of the host to use less than --quiet-cores (a shared, noisy machine)")
	fs.Float64Var(&o.quietCores, "quiet-cores", 0.3, "see --quiet-wait: cores other processes may use")
	fs.Var(&o.genv, "genv", "KEY=VALUE passed to every job with -genv (repeatable), e.g. CSP_VERBOSE=1")
	return fs
}

// report prints the tables and targets of a finished run again and redraws
// its plots.
func report(dir string) error {
	rep, err := osubench.LoadReport(filepath.Join(dir, "results.json"))
	if err != nil {
		return err
	}
	r := &osubench.Runner{Env: rep.Env, Results: rep.Benches}
	r.Cfg.Computes, r.Cfg.Touches, r.Cfg.Transports = rep.Config.Computes, rep.Config.Touches, rep.Config.Transports
	r.Cfg.Reps, r.Cfg.BudgetMs = rep.Config.Reps, rep.Config.BudgetMs
	r.Cfg.MinIters, r.Cfg.MaxIters, r.Cfg.Modes, r.Cfg.Argv = rep.Config.MinIters, rep.Config.MaxIters, rep.Config.Modes, rep.Env.Argv
	osubench.WriteHeader(os.Stdout, r)
	for _, br := range osubench.PrimaryFirst(rep.Benches) {
		osubench.WriteBench(os.Stdout, br)
	}
	osubench.WriteTouchCost(os.Stdout, rep.Benches)
	osubench.WriteTargets(os.Stdout, osubench.EvaluateTargets(rep.Benches))
	for _, br := range rep.Benches {
		p := filepath.Join(dir, osubench.PlotName(br))
		if err := osubench.PlotBench(br, p); err != nil {
			return err
		}
		fmt.Printf("# wrote %s\n", p)
	}
	return nil
}

// parseRun turns the arguments of `osubench run` into a configuration.
func parseRun(args []string) (osubench.Config, opts, error) {
	var o opts
	fs := newFlags(&o)
	fs.Usage = func() { fmt.Fprintf(os.Stderr, usage); fs.PrintDefaults() }
	// The benchmark may come before or after the options.
	var benchArg string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		benchArg, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return osubench.Config{}, o, err
	}
	if benchArg == "" && fs.NArg() > 0 {
		benchArg = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return osubench.Config{}, o, err
		}
	}
	if fs.NArg() > 0 {
		return osubench.Config{}, o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if benchArg == "" {
		return osubench.Config{}, o, fmt.Errorf("which benchmark? latency, overlap, rate, halo, phases, probe, rma or all")
	}
	cfg := osubench.Config{Quick: o.quick, Reps: o.reps, BudgetMs: o.budget, MinIters: o.minIters, MaxIters: o.maxIters,
		Timeout: o.timeout, Lib: o.lib, Cache: o.cache, OverlapCompute: o.overlapCompute, HaloComputeUs: o.haloUs,
		Window: o.window, PhaseComputeUs: o.phaseUs, PhasePingPongs: o.phasePingPongs, PhaseWindows: o.phaseWindows,
		PhaseExchanges: o.phaseExchanges, ProbeSliceUs: o.probeSlice, ProbeThinkUs: o.probeThink,
		RMAComputeUs: float64(o.rmaCompute) / float64(time.Microsecond), GASliceUs: o.gaSlice, RMAMinIters: o.rmaMinIters, RMASync: o.rmaSync, Check: o.check, Genv: o.genv, QuietWait: o.quietWait, QuietCores: o.quietCores, SetInfo: o.setinfo, Progress: os.Stderr, Argv: append([]string{"osubench", "run", benchArg}, args...)}
	var err error
	if cfg.Benches, err = osubench.ParseBenches(benchArg); err != nil {
		return cfg, o, err
	}
	modes := o.modes
	if modes == "" {
		modes = strings.Join(osubench.DefaultModesFor(cfg.Benches), ",")
	}
	if cfg.Modes, err = osubench.ParseModes(modes); err != nil {
		return cfg, o, err
	}
	if o.sizes != "" {
		if cfg.Sizes, err = osubench.ParseSizes(o.sizes); err != nil {
			return cfg, o, err
		}
	}
	if o.layout != "" {
		l, err := osubench.ParseLayout(o.layout, osubench.DefaultLayout)
		if err != nil {
			return cfg, o, err
		}
		cfg.Layout = &l
	}
	if cfg.Computes, err = osubench.ParseComputes(o.compute); err != nil {
		return cfg, o, err
	}
	if o.touch == "" {
		o.touch = osubench.DefaultTouch(benchArg)
	}
	if cfg.Touches, err = osubench.ParseTouch(o.touch); err != nil {
		return cfg, o, err
	}
	if cfg.Transports, err = osubench.ParseTransports(o.transport); err != nil {
		return cfg, o, err
	}
	if o.placement == "" {
		o.placement = osubench.DefaultPlacement(cfg.Benches)
	}
	if cfg.Placements, err = osubench.ParsePlacements(o.placement); err != nil {
		return cfg, o, err
	}
	if o.rmaCompute <= 0 {
		return cfg, o, fmt.Errorf("--rma-compute %v: want a positive duration", o.rmaCompute)
	}
	if o.rmaSync != "barrier" && o.rmaSync != "fence" {
		return cfg, o, fmt.Errorf("--rma-sync %q: want barrier or fence", o.rmaSync)
	}
	if o.overlapCompute != "mpi" && o.overlapCompute != "self" {
		return cfg, o, fmt.Errorf("--overlap-compute %q: want mpi or self", o.overlapCompute)
	}
	return cfg, o, nil
}

func run(args []string) error {
	cfg, o, err := parseRun(args)
	if err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = filepath.Join("osubench-out", time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	switch o.prof {
	case "":
	case "cpu":
		defer profile.Start(profile.CPUProfile, profile.ProfilePath(out), profile.NoShutdownHook, profile.Quiet).Stop()
	case "mem":
		defer profile.Start(profile.MemProfile, profile.ProfilePath(out), profile.NoShutdownHook, profile.Quiet).Stop()
	default:
		return fmt.Errorf("--profile %q: want cpu or mem", o.prof)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := &osubench.Runner{Cfg: cfg}
	if err := r.Prepare(); err != nil {
		return err
	}
	jobs, est := r.Estimate()
	r.Env.Estimate = fmt.Sprintf("%d jobs, about %s on a 2-core host like the development machine (%d reps, %g ms budget per size and phase)",
		jobs, est.Round(time.Minute/6), r.Cfg.Reps, r.Cfg.BudgetMs)
	fmt.Fprintf(os.Stderr, "osubench: %s\n", r.Env.Estimate)
	osubench.WriteHeader(os.Stdout, r)
	runErr := r.Run(ctx, func(br *osubench.BenchResult) { osubench.WriteBench(os.Stdout, br) })
	osubench.WriteTouchCost(os.Stdout, r.Results)
	targets := osubench.EvaluateTargets(r.Results)
	osubench.WriteTargets(os.Stdout, targets)
	paths, err := osubench.WriteFiles(out, r, targets, !o.noPlots)
	fmt.Printf("\n# elapsed %s; load average %s at start, %s at end\n", r.Env.Elapsed, r.Env.LoadStart, r.Env.LoadEnd)
	if o.prof != "" {
		fmt.Printf("# profile (%s) written to %s\n", o.prof, out)
	}
	for _, p := range paths {
		fmt.Printf("# wrote %s\n", p)
	}
	return errors.Join(runErr, err)
}
