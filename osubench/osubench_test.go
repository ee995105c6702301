package osubench

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "8": 8, "1K": 1024, "1k": 1024, "64K": 65536, "64KiB": 65536, "1KB": 1024,
		"1M": 1 << 20, "4MiB": 4 << 20, " 16 ": 16, "512B": 512,
	} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "x", "-1", "1.5K", "4G", "1T", "K"} {
		_, err := ParseSize(in)
		assert.Error(t, err, in)
	}
}

func TestParseSizes(t *testing.T) {
	got, err := ParseSizes("1M,8,1K,8,64K")
	require.NoError(t, err)
	assert.Equal(t, []int64{8, 1024, 65536, 1 << 20}, got, "sorted, without duplicates")

	got, err = ParseSizes("0-16")
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2, 4, 8, 16}, got)

	got, err = ParseSizes("3:1K,4M")
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 8, 16, 32, 64, 128, 256, 512, 1024, 4 << 20}, got)

	for _, in := range []string{"", ",", "1K-8", "8,x", "0-4G"} {
		_, err := ParseSizes(in)
		assert.Error(t, err, in)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 8: "8", 1000: "1000", 1024: "1K", 1536: "1536", 65536: "64K", 1 << 20: "1M", 4 << 20: "4M"} {
		assert.Equal(t, want, FormatSize(n))
	}
}

func TestParseLayout(t *testing.T) {
	l, err := ParseLayout("nodes=2,users=2,ghosts=1", DefaultLayout)
	require.NoError(t, err)
	assert.Equal(t, Layout{2, 2, 1}, l)
	assert.Equal(t, "nodes=2,users=2,ghosts=1", l.String())
	assert.Equal(t, 6, l.Procs(Mode{Preload: true}))
	assert.Equal(t, 4, l.Procs(Mode{Name: "mpi"}))
	assert.Equal(t, 3, l.NodeSize())
	var ghosts []int
	for r := 0; r < 6; r++ {
		if l.IsGhostRank(r) {
			ghosts = append(ghosts, r)
		}
	}
	assert.Equal(t, []int{0, 3}, ghosts)

	l, err = ParseLayout("users=3", DefaultLayout)
	require.NoError(t, err)
	assert.Equal(t, Layout{2, 3, 1}, l, "missing keys keep the default")

	for _, in := range []string{"nodes", "nodes=x", "cores=2", "nodes=0", "ghosts=0", "users=-1"} {
		_, err := ParseLayout(in, DefaultLayout)
		assert.Error(t, err, in)
	}
}

func TestParseModesAndBenches(t *testing.T) {
	ms, err := ParseModes("cspii-tag,thread,mpi,cspii-tag")
	require.NoError(t, err)
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"mpi", "cspii-tag", "thread"}, names, "mpi first, duplicates dropped")
	assert.True(t, ms[1].Preload && ms[1].Hint == "none")
	assert.True(t, ms[2].Thread && !ms[2].Ghosts())
	m, ok := LookupMode("cspii-dup")
	require.True(t, ok)
	assert.Equal(t, "any_tag_same_tag", m.Hint)
	_, err = ParseModes("mpi,casper")
	assert.ErrorContains(t, err, "casper")

	bs, err := ParseBenches("all")
	require.NoError(t, err)
	assert.Equal(t, AllBenches, bs)
	bs, err = ParseBenches("halo,latency")
	require.NoError(t, err)
	assert.Equal(t, []Bench{Halo, Latency}, bs)
	_, err = ParseBenches("pingpong")
	assert.Error(t, err)

	c, err := ParseCompute("busy")
	require.NoError(t, err)
	assert.Equal(t, Busy, c)
	_, err = ParseCompute("spin")
	assert.Error(t, err)
}

func TestStatistics(t *testing.T) {
	assert.Equal(t, 3.0, Median([]float64{5, 1, 3}))
	assert.Equal(t, 2.5, Median([]float64{4, 1, 3, 2}))
	assert.True(t, math.IsNaN(Median(nil)))
	assert.Equal(t, 2.0, Median([]float64{2, math.NaN()}), "NaN ignored")

	s := []float64{1, 2, 3, 4, 5}
	assert.Equal(t, 1.0, Quantile(s, 0))
	assert.Equal(t, 2.0, Quantile(s, 0.25))
	assert.Equal(t, 5.0, Quantile(s, 1))
	assert.InDelta(t, 1.4, Quantile(s, 0.1), 1e-12)

	sp := Summarize([]float64{10, 12, 11, 30, 9})
	assert.Equal(t, 5, sp.N)
	assert.Equal(t, 11.0, sp.Median)
	assert.Equal(t, 9.0, sp.Min)
	assert.Equal(t, 30.0, sp.Max)
	assert.Equal(t, 10.0, sp.Q1)
	assert.Equal(t, 12.0, sp.Q3)
	assert.InDelta(t, 14.4, sp.Mean, 1e-12)
	assert.InDelta(t, 21.0/11, sp.RelSpread, 1e-12)
	empty := Summarize(nil)
	assert.Equal(t, 0, empty.N)
	assert.True(t, math.IsNaN(empty.Median))

	assert.True(t, math.IsNaN(Ratio(1, 0)))
	assert.Equal(t, 0.5, Ratio(1, 2))
}

