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
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto", "cspii-hint"}, DefaultModesFor(issue15Benches))
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto", "cspii-hint", "cspii", "cspii-pt2pt"}, DefaultModesFor(KnownBenches), "issue 16's rma adds its two modes")

	bs, err := ParseBenches("all,phases,probe")
	require.NoError(t, err)
	assert.Equal(t, issue15Benches, bs)
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
	assert.Contains(t, out.String(), "# phases [sleep compute, touched, shm]: (a) small / (b) large / barriers + set_info / touch per round [us] (medians)")
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
	assert.Contains(t, out.String(), "# cspii-hint: LD_PRELOAD libcasperii.so, CSP_ASYNC_CONFIG=on, wildcard_used=none, the program sets async_config=off before each small-message phase")
}

// Issue 15's targets, each on its boundary: exactly at the limit is met,
// just past it MISSED.
func TestTargetsIssue15(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	lat := Series{Transport: SHM, Compute: NoCompute, Touch: true}
	busy := Series{Transport: SHM, Compute: Busy, Touch: true}
	sleep := Series{Transport: SHM, Compute: Sleep, Touch: true}
	sizes := []int64{8, 64 * K}
	// latency: cspii-tag loses at 8 B and wins at 64K (gain 50); auto is
	// at 1.10x at 8 B and keeps exactly 80% at 64K; off is at 1.05x.
	latency := fakeBench(Latency, lat, DefaultLayout, sizes, byMode("lat_us", map[string]map[int64]float64{
		"mpi": {8: 10, 64 * K: 100}, "cspii-tag": {8: 50, 64 * K: 50}, "cspii-auto": {8: 11, 64 * K: 60}, "cspii-off": {8: 10.5, 64 * K: 105},
	}), "mpi", "cspii-tag", "cspii-off", "cspii-auto")
	// overlap, busy: auto just past both limits; off just past 1.05x.
	overlap := fakeBench(Overlap, busy, DefaultLayout, sizes, byMode("total_us", map[string]map[int64]float64{
		"mpi": {8: 10, 64 * K: 100}, "cspii-tag": {8: 50, 64 * K: 50}, "cspii-auto": {8: 11.01, 64 * K: 60.5}, "cspii-off": {0: 10.51},
	}), "mpi", "cspii-tag", "cspii-off", "cspii-auto")
	// rate: cspii-tag wins nowhere, so there is no gain to keep.
	rate := fakeBench(Rate, lat, DefaultLayout, sizes, byMode("iter_us", map[string]map[int64]float64{
		"mpi": {0: 10}, "cspii-tag": {0: 20}, "cspii-auto": {0: 10},
	}), "mpi", "cspii-tag", "cspii-auto")
	// halo, sleep: no cspii-tag in the series.
	halo := fakeBench(Halo, sleep, DefaultHaloLayout, sizes, byMode("iter_us", map[string]map[int64]float64{
		"mpi": {0: 100}, "cspii-auto": {0: 50},
	}), "mpi", "cspii-auto")
	// phases, sleep: auto exactly 0.80x of both; hint just past it at 1M.
	phSizes := []int64{64 * K, 1 * M}
	phases := fakeBench(Phases, sleep, DefaultLayout, phSizes, byMode("round_us", map[string]map[int64]float64{
		"mpi": {0: 100}, "cspii-tag": {64 * K: 100, 1 * M: 90}, "cspii-auto": {64 * K: 80, 1 * M: 72}, "cspii-hint": {64 * K: 80, 1 * M: 72.1}, "cspii-off": {0: 100},
	}), "mpi", "cspii-tag", "cspii-off", "cspii-auto", "cspii-hint")
	// phases, busy: no cspii-tag: the target compares with it too.
	phasesBusy := fakeBench(Phases, busy, DefaultLayout, phSizes, byMode("round_us", map[string]map[int64]float64{
		"mpi": {0: 100}, "cspii-auto": {0: 10}, "cspii-hint": {0: 10},
	}), "mpi", "cspii-auto", "cspii-hint")
	// probe, sleep: round trips and the server's compute throughput.
	probe := fakeBench(Probe, sleep, DefaultLayout, []int64{8}, func(mode string, _ int64) map[string]float64 {
		return map[string]float64{
			"rtt_us":          map[string]float64{"mpi": 10, "cspii-tag": 40, "cspii-auto": 11, "cspii-off": 10.5}[mode],
			"server_comp_pct": map[string]float64{"mpi": 100, "cspii-tag": 50, "cspii-auto": 90.91, "cspii-off": 95.2}[mode],
		}
	}, "mpi", "cspii-tag", "cspii-off", "cspii-auto")
	ts := EvaluateTargets([]*BenchResult{latency, overlap, rate, halo, phases, phasesBusy, probe})
	get := func(mode string, b Bench, series, goal string) Target {
		t.Helper()
		return findTarget(t, ts, SHM, mode, b, series, goal)
	}

	a := get("cspii-auto", Latency, "touched", "lat_us <= 1.10x mpi at every size")
	assert.Equal(t, statusMet, a.Status, a.Measured)
	assert.Equal(t, "8: 1.10x, 64K: 0.60x", a.Measured)
	assert.Equal(t, "15", a.Issue)
	g := get("cspii-auto", Latency, "touched", "keeps >= 80% of cspii-tag's gain")
	assert.Equal(t, statusMet, g.Status, g.Measured)
	assert.Equal(t, "64K: 80% (60.00 vs cspii-tag 50.00, mpi 100.0)", g.Measured, "only where cspii-tag beats mpi")
	assert.Equal(t, statusMissed, get("cspii-auto", Overlap, "busy, touched", "total_us <= 1.10x").Status)
	assert.Equal(t, statusMissed, get("cspii-auto", Overlap, "busy, touched", "keeps >= 80%").Status)
	r := get("cspii-auto", Rate, "touched", "keeps >= 80%")
	assert.Equal(t, statusMet, r.Status)
	assert.Equal(t, "cspii-tag beats mpi at no size: no gain to keep", r.Measured)
	h := get("cspii-auto", Halo, "sleep, touched", "keeps >= 80%")
	assert.Equal(t, statusNoValue, h.Status)
	assert.Contains(t, h.Measured, "no cspii-tag result")
	assert.Equal(t, statusMet, get("cspii-auto", Halo, "sleep, touched", "iter_us <= 1.10x").Status)
	assert.Equal(t, statusNoValue, get("cspii-auto", Halo, "busy, touched", "iter_us <= 1.10x").Status, "series not run")
	assert.False(t, get("cspii-auto", Halo, "busy, touched", "iter_us <= 1.10x").NotRun, "halo ran, only its busy series did not")

	p := get("cspii-auto", Phases, "sleep, touched", "round_us <= 0.80x both")
	assert.Equal(t, statusMet, p.Status, p.Measured)
	assert.Equal(t, "64K: 0.80x mpi, 0.80x cspii-tag, 1M: 0.72x mpi, 0.80x cspii-tag", p.Measured)
	assert.Equal(t, statusMissed, get("cspii-hint", Phases, "sleep, touched", "round_us <= 0.80x both").Status)
	pb := get("cspii-hint", Phases, "busy, touched", "round_us <= 0.80x both")
	assert.Equal(t, statusNoValue, pb.Status)
	assert.Contains(t, pb.Measured, "no cspii-tag result")

	assert.Equal(t, statusMet, get("cspii-auto", Probe, "sleep, touched", "rtt_us <= 1.10x").Status)
	sc := get("cspii-auto", Probe, "sleep, touched", "server_comp_pct >= 0.91x mpi's")
	assert.Equal(t, statusMet, sc.Status, sc.Measured)
	assert.Equal(t, "8: 0.91x", sc.Measured)

	// cspii-off: 1.05x everywhere, every benchmark.
	assert.Equal(t, statusMet, get("cspii-off", Latency, "touched", "lat_us <= 1.05x").Status)
	assert.Equal(t, statusMissed, get("cspii-off", Overlap, "busy, touched", "total_us <= 1.05x").Status)
	assert.Equal(t, statusMet, get("cspii-off", Phases, "sleep, touched", "round_us <= 1.05x").Status)
	assert.Equal(t, statusMet, get("cspii-off", Probe, "sleep, touched", "rtt_us <= 1.05x").Status)
	assert.Equal(t, statusMissed, get("cspii-off", Probe, "sleep, touched", "server_comp_pct >= 0.95x").Status, "95.2% < 100/1.05 = 95.24%")
	assert.Equal(t, statusNoValue, get("cspii-off", Rate, "touched", "iter_us <= 1.05x").Status, "cspii-off not in that series")

	// Each mode gets its own issue's targets only.
	for _, tg := range ts {
		switch tg.Mode {
		case "cspii-auto", "cspii-off":
			assert.Equal(t, "15", tg.Issue)
		case "cspii-hint":
			assert.Equal(t, Phases, tg.Bench, "cspii-hint: phases only")
		case "cspii-tag":
			assert.NotEqual(t, "15", tg.Issue)
		}
	}

	var out bytes.Buffer
	WriteTargets(&out, ts)
	assert.Regexp(t, `\n  met +15 +cspii-auto +latency +touched +lat_us <= 1\.10x mpi at every size +8: 1\.10x, 64K: 0\.60x\n`, out.String())
	assert.Regexp(t, `\n  MISSED +15 +cspii-hint +phases +sleep, touched +round_us <= 0\.80x both mpi's and cspii-tag's at every size +64K: 0\.80x mpi, 0\.80x cspii-tag, 1M: 0\.72x mpi, 0\.80x cspii-tag\n`, out.String())

	// A run of latency alone: the other benchmarks' targets in one line,
	// in the benchmarks' order, saying how to run them.
	out.Reset()
	WriteTargets(&out, EvaluateTargets([]*BenchResult{latency}))
	assert.Contains(t, out.String(), "benchmark not run:")
	assert.Contains(t, out.String(), "of overlap, rate, halo, phases, probe (osubench run overlap,rate,halo,phases,probe runs them)")
	out.Reset()
	WriteTargets(&out, EvaluateTargets([]*BenchResult{phases}))
	assert.Contains(t, out.String(), "of latency, overlap, rate, halo, probe (osubench run all,probe runs them)")
	assert.Equal(t, "all", runList([]string{"latency", "overlap", "rate", "halo"}))
	assert.Equal(t, "latency,rate", runList([]string{"latency", "rate"}))
}

