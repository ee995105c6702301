package osubench

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Bench names a benchmark.
type Bench string

// The benchmarks (paper section V).
const (
	Latency Bench = "latency" // nonblocking ping-pong: post and wait time (Fig. 3 a,b)
	Overlap Bench = "overlap" // post, compute, wait (Fig. 4/5)
	Rate    Bench = "rate"    // windowed message rate, osu_mbw_mr (Fig. 3 c)
	Halo    Bench = "halo"    // 2D Cartesian nearest-neighbour exchange (Fig. 6)
)

// AllBenches is the order `run all` uses.
var AllBenches = []Bench{Latency, Overlap, Rate, Halo}

// ParseBenches parses "latency", "all" or a comma-separated list.
func ParseBenches(s string) ([]Bench, error) {
	if s == "all" {
		return append([]Bench(nil), AllBenches...), nil
	}
	var out []Bench
	seen := map[Bench]bool{}
	for _, f := range strings.Split(s, ",") {
		b := Bench(strings.TrimSpace(f))
		ok := false
		for _, k := range AllBenches {
			ok = ok || k == b
		}
		if !ok {
			return nil, fmt.Errorf("unknown benchmark %q (want latency, overlap, rate, halo or all)", f)
		}
		if !seen[b] {
			seen[b] = true
			out = append(out, b)
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
}

// Ghosts reports whether the mode runs ghost processes.
func (m Mode) Ghosts() bool { return m.Preload || m.GoAPI }

// Modes known to the command. The go-* modes run the Go-API variant of the
// latency test (osubench/goapi/latency) and apply to latency only.
var knownModes = []Mode{
	{Name: "mpi"},
	{Name: "thread", Thread: true},
	{Name: "cspii-tag", Preload: true, Hint: "none"},
	{Name: "cspii-dup", Preload: true, Hint: "any_tag_same_tag"},
	{Name: "go-tag", GoAPI: true, Hint: "none"},
	{Name: "go-dup", GoAPI: true, Hint: "any_tag_same_tag"},
}

// DefaultModes are the four modes of the paper's comparison.
var DefaultModes = []string{"mpi", "thread", "cspii-tag", "cspii-dup"}

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

// Default layouts: 2 nodes x (1 user + 1 ghost); halo 2 nodes x (2 users + 1 ghost).
var (
	DefaultLayout     = Layout{Nodes: 2, Users: 1, Ghosts: 1}
	DefaultHaloLayout = Layout{Nodes: 2, Users: 2, Ghosts: 1}
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

// DefaultSizes returns the default message sizes of a benchmark.
func DefaultSizes(b Bench) []int64 {
	const K, M = 1 << 10, 1 << 20
	switch b {
	case Rate:
		return []int64{1, 8, 64, 512, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M}
	case Halo:
		return []int64{1 * K, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M}
	}
	return []int64{0, 8, 64, 512, 4 * K, 16 * K, 64 * K, 256 * K, 1 * M, 4 * M}
}

// QuickSizes are the sizes of --quick.
func QuickSizes(b Bench) []int64 {
	const K, M = 1 << 10, 1 << 20
	if b == Halo {
		return []int64{1 * K, 64 * K, 1 * M}
	}
	return []int64{8, 1 * K, 64 * K, 1 * M}
}

// Compute is the compute emulation between post and wait.
type Compute string

// Compute emulations.
const (
	Busy  Compute = "busy"  // busy-spin on the clock (every process needs its own core)
	Sleep Compute = "sleep" // nanosleep: leaves the core (to the ghosts on a shared machine)
)

// ParseCompute parses busy or sleep.
func ParseCompute(s string) (Compute, error) {
	switch Compute(s) {
	case Busy, Sleep:
		return Compute(s), nil
	}
	return "", fmt.Errorf("unknown compute %q (want busy or sleep)", s)
}
