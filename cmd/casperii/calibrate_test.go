package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/calib"
	"github.com/casperii/casperii/internal/mpich"
	"github.com/casperii/casperii/osubench"
)

// --check reports a valid file in one line, and every error of a bad one
// as FILE:LINE: message.
func TestCalibrateCheck(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	require.NoError(t, os.WriteFile(good, []byte(calib.Magic+"\n# host: h\nsize 8 0.50 10.00\nsize 1024 2.00 12.00\n"), 0o644))
	st, out, errb := buffers()
	require.Equal(t, 0, runMain([]string{"calibrate", "--check", good}, st), errb.String())
	assert.Equal(t, good+": a valid calibration (v1): 2 sizes from 8 to 1K; offload/direct 20.00x at 8, 6.00x at 1K\n", out.String())

	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte(calib.Magic+"\nsize 8 0.5 10\nsize 8 1 2\nsize 64 fast 2\n"), 0o644))
	st, out, errb = buffers()
	require.Equal(t, 1, runMain([]string{"calibrate", "-check", bad}, st))
	assert.Empty(t, out.String())
	assert.Equal(t, bad+":3: size 8 again (line 2 gave it)\n"+bad+":4: direct_us \"fast\" is not a positive number of microseconds\n", errb.String())

	st, _, errb = buffers()
	require.Equal(t, 1, runMain([]string{"calibrate", "--check", filepath.Join(dir, "missing.txt")}, st))
	assert.Contains(t, errb.String(), "no such file")
}

// Usage errors exit 2 with one line naming the fix, before anything runs.
func TestCalibrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--outt", "x"}, "unknown flag -outt; did you mean --out?"},
		{[]string{"--reps", "0"}, "--reps 0: want 1 or more"},
		{[]string{"--budget", "-1"}, "--budget -1: want a positive number of ms"},
		{[]string{"--sizes", "8,x"}, "--sizes: bad size"},
		{[]string{"--sizes", "0-8"}, "size 0 cannot be calibrated"},
		{[]string{"now"}, `unexpected argument "now"`},
		{[]string{"--transport", "ib"}, `--transport "ib": want shm or tcp`},
		{[]string{"--transport", "shm,tcp"}, "(one of them)"},
		{[]string{"--lib", "/nonexistent/libcasperii.so"}, "no such file"},
	} {
		st, _, errb := buffers()
		require.Equal(t, exitUsage, runMain(append([]string{"calibrate"}, tc.args...), st), "%q", tc.args)
		assert.Contains(t, errb.String(), tc.msg, "%q", tc.args)
		assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "%q: one line: %s", tc.args, errb.String())
	}
	st, out, _ := buffers()
	require.Equal(t, 0, runMain([]string{"calibrate", "-help"}, st))
	assert.Contains(t, out.String(), "casperii calibrate --check FILE")
}

