package osubench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 16's benchmarks, modes, series and placements.
func TestIssue16Spec(t *testing.T) {
	bs, err := ParseBenches("rma")
	require.NoError(t, err)
	assert.Equal(t, []Bench{RMA, RMAGA}, bs, "rma: the flush epochs and the GA-like workload")
	bs, err = ParseBenches("rma-flush")
	require.NoError(t, err)
	assert.Equal(t, []Bench{RMA}, bs)
	bs, err = ParseBenches("rma-ga,rma")
	require.NoError(t, err)
	assert.Equal(t, []Bench{RMAGA, RMA}, bs, "duplicates dropped")
	_, err = ParseBenches("rma-put")
	assert.ErrorContains(t, err, "rma, rma-flush, rma-ga")
	assert.Equal(t, "rma", RMAGA.Program(), "one program, -w ga")
	assert.Equal(t, "probe", Probe.Program())
	assert.True(t, RMA.Computes() && RMAGA.Computes() && RMA.IsRMA() && !Probe.IsRMA())

	for name, want := range map[string]Mode{
		"cspii":       {Name: "cspii", Preload: true, AsyncMode: "rma|pt2pt"},
		"cspii-pt2pt": {Name: "cspii-pt2pt", Preload: true, AsyncMode: "pt2pt"},
	} {
		m, ok := LookupMode(name)
		require.True(t, ok, name)
		assert.Equal(t, want, m)
	}
	assert.Equal(t, RMAModes, DefaultModesFor(RMABenches))
	assert.Equal(t, []string{"mpi", "thread", "cspii", "cspii-pt2pt"}, RMAModes)
	cs, _ := LookupMode("cspii")
	pt, _ := LookupMode("cspii-pt2pt")
	assert.Equal(t, "LD_PRELOAD libcasperii.so, CSP_ASYNC_MODE=rma|pt2pt (MPI_Win_allocate windows redirected to the ghosts)", cs.Describe())
	assert.Contains(t, pt.Describe(), "CSP_ASYNC_MODE=pt2pt (windows stay MPICH's")

	// idle: rma's reference, always in its series, never in the others'.
	c, err := ParseCompute("idle")
	require.NoError(t, err)
	assert.Equal(t, Idle, c)
	both := []Compute{Busy, Sleep}
	assert.Equal(t, []Compute{Busy, Sleep, Idle}, computesOf(RMA, both))
	assert.Equal(t, []Compute{Idle, Busy}, computesOf(RMAGA, []Compute{Idle, Busy}), "in the order given")
	assert.Equal(t, []Compute{Busy}, computesOf(Overlap, []Compute{Busy, Idle}))
	ss := SeriesOf(RMA, []Transport{SHM}, []bool{true}, both)
	require.Len(t, ss, 3)
	assert.Equal(t, "idle target (in MPI), touched, shm", ss[2].Label())
	assert.Equal(t, "idle-touched-shm", ss[2].Slug())

	ps, err := ParsePlacements("both")
	require.NoError(t, err)
	assert.Equal(t, []Placement{PlaceAuto, PlaceGhostCores}, ps)
	ps, err = ParsePlacements("ghost-cores,auto,ghost-cores")
	require.NoError(t, err)
	assert.Equal(t, []Placement{PlaceGhostCores, PlaceAuto}, ps)
	for _, bad := range []string{"", "own", "auto,cores"} {
		_, err := ParsePlacements(bad)
		assert.Error(t, err, bad)
	}
	assert.Equal(t, "both", DefaultPlacement([]Bench{RMA, RMAGA}))
	assert.Equal(t, "auto", DefaultPlacement([]Bench{RMAGA}))
	assert.Equal(t, "auto", DefaultPlacement(AllBenches))

	gc := Series{Transport: TCP, Compute: Busy, Touch: true, Place: PlaceGhostCores}
	assert.Equal(t, "busy compute, touched, tcp, ghost-cores", gc.Label())
	assert.Equal(t, "busy-touched-tcp-ghost-cores", gc.Slug())
	assert.Equal(t, "busy, touched, ghost-cores", seriesShort(gc))

	// Placements are series of rma only; sleep and ghost-cores series run
	// the secondary sizes.
	cfg := Config{Transports: []Transport{SHM}, Touches: []bool{true}, Computes: both, Placements: []Placement{PlaceAuto, PlaceGhostCores}}
	rs := cfg.SeriesFor(RMA)
	require.Len(t, rs, 6)
	assert.Equal(t, PlaceAuto, rs[0].Place)
	assert.Equal(t, Series{Transport: SHM, Compute: Idle, Touch: true, Place: PlaceGhostCores}, rs[5])
	assert.Len(t, cfg.SeriesFor(RMAGA), 3, "rma-ga: auto placement only")
	assert.Len(t, cfg.SeriesFor(Overlap), 2, "no idle, no placement")
	assert.Equal(t, DefaultSizes(RMA), cfg.SizesForSeries(RMA, rs[0]))
	assert.Equal(t, SecondarySizes(RMA), cfg.SizesForSeries(RMA, rs[1]), "sleep: secondary")
	assert.Equal(t, DefaultSizes(RMA), cfg.SizesForSeries(RMA, rs[2]), "idle: the reference, every size")
	assert.Equal(t, SecondarySizes(RMA), cfg.SizesForSeries(RMA, rs[3]), "ghost-cores")
	assert.Contains(t, SecondarySizes(RMA), int64(RMATargetSize), "the targets' size")
	assert.Contains(t, QuickSizes(RMA), int64(RMATargetSize))
	assert.Equal(t, []int64{8 << 10}, DefaultSizes(RMAGA))
	cfg.Sizes = []int64{64}
	assert.Equal(t, []int64{64}, cfg.SizesForSeries(RMA, rs[3]), "--sizes applies to every series")
	assert.Equal(t, DefaultGALayout, cfg.LayoutFor(RMAGA))
	assert.Equal(t, DefaultLayout, cfg.LayoutFor(RMA))
	assert.Contains(t, modeMismatch(RMA, cs, Layout{1, 1, 1}), "needs an origin and a target")
	assert.Equal(t, "", modeMismatch(RMAGA, cs, Layout{1, 3, 1}))
}