// Issue 15's switch target on its boundary: cspii-hint's switching
// MPI_Comm_set_info (switch_us) against mpi's barrier (barrier_us),
// exactly 2x is met, just past it MISSED; results without the keys (a
// phases program before them) are not measured.
func TestTargetSwitchCost(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	busy := Series{Transport: SHM, Compute: Busy, Touch: true}
	vals := func(mode string, size int64) map[string]float64 {
		switch mode {
		case "mpi":
			return map[string]float64{"round_us": 100, "barrier_us": 1.5, "switch_us": 0.04}
		case "cspii-hint":
			return map[string]float64{"round_us": 90, "barrier_us": 1.2, "switch_us": map[int64]float64{64 * K: 3, 1 * M: 3.01}[size]}
		}
		return map[string]float64{"round_us": 100}
	}
	ph := fakeBench(Phases, busy, DefaultLayout, []int64{64 * K, 1 * M}, vals, "mpi", "cspii-tag", "cspii-hint")
	ts := EvaluateTargets([]*BenchResult{ph})
	goal := "switch_us <= 2x mpi's barrier_us at every size"
	tg := findTarget(t, ts, SHM, "cspii-hint", Phases, "busy, touched", goal)
	assert.Equal(t, statusMissed, tg.Status)
	assert.Equal(t, "15", tg.Issue)
	assert.Equal(t, "64K: 2.00x (3.00 us vs mpi's barrier 1.50 us; cspii-hint's barrier 1.20 us), 1M: 2.01x (3.01 us vs mpi's barrier 1.50 us; cspii-hint's barrier 1.20 us)", tg.Measured)

	ph = fakeBench(Phases, busy, DefaultLayout, []int64{64 * K}, vals, "mpi", "cspii-tag", "cspii-hint")
	assert.Equal(t, statusMet, findTarget(t, EvaluateTargets([]*BenchResult{ph}), SHM, "cspii-hint", Phases, "busy, touched", goal).Status)

	old := fakeBench(Phases, busy, DefaultLayout, []int64{64 * K}, byMode("round_us", map[string]map[int64]float64{"mpi": {0: 100}, "cspii-hint": {0: 90}}), "mpi", "cspii-hint")
	tg = findTarget(t, EvaluateTargets([]*BenchResult{old}), SHM, "cspii-hint", Phases, "busy, touched", goal)
	assert.Equal(t, statusNoValue, tg.Status)
	assert.Equal(t, "64K: -", tg.Measured)
	for _, mode := range []string{"cspii-auto", "cspii-off"} {
		for _, x := range EvaluateTargets([]*BenchResult{fakeBench(Phases, busy, DefaultLayout, []int64{64 * K}, vals, "mpi", mode)}) {
			assert.NotContains(t, x.Goal, "switch_us", "the switch target is cspii-hint's: %s", mode)
		}
	}
}

