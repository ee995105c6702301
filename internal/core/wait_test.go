package core

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWaitPolicy(t *testing.T) {
	cfg, err := readConfig(func(string) string { return "" })
	assert.NoError(t, err)
	// A core per process: the configured defaults.
	p := waitPolicy(cfg, 4, 8)
	assert.Equal(t, [2]int{cfg.SpinIters, cfg.YieldIters}, [2]int{p.Spin, p.Yield})
	assert.Greater(t, p.Spin, 1)
	// More processes than cores: sleep at once.
	p = waitPolicy(cfg, 4, 2)
	assert.Equal(t, [2]int{1, 0}, [2]int{p.Spin, p.Yield})
	// The environment wins either way.
	env := map[string]string{"CSP_WAIT_YIELD": "3"}
	cfg, err = readConfig(func(k string) string { return env[k] })
	assert.NoError(t, err)
	p = waitPolicy(cfg, 4, 2)
	assert.Equal(t, [2]int{cfg.SpinIters, 3}, [2]int{p.Spin, p.Yield})
}

func TestGhostSpin(t *testing.T) {
	cfg, err := readConfig(func(string) string { return "" })
	assert.NoError(t, err)
	// A core per process: the configured default, which polls.
	us, _ := ghostSpin(cfg, 4, 8)
	assert.Equal(t, cfg.GhostSpinUS, us)
	assert.Positive(t, us)
	// More processes than cores: yield at once.
	us, why := ghostSpin(cfg, 4, 2)
	assert.Zero(t, us)
	assert.Contains(t, why, "4 processes on 2 cores")
	// The environment wins either way, 0 included.
	for _, v := range []string{"0", "700"} {
		cfg, err = readConfig(func(k string) string { return map[string]string{"CSP_GHOST_SPIN_US": v}[k] })
		assert.NoError(t, err)
		for _, cpus := range []int{2, 8} {
			us, why = ghostSpin(cfg, 4, cpus)
			assert.Equal(t, v, strconv.Itoa(us))
			assert.Contains(t, why, "CSP_GHOST_SPIN_US")
		}
	}
}

func TestDirectYieldPolicy(t *testing.T) {
	cfg, err := readConfig(func(string) string { return "" })
	assert.NoError(t, err)
	// A core per user (ghosts do not count): MPICH's own spin.
	on, why := directYield(cfg, 2, 2)
	assert.False(t, on)
	assert.Equal(t, "a core per user", why)
	// More users than cores: yield.
	on, why = directYield(cfg, 4, 2)
	assert.True(t, on)
	assert.Equal(t, "4 users on 2 cores", why)
	// The environment wins either way.
	for v, want := range map[string]bool{"on": true, "1": true, "off": false, "0": false, "auto": false} {
		cfg, err = readConfig(func(k string) string { return map[string]string{"CSP_DIRECT_YIELD": v}[k] })
		assert.NoError(t, err)
		on, _ = directYield(cfg, 2, 8)
		assert.Equal(t, want, on, "CSP_DIRECT_YIELD=%s, a core per user", v)
		on, _ = directYield(cfg, 4, 2)
		assert.Equal(t, want || v == "auto", on, "CSP_DIRECT_YIELD=%s, 4 users on 2 cores", v)
	}
	_, err = readConfig(func(k string) string { return map[string]string{"CSP_DIRECT_YIELD": "sometimes"}[k] })
	assert.EqualError(t, err, `CasperII: CSP_DIRECT_YIELD="sometimes" is not valid; use auto, on or off`)
}