// The ghosts get CPUs of their own, the users the others; where the
// ghosts do not all fit, the target's ghost gets one and the others join
// the users.
func TestGhostCoresCPUs(t *testing.T) {
	cs, _ := LookupMode("cspii")
	mpi, _ := LookupMode("mpi")
	two := []int{0, 1}
	assert.Equal(t, []int{0, 0, 1, 0}, GhostCoresCPUs(DefaultLayout, cs, two), "rank 2 is the target's ghost, rank 0 the origin's")
	assert.Equal(t, []int{0, 0, 1, 0, 0, 0}, GhostCoresCPUs(Layout{Nodes: 3, Users: 1, Ghosts: 1}, cs, []int{0, 1}), "ranks 0, 2 and 4 are ghosts; 2 serves user 1")
	assert.Equal(t, []int{0, 0}, GhostCoresCPUs(DefaultLayout, mpi, two), "the users where the ghost modes put them")
	assert.Equal(t, []int{2, 0, 3, 1}, GhostCoresCPUs(DefaultLayout, cs, []int{0, 1, 2, 3}), "a core each")
	assert.Equal(t, []int{0, 1}, GhostCoresCPUs(DefaultLayout, mpi, []int{0, 1, 2, 3}))
	assert.Equal(t, []int{5, 4, 4, 7, 4, 4}, GhostCoresCPUs(DefaultGALayout, cs, []int{4, 5, 7}), "3 CPUs: a CPU for each of the 2 ghosts, the users share the one left")
	assert.Nil(t, GhostCoresCPUs(DefaultLayout, cs, []int{3}))
}