// The touch-cost target judges the sizes both series ran: the untouched
// series of run all runs fewer (SecondarySizes).
func TestTouchCostSecondarySizes(t *testing.T) {
	const K = 1 << 10
	s := Series{Transport: SHM, Compute: NoCompute, Touch: true}
	u := s
	u.Touch = false
	touched := fakeBench(Latency, s, DefaultLayout, []int64{8, 4 * K, 64 * K}, byMode("lat_us", map[string]map[int64]float64{
		"mpi": {0: 20}, "cspii-tag": {0: 23},
	}), "mpi", "cspii-tag")
	untouched := fakeBench(Latency, u, DefaultLayout, []int64{8, 64 * K}, byMode("lat_us", map[string]map[int64]float64{
		"mpi": {0: 10}, "cspii-tag": {0: 10},
	}), "mpi", "cspii-tag")
	tg := findTarget(t, EvaluateTargets([]*BenchResult{touched, untouched}), SHM, "cspii-tag", Latency, "touched", "touching adds")
	assert.Equal(t, statusMet, tg.Status)
	assert.Equal(t, "8: +13.00 vs mpi +10.00 us, 64K: +13.00 vs mpi +10.00 us", tg.Measured, "4K was not run untouched")
}

// The phases target shows the bound a free, all-knowing route choice
// would reach: each phase on its faster route (mpi's small phase,
// cspii-tag's overlapped one; each phase's time holds its barriers, and
// round_us is their sum). Here it is 0.85x mpi,
// so the target (0.80x) is out of reach in this series whatever the
// library does; a result without the phase times shows no bound.
func TestTargetPhasesBound(t *testing.T) {
	const K = 1 << 10
	sleep := Series{Transport: SHM, Compute: Sleep, Touch: true}
	vals := func(mode string, _ int64) map[string]float64 {
		switch mode {
		case "mpi":
			return map[string]float64{"round_us": 200, "small_us": 55, "large_us": 145, "sync_us": 5}
		case "cspii-tag":
			return map[string]float64{"round_us": 300, "small_us": 185, "large_us": 115, "sync_us": 5}
		}
		return map[string]float64{"round_us": 175, "small_us": 60, "large_us": 115, "sync_us": 5}
	}
	ph := fakeBench(Phases, sleep, DefaultLayout, []int64{64 * K}, vals, "mpi", "cspii-tag", "cspii-auto")
	goal := "round_us <= 0.80x both mpi's and cspii-tag's at every size"
	tg := findTarget(t, EvaluateTargets([]*BenchResult{ph}), SHM, "cspii-auto", Phases, "sleep, touched", goal)
	assert.Equal(t, statusMissed, tg.Status)
	assert.Equal(t, "64K: 0.88x mpi, 0.58x cspii-tag; each phase on its faster route, switched for free (bound): 64K: 0.85x mpi, 0.57x cspii-tag", tg.Measured, "(55 + 115) / 200 and / 300")

	old := fakeBench(Phases, sleep, DefaultLayout, []int64{64 * K}, byMode("round_us", map[string]map[int64]float64{"mpi": {0: 100}, "cspii-tag": {0: 100}, "cspii-auto": {0: 80}}), "mpi", "cspii-tag", "cspii-auto")
	tg = findTarget(t, EvaluateTargets([]*BenchResult{old}), SHM, "cspii-auto", Phases, "sleep, touched", goal)
	assert.Equal(t, "64K: 0.80x mpi, 0.80x cspii-tag", tg.Measured, "no phase times: no bound")
}
