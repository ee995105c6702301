package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/osubench"
)

// quiet silences the flag package's usage text on errors.
func quiet(t *testing.T) {
	t.Helper()
	old := os.Stderr
	f, err := os.Open(os.DevNull)
	require.NoError(t, err)
	os.Stderr = f
	t.Cleanup(func() { os.Stderr = old; f.Close() })
}

func TestParseRunDefaults(t *testing.T) {
	cfg, _, err := parseRun([]string{"overlap"})
	require.NoError(t, err)
	assert.Equal(t, []osubench.Compute{osubench.Busy, osubench.Sleep}, cfg.Computes, "busy and sleep by default")
	assert.Equal(t, []bool{true}, cfg.Touches, "touched by default")
	assert.Equal(t, []osubench.Transport{osubench.SHM}, cfg.Transports)

	cfg, _, err = parseRun([]string{"all"})
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false}, cfg.Touches, "run all adds the untouched secondary series")
	assert.Equal(t, osubench.AllBenches, cfg.Benches)

	cfg, _, err = parseRun([]string{"all", "--touch", "on", "--transport", "shm,tcp", "--compute", "sleep"})
	require.NoError(t, err)
	assert.Equal(t, []bool{true}, cfg.Touches, "an explicit --touch wins")
	assert.Equal(t, []osubench.Transport{osubench.SHM, osubench.TCP}, cfg.Transports)
	assert.Equal(t, []osubench.Compute{osubench.Sleep}, cfg.Computes)

	cfg, _, err = parseRun([]string{"--touch", "off", "--compute", "busy", "halo"})
	require.NoError(t, err, "the benchmark may follow the options")
	assert.Equal(t, []osubench.Bench{osubench.Halo}, cfg.Benches)
	assert.Equal(t, []bool{false}, cfg.Touches)
	assert.Equal(t, []osubench.Compute{osubench.Busy}, cfg.Computes)
}

func TestParseRunErrors(t *testing.T) {
	quiet(t)
	for _, args := range [][]string{
		{"overlap", "--touch", "maybe"},
		{"overlap", "--compute", "spin"},
		{"overlap", "--transport", "ib"},
		{"overlap", "--transport", ""},
		{"overlap", "--overlap-compute", "x"},
		{"--touch", "on"},
		{"pingpong"},
	} {
		_, _, err := parseRun(args)
		assert.Error(t, err, "%q", args)
	}
}

// Without --modes each benchmark list gets its default modes; the phases
// and probe options reach the configuration.
func TestParseRunIssue15(t *testing.T) {
	names := func(ms []osubench.Mode) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return out
	}
	cfg, _, err := parseRun([]string{"all"})
	require.NoError(t, err)
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto"}, names(cfg.Modes))
	cfg, _, err = parseRun([]string{"phases"})
	require.NoError(t, err)
	assert.Equal(t, []osubench.Bench{osubench.Phases}, cfg.Benches)
	assert.Equal(t, []string{"mpi", "cspii-tag", "cspii-off", "cspii-auto", "cspii-hint"}, names(cfg.Modes))
	assert.Equal(t, []bool{true}, cfg.Touches)
	assert.Equal(t, []osubench.Compute{osubench.Busy, osubench.Sleep}, cfg.Computes)
	cfg, _, err = parseRun([]string{"probe", "--modes", "mpi,cspii-off", "--probe-slice", "10", "--probe-think", "30"})
	require.NoError(t, err)
	assert.Equal(t, []string{"mpi", "cspii-off"}, names(cfg.Modes))
	assert.Equal(t, 10.0, cfg.ProbeSliceUs)
	assert.Equal(t, 30.0, cfg.ProbeThinkUs)
	cfg, _, err = parseRun([]string{"all,phases,probe", "--phase-compute", "150", "--phase-pingpongs", "10", "--phase-windows", "1", "--phase-exchanges", "8"})
	require.NoError(t, err)
	assert.Equal(t, []osubench.Bench{osubench.Latency, osubench.Overlap, osubench.Rate, osubench.Halo, osubench.Phases, osubench.Probe}, cfg.Benches)
	assert.Equal(t, []bool{true}, cfg.Touches, "untouched series only for run all alone")
	assert.Equal(t, []string{"mpi", "thread", "cspii-tag", "cspii-dup", "cspii-off", "cspii-auto", "cspii-hint"}, names(cfg.Modes))
	assert.Equal(t, 150.0, cfg.PhaseComputeUs)
	assert.Equal(t, []int{10, 1, 8}, []int{cfg.PhasePingPongs, cfg.PhaseWindows, cfg.PhaseExchanges})
	quiet(t)
	_, _, err = parseRun([]string{"phases", "--modes", "cspii-magic"})
	assert.ErrorContains(t, err, "cspii-magic")
}

// run rma: both workloads, their modes, both placements; the rma options
// reach the configuration.
func TestParseRunIssue16(t *testing.T) {
	cfg, _, err := parseRun([]string{"rma"})
	require.NoError(t, err)
	assert.Equal(t, osubench.RMABenches, cfg.Benches)
	var names []string
	for _, m := range cfg.Modes {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"mpi", "thread", "cspii", "cspii-pt2pt"}, names)
	assert.Equal(t, []osubench.Placement{osubench.PlaceAuto, osubench.PlaceGhostCores}, cfg.Placements)
	assert.Equal(t, 20000.0, cfg.RMAComputeUs)
	assert.Equal(t, 4, cfg.RMAMinIters)
	assert.Equal(t, 100.0, cfg.GASliceUs)
	cfg, _, err = parseRun([]string{"rma-flush", "--placement", "auto", "--rma-compute", "5ms", "--rma-min-iters", "2", "--ga-slice", "20", "--compute", "busy,idle"})
	require.NoError(t, err)
	assert.Equal(t, []osubench.Bench{osubench.RMA}, cfg.Benches)
	assert.Equal(t, []osubench.Placement{osubench.PlaceAuto}, cfg.Placements)
	assert.Equal(t, []osubench.Compute{osubench.Busy, osubench.Idle}, cfg.Computes)
	assert.Equal(t, 5000.0, cfg.RMAComputeUs)
	assert.Equal(t, 2, cfg.RMAMinIters)
	assert.Equal(t, 20.0, cfg.GASliceUs)
	cfg, _, err = parseRun([]string{"probe"})
	require.NoError(t, err)
	assert.Equal(t, []osubench.Placement{osubench.PlaceAuto}, cfg.Placements, "only rma has a second placement by default")
	for _, args := range [][]string{{"rma", "--placement", "cores"}, {"rma", "--rma-compute", "0s"}, {"rma", "--compute", "spin"}} {
		_, _, err := parseRun(args)
		assert.Error(t, err, "%q", args)
	}
}