// ghost-cores shrinks the layout until every ghost has a CPU of its own
// with one left for the users, keeping the users.
func TestGhostCoresLayout(t *testing.T) {
	one := Layout{Nodes: 1, Users: 2, Ghosts: 1}
	assert.Equal(t, one, GhostCoresLayout(DefaultLayout, 2), "2 CPUs: the ghost on one, both users on the other")
	assert.Equal(t, DefaultLayout, GhostCoresLayout(DefaultLayout, 3), "a CPU per ghost and one for the users")
	assert.Equal(t, DefaultLayout, GhostCoresLayout(DefaultLayout, 1), "one CPU: nothing to give (the series is skipped)")
	assert.Equal(t, Layout{Nodes: 1, Users: 4, Ghosts: 1}, GhostCoresLayout(DefaultGALayout, 2))
	assert.Equal(t, Layout{Nodes: 2, Users: 3, Ghosts: 1}, GhostCoresLayout(Layout{Nodes: 3, Users: 2, Ghosts: 1}, 3), "users spread evenly")
	assert.Equal(t, Layout{Nodes: 1, Users: 3, Ghosts: 1}, GhostCoresLayout(Layout{Nodes: 3, Users: 1, Ghosts: 1}, 3), "3 users do not split over 2 nodes")
	assert.True(t, ghostCoresOf(one, DefaultLayout))
	assert.True(t, ghostCoresOf(DefaultLayout, DefaultLayout))
	assert.False(t, ghostCoresOf(Layout{Nodes: 1, Users: 1, Ghosts: 1}, DefaultLayout))
	// The 1-node layout's job: the ghost alone on CPU 1, and the window
	// served by it, not by the origin (CSP_RMA_LOCAL=0).
	r := &Runner{Cfg: Config{BudgetMs: 50, MinIters: 5, MaxIters: 1000, CPUs: []int{0, 1}},
		Progs: &Programs{C: map[Bench]string{RMA: "/c/osub-rma"}}, Lib: &Lib{Path: "/lib/libcasperii.so"}}
	r.Cfg.Defaults()
	cs, _ := LookupMode("cspii")
	mpi, _ := LookupMode("mpi")
	gc := Series{Transport: SHM, Compute: Busy, Touch: true, Place: PlaceGhostCores}
	assert.Equal(t, "mpiexec -n 3 -bind-to user:1,0,0 -genv CSP_NODE_SIZE 3 -genv CSP_NG 1 -genv CSP_STATS 1 -genv CSP_RMA_LOCAL 0 -genv CSP_ASYNC_MODE 'rma|pt2pt' -genv LD_PRELOAD /lib/libcasperii.so /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -w flush -u 20000",
		ShellQuote(r.Job(RMA, cs, one, gc, []int64{8192}, nil).Argv("mpiexec")))
	assert.Equal(t, "mpiexec -n 2 -bind-to user:0,0 /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -w flush -u 20000",
		ShellQuote(r.Job(RMA, mpi, one, gc, []int64{8192}, nil).Argv("mpiexec")))
	auto := gc
	auto.Place = PlaceAuto
	assert.NotContains(t, ShellQuote(r.Job(RMA, cs, one, auto, []int64{8192}, nil).Argv("mpiexec")), "CSP_RMA_LOCAL", "only the ghost-cores series")
}