func TestOverlapPct(t *testing.T) {
	// Nothing overlapped: total is the sum.
	assert.InDelta(t, 0, OverlapPct(100, 100, 200), 1e-12)
	// Fully overlapped: total is the longer one.
	assert.InDelta(t, 100, OverlapPct(100, 100, 100), 1e-12)
	assert.InDelta(t, 100, OverlapPct(100, 40, 100), 1e-12)
	// Half of the shorter part hidden.
	assert.InDelta(t, 50, OverlapPct(100, 40, 120), 1e-12)
	// Not clamped: slower than serial gives a negative value.
	assert.InDelta(t, -25, OverlapPct(40, 100, 150), 1e-12)
	assert.True(t, math.IsNaN(OverlapPct(0, 10, 10)))
	assert.True(t, math.IsNaN(OverlapPct(10, math.NaN(), 10)))
}

const sampleStdout = `osub-info bench=overlap users=2 thread=0 hint=none hint_used=none compute=sleep budget_ms=100 host=vm
osub bench=overlap size=8 iters=100 target_us=2.0 comm_us=10.0 comm_post_us=1 comm_wait_us=9 comp_us=20.0 total_us=25.0 post_us=1 comp_in_us=20 wait_us=4 overlap_pct=50.00 cpu_pct=30.1
noise from MPI
osub bench=overlap size=65536 iters=10 target_us=40 comm_us=100 comm_post_us=2 comm_wait_us=98 comp_us=100 total_us=110 post_us=2 comp_in_us=100 wait_us=8 overlap_pct=90.00 cpu_pct=12
`

func TestParsePoints(t *testing.T) {
	pts, err := ParsePoints(sampleStdout, Overlap)
	require.NoError(t, err)
	require.Len(t, pts, 2)
	assert.Equal(t, int64(8), pts[0].Size)
	assert.Equal(t, 100.0, pts[0].Values["iters"])
	assert.InDelta(t, 50, pts[0].Values["overlap_pct"], 1e-9, "recomputed from comm, comp, total")
	assert.InDelta(t, 90, pts[1].Values["overlap_pct"], 1e-9)
	_, err = ParsePoints(sampleStdout, Latency)
	assert.Error(t, err, "a line of another benchmark")
	info := ParseLines(sampleStdout, "osub-info")
	require.Len(t, info, 1)
	assert.Equal(t, "none", info[0]["hint_used"])

	st := ParseCSPStats("x\ncasperii-stats rank=0 isend_offloaded=5 irecv_offloaded=6 direct=0 bounce=1\ncasperii-stats rank=1 isend_offloaded=5 irecv_offloaded=6 direct=2 bounce=0 held=3\n")
	require.Len(t, st, 2)
	sum := SumStats(st)
	assert.Equal(t, CSPStats{"isend_offloaded": 10, "irecv_offloaded": 12, "direct": 2, "bounce": 1, "held": 3}, sum)
}

// fakeResult builds a benchmark result with the given per-mode values of
// one metric at each size (one job per value).
func fakeResult(b Bench, l Layout, sizes []int64, metric string, vals map[string][]float64) *BenchResult {
	br := &BenchResult{Bench: b, Layout: l, Sizes: sizes, Skipped: map[string]string{}}
	for _, mode := range []string{"mpi", "thread", "cspii-tag", "cspii-dup"} {
		vs, ok := vals[mode]
		if !ok {
			continue
		}
		br.Modes = append(br.Modes, mode)
		for rep, v := range vs {
			j := &JobRecord{Bench: b, Mode: mode, Rep: rep + 1, Job: &JobResult{Cmd: "mpiexec -n 2 prog " + mode}}
			for i, s := range sizes {
				j.Points = append(j.Points, Point{Size: s, Values: map[string]float64{metric: v * float64(i+1), "cpu_pct": 50}})
			}
			br.Jobs = append(br.Jobs, j)
		}
	}
	return br
}

