package osubench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 15's modes: cspii-off and cspii-auto beside static offload,
// cspii-hint for phases; every preload mode states CSP_ASYNC_CONFIG.
func TestIssue15Modes(t *testing.T) {
	for name, want := range map[string]Mode{
		"cspii-tag":  {Name: "cspii-tag", Preload: true, Hint: "none", AsyncConfig: "on"},
		"cspii-dup":  {Name: "cspii-dup", Preload: true, Hint: "any_tag_same_tag", AsyncConfig: "on"},
		"cspii-off":  {Name: "cspii-off", Preload: true, Hint: "none", AsyncConfig: "off"},
		"cspii-auto": {Name: "cspii-auto", Preload: true, Hint: "none", AsyncConfig: "auto"},
		"cspii-hint": {Name: "cspii-hint", Preload: true, Hint: "none", AsyncConfig: "on", PhaseHint: true},
	} {
		m, ok := LookupMode(name)
		require.True(t, ok, name)
		assert.Equal(t, want, m)
	}

	assert.Equal(t, DefaultModes, DefaultModesFor(AllBenches))
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto"}, DefaultModes, "run all: the paper's four, cspii-off and cspii-auto")
	assert.Equal(t, PhasesModes, DefaultModesFor([]Bench{Phases}))
	assert.Equal(t, ProbeModes, DefaultModesFor([]Bench{Probe}))
	assert.Equal(t, []string{"mpi", "cspii-tag", "cspii-off", "cspii-auto", "cspii-hint"}, DefaultModesFor([]Bench{Probe, Phases}), "a union, in the modes' order")
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto", "cspii-hint"}, DefaultModesFor(KnownBenches))

	bs, err := ParseBenches("all,phases,probe")
	require.NoError(t, err)
	assert.Equal(t, KnownBenches, bs)
	bs, err = ParseBenches("probe, all,latency")
	require.NoError(t, err)
	assert.Equal(t, []Bench{Probe, Latency, Overlap, Rate, Halo}, bs, "all expands in place, duplicates dropped")
	bs, err = ParseBenches("phases")
	require.NoError(t, err)
	assert.Equal(t, []Bench{Phases}, bs)
	for _, in := range []string{"", "all,", "all,pingpong"} {
		_, err := ParseBenches(in)
		assert.Error(t, err, in)
	}
	assert.True(t, Phases.Computes() && Probe.Computes(), "busy and sleep series")

	// probe receives from MPI_ANY_SOURCE: the cheapest hint that allows it.
	tag, _ := LookupMode("cspii-tag")
	dup, _ := LookupMode("cspii-dup")
	mpi, _ := LookupMode("mpi")
	assert.Equal(t, "any_src", tag.HintFor(Probe))
	assert.Equal(t, "any_src|any_tag_same_tag", dup.HintFor(Probe))
	assert.Equal(t, "", mpi.HintFor(Probe))
	assert.Equal(t, "none", tag.HintFor(Phases))
	assert.Equal(t, "any_tag_same_tag", dup.HintFor(Latency))
	off, _ := LookupMode("cspii-off")
	assert.Equal(t, "LD_PRELOAD libcasperii.so, CSP_ASYNC_CONFIG=off, wildcard_used=none (probe: any_src, which allows MPI_ANY_SOURCE)", off.Describe())
}