func TestIssue16JobCommands(t *testing.T) {
	r := &Runner{Cfg: Config{BudgetMs: 50, MinIters: 5, MaxIters: 1000, CPUs: []int{0, 1}},
		Progs: &Programs{C: map[Bench]string{RMA: "/c/osub-rma", RMAGA: "/c/osub-rma"}},
		Lib:   &Lib{Path: "/lib/libcasperii.so"}}
	r.Cfg.Defaults()
	mode := func(n string) Mode { m, _ := LookupMode(n); return m }
	cmd := func(b Bench, m string, s Series, l Layout) string {
		return ShellQuote(r.Job(b, mode(m), l, s, []int64{8192}, nil).Argv("mpiexec"))
	}
	busy := Series{Transport: SHM, Compute: Busy, Touch: true}
	gc := busy
	gc.Place = PlaceGhostCores
	idle := Series{Transport: TCP, Compute: Idle, Touch: true}
	const ghosts = "mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 -genv CSP_STATS 1 "
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_MODE 'rma|pt2pt' -genv LD_PRELOAD /lib/libcasperii.so /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -w flush -u 20000", cmd(RMA, "cspii", busy, DefaultLayout),
		"rma: its own minimum of epochs, the target's compute")
	assert.Equal(t, "mpiexec -n 4 -bind-to user:0,0,1,0 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 -genv CSP_STATS 1 -genv CSP_ASYNC_MODE pt2pt -genv LD_PRELOAD /lib/libcasperii.so /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -w flush -u 20000", cmd(RMA, "cspii-pt2pt", gc, DefaultLayout))
	assert.Equal(t, "mpiexec -n 2 -bind-to user:0,0 -genv MPIR_CVAR_ASYNC_PROGRESS 1 /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -T -w flush -u 20000", cmd(RMA, "thread", gc, DefaultLayout))
	assert.Equal(t, "mpiexec -n 2 -genv MPIR_CVAR_NOLOCAL 1 -genv UCX_TLS tcp,self /c/osub-rma -s 8192 -c idle -t -b 50 -m 4 -i 1000 -w flush -u 20000", cmd(RMA, "mpi", idle, DefaultLayout))
	assert.Equal(t, "mpiexec -n 6 -genv CSP_NODE_SIZE 3 -genv CSP_NG 1 -genv CSP_STATS 1 -genv CSP_ASYNC_MODE 'rma|pt2pt' -genv LD_PRELOAD /lib/libcasperii.so /c/osub-rma -s 8192 -c busy -t -b 50 -m 5 -i 1000 -w ga -q 100", cmd(RMAGA, "cspii", busy, DefaultGALayout),
		"rma-ga: the framework's minimum, user 0's slice")
	// --rma-sync fence: fences as the safe points of cspii-auto (CSP_ASYNC_CONFIG=auto).
	r.Cfg.RMASync = "fence"
	assert.Equal(t, ghosts+"-genv CSP_ASYNC_CONFIG auto -genv LD_PRELOAD /lib/libcasperii.so /c/osub-rma -s 8192 -c busy -t -b 50 -m 4 -i 1000 -H none -w fence -u 20000", cmd(RMA, "cspii-auto", busy, DefaultLayout))
	r.Cfg.RMASync = ""
	r.Cfg.RMAComputeUs, r.Cfg.GASliceUs, r.Cfg.RMAMinIters = 5000, 30, 2
	assert.True(t, strings.HasSuffix(cmd(RMA, "mpi", busy, DefaultLayout), " -m 2 -i 1000 -w flush -u 5000"), cmd(RMA, "mpi", busy, DefaultLayout))
	assert.True(t, strings.HasSuffix(cmd(RMAGA, "mpi", busy, DefaultGALayout), " -w ga -q 30"))
	assert.Greater(t, r.jobTimeout(RMA, 8), r.jobTimeout(Probe, 8), "the compute of every epoch counts")

	// On one CPU the ghost-cores series is skipped, with the reason.
	r.Cfg.CPUs = []int{0}
	assert.NotContains(t, cmd(RMA, "cspii", gc, DefaultLayout), "-bind-to")
}