// The table takes, per size, each mode's median over its jobs of
// lat_p50_us; a mode without results is an error, not a file.
func TestTableFrom(t *testing.T) {
	br := &osubench.BenchResult{Bench: osubench.Latency, Sizes: []int64{8, 1024}, Modes: []string{"mpi", "cspii-tag"}, Skipped: map[string]string{}}
	add := func(mode string, rep int, v8, v1k float64) {
		br.Jobs = append(br.Jobs, &osubench.JobRecord{Bench: osubench.Latency, Mode: mode, Rep: rep, Points: []osubench.Point{
			{Size: 8, Values: map[string]float64{"lat_p50_us": v8, "lat_us": 1000}},
			{Size: 1024, Values: map[string]float64{"lat_p50_us": v1k}},
		}})
	}
	add("mpi", 1, 0.4, 1.0)
	add("cspii-tag", 1, 9, 12)
	add("mpi", 2, 0.3, 3.0)
	add("cspii-tag", 2, 8, 10)
	add("mpi", 3, 0.5, 2.0)
	add("cspii-tag", 3, 10, 11)
	br.Jobs = append(br.Jobs, &osubench.JobRecord{Mode: "mpi", Rep: 4, Error: "exit code 1", Points: []osubench.Point{{Size: 8, Values: map[string]float64{"lat_p50_us": 99}}}})
	tb, err := tableFrom(br)
	require.NoError(t, err)
	assert.Equal(t, []calib.Point{{Size: 8, DirectUS: 0.4, OffloadUS: 9}, {Size: 1024, DirectUS: 2, OffloadUS: 11}}, tb.Points, "medians over the good jobs")

	failed := &osubench.BenchResult{Sizes: []int64{8}, Modes: []string{"mpi", "cspii-tag"}, Skipped: map[string]string{},
		Jobs: []*osubench.JobRecord{br.Jobs[0], {Mode: "cspii-tag", Rep: 1, Error: "exit code 1: casperii: CSP_NG=1 ... | Abort(1)"}}}
	_, err = tableFrom(failed)
	assert.EqualError(t, err, "every cspii-tag job failed: exit code 1: casperii: CSP_NG=1 ...")
	skipped := &osubench.BenchResult{Sizes: []int64{8}, Modes: []string{"mpi"}, Skipped: map[string]string{"cspii-tag": "no CasperII library"}, Jobs: br.Jobs[:1]}
	_, err = tableFrom(skipped)
	assert.EqualError(t, err, "mode cspii-tag did not run: no CasperII library")
}

// TestCalibrateEndToEnd runs casperii calibrate for real, tiny (1 rep,
// 5 ms budget, 2 sizes), and parses what it wrote.
func TestCalibrateEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: runs mpiexec")
	}
	for _, tool := range []string{"mpiexec", "mpicc"} {
		if _, err := mpich.Find(tool); err != nil {
			t.Skipf("end-to-end: %v", err)
		}
	}
	wd, _ := os.Getwd()
	lib := filepath.Join(findRepo(wd), "lib", libName)
	if !isFile(lib) {
		t.Skipf("%s does not exist: build it with make build", lib)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.txt")
	args := []string{"calibrate", "--reps", "1", "--budget", "5", "--sizes", "8,1K", "--out", out, "--lib", lib, "--cache", filepath.Join(dir, "cache")}
	st, stdout, errb := buffers()
	require.Equal(t, 0, runMain(args, st), "stderr:\n%s", errb.String())
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, errb)
	// Every mpiexec command is printed, and the file is named.
	assert.Contains(t, errb.String(), "mpiexec")
	assert.Contains(t, errb.String(), "-genv CSP_ASYNC_CONFIG on")
	assert.Contains(t, stdout.String(), "casperii calibrate: wrote "+out+" (2 sizes)")

	b, err := os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	require.GreaterOrEqual(t, len(lines), 6)
	assert.Equal(t, calib.Magic, lines[0])
	assert.Regexp(t, `^# host: .+, \d+ cores \(.*\), Linux .+; MPICH .+; layout nodes=2,users=1,ghosts=1; transport shm; \d{4}-\d\d-\d\dT`, lines[1])
	assert.Equal(t, "# command: casperii calibrate --reps 1 --budget 5 --sizes 8,1K --out "+out+" --lib "+lib+" --cache "+filepath.Join(dir, "cache"), lines[2])
	assert.Equal(t, calib.Columns, lines[3])
	assert.Regexp(t, `^size 8 \d+\.\d\d \d+\.\d\d$`, lines[4])
	assert.Regexp(t, `^size 1024 \d+\.\d\d \d+\.\d\d$`, lines[5])

	tb, err := calib.Parse(strings.NewReader(string(b)))
	require.NoError(t, err)
	require.Len(t, tb.Points, 2)
	assert.Equal(t, []int64{8, 1024}, []int64{tb.Points[0].Size, tb.Points[1].Size})
	for _, p := range tb.Points {
		assert.Positive(t, p.DirectUS)
		assert.Positive(t, p.OffloadUS)
	}
	st, _, _ = buffers()
	require.Equal(t, 0, runMain([]string{"calibrate", "--check", out}, st))
}
