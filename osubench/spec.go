package osubench

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Bench names a benchmark.
type Bench string

// The benchmarks: the paper's (section V), and issue 15's.
const (
	Latency Bench = "latency" // nonblocking ping-pong: post and wait time (Fig. 3 a,b)
	Overlap Bench = "overlap" // post, compute, wait (Fig. 4/5)
	Rate    Bench = "rate"    // windowed message rate, osu_mbw_mr (Fig. 3 c)
	Halo    Bench = "halo"    // 2D Cartesian nearest-neighbour exchange (Fig. 6)
	// Phases alternates a latency-bound small-message phase with a
	// compute-overlapped large exchange (issue 15).
	Phases Bench = "phases"
	// Probe is a request/response server that polls MPI_Iprobe(MPI_ANY_SOURCE)
	// between slices of compute, as PGAS runtimes do (issue 15).
	Probe Bench = "probe"
	// RMA is passive-target one-sided communication while the target
	// computes without calling MPI: an origin's lock, put/get/accumulate,
	// flush, unlock epochs (issue 16; csrc/rma.c -w flush).
	RMA Bench = "rma"
	// RMAGA is the Global-Arrays-like workload of the same program: many
	// origins lock, accumulate and unlock into user 0 while it computes
	// (issue 16; csrc/rma.c -w ga).
	RMAGA Bench = "rma-ga"
)

// AllBenches is what `run all` runs, in this order: the paper's four
// benchmarks, whose cells issue 15's run-all targets judge.
var AllBenches = []Bench{Latency, Overlap, Rate, Halo}

// KnownBenches are every benchmark: `run all`, issue 15's phases and
// probe, and issue 16's rma and rma-ga, which run on their own (`run
// phases`, `run probe`, `run rma`, `run all,phases,probe`).
var KnownBenches = []Bench{Latency, Overlap, Rate, Halo, Phases, Probe, RMA, RMAGA}

// RMABenches are what `run rma` runs: the flush epochs and the GA-like
// workload (`run rma-flush` runs the first alone, `run rma-ga` the
// second).
var RMABenches = []Bench{RMA, RMAGA}