func TestIssue15JobCommands(t *testing.T) {
	r := &Runner{Cfg: Config{BudgetMs: 50, MinIters: 5, MaxIters: 1000},
		Progs: &Programs{C: map[Bench]string{Latency: "/c/osub-latency", Phases: "/c/osub-phases", Probe: "/c/osub-probe"}},
		Lib:   &Lib{Path: "/lib/libcasperii.so"}}
	r.Cfg.Defaults()
	mode := func(n string) Mode { m, _ := LookupMode(n); return m }
	cmd := func(b Bench, m string, s Series) string {
		return ShellQuote(r.Job(b, mode(m), DefaultLayout, s, []int64{65536}, nil).Argv("mpiexec"))
	}
	lat := Series{Transport: SHM, Compute: NoCompute, Touch: true}
	sleep := Series{Transport: SHM, Compute: Sleep, Touch: true}
	busy := Series{Transport: SHM, Compute: Busy}
	const ghosts = "mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 -genv CSP_STATS 1 "
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG off -genv LD_PRELOAD /lib/libcasperii.so /c/osub-latency -s 65536 -t -b 50 -m 5 -i 1000 -H none", cmd(Latency, "cspii-off", lat))
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG auto -genv LD_PRELOAD /lib/libcasperii.so /c/osub-latency -s 65536 -t -b 50 -m 5 -i 1000 -H none", cmd(Latency, "cspii-auto", lat),
		"auto is passed through as it is (the library decides whether it knows it)")
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG on -genv LD_PRELOAD /lib/libcasperii.so /c/osub-phases -s 65536 -c sleep -t -b 50 -m 5 -i 1000 -H none -u 200 -P 25 -R 2 -W 64 -I 4 -A", cmd(Phases, "cspii-hint", sleep))
	assert.Equal(t, "mpiexec -n 2 /c/osub-phases -s 65536 -c busy -b 50 -m 5 -i 1000 -u 200 -P 25 -R 2 -W 64 -I 4", cmd(Phases, "mpi", busy))
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG on -genv LD_PRELOAD /lib/libcasperii.so /c/osub-probe -s 65536 -c sleep -t -b 50 -m 5 -i 1000 -H any_src -u 50 -q 20", cmd(Probe, "cspii-tag", sleep))
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG on -genv LD_PRELOAD /lib/libcasperii.so /c/osub-probe -s 65536 -c busy -b 50 -m 5 -i 1000 -H 'any_src|any_tag_same_tag' -u 50 -q 20", cmd(Probe, "cspii-dup", busy))
	assert.Equal(t, "mpiexec -n 2 /c/osub-probe -s 65536 -c busy -b 50 -m 5 -i 1000 -u 50 -q 20", cmd(Probe, "mpi", busy))
	r.Cfg.PhaseComputeUs, r.Cfg.PhasePingPongs, r.Cfg.PhaseWindows, r.Cfg.PhaseExchanges, r.Cfg.Window = 80, 10, 1, 3, 16
	r.Cfg.ProbeSliceUs, r.Cfg.ProbeThinkUs = 5, 7.5
	assert.Contains(t, cmd(Phases, "cspii-auto", busy), "-genv CSP_ASYNC_CONFIG auto ")
	assert.True(t, strings.HasSuffix(cmd(Phases, "cspii-auto", busy), " -H none -u 80 -P 10 -R 1 -W 16 -I 3"), cmd(Phases, "cspii-auto", busy))
	assert.True(t, strings.HasSuffix(cmd(Probe, "cspii-off", busy), " -H any_src -u 7.5 -q 5"), cmd(Probe, "cspii-off", busy))

	assert.Contains(t, r.skipReason(Latency, mode("cspii-hint"), DefaultLayout), "phases benchmark only")
	assert.Equal(t, "", r.skipReason(Phases, mode("cspii-hint"), DefaultLayout))
	assert.Contains(t, r.skipReason(Phases, mode("mpi"), Layout{1, 3, 1}), "odd number of users")
	assert.Contains(t, r.skipReason(Probe, mode("mpi"), Layout{1, 1, 1}), "a server and at least one client")
	assert.Equal(t, "", r.skipReason(Probe, mode("cspii-off"), Layout{1, 3, 1}), "one server, two clients")
}