func TestTablesAndOutputFiles(t *testing.T) {
	br := fakeResult(Latency, DefaultLayout, []int64{8, 65536}, "post_us", map[string][]float64{
		"mpi": {1, 2, 3}, "cspii-tag": {0.5, 0.5, 4},
	})
	br.Jobs = append(br.Jobs, &JobRecord{Mode: "mpi", Rep: 4, Error: "exit code 1", Points: []Point{{Size: 8, Values: map[string]float64{"post_us": 1000}}}})
	var out bytes.Buffer
	WriteBench(&out, br)
	s := out.String()
	assert.Contains(t, s, "# mpi:       mpiexec -n 2 prog mpi")
	assert.Contains(t, s, "FAILED mpi rep 4: exit code 1")
	assert.Contains(t, s, "cspii-tag/mpi")
	// size 8: mpi median 2 [1,3], cspii-tag 0.5 [0.5,4] -> 0.25x; failed jobs are ignored.
	assert.Regexp(t, `\n  8 +2\.00 \[1\.00,3\.00\] +0\.500 \[0\.500,4\.00\] +0\.25x\n`, s)

	dir := t.TempDir()
	r := &Runner{Cfg: Config{Compute: Sleep, Reps: 3}, Env: &EnvInfo{Host: "h", Cores: 2}, Results: []*BenchResult{br}}
	paths, err := WriteFiles(dir, r, EvaluateTargets(r.Results, Sleep), true)
	require.NoError(t, err)
	for _, name := range []string{"summary.csv", "raw.csv", "results.json", "latency.png"} {
		assert.Contains(t, paths, filepath.Join(dir, name))
	}

	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	assert.Equal(t, []string{"bench", "layout", "size", "mode", "metric", "unit", "n", "median", "min", "max", "q1", "q3", "ratio_vs_mpi"}, rows[0])
	found := false
	for _, r := range rows[1:] {
		if r[2] == "8" && r[3] == "cspii-tag" && r[4] == "post_us" {
			found = true
			assert.Equal(t, "3", r[6])
			assert.Equal(t, "0.5", r[7])
			assert.Equal(t, "0.25", r[12])
		}
	}
	assert.True(t, found)

	f, err = os.Open(filepath.Join(dir, "raw.csv"))
	require.NoError(t, err)
	raw, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	// 6 good jobs x 2 sizes x 2 metrics, plus the header; the failed job is left out.
	assert.Len(t, raw, 1+6*2*2)

	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	var rep struct {
		Env     EnvInfo
		Benches []BenchResult
		Summary []SummaryRow
		Targets []Target
	}
	require.NoError(t, json.Unmarshal(b, &rep))
	assert.Equal(t, "h", rep.Env.Host)
	require.Len(t, rep.Benches, 1)
	assert.Len(t, rep.Benches[0].Jobs, 7)
	assert.NotEmpty(t, rep.Summary)
	assert.NotEmpty(t, rep.Targets)

	// The report can be read back and gives the same tables.
	back, err := LoadReport(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.Len(t, back.Benches, 1)
	var again bytes.Buffer
	WriteBench(&again, back.Benches[0])
	assert.Equal(t, s, again.String())

	png, err := os.ReadFile(filepath.Join(dir, "latency.png"))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG file")
}

func TestPlotEveryBench(t *testing.T) {
	dir := t.TempDir()
	for b, key := range map[Bench]string{Latency: "post_us", Overlap: "overlap_pct", Rate: "msg_rate", Halo: "iter_us"} {
		br := fakeResult(b, DefaultLayout, []int64{0, 8, 1024, 1 << 20}, key, map[string][]float64{"mpi": {1, 2}, "thread": {3, 4}, "cspii-tag": {-1, 5}})
		p := filepath.Join(dir, string(b)+".png")
		require.NoError(t, PlotBench(br, p), b)
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Greater(t, st.Size(), int64(1000))
	}
}

func TestTargets(t *testing.T) {
	const K, M = 1 << 10, 1 << 20
	lat := fakeResult(Latency, DefaultLayout, []int64{8, 64 * K}, "post_us", map[string][]float64{"mpi": {1}, "cspii-tag": {0.9}})
	for _, j := range lat.Jobs {
		for i := range j.Points {
			j.Points[i].Values["wait_us"] = map[string]float64{"mpi": 2, "cspii-tag": 4}[j.Mode]
		}
	}
	ov := fakeResult(Overlap, DefaultLayout, []int64{64 * K, 1 * M}, "overlap_pct", map[string][]float64{"mpi": {10}, "cspii-tag": {45}})
	for _, j := range ov.Jobs {
		for i := range j.Points {
			j.Points[i].Values["total_us"] = map[string]float64{"mpi": 100, "cspii-tag": 50}[j.Mode]
		}
	}
	halo := fakeResult(Halo, Layout{2, 1, 1}, []int64{1 * K, 64 * K}, "iter_us", map[string][]float64{"mpi": {100}, "thread": {80}, "cspii-tag": {70}})
	ts := EvaluateTargets([]*BenchResult{lat, ov, halo}, Busy)
	get := func(goal string) Target {
		for _, tg := range ts {
			if tg.Mode == "cspii-tag" && strings.HasPrefix(tg.Goal, goal) {
				return tg
			}
		}
		t.Fatalf("no target %q in %+v", goal, ts)
		return Target{}
	}
	// post 0.9x at 8 B and at 64K (values scale with the size index: 1.8 vs 2).
	assert.Equal(t, statusMet, get("post time <= 1.0x").Status)
	assert.Equal(t, statusMissed, get("post time <= 0.5x").Status)
	w := get("wait time <= 1.5x")
	assert.Equal(t, statusMissed, w.Status)
	assert.Contains(t, w.Measured, "2.00x")
	// overlap 45% at 64K, 90% at 1M: missed at 64K.
	o := get("overlap >= 80%")
	assert.Equal(t, statusMissed, o.Status)
	assert.Contains(t, o.Measured, "64K: 45%")
	assert.Contains(t, o.Measured, "mpi 64K: 10%")
	assert.Contains(t, o.Note, "compute busy")
	assert.Equal(t, statusMet, get("total time <= 0.6x").Status)
	assert.Equal(t, statusNoValue, get("message rate >= 0.67x").Status)
	h := get("time per iteration >= 25%")
	assert.Equal(t, statusMet, h.Status)
	assert.Contains(t, h.Note, "layout nodes=2,users=1,ghosts=1")
	assert.Equal(t, statusMet, get("time per iteration below thread").Status)
	// Only modes that ran get targets.
	for _, tg := range ts {
		assert.Equal(t, "cspii-tag", tg.Mode)
	}
	var out bytes.Buffer
	WriteTargets(&out, ts)
	assert.Contains(t, out.String(), "MISSED")
}

func TestJobCommands(t *testing.T) {
	r := &Runner{Cfg: Config{Compute: Sleep, BudgetMs: 50, MinIters: 5, MaxIters: 1000, Window: 64, HaloComputeUs: 300},
		Progs: &Programs{C: map[Bench]string{Latency: "/c/osub-latency", Halo: "/c/osub-halo"}, GoAPI: "/c/go-latency"},
		Lib:   &Lib{Path: "/lib/libcasperii.so"}}
	mode := func(n string) Mode { m, _ := LookupMode(n); return m }
	j := r.Job(Latency, mode("mpi"), DefaultLayout, []int64{8, 1024}, nil)
	assert.Equal(t, "mpiexec -n 2 /c/osub-latency -s 8,1024 -c sleep -b 50 -m 5 -i 1000", ShellQuote(j.Argv("mpiexec")))
	j = r.Job(Latency, mode("thread"), DefaultLayout, []int64{8}, nil)
	assert.Equal(t, "mpiexec -n 2 -genv MPIR_CVAR_ASYNC_PROGRESS 1 /c/osub-latency -s 8 -c sleep -b 50 -m 5 -i 1000 -T", ShellQuote(j.Argv("mpiexec")))
	j = r.Job(Halo, mode("cspii-dup"), DefaultHaloLayout, []int64{1024}, nil)
	assert.Equal(t, "mpiexec -n 6 -genv CSP_NODE_SIZE 3 -genv CSP_NG 1 -genv CSP_STATS 1 -genv LD_PRELOAD /lib/libcasperii.so /c/osub-halo -s 1024 -c sleep -b 50 -m 5 -i 1000 -H any_tag_same_tag -u 300",
		ShellQuote(j.Argv("mpiexec")))
	assert.True(t, j.IsGhost(3) && !j.IsGhost(4))
	j = r.Job(Latency, mode("go-tag"), DefaultLayout, []int64{8}, []string{"-x", "1.5"})
	assert.Equal(t, "mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 -genv CSP_STATS 1 /c/go-latency -s 8 -c sleep -b 50 -m 5 -i 1000 -H none -x 1.5", ShellQuote(j.Argv("mpiexec")))

	assert.Equal(t, "", r.skipReason(Latency, mode("cspii-tag"), DefaultLayout))
	assert.Contains(t, r.skipReason(Overlap, mode("go-tag"), DefaultLayout), "latency test only")
	assert.Contains(t, r.skipReason(Rate, mode("mpi"), Layout{1, 3, 1}), "odd number of users")
	r.Lib = &Lib{Err: os.ErrNotExist}
	assert.Contains(t, r.skipReason(Latency, mode("cspii-tag"), DefaultLayout), "no CasperII library")

	assert.Equal(t, `a 'b c' 'it'\''s' -x=1,2`, ShellQuote([]string{"a", "b c", "it's", "-x=1,2"}))
}

func TestJobEnvDropsModeVariables(t *testing.T) {
	env := jobEnv([]string{"PATH=/bin", "CSP_NG=3", "LD_PRELOAD=x.so", "MPIR_CVAR_ASYNC_PROGRESS=1", "PMI_RANK=2", "HOME=/root"})
	assert.Equal(t, []string{"PATH=/bin", "HOME=/root"}, env)
}

func TestEmbeddedSources(t *testing.T) {
	for _, b := range AllBenches {
		src, err := csrc.ReadFile("csrc/" + string(b) + ".c")
		require.NoError(t, err)
		assert.Contains(t, string(src), "osub_init(&argc, &argv, \""+string(b)+"\")")
	}
}

// fakeMPIExec writes a stand-in for mpiexec that logs its command line to
// log and prints an overlap result per size: target_us is the -x value of
// the size if given, else 5 (the job's own calibration); comm_p50_us is 10
// times the job's number (1, 2, ...).
func fakeMPIExec(t *testing.T, log string) string {
	t.Helper()
	script := `#!/bin/sh
echo "$*" >> ` + log + `
n=$(wc -l < ` + log + `)
sizes= xs=
while [ $# -gt 0 ]; do
  case "$1" in
    -s) sizes=$2; shift ;;
    -x) xs=$2; shift ;;
  esac
  shift
done
i=1
for s in $(echo "$sizes" | tr , ' '); do
  x=5
  [ -n "$xs" ] && x=$(echo "$xs" | cut -d, -f$i)
  echo "osub bench=overlap size=$s iters=10 target_us=$x comm_us=20 comm_p50_us=$((10*n)) comp_us=$x total_us=21"
  i=$((i+1))
done
`
	p := filepath.Join(t.TempDir(), "mpiexec")
	require.NoError(t, os.WriteFile(p, []byte(script), 0o755))
	return p
}

// TestOverlapSameCompute checks that every mode of a repetition is asked to
// compute the same time: in rep 1 what the mpi job computed, later the
// median of the mpi jobs' ping-pong medians so far.
func TestOverlapSameCompute(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	log := filepath.Join(t.TempDir(), "log")
	ms, err := ParseModes("mpi,thread")
	require.NoError(t, err)
	r := &Runner{Cfg: Config{Benches: []Bench{Overlap}, Modes: ms, Sizes: []int64{8, 1024}, Reps: 3,
		MPIExec: fakeMPIExec(t, log), Cache: t.TempDir()}, Env: &EnvInfo{},
		Progs: &Programs{C: map[Bench]string{Overlap: "/x/osub-overlap"}}}
	r.Cfg.Defaults()
	require.NoError(t, r.Run(context.Background(), nil))
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 6)
	xOf := func(l string) string {
		f := strings.Fields(l)
		for i := range f[:len(f)-1] {
			if f[i] == "-x" {
				return f[i+1]
			}
		}
		return ""
	}
	// rep 1: mpi calibrates itself (5 us), thread gets that.
	assert.Equal(t, "", xOf(lines[0]))
	assert.Equal(t, "5.0000,5.0000", xOf(lines[1]))
	// rep 2: the mpi job of rep 1 had ping-pong medians 10: both modes get 10.
	assert.Equal(t, "10.0000,10.0000", xOf(lines[2]))
	assert.Equal(t, "10.0000,10.0000", xOf(lines[3]))
	// rep 3: median of 10 and 30.
	assert.Equal(t, "20.0000,20.0000", xOf(lines[4]))
	assert.Equal(t, "20.0000,20.0000", xOf(lines[5]))
	br := r.Results[0]
	assert.Empty(t, br.Skipped)
	for _, j := range br.Jobs {
		assert.Empty(t, j.Error)
		assert.Len(t, j.Points, 2)
	}
}