// rma's lines parse per cell; rma-ga's ok=0 fails the job.
func TestIssue16Points(t *testing.T) {
	out := "osub-info bench=rma users=2 compute=busy touch=on\n" +
		"osub bench=rma size=8192 acc_contig_epoch_us=650.5 acc_contig_flush_us=400.25 acc_contig_stretch_pct=3.5 iters=4 stretch_pct=2.5 touch_us=1.5\n"
	pts, err := ParsePoints(out, RMA)
	require.NoError(t, err)
	require.Len(t, pts, 1)
	assert.Equal(t, 650.5, pts[0].Values[RMAKey("acc", "contig", "epoch_us")])
	assert.Equal(t, 2.5, pts[0].Values["stretch_pct"])
	assert.NoError(t, checkPoints(RMA, pts))
	_, err = ParsePoints(out, RMAGA)
	assert.ErrorContains(t, err, `benchmark "rma" in a rma-ga job`)

	ga, err := ParsePoints("osub bench=rma-ga size=8192 acc_per_s=2000.5 ok=1\n", RMAGA)
	require.NoError(t, err)
	assert.NoError(t, checkPoints(RMAGA, ga))
	ga[0].Values["ok"] = 0
	assert.ErrorContains(t, checkPoints(RMAGA, ga), "wrong result at 8K: ok=0")
	delete(ga[0].Values, "ok")
	assert.Error(t, checkPoints(RMAGA, ga), "no verdict is no result")

	s := Series{Transport: SHM, Compute: Idle, Touch: true}
	m, _ := LookupMode("cspii")
	assert.NoError(t, checkInfo([]Fields{{"bench": "rma", "compute": "idle", "touch": "on"}}, s, RMA, m))
	assert.ErrorContains(t, checkInfo([]Fields{{"bench": "rma", "compute": "busy", "touch": "on"}}, s, RMA, m), "compute=busy")

	// Every cell has its epoch and flush metrics.
	keys := map[string]bool{}
	for _, mt := range Metrics[RMA] {
		keys[mt.Key] = true
	}
	for _, op := range RMAOps {
		for _, dt := range RMADatatypes {
			for _, w := range []string{"epoch_us", "flush_us", "lock_us", "op_us", "unlock_us", "stretch_pct"} {
				assert.True(t, keys[RMAKey(op, dt, w)], RMAKey(op, dt, w))
			}
		}
	}
	for _, b := range RMABenches {
		for _, k := range plotPanels[b] {
			assert.NotEqual(t, k, metricOf(b, k).Title, "%s: %s is a metric", b, k)
		}
	}
}