// The untouched series beside the touched one (run all) runs the sizes
// of the targets only; with --sizes, --quick or untouched alone, every
// series runs the same sizes.
func TestSecondarySizes(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	touched := Series{Transport: SHM, Compute: Busy, Touch: true}
	untouched := Series{Transport: SHM, Compute: Busy}
	c := Config{Touches: []bool{true, false}}
	assert.Equal(t, DefaultSizes(Overlap), c.SizesForSeries(Overlap, touched))
	assert.Equal(t, []int64{8, 64 * K, 256 * K, 1 * M, 4 * M}, c.SizesForSeries(Overlap, untouched))
	assert.Equal(t, []int64{1 * K, 64 * K, 256 * K, 1 * M, 4 * M}, c.SizesForSeries(Halo, untouched))
	for _, b := range KnownBenches {
		for _, sz := range SecondarySizes(b) {
			assert.Contains(t, DefaultSizes(b), sz, "%s: a secondary size is one of the touched series'", b)
		}
		assert.Less(t, len(SecondarySizes(b)), len(DefaultSizes(b))+1, b)
	}
	c.Touches = []bool{false}
	assert.Equal(t, DefaultSizes(Overlap), c.SizesForSeries(Overlap, untouched), "untouched alone: every size")
	c.Touches = []bool{true, false}
	c.Sizes = []int64{8, 16}
	assert.Equal(t, []int64{8, 16}, c.SizesForSeries(Overlap, untouched), "--sizes applies to every series")
	c.Sizes, c.Quick = nil, true
	assert.Equal(t, QuickSizes(Halo), c.SizesForSeries(Halo, untouched))
}

// With an untouched series on fewer sizes, the overlap's compute per size
// is still the same for every series of a repetition: kept per size.
func TestOverlapSameComputeSecondarySizes(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	log := filepath.Join(t.TempDir(), "log")
	ms, err := ParseModes("mpi,thread")
	require.NoError(t, err)
	r := &Runner{Cfg: Config{Benches: []Bench{Overlap}, Modes: ms, Reps: 2, Computes: []Compute{Busy}, Touches: []bool{true, false},
		MPIExec: fakeMPIExec(t, log), Cache: t.TempDir()}, Env: &EnvInfo{},
		Progs: &Programs{C: map[Bench]string{Overlap: "/x/osub-overlap"}}}
	r.Cfg.Defaults()
	require.NoError(t, r.Run(context.Background(), nil))
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 8, "2 reps x 2 series x 2 modes")
	full, sec := DefaultSizes(Overlap), SecondarySizes(Overlap)
	rep := func(v string, n int) string { return strings.TrimSuffix(strings.Repeat(v+",", n), ",") }
	// rep 1: the first mpi job (touched, every size) calibrates itself (5 us).
	assert.Equal(t, "", xOf(lines[0]))
	assert.Equal(t, rep("5.0000", len(full)), xOf(lines[1]))
	assert.Equal(t, rep("5.0000", len(sec)), xOf(lines[2]), "the untouched series: its own sizes")
	assert.Equal(t, rep("5.0000", len(sec)), xOf(lines[3]))
	// rep 2: medians per size of the mpi jobs of rep 1: 10 (job 1) at
	// every size, and 30 (job 3) at the untouched series' sizes.
	var want []string
	for _, sz := range full {
		if hasSize(sec, sz) {
			want = append(want, "20.0000")
		} else {
			want = append(want, "10.0000")
		}
	}
	assert.Equal(t, strings.Join(want, ","), xOf(lines[4]))
	assert.Equal(t, rep("20.0000", len(sec)), xOf(lines[6]))
	require.Len(t, r.Results, 2)
	assert.Equal(t, full, r.Results[0].Sizes)
	assert.Equal(t, sec, r.Results[1].Sizes)
	for _, j := range r.Results[1].Jobs {
		assert.Empty(t, j.Error)
		assert.Len(t, j.Points, len(sec))
	}
}

// The driver rejects a phases job whose program did not switch per phase
// as its mode asks (or switched when it should not).
func TestCheckInfoPhaseHint(t *testing.T) {
	s := Series{Transport: SHM, Compute: Busy, Touch: true}
	hint, _ := LookupMode("cspii-hint")
	tag, _ := LookupMode("cspii-tag")
	info := func(ph string) []Fields {
		return []Fields{{"bench": "phases", "touch": "on", "compute": "busy"}, {"bench": "phases", "phase_hint": ph, "touch": "on", "compute": "busy"}}
	}
	assert.NoError(t, checkInfo(info("1"), s, Phases, hint))
	assert.ErrorContains(t, checkInfo(info("0"), s, Phases, hint), "phase_hint=0")
	assert.NoError(t, checkInfo(info("0"), s, Phases, tag))
	assert.ErrorContains(t, checkInfo(info("1"), s, Phases, tag), "phase_hint=1")
}

