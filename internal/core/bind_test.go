package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCPUList(t *testing.T) {
	for s, want := range map[string][]int{
		"0": {0}, "0-1": {0, 1}, "0-3,8,10-11": {0, 1, 2, 3, 8, 10, 11},
		"": nil, "x": nil, "3-1": nil, "0-": nil, "-1": nil, "0-99999999": nil,
	} {
		got := parseCPUList(s)
		assert.Equal(t, want, got, "%q", s)
		if want != nil {
			assert.Equal(t, s, FormatCPUList(got))
		}
	}
}

// Each virtual node gets a contiguous, balanced block of the CPUs, and
// every CPU goes to some node.
func TestVNodeShare(t *testing.T) {
	cpus := []int{0, 1, 2, 3}
	assert.Equal(t, [][]int{{0, 1}, {2, 3}}, shares(cpus, 2))
	assert.Equal(t, [][]int{{0}, {1}, {2, 3}}, shares(cpus, 3))
	assert.Equal(t, [][]int{{0}, {1}}, shares([]int{0, 1}, 2))
	// More virtual nodes than CPUs: neighbours share one.
	assert.Equal(t, [][]int{{0}, {0}, {1}}, shares([]int{0, 1}, 3))
	assert.Equal(t, [][]int{{4}, {4}, {6}, {6}}, shares([]int{4, 6}, 4))
}

func shares(cpus []int, n int) [][]int {
	var s [][]int
	for v := 0; v < n; v++ {
		s = append(s, vnodeShare(cpus, n, v))
	}
	return s
}

func TestPlanBind(t *testing.T) {
	cfg, err := readConfig(func(string) string { return "" })
	require.NoError(t, err)
	two := []int{0, 1}

	// 2 virtual nodes x 2 processes on 2 free cores: one core each.
	p := planBind(cfg, two, two, 4, 2, 1)
	assert.Equal(t, []int{1}, p.CPUs)
	assert.Contains(t, p.Why, "virtual node 1 of 2 on a host running 4 processes on 2 cores: CPUs 1")

	for _, c := range []struct {
		name            string
		env             map[string]string
		online, allowed []int
		procs, vnodes   int
		why             string
	}{
		{"off", map[string]string{"CSP_BIND": "off"}, two, two, 4, 2, "CSP_BIND=off"},
		{"a core per process", nil, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, 4, 2, "a core per process"},
		{"one node per host", nil, two, two, 4, 1, "one node per host"},
		{"bound by the launcher", nil, two, []int{1}, 4, 2, "bound already (CPUs 1): left as the launcher set it"},
		{"no ghosts", map[string]string{"CSP_NG": "0"}, two, two, 4, 2, "no ghosts"},
		{"CPUs unknown", nil, nil, two, 4, 2, "unknown"},
	} {
		cfg, err := readConfig(func(k string) string { return c.env[k] })
		require.NoError(t, err, c.name)
		p := planBind(cfg, c.online, c.allowed, c.procs, c.vnodes, 0)
		assert.Nil(t, p.CPUs, c.name)
		assert.Contains(t, p.Why, c.why, c.name)
	}

	_, err = readConfig(func(k string) string { return map[string]string{"CSP_BIND": "core"}[k] })
	require.EqualError(t, err, `CasperII: CSP_BIND="core" is not valid; use auto or off`)
}