// The RMA counters are judged by what the mode asks for.
func TestRMACheck(t *testing.T) {
	mode := func(n string) Mode { m, _ := LookupMode(n); return m }
	red := CSPStats{"rma_windows": 2, "rma_redirected": 40}
	none := CSPStats{"rma_windows": 0, "rma_redirected": 0}
	assert.Equal(t, "", rmaCheck(mode("cspii"), red))
	assert.Equal(t, "  <- NO WINDOW REDIRECTED", rmaCheck(mode("cspii"), none))
	assert.Equal(t, "  <- NOT REDIRECTED", rmaCheck(mode("cspii"), CSPStats{"rma_windows": 2}))
	assert.Equal(t, "", rmaCheck(mode("cspii-tag"), red), "the library's default mode redirects")
	assert.Equal(t, "  (windows MPICH's, as the mode asks)", rmaCheck(mode("cspii-pt2pt"), none))
	assert.Equal(t, "  <- REDIRECTED although CSP_ASYNC_MODE=pt2pt", rmaCheck(mode("cspii-pt2pt"), red))
	local := CSPStats{"rma_windows": 2, "rma_local": 40}
	assert.Equal(t, "", rmaCheck(mode("cspii"), local), "windows within one node: the origins applied them")
	assert.Equal(t, "  <- REDIRECTED although CSP_ASYNC_MODE=pt2pt", rmaCheck(mode("cspii-pt2pt"), local))

	s := Series{Transport: SHM, Compute: Busy, Touch: true}
	br := fakeBench(RMA, s, DefaultLayout, []int64{8, 8192}, func(mode string, _ int64) map[string]float64 {
		v := map[string]float64{"mpi": 20000, "cspii": 600, "cspii-pt2pt": 20100}[mode]
		return map[string]float64{RMAKey("acc", "contig", "epoch_us"): v, RMAKey("acc", "contig", "flush_us"): v / 2,
			RMAKey("acc", "contig", "lock_us"): 100, RMAKey("acc", "contig", "op_us"): 5, RMAKey("acc", "contig", "unlock_us"): 50, "stretch_pct": 4}
	}, "mpi", "cspii", "cspii-pt2pt")
	for _, j := range br.Jobs {
		j.Job.Wall, j.Job.CPU = 1e9, 1
		if j.Mode != "mpi" {
			j.Stats = []CSPStats{{"rank": 0, "rma_windows": 1, "rma_redirected": 30}, {"rank": 1, "rma_windows": 1}}
		}
	}
	var out bytes.Buffer
	WriteBench(&out, br)
	o := out.String()
	assert.Contains(t, o, "## rma [busy compute, touched, shm]  (layout nodes=2,users=1,ghosts=1; sizes 8,8K)")
	assert.Contains(t, o, "CSP_STATS rep 1, all users: rma_windows=2 rma_redirected=30 rma_local=0 rma_lock_retries=0 isend_offloaded=0\n")
	assert.Contains(t, o, "rma_redirected=30 rma_local=0 rma_lock_retries=0 isend_offloaded=0  <- REDIRECTED although CSP_ASYNC_MODE=pt2pt")
	assert.Contains(t, o, "# rma [busy compute, touched, shm]: epoch: MPI_Win_lock(SHARED) + MPI_Accumulate(SUM, doubles), contiguous target type + MPI_Win_flush + MPI_Win_unlock, mean [us]")
	assert.Regexp(t, `\n  8K +20000\.0 +600\.0 +20100\.0 +0\.03x +1\.00x\n`, o)
	assert.Contains(t, o, "lock / accumulate / flush / unlock per contiguous accumulate epoch [us] (medians)")
	assert.Contains(t, o, "stretch: how much longer its fixed compute took than asked")
	assert.NotContains(t, o, "lock time of acc contig", "parts only in the breakdown and the files")
}

