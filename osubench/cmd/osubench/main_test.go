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
