package osubench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/casperii/casperii/internal/mpich"
	"github.com/casperii/casperii/internal/proc"
)

// Config is one invocation of the benchmarks.
type Config struct {
	Benches []Bench
	Modes   []Mode
	Sizes   []int64 // nil: each benchmark's default (or quick) sizes
	Layout  *Layout // nil: DefaultLayout, DefaultHaloLayout for halo
	// Computes are the compute emulations of the benchmarks that compute
	// (overlap, halo), each a series (default busy and sleep).
	Computes []Compute
	// Touches: true for the touched series (buffers written before each
	// post and read after each wait, the default and primary one), false
	// for the untouched (secondary) one.
	Touches []bool
	// Transports: each a series of every benchmark (default shm).
	Transports []Transport
	Reps       int
	BudgetMs   float64 // per size and phase
	MinIters   int
	MaxIters   int
	Timeout    time.Duration // per job; 0: from the sizes and the budget
	// OverlapCompute is where the overlap benchmark's compute time comes
	// from: "mpi" (plain MPI's latency, measured in the same repetition,
	// for every mode; the default) or "self" (each job's own latency).
	OverlapCompute string
	HaloComputeUs  float64
	Window         int
	// The phases benchmark (phases.c): compute between post and wait of
	// its large exchanges, ping-pongs and message-rate windows per small
	// size of its small-message phase, large exchanges per overlapped
	// phase.
	PhaseComputeUs float64
	PhasePingPongs int
	PhaseWindows   int
	PhaseExchanges int
	// The probe benchmark (probe.c): the server's compute slice between
	// polls, the clients' compute between requests.
	ProbeSliceUs float64
	ProbeThinkUs float64
	// The rma benchmarks (rma.c): the target's compute per epoch (rma,
	// default 20 ms), user 0's compute slice (rma-ga), the minimum
	// epochs per size, operation and datatype of rma (every one lasts
	// the target's compute: default 4).
	RMAComputeUs float64
	GASliceUs    float64
	RMAMinIters  int
	// RMASync is rma's first synchronization of each epoch: "barrier"
	// (MPI_Barrier, the default) or "fence" (MPI_Win_fence opening no
	// epoch: a safe point where async_config=auto may switch the window).
	RMASync string
	// Placements: each a series of rma (default PlaceAuto only; the
	// command runs both with rma). CPUs are the CPUs PlaceGhostCores
	// splits (nil: this process's affinity).
	Placements []Placement
	CPUs       []int
	Check      bool // verify received data once per size
	SetInfo    bool // halo: MPI_Comm_set_info on the Cartesian communicator too
	Quick      bool
	Genv       []string // extra KEY=VALUE for every job (-genv), e.g. CSP_VERBOSE=1
	// QuietWait, if positive, holds each job (at most this long) until the
	// rest of the host has used less than QuietCores cores over a second.
	QuietWait  time.Duration
	QuietCores float64
	Lib        string // "auto", "build" or a path
	Cache      string
	MPIExec    string    // "": MPICH's (internal/mpich finds it in Prepare)
	Progress   io.Writer // nil: none
	Argv       []string  // the command line, for the report
}