// ParseBenches parses "latency", "all" or a comma-separated list ("all"
// may be one of its items: "all,phases"); "rma" stands for rma and
// rma-ga, "rma-flush" for rma alone.
func ParseBenches(s string) ([]Bench, error) {
	var out []Bench
	seen := map[Bench]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		bs := []Bench{Bench(f)}
		switch {
		case f == "all":
			bs = AllBenches
		case f == "rma":
			bs = RMABenches
		case f == "rma-flush":
			bs = []Bench{RMA}
		case !slices.Contains(KnownBenches, Bench(f)):
			return nil, fmt.Errorf("unknown benchmark %q (want latency, overlap, rate, halo, phases, probe, rma, rma-flush, rma-ga or all)", f)
		}
		for _, b := range bs {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// Mode is one way of running the same benchmark.
type Mode struct {
	Name    string
	Preload bool   // LD_PRELOAD libcasperii.so, with ghosts
	GoAPI   bool   // the Go-API program (CasperII linked in), with ghosts
	Hint    string // wildcard_used on the benchmark communicator ("" none)
	Thread  bool   // MPI_THREAD_MULTIPLE + MPIR_CVAR_ASYNC_PROGRESS=1
	// AsyncConfig is CSP_ASYNC_CONFIG of the preload modes: on (static
	// offload), off (the library present, offload off) or auto (the
	// runtime switches each communicator from self-profiling). Stated
	// even where it is the library's default, so that a mode keeps its
	// meaning if the default changes.
	AsyncConfig string `json:",omitempty"`
	// PhaseHint: the program itself sets async_config per phase
	// (MPI_Comm_set_info between the two barriers that begin a phase);
	// the phases benchmark only.
	PhaseHint bool `json:",omitempty"`
	// AsyncMode is CSP_ASYNC_MODE of the preload modes ("": not set):
	// rma|pt2pt (the library's default: MPI_Win_allocate windows go
	// through the ghosts) or pt2pt (windows stay MPICH's). Stated even
	// where it is the default, as AsyncConfig.
	AsyncMode string `json:",omitempty"`
}

// Ghosts reports whether the mode runs ghost processes.
func (m Mode) Ghosts() bool { return m.Preload || m.GoAPI }

// HintFor is the wildcard_used hint of the mode's communicator in
// benchmark b: the mode's own, except where b receives from
// MPI_ANY_SOURCE (probe), which the hints none and any_tag_same_tag rule
// out: there none becomes any_src (ghost-side matching) and
// any_tag_same_tag any_src|any_tag_same_tag (duplication with source
// recovery), the cheapest algorithms that allow it.
func (m Mode) HintFor(b Bench) string {
	if b.AnySource() {
		switch m.Hint {
		case "none":
			return "any_src"
		case "any_tag_same_tag":
			return "any_src|any_tag_same_tag"
		}
	}
	return m.Hint
}

// Describe says how the mode runs, for the report's header.
func (m Mode) Describe() string {
	var parts []string
	switch {
	case m.Thread:
		parts = append(parts, "MPIR_CVAR_ASYNC_PROGRESS=1 and MPI_Init_thread(MPI_THREAD_MULTIPLE)")
	case m.Preload:
		parts = append(parts, "LD_PRELOAD libcasperii.so")
	case m.GoAPI:
		parts = append(parts, "the Go-API latency program")
	default:
		parts = append(parts, "plain MPICH, no preload")
	}
	if m.AsyncConfig != "" {
		parts = append(parts, "CSP_ASYNC_CONFIG="+m.AsyncConfig)
	}
	switch m.AsyncMode {
	case "":
	case "pt2pt":
		parts = append(parts, "CSP_ASYNC_MODE=pt2pt (windows stay MPICH's: the library present, RMA not redirected)")
	default:
		parts = append(parts, "CSP_ASYNC_MODE="+m.AsyncMode+" (MPI_Win_allocate windows redirected to the ghosts)")
	}
	if m.Hint != "" {
		h := "wildcard_used=" + m.Hint
		if p := m.HintFor(Probe); p != m.Hint && !m.PhaseHint {
			h += " (probe: " + p + ", which allows MPI_ANY_SOURCE)"
		}
		parts = append(parts, h)
	}
	if m.PhaseHint {
		parts = append(parts, "the program sets async_config=off before each small-message phase and on before each overlapped one, between the phase's two barriers (phases only)")
	}
	return strings.Join(parts, ", ")
}

// AnySource reports whether benchmark b receives from MPI_ANY_SOURCE.
func (b Bench) AnySource() bool { return b == Probe }

// Modes known to the command. The go-* modes run the Go-API variant of the
// latency test (osubench/goapi/latency) and apply to latency only;
// cspii-hint applies to phases only.
var knownModes = []Mode{
	{Name: "mpi"},
	{Name: "thread", Thread: true},
	{Name: "cspii-tag", Preload: true, Hint: "none", AsyncConfig: "on"},
	{Name: "cspii-dup", Preload: true, Hint: "any_tag_same_tag", AsyncConfig: "on"},
	{Name: "cspii-off", Preload: true, Hint: "none", AsyncConfig: "off"},
	{Name: "cspii-auto", Preload: true, Hint: "none", AsyncConfig: "auto"},
	{Name: "cspii-hint", Preload: true, Hint: "none", AsyncConfig: "on", PhaseHint: true},
	{Name: "cspii", Preload: true, AsyncMode: "rma|pt2pt"},
	{Name: "cspii-pt2pt", Preload: true, AsyncMode: "pt2pt"},
	{Name: "go-tag", GoAPI: true, Hint: "none"},
	{Name: "go-dup", GoAPI: true, Hint: "any_tag_same_tag"},
}

// DefaultModes are the modes of `run all` (and of latency, overlap, rate
// and halo run alone): the paper's four, and issue 15's cspii-off (what
// the library's mere presence costs) and cspii-auto (adaptive offload).
var DefaultModes = []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto"}

// PhasesModes are the default modes of the phases benchmark: plain MPICH,
// static offload, the library with offload off, automatic switching, and
// the program's own switching per phase.
var PhasesModes = []string{"mpi", "cspii-tag", "cspii-off", "cspii-auto", "cspii-hint"}

// ProbeModes are the default modes of the probe benchmark.
var ProbeModes = []string{"mpi", "cspii-tag", "cspii-off", "cspii-auto"}

// RMAModes are the default modes of rma and rma-ga: plain MPICH, its
// progress thread, CasperII with CSP_ASYNC_MODE=rma|pt2pt (windows
// redirected, over TCP too, where leaving it unset keeps them MPICH's) and
// with CSP_ASYNC_MODE=pt2pt (the library present, windows MPICH's).
var RMAModes = []string{"mpi", "thread", "cspii", "cspii-pt2pt"}

// DefaultModesFor is the default of --modes for a run of benches: the
// union of each benchmark's default modes, in the order of knownModes.
func DefaultModesFor(benches []Bench) []string {
	want := map[string]bool{}
	for _, b := range benches {
		ms := DefaultModes
		switch b {
		case Phases:
			ms = PhasesModes
		case Probe:
			ms = ProbeModes
		case RMA, RMAGA:
			ms = RMAModes
		}
		for _, m := range ms {
			want[m] = true
		}
	}
	var out []string
	for _, m := range knownModes {
		if want[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out
}

// LookupMode returns the mode called name.
func LookupMode(name string) (Mode, bool) {
	for _, m := range knownModes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// ParseModes parses a comma-separated list of mode names. "mpi", when
// present, is moved first: the overlap benchmark takes its compute time from
// plain MPI's latency measured in the same repetition.
func ParseModes(s string) ([]Mode, error) {
	var out []Mode
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		m, ok := LookupMode(f)
		if !ok {
			var names []string
			for _, k := range knownModes {
				names = append(names, k.Name)
			}
			return nil, fmt.Errorf("unknown mode %q (want one of %s)", f, strings.Join(names, ", "))
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no modes in %q", s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name == "mpi" && out[j].Name != "mpi" })
	return out, nil
}

// Layout is the shape of a job: Nodes (virtual) nodes, each with Users user
// processes and, in the CasperII modes, Ghosts ghost processes.
type Layout struct{ Nodes, Users, Ghosts int }

// String formats the layout as ParseLayout reads it.
func (l Layout) String() string {
	return fmt.Sprintf("nodes=%d,users=%d,ghosts=%d", l.Nodes, l.Users, l.Ghosts)
}

// NUsers is the number of user processes.
func (l Layout) NUsers() int { return l.Nodes * l.Users }

// Procs is the number of processes mpiexec starts for mode m.
func (l Layout) Procs(m Mode) int {
	if m.Ghosts() {
		return l.Nodes * (l.Users + l.Ghosts)
	}
	return l.NUsers()
}

// NodeSize is CSP_NODE_SIZE in the ghost modes.
func (l Layout) NodeSize() int { return l.Users + l.Ghosts }

// IsGhostRank reports whether world rank r is a ghost in the ghost modes
// (the first Ghosts ranks of every virtual node).
func (l Layout) IsGhostRank(r int) bool { return r%l.NodeSize() < l.Ghosts }

// Default layouts: 2 nodes x (1 user + 1 ghost); halo and rma-ga 2 nodes
// x (2 users + 1 ghost) (rma-ga: 3 origins accumulate into user 0).
var (
	DefaultLayout     = Layout{Nodes: 2, Users: 1, Ghosts: 1}
	DefaultHaloLayout = Layout{Nodes: 2, Users: 2, Ghosts: 1}
	DefaultGALayout   = Layout{Nodes: 2, Users: 2, Ghosts: 1}
)

// ParseLayout parses "nodes=2,users=1,ghosts=1"; missing keys keep def's value.
func ParseLayout(s string, def Layout) (Layout, error) {
	l := def
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return l, fmt.Errorf("layout: %q is not key=value", f)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return l, fmt.Errorf("layout: %s=%q is not a count", k, v)
		}
		switch strings.TrimSpace(k) {
		case "nodes":
			l.Nodes = n
		case "users":
			l.Users = n
		case "ghosts":
			l.Ghosts = n
		default:
			return l, fmt.Errorf("layout: unknown key %q (want nodes, users, ghosts)", k)
		}
	}
	if l.Nodes < 1 || l.Users < 1 {
		return l, fmt.Errorf("layout %s: needs at least 1 node and 1 user per node", l)
	}
	if l.Ghosts < 1 {
		return l, fmt.Errorf("layout %s: the CasperII modes need at least 1 ghost per node", l)
	}
	return l, nil
}

// ParseSize parses a byte count: "8", "1K", "64KiB", "1M", "4MiB", "1KB"
// (K and M are binary: 1K = 1024).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	mul := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u = strings.TrimSpace(strings.TrimSuffix(u, suf.s))
			mul = suf.m
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	if n > math.MaxInt32/mul || n*mul > math.MaxInt32 {
		return 0, fmt.Errorf("size %q is larger than an MPI count of bytes", s)
	}
	return n * mul, nil
}

// ParseSizes parses a comma-separated list of sizes, or a range
// "1-4M" / "1:4M" of powers of two (0 is kept if the range starts at 0). The
// result is sorted and free of duplicates.
func ParseSizes(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if lo, hi, ok := cutRange(f); ok {
			a, err := ParseSize(lo)
			if err != nil {
				return nil, err
			}
			b, err := ParseSize(hi)
			if err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("empty size range %q", f)
			}
			if a == 0 {
				out = append(out, 0)
				a = 1
			}
			p := int64(1)
			for p < a {
				p *= 2
			}
			for ; p <= b; p *= 2 {
				out = append(out, p)
			}
			continue
		}
		n, err := ParseSize(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes in %q", s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	u := out[:1]
	for _, v := range out[1:] {
		if v != u[len(u)-1] {
			u = append(u, v)
		}
	}
	if len(u) > 64 {
		return nil, fmt.Errorf("%d sizes: at most 64 per run", len(u))
	}
	return u, nil
}

func cutRange(f string) (string, string, bool) {
	for _, sep := range []string{":", "-"} {
		if a, b, ok := strings.Cut(f, sep); ok {
			return a, b, true
		}
	}
	return "", "", false
}

// FormatSize prints a byte count the way the tables do: 0, 8, 1K, 64K, 1M.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// DefaultSizes returns the default message sizes of a benchmark (overlap
// and halo include 64K, 256K, 1M and 4M, the sizes of issue 14's targets).
// The sizes of phases are those of its large exchange (its small-message
// phase always runs 8 B, 64 B, 512 B and 4 KiB); those of probe are the
// request sizes.
func DefaultSizes(b Bench) []int64 {
	const K, M = 1 << 10, 1 << 20
	switch b {
	case Rate:
		return []int64{1, 8, 64, 512, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M}
	case Halo:
		return []int64{1 * K, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M}
	case Phases:
		return []int64{64 * K, 256 * K, 1 * M}
	case Probe:
		return []int64{8, 64, 512, 4 * K}
	case RMA:
		return []int64{8, 64, 512, 4 * K, 8 * K, 64 * K, 256 * K, 1 * M}
	case RMAGA:
		return []int64{8 * K}
	}
	return []int64{0, 8, 64, 512, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M}
}

// SecondarySizes are the default sizes of an untouched (secondary) series
// that runs beside the touched one (`run all`): the sizes of issue 14's
// targets and one small size, which the touch-cost target and the
// comparison need, and no more (it keeps `run all` under half an hour).
// rma runs them in its sleep and ghost-cores series too (8 KiB is its
// targets' size).
func SecondarySizes(b Bench) []int64 {
	const K, M = 1 << 10, 1 << 20
	switch b {
	case RMA:
		return []int64{8, 8 * K, 1 * M}
	case RMAGA:
		return []int64{8 * K}
	case Halo:
		return []int64{1 * K, 64 * K, 256 * K, 1 * M, 4 * M}
	case Phases:
		return []int64{64 * K, 1 * M}
	case Probe:
		return []int64{8, 4 * K}
	}
	return []int64{8, 64 * K, 256 * K, 1 * M, 4 * M}
}

// QuickSizes are the sizes of --quick.
func QuickSizes(b Bench) []int64 {
	const K, M = 1 << 10, 1 << 20
	switch b {
	case RMA:
		return []int64{8, 8 * K, 1 * M}
	case RMAGA:
		return []int64{8 * K}
	case Halo:
		return []int64{1 * K, 64 * K, 1 * M}
	case Phases:
		return []int64{64 * K, 1 * M}
	case Probe:
		return []int64{8, 4 * K}
	}
	return []int64{8, 1 * K, 64 * K, 1 * M}
}

// Compute is the compute emulation between post and wait.
type Compute string

// Compute emulations.
const (
	Busy  Compute = "busy"  // busy-spin on the clock: the user keeps its core, as a CPU-bound application does
	Sleep Compute = "sleep" // nanosleep: leaves the core (to the ghosts on a shared machine)
	// NoCompute labels the series of latency and rate, which post and wait
	// without computing in between.
	NoCompute Compute = "none"
	// Idle is rma's reference: the target does not compute, it waits
	// inside MPI (MPI_Barrier) while the origin's epoch runs.
	Idle Compute = "idle"
)

// ParseCompute parses busy, sleep or idle (rma only).
func ParseCompute(s string) (Compute, error) {
	switch Compute(s) {
	case Busy, Sleep, Idle:
		return Compute(s), nil
	}
	return "", fmt.Errorf("unknown compute %q (want busy, sleep, idle or both)", s)
}

// ParseComputes parses --compute: busy, sleep, both (busy and sleep) or a
// comma-separated list, in the order given, without duplicates.
func ParseComputes(s string) ([]Compute, error) {
	var out []Compute
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		cs := []Compute{Compute(f)}
		if f == "both" {
			cs = []Compute{Busy, Sleep}
		}
		for _, c := range cs {
			if _, err := ParseCompute(string(c)); err != nil {
				return nil, err
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no compute kind in %q (want busy, sleep or both)", s)
	}
	return out, nil
}

// Computes reports whether benchmark b computes (overlap, halo and phases
// between post and wait, probe between requests and polls, rma's target
// during the origin's epochs); latency and rate do not, so --compute does
// not apply.
func (b Bench) Computes() bool {
	return b == Overlap || b == Halo || b == Phases || b == Probe || b.IsRMA()
}

// IsRMA reports whether b is one of issue 16's one-sided benchmarks.
func (b Bench) IsRMA() bool { return b == RMA || b == RMAGA }

// Program is the name of b's C program (csrc/<name>.c, osub-<name>):
// rma-ga is the rma program's -w ga.
func (b Bench) Program() string {
	if b == RMAGA {
		return string(RMA)
	}
	return string(b)
}

// computesOf are the compute kinds of b's series: rma's always include
// the idle reference (last), the other benchmarks' never idle.
func computesOf(b Bench, computes []Compute) []Compute {
	var out []Compute
	for _, c := range computes {
		if c != Idle || b.IsRMA() {
			out = append(out, c)
		}
	}
	if b.IsRMA() && !slices.Contains(out, Idle) {
		out = append(out, Idle)
	}
	return out
}

// ParseTouch parses --touch: on, off, both (on, then off) or a
// comma-separated list. Touched series come first: they are the primary
// ones, untouched ones are secondary.
func ParseTouch(s string) ([]bool, error) {
	on, off := false, false
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "":
		case "on":
			on = true
		case "off":
			off = true
		case "both":
			on, off = true, true
		default:
			return nil, fmt.Errorf("unknown touch %q (want on, off or both)", f)
		}
	}
	var out []bool
	if on {
		out = append(out, true)
	}
	if off {
		out = append(out, false)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no touch setting in %q (want on, off or both)", s)
	}
	return out, nil
}

// DefaultTouch is --touch's default for a run of benchArg: on, and for
// `run all` also the untouched series (secondary, for comparison and for
// the touch-cost target).
func DefaultTouch(benchArg string) string {
	if benchArg == "all" {
		return "both"
	}
	return "on"
}

// Transport is how the processes of a job reach each other.
type Transport string

// Transports.
const (
	// SHM is MPICH's default on one host: shared memory between processes.
	SHM Transport = "shm"
	// TCP makes MPICH treat every process as remote (MPIR_CVAR_NOLOCAL=1)
	// and UCX use TCP (UCX_TLS=tcp,self), as between nodes.
	TCP Transport = "tcp"
)

// Env is what every job of the transport gets with -genv (KEY=VALUE).
func (t Transport) Env() []string {
	if t == TCP {
		return []string{"MPIR_CVAR_NOLOCAL=1", "UCX_TLS=tcp,self"}
	}
	return nil
}

// ParseTransports parses --transport: shm, tcp or a comma-separated list,
// in the order given, without duplicates.
func ParseTransports(s string) ([]Transport, error) {
	var out []Transport
	for _, f := range strings.Split(s, ",") {
		t := Transport(strings.TrimSpace(f))
		switch t {
		case "":
			continue
		case SHM, TCP:
		default:
			return nil, fmt.Errorf("unknown transport %q (want shm, tcp or a list)", f)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no transport in %q (want shm, tcp or a list)", s)
	}
	return out, nil
}

// Series is one variant of a benchmark: the transport, the compute
// emulation (NoCompute for latency and rate) and whether the buffers are
// touched. Every mode runs every series of a benchmark; ratios compare
// modes within one series.
type Series struct {
	Transport Transport `json:"transport"`
	Compute   Compute   `json:"compute"`
	Touch     bool      `json:"touch"`
	// Place is where the processes run: "" (PlaceAuto: the launcher's
	// and CasperII's own placement, CSP_BIND) or PlaceGhostCores (rma).
	Place Placement `json:"place,omitempty"`
}

// Secondary reports whether the series is a secondary one: untouched
// buffers, which no application has and which flatter offload.
func (s Series) Secondary() bool { return !s.Touch }

// TouchLabel is "touched" or "untouched".
func (s Series) TouchLabel() string {
	if s.Touch {
		return "touched"
	}
	return "untouched"
}

// ComputeLabel is "busy compute", "sleep compute", "no compute" or
// "idle target (in MPI)".
func (s Series) ComputeLabel() string {
	switch s.Compute {
	case NoCompute, "":
		return "no compute"
	case Idle:
		return "idle target (in MPI)"
	}
	return string(s.Compute) + " compute"
}

// Label names the series in tables and targets, e.g. "busy compute,
// touched, shm" or "sleep compute, untouched (secondary), tcp".
func (s Series) Label() string {
	t := s.TouchLabel()
	if s.Secondary() {
		t += " (secondary)"
	}
	l := s.ComputeLabel() + ", " + t + ", " + string(s.Transport)
	if s.Place != PlaceAuto {
		l += ", " + string(s.Place)
	}
	return l
}

// Slug names the series in file names: busy-touched-shm,
// busy-touched-shm-ghost-cores.
func (s Series) Slug() string {
	c := string(s.Compute)
	if c == "" {
		c = string(NoCompute)
	}
	sl := c + "-" + s.TouchLabel() + "-" + string(s.Transport)
	if s.Place != PlaceAuto {
		sl += "-" + string(s.Place)
	}
	return sl
}

// Placement is where a job's processes run.
type Placement string

// Placements.
const (
	// PlaceAuto leaves placement to the launcher and, in the CasperII
	// modes, to the library (CSP_BIND: on an oversubscribed host each
	// virtual node on its share of the CPUs, a ghost sharing its users'
	// core).
	PlaceAuto Placement = ""
	// PlaceGhostCores gives the ghosts CPUs of their own and the users the
	// others (mpiexec -bind-to user:...; GhostCoresCPUs), even if the users
	// then share a core; the modes without ghosts bind their users as the
	// ghost modes do. rma only: issue 16's second target.
	PlaceGhostCores Placement = "ghost-cores"
)

// ParsePlacements parses --placement: auto, ghost-cores, both or a list.
func ParsePlacements(s string) ([]Placement, error) {
	var out []Placement
	for _, f := range strings.Split(s, ",") {
		var ps []Placement
		switch strings.TrimSpace(f) {
		case "":
		case "auto":
			ps = []Placement{PlaceAuto}
		case string(PlaceGhostCores):
			ps = []Placement{PlaceGhostCores}
		case "both":
			ps = []Placement{PlaceAuto, PlaceGhostCores}
		default:
			return nil, fmt.Errorf("unknown placement %q (want auto, ghost-cores or both)", f)
		}
		for _, p := range ps {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no placement in %q (want auto, ghost-cores or both)", s)
	}
	return out, nil
}

// DefaultPlacement is --placement's default for a run of benches: both
// when rma runs (its second target needs the ghosts on cores of their
// own), else auto.
func DefaultPlacement(benches []Bench) string {
	if slices.Contains(benches, RMA) {
		return "both"
	}
	return "auto"
}

// GhostCoresLayout is the layout PlaceGhostCores runs layout l in on
// ncpu CPUs: l itself where every ghost can have a CPU of its own with one
// CPU left for the users; else fewer virtual nodes, as many as leave that
// (at least one), with l's users spread evenly over them. On 2 CPUs the
// default 2 nodes x (1 user + 1 ghost) become 1 node of 2 users + 1 ghost:
// the ghost alone on one CPU, both users on the other. Kept at 2 nodes,
// the origin's ghost would share the users' CPU, polling for the origin's
// window beside the computing target, which is not the layout the series
// stands for (a core per ghost).
func GhostCoresLayout(l Layout, ncpu int) Layout {
	if ncpu < 2 || l.Nodes*l.Ghosts <= ncpu-1 {
		return l
	}
	n := max(1, (ncpu-1)/max(l.Ghosts, 1))
	for n > 1 && l.NUsers()%n != 0 {
		n--
	}
	return Layout{Nodes: n, Users: l.NUsers() / n, Ghosts: l.Ghosts}
}

// GhostCoresCPUs is the CPU of each world rank of a job of mode m in
// layout l under PlaceGhostCores, on the CPUs cpus: the ghosts take CPUs
// of their own from the end, one each, the users the others, round robin.
// Where there are more ghosts than CPUs but one, the ghosts of the node of
// rma's target (user 1) go first and those left over run on the users'
// CPUs: a ghost alone on its CPU is what the layout stands for (a core
// per ghost), and the target's is the one whose progress is measured. A
// mode without ghosts binds its users to the same CPUs as the ghost modes
// do. On 2 CPUs with 2 nodes x (1 user + 1 ghost): the target's ghost on
// CPU 1, everyone else on CPU 0. nil if there are fewer than 2 CPUs.
func GhostCoresCPUs(l Layout, m Mode, cpus []int) []int {
	if len(cpus) < 2 {
		return nil
	}
	ng := l.Nodes * l.Ghosts
	kg := min(ng, len(cpus)-1)
	gcpus, ucpus := cpus[len(cpus)-kg:], cpus[:len(cpus)-kg]
	own := map[int]int{} // ghost rank -> its CPU
	if m.Ghosts() {
		var ghosts []int
		target := 1 / max(l.Users, 1) // the node of user 1
		for pass := 0; pass < 2; pass++ {
			for r := 0; r < l.Procs(m); r++ {
				if l.IsGhostRank(r) && (r/l.NodeSize() == target) == (pass == 0) {
					ghosts = append(ghosts, r)
				}
			}
		}
		if ng > kg {
			ghosts = ghosts[:kg]
		} else {
			slices.Sort(ghosts)
		}
		for i, r := range ghosts {
			own[r] = gcpus[i]
		}
	}
	var out []int
	ui := 0
	for r := 0; r < l.Procs(m); r++ {
		if c, ok := own[r]; ok {
			out = append(out, c)
			continue
		}
		out = append(out, ucpus[ui%len(ucpus)])
		ui++
	}
	return out
}

// SeriesOf lists the series of benchmark b for the given transports,
// touch settings and compute kinds, in the order a repetition runs them:
// transport, then touch (touched first), then compute. Benchmarks that do
// not compute get one series per transport and touch setting.
func SeriesOf(b Bench, transports []Transport, touches []bool, computes []Compute) []Series {
	cs := computesOf(b, computes)
	if !b.Computes() {
		cs = []Compute{NoCompute}
	}
	var out []Series
	for _, t := range transports {
		for _, touch := range touches {
			for _, c := range cs {
				out = append(out, Series{Transport: t, Compute: c, Touch: touch})
			}
		}
	}
	return out
}