// Issue 16's targets, each on its boundary.
func TestTargetsIssue16(t *testing.T) {
	const K = 1 << 10
	key := RMAKey("acc", "contig", "epoch_us")
	busy := Series{Transport: SHM, Compute: Busy, Touch: true}
	gc := busy
	gc.Place = PlaceGhostCores
	idle := Series{Transport: SHM, Compute: Idle, Touch: true}
	sizes := []int64{8, 8 * K}
	mk := func(s Series, v map[string]map[int64]float64, modes ...string) *BenchResult {
		return fakeBench(RMA, s, DefaultLayout, sizes, byMode(key, v), modes...)
	}
	rb := mk(busy, map[string]map[int64]float64{"mpi": {0: 18000}, "cspii": {8: 5000, 8 * K: 1800}}, "mpi", "cspii")
	rg := mk(gc, map[string]map[int64]float64{"mpi": {0: 40000}, "cspii": {8: 5000, 8 * K: 33}}, "mpi", "cspii")
	ri := mk(idle, map[string]map[int64]float64{"mpi": {0: 22}, "cspii": {0: 500}}, "mpi", "cspii")
	ts := EvaluateTargets([]*BenchResult{rb, rg, ri})
	a := findTarget(t, ts, SHM, "cspii", RMA, "busy, touched", "8K accumulate epoch")
	assert.Equal(t, statusMet, a.Status, a.Measured)
	assert.Equal(t, "0.10x (1800.0 vs mpi 18000.0)", a.Measured)
	assert.Equal(t, "16", a.Issue)
	b := findTarget(t, ts, SHM, "cspii", RMA, "busy, touched, ghost-cores", "8K accumulate epoch")
	assert.Equal(t, statusMet, b.Status, b.Measured)
	assert.Equal(t, "1.50x (33.00 vs mpi idle 22.00 us; mpi in this series 40000.0 us)", b.Measured)

	rb = mk(busy, map[string]map[int64]float64{"mpi": {0: 18000}, "cspii": {0: 1801}}, "mpi", "cspii")
	rg = mk(gc, map[string]map[int64]float64{"mpi": {0: 40000}, "cspii": {0: 33.1}}, "mpi", "cspii")
	ts = EvaluateTargets([]*BenchResult{rb, rg, ri})
	assert.Equal(t, statusMissed, findTarget(t, ts, SHM, "cspii", RMA, "busy, touched", "8K").Status)
	assert.Equal(t, statusMissed, findTarget(t, ts, SHM, "cspii", RMA, "busy, touched, ghost-cores", "8K").Status)

	// Without the idle series, or with the ghost-cores series not run.
	ts = EvaluateTargets([]*BenchResult{rb, rg})
	nb := findTarget(t, ts, SHM, "cspii", RMA, "busy, touched, ghost-cores", "8K")
	assert.Equal(t, statusNoValue, nb.Status)
	assert.Contains(t, nb.Measured, "the idle series (idle target (in MPI), touched, shm) was not run")
	ts = EvaluateTargets([]*BenchResult{rb, ri})
	ng := findTarget(t, ts, SHM, "cspii", RMA, "busy, touched, ghost-cores", "8K")
	assert.Equal(t, statusNoValue, ng.Status)
	assert.Equal(t, "rma [busy compute, touched, shm, ghost-cores] not run", ng.Measured)
	assert.False(t, ng.NotRun, "rma ran, not that series")

	// Only cspii gets them; cspii-off's issue 15 target does not cover rma.
	off := mk(busy, map[string]map[int64]float64{"mpi": {0: 1}, "cspii-off": {0: 100}}, "mpi", "cspii-off")
	for _, tg := range EvaluateTargets([]*BenchResult{off}) {
		assert.NotEqual(t, RMA, tg.Bench, "%+v", tg)
	}
	var out bytes.Buffer
	WriteTargets(&out, EvaluateTargets([]*BenchResult{rb, rg, ri}))
	assert.Regexp(t, `\n  MISSED +16 +cspii +rma +busy, touched +8K accumulate epoch \(acc_contig_epoch_us\), target computing busy, <= 0\.10x mpi's +0\.10x \(1801\.0 vs mpi 18000\.0\)\n`, out.String())
}

// A job that hangs after the finalize mark (MPICH 4.0.2's ch4/ucx
// finalize over TCP) is killed after the grace and counts; one that hangs
// before it times out.
func TestFinalizeGrace(t *testing.T) {
	dir := t.TempDir()
	fake := func(name, body string) string {
		p := dir + "/" + name
		require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
		return p
	}
	hang := fake("hang", `echo "osub bench=rma size=8 x=1"; echo osub-finalize; sleep 30`)
	j := JobSpec{Procs: 1, Prog: "/bin/true", Timeout: 20 * time.Second, FinalizeGrace: 300 * time.Millisecond}
	start := time.Now()
	res := RunJob(context.Background(), hang, j)
	assert.Less(t, time.Since(start), 10*time.Second, "killed after the grace, not at the timeout")
	assert.True(t, res.FinalizeHang)
	assert.NoError(t, res.Err())
	assert.Contains(t, res.Stdout, "osub bench=rma size=8 x=1")

	early := fake("early", `echo "osub bench=rma size=8 x=1"; sleep 30`)
	j.Timeout = time.Second
	res = RunJob(context.Background(), early, j)
	assert.False(t, res.FinalizeHang)
	assert.ErrorContains(t, res.Err(), "timed out")

	ok := fake("ok", `echo osub-finalize; exit 0`)
	res = RunJob(context.Background(), ok, j)
	assert.False(t, res.FinalizeHang)
	assert.NoError(t, res.Err())
}