// The offload counters are judged by what the mode asks for.
func TestOffloadCheck(t *testing.T) {
	mode := func(n string) Mode { m, _ := LookupMode(n); return m }
	none := CSPStats{"isend_offloaded": 0, "irecv_offloaded": 0, "direct": 100}
	some := CSPStats{"isend_offloaded": 10, "irecv_offloaded": 10}
	assert.Equal(t, "  <- NOT OFFLOADED", offloadCheck(mode("cspii-tag"), none))
	assert.Equal(t, "", offloadCheck(mode("cspii-tag"), some))
	assert.Equal(t, "  (offload off, as the mode asks)", offloadCheck(mode("cspii-off"), none))
	assert.Equal(t, "  <- OFFLOADED although CSP_ASYNC_CONFIG=off", offloadCheck(mode("cspii-off"), some))
	assert.Equal(t, "  (auto: stayed on the direct route)", offloadCheck(mode("cspii-auto"), none))
	assert.Equal(t, "", offloadCheck(mode("cspii-auto"), some))
	assert.Equal(t, "  <- bounce copies: buffers not registered", offloadCheck(mode("cspii-hint"), CSPStats{"isend_offloaded": 1, "irecv_offloaded": 1, "bounce": 1}))
}

// The phases and probe tables are labelled with their series and name
// their parts per round and per request; the header describes every mode.
func TestPhasesProbeTables(t *testing.T) {
	s := Series{Transport: SHM, Compute: Sleep, Touch: true}
	ph := fakeBench(Phases, s, DefaultLayout, []int64{65536}, func(mode string, _ int64) map[string]float64 {
		return map[string]float64{"round_us": 300, "small_us": 100, "large_us": 200, "sync_us": 5, "touch_us": 1}
	}, "mpi", "cspii-hint")
	var out bytes.Buffer
	WriteBench(&out, ph)
	assert.Contains(t, out.String(), "## phases [sleep compute, touched, shm]")
	assert.Contains(t, out.String(), "# phases [sleep compute, touched, shm]: time per round, (a) + (b)")
	assert.Contains(t, out.String(), "# phases [sleep compute, touched, shm]: (a) small / (b) large / set_info + barrier / touch per round [us] (medians)")
	assert.Regexp(t, `\n  64K +100\.0 / 200\.0 / 5\.00 / 1\.00 +100\.0 / 200\.0 / 5\.00 / 1\.00\n`, out.String())

	pr := fakeBench(Probe, s, DefaultLayout, []int64{8}, func(mode string, _ int64) map[string]float64 {
		return map[string]float64{"rtt_us": map[string]float64{"mpi": 10, "cspii-off": 11}[mode], "server_comp_pct": 90, "post_us": 1, "wait_us": 9}
	}, "mpi", "cspii-off")
	out.Reset()
	WriteBench(&out, pr)
	assert.Contains(t, out.String(), "# probe [sleep compute, touched, shm]: request round trip")
	assert.Regexp(t, `\n  8 +10\.00 +11\.00 +1\.10x\n`, out.String())
	assert.Contains(t, out.String(), "post / wait / touch per request [us]")

	ms, err := ParseModes("mpi,cspii-auto,cspii-hint")
	require.NoError(t, err)
	r := &Runner{Cfg: Config{Modes: ms, Reps: 1}, Env: &EnvInfo{}}
	out.Reset()
	WriteHeader(&out, r)
	assert.Contains(t, out.String(), "# mpi:       plain MPICH, no preload\n")
	assert.Contains(t, out.String(), "# cspii-auto: LD_PRELOAD libcasperii.so, CSP_ASYNC_CONFIG=auto, wildcard_used=none (probe: any_src")
	assert.Contains(t, out.String(), "# cspii-hint: LD_PRELOAD libcasperii.so, CSP_ASYNC_CONFIG=on, wildcard_used=none (probe: any_src, which allows MPI_ANY_SOURCE), the program sets async_config=off before each small-message phase")
}