// Defaults fills the zero fields of c.
func (c *Config) Defaults() {
	if len(c.Benches) == 0 {
		c.Benches = append([]Bench(nil), AllBenches...)
	}
	if len(c.Modes) == 0 {
		c.Modes, _ = ParseModes(strings.Join(DefaultModesFor(c.Benches), ","))
	}
	if len(c.Computes) == 0 {
		c.Computes = []Compute{Busy, Sleep}
	}
	if len(c.Touches) == 0 {
		c.Touches = []bool{true}
	}
	if len(c.Transports) == 0 {
		c.Transports = []Transport{SHM}
	}
	if c.Reps <= 0 {
		c.Reps = 5
		if c.Quick {
			c.Reps = 3
		}
	}
	if c.BudgetMs <= 0 {
		c.BudgetMs = 200
		if c.Quick {
			c.BudgetMs = 100
		}
	}
	if c.MinIters <= 0 {
		c.MinIters = 10
	}
	if c.MaxIters <= 0 {
		c.MaxIters = 100000
	}
	if c.OverlapCompute == "" {
		c.OverlapCompute = "mpi"
	}
	if c.HaloComputeUs <= 0 {
		c.HaloComputeUs = 300
	}
	if c.Window <= 0 {
		c.Window = 64
	}
	if c.PhaseComputeUs <= 0 {
		c.PhaseComputeUs = 200
	}
	if c.PhasePingPongs <= 0 {
		c.PhasePingPongs = 25
	}
	if c.PhaseWindows <= 0 {
		c.PhaseWindows = 2
	}
	if c.PhaseExchanges <= 0 {
		c.PhaseExchanges = 4
	}
	if c.ProbeSliceUs <= 0 {
		c.ProbeSliceUs = 20
	}
	if c.ProbeThinkUs <= 0 {
		c.ProbeThinkUs = 50
	}
	if c.RMAComputeUs <= 0 {
		c.RMAComputeUs = 20000
	}
	if c.GASliceUs <= 0 {
		c.GASliceUs = 100
	}
	if c.RMAMinIters <= 0 {
		c.RMAMinIters = 4
	}
	if len(c.Placements) == 0 {
		c.Placements = []Placement{PlaceAuto}
	}
	if c.Lib == "" {
		c.Lib = "auto"
	}
	if c.Cache == "" {
		c.Cache = CacheDir()
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// LayoutFor returns the layout of benchmark b.
func (c *Config) LayoutFor(b Bench) Layout {
	if c.Layout != nil {
		return *c.Layout
	}
	switch b {
	case Halo:
		return DefaultHaloLayout
	case RMAGA:
		return DefaultGALayout
	}
	return DefaultLayout
}

// SeriesFor returns the series of benchmark b, in the order a repetition
// runs them: those of SeriesOf in each placement (rma; every other
// benchmark runs in PlaceAuto only).
func (c *Config) SeriesFor(b Bench) []Series {
	base := SeriesOf(b, c.Transports, c.Touches, c.Computes)
	if b != RMA {
		return base
	}
	var out []Series
	for _, p := range c.Placements {
		for _, s := range base {
			s.Place = p
			out = append(out, s)
		}
	}
	return out
}

// SizesFor returns the message sizes of benchmark b's primary series.
func (c *Config) SizesFor(b Bench) []int64 {
	switch {
	case c.Sizes != nil:
		return c.Sizes
	case c.Quick:
		return QuickSizes(b)
	}
	return DefaultSizes(b)
}

// SizesForSeries returns the message sizes of series s of benchmark b:
// SizesFor(b), except for an untouched (secondary) series that runs beside
// the touched one with the default sizes (`run all`), and rma's sleep and
// ghost-cores series, which get SecondarySizes(b).
func (c *Config) SizesForSeries(b Bench, s Series) []int64 {
	if c.Sizes == nil && !c.Quick && s.Secondary() && slices.Contains(c.Touches, true) {
		return SecondarySizes(b)
	}
	if c.Sizes == nil && !c.Quick && b == RMA && (s.Compute == Sleep || s.Place != PlaceAuto) {
		return SecondarySizes(b)
	}
	return c.SizesFor(b)
}

// JobRecord is one job of a benchmark run.
type JobRecord struct {
	Bench  Bench      `json:"bench"`
	Series Series     `json:"series"`
	Mode   string     `json:"mode"`
	Rep    int        `json:"rep"`
	Job    *JobResult `json:"job"`
	Error  string     `json:"error,omitempty"`
	Info   []Fields   `json:"info,omitempty"`
	Stats  []CSPStats `json:"csp_stats,omitempty"`
	Points []Point    `json:"points"`
}

// BenchResult holds every job of one series of one benchmark.
type BenchResult struct {
	Bench Bench `json:"bench"`
	Series
	Layout  Layout            `json:"layout"`
	Sizes   []int64           `json:"sizes"`
	Modes   []string          `json:"modes"`
	Skipped map[string]string `json:"skipped,omitempty"` // mode: why
	Jobs    []*JobRecord      `json:"jobs"`
	Notes   []string          `json:"notes,omitempty"`
}

// eachPoint calls f with every point at size of the successful jobs of
// mode ("": of every mode).
func (br *BenchResult) eachPoint(mode string, size int64, f func(j *JobRecord, p Point)) {
	for _, j := range br.Jobs {
		if (mode != "" && j.Mode != mode) || j.Error != "" {
			continue
		}
		for _, p := range j.Points {
			if p.Size == size {
				f(j, p)
			}
		}
	}
}

// Values returns metric's value at size for mode, one per successful job.
func (br *BenchResult) Values(mode, metric string, size int64) []float64 {
	var out []float64
	br.eachPoint(mode, size, func(_ *JobRecord, p Point) {
		if v, ok := p.Values[metric]; ok {
			out = append(out, v)
		}
	})
	return out
}

// Summary returns the median and spread of metric at size for mode.
func (br *BenchResult) Summary(mode, metric string, size int64) Spread {
	return Summarize(br.Values(mode, metric, size))
}

// PairedRatio returns the spread of mode's metric at size over base's in
// the same repetition, over the repetitions in which both produced it.
// Interleaved jobs of one repetition meet the same state of the host: on
// the development machine plain MPICH's small-message jobs switch between
// two speeds about 2x apart from one repetition to the next, which moves
// a ratio of medians but not the median of these ratios.
func (br *BenchResult) PairedRatio(mode, base, metric string, size int64) Spread {
	byRep := func(m string) map[int]float64 {
		out := map[int]float64{}
		br.eachPoint(m, size, func(j *JobRecord, p Point) {
			if v, ok := p.Values[metric]; ok {
				out[j.Rep] = v
			}
		})
		return out
	}
	a, b := byRep(mode), byRep(base)
	var rs []float64
	for rep, v := range a {
		if w, ok := b[rep]; ok {
			rs = append(rs, Ratio(v, w))
		}
	}
	return Summarize(rs)
}

// Touch regimes (docs/design.md section 7, "Two regimes of touched
// transfers"): on the development machine a job's touches of its
// buffers at 256 KiB and more take one of two times about 3x apart
// (1 MiB: 40 or 125-137 us), under every mode, as the host places its
// virtual CPUs, and the same job's exchanges slow with them. A job is in
// the fast regime at a size when its touch time there is at most
// regimeFactor times the fastest job's of the series; the regimes are
// told apart only where the slowest job's touch time is at least
// regimeSplit times the fastest's (else one regime: nothing to match),
// and from regimeMinSize on (smaller touches are too short to tell).
const (
	regimeFactor  = 1.5
	regimeSplit   = 2.0
	regimeMinSize = 256 << 10
)

// FastRegimeRatio returns the ratio of mode's median of metric at size
// over base's, both taken over their jobs in the fast touch regime, and
// how many of each mode's jobs were: ok is false where the series has no
// touches, the size is below regimeMinSize, its jobs are all in one
// regime, or either mode has no fast job.
func (br *BenchResult) FastRegimeRatio(mode, base, metric string, size int64) (r float64, fastMode, nMode, fastBase, nBase int, ok bool) {
	if !br.Touch || size < regimeMinSize {
		return 0, 0, 0, 0, 0, false
	}
	lo, hi := math.Inf(1), 0.0
	br.eachPoint("", size, func(_ *JobRecord, p Point) {
		if v := p.Values["touch_us"]; v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	})
	if hi < regimeSplit*lo {
		return 0, 0, 0, 0, 0, false
	}
	fast := func(m string) (vals []float64, n int) {
		br.eachPoint(m, size, func(_ *JobRecord, p Point) {
			v, has := p.Values[metric]
			if !has {
				return
			}
			n++
			if t := p.Values["touch_us"]; t > 0 && t <= regimeFactor*lo {
				vals = append(vals, v)
			}
		})
		return vals, n
	}
	a, na := fast(mode)
	b, nb := fast(base)
	if len(a) == 0 || len(b) == 0 {
		return 0, len(a), na, len(b), nb, false
	}
	return Ratio(Summarize(a).Median, Summarize(b).Median), len(a), na, len(b), nb, true
}

// Succeeded is the number of jobs of mode that produced results.
func (br *BenchResult) Succeeded(mode string) int {
	n := 0
	for _, j := range br.Jobs {
		if j.Mode == mode && j.Error == "" {
			n++
		}
	}
	return n
}

// Label names the benchmark and its series: "overlap [busy compute,
// touched, shm]".
func (br *BenchResult) Label() string {
	return string(br.Bench) + " [" + br.Series.Label() + "]"
}

// Commands returns the first command run for each mode (the exact mpiexec
// line of repetition 1).
func (br *BenchResult) Commands() map[string]string {
	m := map[string]string{}
	for _, j := range br.Jobs {
		if _, ok := m[j.Mode]; !ok && j.Job != nil {
			m[j.Mode] = j.Job.Cmd
		}
	}
	return m
}

// Runner runs a Config.
type Runner struct {
	Cfg     Config
	Env     *EnvInfo
	Progs   *Programs
	Lib     *Lib
	Results []*BenchResult
	started time.Time
	jobsRun int
	jobsAll int
	// broken holds, per transport and mode, why the mode cannot run there:
	// it failed to start (no osub-info line) in two jobs, so later
	// benchmarks skip it instead of failing the same way.
	broken    map[string]string
	startFail map[string]int
}

func tmKey(t Transport, mode string) string { return string(t) + "/" + mode }

// Prepare builds the programs and finds the library. CasperII modes whose
// library (or Go program) is missing are skipped later with the reason.
func (r *Runner) Prepare() error {
	c := &r.Cfg
	c.Defaults()
	if c.MPIExec == "" {
		p, err := mpich.Find("mpiexec")
		if err != nil {
			return err
		}
		c.MPIExec = p
	} else if _, err := exec.LookPath(c.MPIExec); err != nil {
		return fmt.Errorf("mpiexec not found: %w", err)
	}
	if err := os.MkdirAll(c.Cache, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(c.Progress, "osubench: building the C programs into %s\n", c.Cache)
	p, err := BuildC(c.Cache)
	if err != nil {
		return err
	}
	r.Progs = p
	wd, _ := os.Getwd()
	root := RepoRoot(wd)
	needLib, needGo := false, false
	for _, m := range c.Modes {
		needLib = needLib || m.Preload
		needGo = needGo || m.GoAPI
	}
	if needLib {
		fmt.Fprintf(c.Progress, "osubench: finding the CasperII library (--lib %s)\n", c.Lib)
		r.Lib = FindLib(c.Lib, root, c.Cache)
		if r.Lib.Err != nil {
			fmt.Fprintf(c.Progress, "osubench: no CasperII library, the preload modes are skipped: %v\n", r.Lib.Err)
		} else if r.Lib.Stale != "" {
			fmt.Fprintf(c.Progress, "osubench: warning: %s; use --lib build to measure the current sources\n", r.Lib.Stale)
		}
	}
	if needGo {
		fmt.Fprintf(c.Progress, "osubench: building the Go-API latency program\n")
		p.GoAPI, p.GoErr = BuildGoAPI(root, p.Dir)
	}
	r.Env = CollectEnv(c, r.Lib)
	return nil
}

// skipReason says why mode m cannot run benchmark b ("" if it can): a
// missing library or program, or modeMismatch.
func (r *Runner) skipReason(b Bench, m Mode, l Layout) string {
	switch {
	case m.Preload && (r.Lib == nil || r.Lib.Err != nil):
		if r.Lib == nil {
			return "no CasperII library"
		}
		return "no CasperII library: " + r.Lib.Err.Error()
	case m.GoAPI && b == Latency && (r.Progs == nil || r.Progs.GoAPI == ""):
		if r.Progs == nil {
			return "the Go-API program is not built"
		}
		return fmt.Sprintf("the Go-API program did not build: %v", r.Progs.GoErr)
	}
	return modeMismatch(b, m, l)
}

// modeMismatch says why mode m does not apply to benchmark b in layout l
// ("" if it does), whatever is built.
func modeMismatch(b Bench, m Mode, l Layout) string {
	switch {
	case m.GoAPI && b != Latency:
		return "the Go-API program implements the latency test only"
	case m.PhaseHint && b != Phases:
		return "cspii-hint sets async_config per phase of the phases benchmark only"
	case (b == Latency || b == Overlap || b == Rate || b == Phases) && l.NUsers()%2 != 0:
		return fmt.Sprintf("%s pairs users: layout %s has an odd number of users", b, l)
	case b == Probe && l.NUsers() < 2:
		return fmt.Sprintf("probe needs a server and at least one client: layout %s has 1 user", l)
	case b.IsRMA() && l.NUsers() < 2:
		return fmt.Sprintf("%s needs an origin and a target: layout %s has 1 user", b, l)
	}
	return ""
}

// phases is how many timed phases per size a benchmark runs.
func phases(b Bench) int {
	if b == Overlap {
		return 3
	}
	return 1
}

// jobTimeout bounds one job: startup, plus every phase of every size at
// several times its budget (the warm-up is run twice and the budget is
// only a target), plus its minimum iterations.
func (r *Runner) jobTimeout(b Bench, nsizes int) time.Duration {
	if r.Cfg.Timeout > 0 {
		return r.Cfg.Timeout
	}
	per := time.Duration(4*r.Cfg.BudgetMs)*time.Millisecond + 2*time.Second
	if b == RMA { // 6 cells, each at least RMAMinIters+1 epochs of the target's compute
		per += time.Duration(3*6*float64(r.Cfg.RMAMinIters+1)*r.Cfg.RMAComputeUs) * time.Microsecond
	}
	return 60*time.Second + time.Duration(nsizes*phases(b))*per
}

// Job builds the job of series s of benchmark b in mode m. extra are
// program arguments added last (the overlap's -x).
func (r *Runner) Job(b Bench, m Mode, l Layout, s Series, sizes []int64, extra []string) JobSpec {
	c := &r.Cfg
	var ss []string
	for _, n := range sizes {
		ss = append(ss, strconv.FormatInt(n, 10))
	}
	args := []string{"-s", strings.Join(ss, ",")}
	if b.Computes() {
		args = append(args, "-c", string(s.Compute))
	}
	if s.Touch {
		args = append(args, "-t")
	}
	minIters := c.MinIters
	if b == RMA { // every epoch lasts the target's compute: fewer than the others
		minIters = c.RMAMinIters
	}
	args = append(args, "-b", strconv.FormatFloat(c.BudgetMs, 'g', -1, 64),
		"-m", strconv.Itoa(minIters), "-i", strconv.Itoa(c.MaxIters))
	if h := m.HintFor(b); h != "" {
		args = append(args, "-H", h)
	}
	if m.Thread {
		args = append(args, "-T")
	}
	if c.Check {
		args = append(args, "-C")
	}
	switch b {
	case Rate:
		args = append(args, "-W", strconv.Itoa(c.Window))
	case Halo:
		args = append(args, "-u", strconv.FormatFloat(c.HaloComputeUs, 'g', -1, 64))
		if c.SetInfo {
			args = append(args, "-S")
		}
	case Phases:
		args = append(args, "-u", strconv.FormatFloat(c.PhaseComputeUs, 'g', -1, 64),
			"-P", strconv.Itoa(c.PhasePingPongs), "-R", strconv.Itoa(c.PhaseWindows),
			"-W", strconv.Itoa(c.Window), "-I", strconv.Itoa(c.PhaseExchanges))
		if m.PhaseHint {
			args = append(args, "-A")
		}
	case Probe:
		args = append(args, "-u", strconv.FormatFloat(c.ProbeThinkUs, 'g', -1, 64),
			"-q", strconv.FormatFloat(c.ProbeSliceUs, 'g', -1, 64))
	case RMA:
		w := "flush"
		if c.RMASync == "fence" {
			w = "fence"
		}
		args = append(args, "-w", w, "-u", strconv.FormatFloat(c.RMAComputeUs, 'g', -1, 64))
	case RMAGA:
		args = append(args, "-w", "ga", "-q", strconv.FormatFloat(c.GASliceUs, 'g', -1, 64))
	}
	args = append(args, extra...)
	j := JobSpec{Procs: l.Procs(m), Prog: r.Progs.C[b], Args: args, Timeout: r.jobTimeout(b, len(sizes)), FinalizeGrace: DefaultFinalizeGrace}
	if s.Place == PlaceGhostCores {
		if cpus := GhostCoresCPUs(l, m, r.cpus()); cpus != nil {
			var us []string
			for _, c := range cpus {
				us = append(us, strconv.Itoa(c))
			}
			j.Launcher = []string{"-bind-to", "user:" + strings.Join(us, ",")}
		}
	}
	if m.Thread {
		j.Env = append(j.Env, "MPIR_CVAR_ASYNC_PROGRESS=1")
	}
	if m.Ghosts() {
		j.Env = append(j.Env, "CSP_NODE_SIZE="+strconv.Itoa(l.NodeSize()), "CSP_NG="+strconv.Itoa(l.Ghosts), "CSP_STATS=1")
		j.IsGhost = l.IsGhostRank
		if s.Place == PlaceGhostCores && oneNodeRMA(b, l) {
			j.Env = append(j.Env, "CSP_RMA_LOCAL=0")
		}
	}
	if m.Preload && m.AsyncConfig != "" {
		j.Env = append(j.Env, "CSP_ASYNC_CONFIG="+m.AsyncConfig)
	}
	if m.Preload && m.AsyncMode != "" {
		j.Env = append(j.Env, "CSP_ASYNC_MODE="+m.AsyncMode)
	}
	if m.Preload {
		j.Env = append(j.Env, "LD_PRELOAD="+r.Lib.Path)
	}
	if m.GoAPI {
		j.Prog = r.Progs.GoAPI // same options, same output lines
	}
	j.Env = append(j.Env, s.Transport.Env()...)
	j.Env = append(j.Env, c.Genv...)
	return j
}

// oneNodeRMA reports whether rma's origin and target (users 0 and 1) share
// a virtual node of layout l: the library then serves the window in the
// origins (CSP_RMA_LOCAL), without the ghost.
func oneNodeRMA(b Bench, l Layout) bool { return b == RMA && l.Users >= 2 }

// cpus are the CPUs PlaceGhostCores splits: Config.CPUs, else this
// process's affinity.
func (r *Runner) cpus() []int {
	if r.Cfg.CPUs != nil {
		return r.Cfg.CPUs
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var out []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			out = append(out, i)
		}
	}
	return out
}

// Run runs every benchmark of the configuration; after each one, report
// (if not nil) is called with its result.
func (r *Runner) Run(ctx context.Context, report func(*BenchResult)) error {
	c := &r.Cfg
	r.started = time.Now()
	r.jobsAll, _ = r.Estimate()
	defer func() {
		r.Env.LoadEnd = loadAvg()
		r.Env.Elapsed = time.Since(r.started).Round(time.Second).String()
	}()
	for _, b := range c.Benches {
		brs := r.runBench(ctx, b)
		r.Results = append(r.Results, brs...)
		if report != nil {
			// The primary (touched) series first, then the secondary ones.
			for _, sec := range []bool{false, true} {
				for _, br := range brs {
					if br.Secondary() == sec {
						report(br)
					}
				}
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// runBench runs every series of benchmark b, interleaved: every
// repetition runs each series once (transport, then touched before
// untouched, then compute kind), and within a series each mode once.
func (r *Runner) runBench(ctx context.Context, b Bench) []*BenchResult {
	c := &r.Cfg
	l := c.LayoutFor(b)
	if r.broken == nil {
		r.broken, r.startFail = map[string]string{}, map[string]int{}
	}
	var brs []*BenchResult
	for _, s := range c.SeriesFor(b) {
		sl := l
		if s.Place == PlaceGhostCores {
			sl = GhostCoresLayout(l, len(r.cpus()))
		}
		br := &BenchResult{Bench: b, Series: s, Layout: sl, Sizes: c.SizesForSeries(b, s), Skipped: map[string]string{}}
		for _, m := range c.Modes {
			why := r.skipReason(b, m, sl)
			if why == "" {
				why = r.broken[tmKey(s.Transport, m.Name)]
			}
			if why == "" && s.Place == PlaceGhostCores && GhostCoresCPUs(sl, m, r.cpus()) == nil {
				why = fmt.Sprintf("placement ghost-cores needs at least 2 CPUs (this process may run on %d)", len(r.cpus()))
			}
			if why != "" {
				br.Skipped[m.Name] = why
				continue
			}
			br.Modes = append(br.Modes, m.Name)
		}
		if b == RMA && s.Compute == Sleep {
			br.Notes = append(br.Notes, "sleep compute is a secondary series: the target leaves its core to the ghost or progress thread, which no CPU-bound application does")
		}
		if s.Place == PlaceGhostCores {
			if sl != l {
				br.Notes = append(br.Notes, fmt.Sprintf("placement ghost-cores: layout %s instead of %s, so that every ghost has a CPU of its own on these %d CPUs", sl, l, len(r.cpus())))
			}
			if cpus := GhostCoresCPUs(sl, Mode{Preload: true}, r.cpus()); cpus != nil {
				br.Notes = append(br.Notes, fmt.Sprintf("placement ghost-cores: world rank -> CPU %s in the ghost modes (the ghosts on CPUs of their own, the users on the others, sharing them if need be); the modes without ghosts bind their users to the users' CPUs (mpiexec -bind-to user:...)", formatInts(cpus)))
			}
			if oneNodeRMA(b, sl) {
				br.Notes = append(br.Notes, "placement ghost-cores: origin and target share a virtual node, whose windows the origins serve themselves; the ghost modes run with CSP_RMA_LOCAL=0, so that the ghost serves them, as this series measures")
			}
		}
		if b == Overlap {
			switch {
			case c.OverlapCompute == "mpi" && contains(br.Modes, "mpi"):
				br.Notes = append(br.Notes, "compute per size = plain MPI's latency in this transport, the same for every mode, compute kind and touch setting of a rep: rep 1 takes the first mpi job's own calibration, later reps the median over the earlier reps of the mpi jobs' median exchange time (post + wait, touching excluded; -x)")
			default:
				br.Notes = append(br.Notes, "compute per size = each job's own latency (its median exchange time, post + wait, calibrated first in the same job)")
			}
		}
		brs = append(brs, br)
	}
	for _, br := range brs {
		for _, m := range sortedKeys(br.Skipped) {
			fmt.Fprintf(c.Progress, "osubench: %s: mode %s skipped: %s\n", br.Label(), m, br.Skipped[m])
		}
	}
	failures := map[string]int{} // per series and mode
	// overlap with --overlap-compute mpi: every mode of a repetition
	// computes the same, plain MPI's latency per size in the transport.
	// mpiP50 collects, per size, the mpi jobs' median exchange times
	// (every series of the transport); from rep 2 on, every mode (mpi
	// included) gets their median over the earlier reps with -x. In rep 1
	// the first mpi job of the transport calibrates itself and the other
	// jobs get what it computed (its target_us). A series may have fewer
	// sizes than another (SecondarySizes): the values are kept per size.
	mpiP50 := map[Transport]map[int64][]float64{}
	sameCompute := b == Overlap && c.OverlapCompute == "mpi"
	for rep := 1; rep <= c.Reps; rep++ {
		mpiLat := map[Transport]map[int64]string{} // overlap: the compute asked for, per size, in this repetition
		if sameCompute {
			for t, p50 := range mpiP50 {
				mpiLat[t] = map[int64]string{}
				for sz, vs := range p50 {
					if len(vs) > 0 {
						mpiLat[t][sz] = strconv.FormatFloat(Median(vs), 'f', 4, 64)
					}
				}
			}
		}
		for _, br := range brs {
			s := br.Series
			for _, m := range c.Modes {
				if !contains(br.Modes, m.Name) {
					continue
				}
				if ctx.Err() != nil {
					return brs
				}
				key := tmKey(s.Transport, m.Name)
				fkey := s.Slug() + "/" + m.Name
				if failures[fkey] >= 2 {
					r.jobsRun++
					continue
				}
				if why, ok := r.broken[key]; ok {
					r.jobsRun++
					if _, noted := br.Skipped[m.Name]; !noted {
						br.Skipped[m.Name] = fmt.Sprintf("rep %d and later not run: %s", rep, why)
						fmt.Fprintf(c.Progress, "osubench: %s: mode %s: %s\n", br.Label(), m.Name, br.Skipped[m.Name])
					}
					continue
				}
				var extra []string
				same := sameCompute && contains(br.Modes, "mpi")
				xs, haveX := computeFor(mpiLat[s.Transport], br.Sizes)
				if same && haveX {
					extra = []string{"-x", xs}
				} else if same && m.Name != "mpi" {
					br.Notes = append(br.Notes, fmt.Sprintf("rep %d: no mpi result to take the compute from, %s computed its own latency", rep, m.Name))
				}
				rec := r.runJob(ctx, br, m, br.Layout, br.Sizes, rep, extra)
				if rec.Error != "" {
					failures[fkey]++
					if rec.StartFailed() {
						r.startFail[key]++
						if r.startFail[key] >= 2 {
							r.broken[key] = fmt.Sprintf("failed to start (no osub-info line) in %d jobs with transport %s: %s", r.startFail[key], s.Transport, firstCause(rec.Error))
						}
					}
					if failures[fkey] == 2 && rep < c.Reps {
						br.Notes = append(br.Notes, fmt.Sprintf("%s failed twice: its remaining repetitions of this series were not run", m.Name))
					}
				}
				if same && m.Name == "mpi" && rec.Error == "" {
					if mpiP50[s.Transport] == nil {
						mpiP50[s.Transport] = map[int64][]float64{}
					}
					if mpiLat[s.Transport] == nil {
						mpiLat[s.Transport] = map[int64]string{}
					}
					for _, p := range rec.Points {
						v, ok := p.Values["xchg_p50_us"]
						if !ok { // programs before touching reported the ping-pong only
							v = p.Values["comm_p50_us"]
						}
						mpiP50[s.Transport][p.Size] = append(mpiP50[s.Transport][p.Size], v)
						if _, ok := mpiLat[s.Transport][p.Size]; !ok { // rep 1: what the mpi job computed
							mpiLat[s.Transport][p.Size] = strconv.FormatFloat(p.Values["target_us"], 'f', 4, 64)
						}
					}
				}
				br.Jobs = append(br.Jobs, rec)
			}
		}
	}
	return brs
}

// computeFor is the -x argument of an overlap job on sizes: the compute
// asked for at each size, from lat; false if lat lacks a size.
func computeFor(lat map[int64]string, sizes []int64) (string, bool) {
	xs := make([]string, 0, len(sizes))
	for _, sz := range sizes {
		x, ok := lat[sz]
		if !ok {
			return "", false
		}
		xs = append(xs, x)
	}
	return strings.Join(xs, ","), len(xs) > 0
}

// runJob runs one job of series br.Series in mode m and records it.
func (r *Runner) runJob(ctx context.Context, br *BenchResult, m Mode, l Layout, sizes []int64, rep int, extra []string) *JobRecord {
	c := &r.Cfg
	b, s := br.Bench, br.Series
	j := r.Job(b, m, l, s, sizes, extra)
	r.jobsRun++
	fmt.Fprintf(c.Progress, "[%d/%d %s%s] %s rep %d/%d [%s] %s: %s\n", r.jobsRun, r.jobsAll,
		time.Since(r.started).Round(time.Second), r.eta(), b, rep, c.Reps, s.Label(), m.Name, ShellQuote(j.Argv(c.MPIExec)))
	if c.QuietWait > 0 {
		waited, busy := waitQuiet(ctx, c.QuietWait, c.QuietCores)
		if waited > time.Second {
			fmt.Fprintf(c.Progress, "    waited %s for a quiet host (other processes: %.2f cores)\n", waited.Round(time.Second), busy)
		}
	}
	res := RunJob(ctx, c.MPIExec, j)
	rec := &JobRecord{Bench: b, Series: s, Mode: m.Name, Rep: rep, Job: res,
		Info: ParseLines(res.Stdout, "osub-info"), Stats: ParseCSPStats(res.Stderr)}
	pts, perr := ParsePoints(res.Stdout, b)
	rec.Points = pts
	err := res.Err()
	if err == nil && perr != nil {
		err = perr
	}
	if err == nil && len(pts) != len(sizes) {
		err = fmt.Errorf("%d result lines for %d sizes", len(pts), len(sizes))
	}
	if err == nil {
		err = checkInfo(rec.Info, s, b, m)
	}
	if err == nil {
		err = checkPoints(b, pts)
	}
	if err != nil {
		rec.Error = err.Error()
	} else {
		res.Stderr = trimStats(res.Stderr)
	}
	if len(res.Leftover) > 0 {
		br.Notes = append(br.Notes, fmt.Sprintf("%s rep %d: processes outlived mpiexec and were killed: %s", m.Name, rep, strings.Join(res.Leftover, ", ")))
	}
	if res.FinalizeHang && rec.Error == "" {
		br.Notes = append(br.Notes, fmt.Sprintf("%s rep %d: hung in MPI_Finalize after its last result line and was killed %s later; its results are kept (MPICH 4.0.2 ch4/ucx: a process in the PMI barrier of MPI_Finalize keeps its peer's disconnect from completing; fixed in later MPICH, pmodels/mpich#6596)", m.Name, rep, DefaultFinalizeGrace))
	}
	if len(res.ShmLeft) > 0 {
		br.Notes = append(br.Notes, fmt.Sprintf("%s rep %d: left /dev/shm entries (removed): %s", m.Name, rep, strings.Join(res.ShmLeft, " ")))
	}
	status := "ok"
	if rec.Error != "" {
		status = "FAILED: " + rec.Error
		if rec.StartFailed() {
			status = "FAILED TO START (no osub-info line: MPI_Init or the preload failed): " + rec.Error
		}
	}
	fmt.Fprintf(c.Progress, "    %s in %s\n", status, res.Wall.Round(100*time.Millisecond))
	return rec
}

// firstCause is the first of the stderr lines an error quotes (RunJob
// joins the last lines of stderr with " | "; the rest is usually every
// rank's MPI_Abort echo).
func firstCause(err string) string {
	first, _, _ := strings.Cut(err, " | ")
	return first
}

// StartFailed reports whether the job failed before the program printed
// its info line (MPI_Init, the preloaded library or mpiexec failed).
func (j *JobRecord) StartFailed() bool { return j.Error != "" && len(j.Info) == 0 }

// checkInfo verifies that the program ran the series asked for: its info
// lines say touch=on|off and, for the benchmarks that compute, the compute
// kind, and phases whether it switched async_config per phase as mode m
// asks (a program that ignored -t, -c or -A would mislabel its results).
func checkInfo(info []Fields, s Series, b Bench, m Mode) error {
	if len(info) == 0 {
		return fmt.Errorf("no osub-info line")
	}
	want := "off"
	if s.Touch {
		want = "on"
	}
	for _, f := range info {
		if got, ok := f["touch"]; ok && got != want {
			return fmt.Errorf("the program ran with touch=%s, the series is touch=%s", got, want)
		}
		if got, ok := f["compute"]; ok && b.Computes() && got != string(s.Compute) {
			return fmt.Errorf("the program ran with compute=%s, the series is compute=%s", got, s.Compute)
		}
		if got, ok := f["phase_hint"]; ok && got != map[bool]string{true: "1", false: "0"}[m.PhaseHint] {
			return fmt.Errorf("the program ran with phase_hint=%s, mode %s asks for phase_hint=%t", got, m.Name, m.PhaseHint)
		}
	}
	return nil
}

// checkPoints rejects results a program reported as wrong: rma-ga's
// ok=0 (an element of the target's window did not hold the sum of what
// the origins accumulated).
func checkPoints(b Bench, pts []Point) error {
	if b != RMAGA {
		return nil
	}
	for _, p := range pts {
		if ok, has := p.Values["ok"]; !has || ok != 1 {
			return fmt.Errorf("wrong result at %s: ok=%g (the target's window does not hold the sum of what the origins accumulated)", FormatSize(p.Size), ok)
		}
	}
	return nil
}

func formatInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}

// Estimate returns the number of jobs the configuration runs and how long
// they should take (see jobEstimate). Call it after Prepare.
func (r *Runner) Estimate() (int, time.Duration) {
	c := &r.Cfg
	jobs := 0
	var d time.Duration
	for _, b := range c.Benches {
		l := c.LayoutFor(b)
		for _, s := range c.SeriesFor(b) {
			n := len(c.SizesForSeries(b, s))
			for _, m := range c.Modes {
				why := modeMismatch(b, m, l)
				if r.Progs != nil {
					why = r.skipReason(b, m, l)
				}
				if why != "" {
					continue
				}
				jobs += c.Reps
				d += time.Duration(c.Reps) * jobEstimate(b, m, n, c.BudgetMs)
				if b == RMA && s.Compute != Idle {
					// every epoch of the 6 cells waits for the compute at
					// least RMAMinIters+1 times
					per := float64(6*(c.RMAMinIters+1)) * c.RMAComputeUs / 1e6
					d += time.Duration(float64(c.Reps) * float64(n) * per * float64(time.Second))
				}
			}
		}
	}
	return jobs, d
}

// jobEstimate is how long one job of b in mode m on nsizes sizes should
// take: startup, and per size its timed phases (90% of the budget each:
// small sizes reach the iteration cap first) plus warm-up and calibration
// (halo: 20 warm-up iterations of a few ms; phases: 4 warm-up rounds). The thread mode's progress
// thread competes with the users for the cores: 2.5 times as long. Fitted
// to runs on the 2-core development machine (overlap 10 sizes at 200 ms:
// mpi 4.4 s, cspii 5.5 s, thread 13 s; halo 7 sizes: 3.1-5.1 s); the
// progress lines show the real pace (~left).
func jobEstimate(b Bench, m Mode, nsizes int, budgetMs float64) time.Duration {
	startup := 0.3
	if m.Ghosts() {
		startup = 0.5
	}
	timed := float64(phases(b)) * 0.9 * budgetMs / 1e3
	if m.Thread {
		timed *= 2.5
	}
	warm := 0.05
	switch b {
	case Halo, Phases:
		warm = 0.2
	case RMA: // six cells share the budget (see rma.c); the compute is added by Estimate
		timed = 0.9 * budgetMs / 1e3
	case RMAGA: // a warm-up phase of a quarter budget, 3 timed phases
		timed = 3.25 * budgetMs / 1e3
	}
	secs := startup + float64(nsizes)*(timed+warm)
	return time.Duration(secs * float64(time.Second))
}

// eta estimates the time left from the mean time of the jobs run so far
// ("" before the first one has finished).
func (r *Runner) eta() string {
	done := r.jobsRun - 1 // the job about to start is counted already
	if done < 1 || r.jobsAll <= done {
		return ""
	}
	per := time.Since(r.started) / time.Duration(done)
	return fmt.Sprintf(", ~%s left", (per * time.Duration(r.jobsAll-done)).Round(time.Second))
}

// waitQuiet waits until the host's busy time over one second is below
// cores, or max has passed; it returns how long it waited and the last
// busy level seen.
func waitQuiet(ctx context.Context, max time.Duration, cores float64) (time.Duration, float64) {
	start := time.Now()
	for {
		b0 := proc.HostBusy()
		select {
		case <-ctx.Done():
			return time.Since(start), 0
		case <-time.After(time.Second):
		}
		busy := proc.HostBusy() - b0
		if busy < cores || time.Since(start) >= max {
			return time.Since(start), busy
		}
	}
}

// trimStats drops the stats lines (kept parsed) from a successful job's stderr.
func trimStats(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" && !strings.HasPrefix(l, "casperii-stats ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// EnvInfo describes the machine and the software measured.
type EnvInfo struct {
	Time      string   `json:"time"`
	Host      string   `json:"host"`
	Cores     int      `json:"cores"`
	CPUModel  string   `json:"cpu_model"`
	Kernel    string   `json:"kernel"`
	MPICH     string   `json:"mpich"`
	Go        string   `json:"go"`
	LoadStart string   `json:"load_start"`
	LoadEnd   string   `json:"load_end"`
	Elapsed   string   `json:"elapsed"`
	Lib       string   `json:"lib,omitempty"`
	LibNote   string   `json:"lib_note,omitempty"`
	Argv      []string `json:"argv"`
	Compute   string   `json:"compute"`   // the compute kinds, comma-separated
	Touch     string   `json:"touch"`     // on, off or on,off
	Transport string   `json:"transport"` // the transports, comma-separated
	Estimate  string   `json:"estimate,omitempty"`
	Reps      int      `json:"reps"`
	BudgetMs  float64  `json:"budget_ms"`
}

func numCPU() int { return runtime.NumCPU() }

// goVersion is the toolchain's `go version` (the driver's own runtime
// version if go is not on PATH).
func goVersion() string {
	if out, err := toolOutput("", "go", "version"); err == nil {
		return firstLine(out)
	}
	return runtime.Version()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

// CollectEnv records the environment of the run.
func CollectEnv(c *Config, lib *Lib) *EnvInfo {
	var cs, ts, tr []string
	for _, x := range c.Computes {
		cs = append(cs, string(x))
	}
	for _, x := range c.Touches {
		ts = append(ts, map[bool]string{true: "on", false: "off"}[x])
	}
	for _, x := range c.Transports {
		tr = append(tr, string(x))
	}
	e := &EnvInfo{Time: time.Now().Format(time.RFC3339), Argv: c.Argv, Compute: strings.Join(cs, ","),
		Touch: strings.Join(ts, ","), Transport: strings.Join(tr, ","), Reps: c.Reps, BudgetMs: c.BudgetMs}
	e.Host, _ = os.Hostname()
	e.Cores = numCPU()
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				e.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	if p, err := mpich.Find("mpichversion"); err == nil {
		out, _ := toolOutput("", p)
		var parts []string
		for _, l := range strings.Split(out, "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok {
				switch strings.TrimSpace(k) {
				case "MPICH Version", "MPICH Device":
					parts = append(parts, strings.TrimSpace(v))
				}
			}
		}
		e.MPICH = "MPICH " + strings.Join(parts, " ")
	} else if c.MPIExec != "" {
		if out, err := toolOutput("", c.MPIExec, "--version"); err == nil {
			e.MPICH = firstLine(out)
		}
	}
	e.Go = goVersion()
	e.LoadStart = loadAvg()
	if lib != nil {
		if lib.Err != nil {
			e.LibNote = lib.Err.Error()
		} else {
			e.Lib = fmt.Sprintf("%s (%s, built %s, sha256 %.12s; preloaded from the snapshot %s)",
				lib.Source, lib.How, lib.MTime.Format("2006-01-02 15:04:05"), lib.SHA256, lib.Path)
			e.LibNote = lib.Stale
		}
	}
	return e
}

func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return "-"
	case a >= 1e5:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// sortedModes returns the modes of br that have results, in run order.
func sortedModes(br *BenchResult) []string {
	out := append([]string(nil), br.Modes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i] == "mpi" && out[j] != "mpi" })
	return out
}
