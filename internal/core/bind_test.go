package core

import (
	"fmt"
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
	p := planBind(cfg, jobCPUs(two, two, true), 4, 2, 1)
	assert.Equal(t, []int{1}, p.CPUs)
	assert.Contains(t, p.Why, "virtual node 1 of 2 on a host running 4 processes on 2 cores: CPUs 1")

	// The whole job confined to CPUs 2-5 of 8 (a container's cpuset, the
	// same affinity in every process): 4 processes on 4 cores have a core
	// each; 8 are oversubscribed and the nodes split the job's CPUs.
	eight, four := []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{2, 3, 4, 5}
	p = planBind(cfg, jobCPUs(eight, four, true), 4, 2, 1)
	assert.Nil(t, p.CPUs)
	assert.Contains(t, p.Why, "a core per process")
	p = planBind(cfg, jobCPUs(eight, four, true), 8, 2, 1)
	assert.Equal(t, []int{4, 5}, p.CPUs)
	assert.Contains(t, p.Why, "virtual node 1 of 2 on a host running 8 processes on 4 cores (the job's CPUs 2-5 of 8 online): CPUs 4-5")

	for _, c := range []struct {
		name            string
		env             map[string]string
		online, allowed []int
		same            bool
		procs, vnodes   int
		why             string
	}{
		{"off", map[string]string{"CSP_BIND": "off"}, two, two, true, 4, 2, "CSP_BIND=off"},
		{"a core per process", nil, []int{0, 1, 2, 3}, []int{0, 1, 2, 3}, true, 4, 2, "a core per process"},
		{"one node per host", nil, two, two, true, 4, 1, "one node per host"},
		{"bound by the launcher", nil, two, []int{1}, false, 4, 2, "bound already (CPUs 1): left as the launcher set it"},
		{"no ghosts", map[string]string{"CSP_NG": "0"}, two, two, true, 4, 2, "no ghosts"},
		{"CPUs unknown", nil, nil, nil, true, 4, 2, "unknown"},
	} {
		cfg, err := readConfig(func(k string) string { return c.env[k] })
		require.NoError(t, err, c.name)
		p := planBind(cfg, jobCPUs(c.online, c.allowed, c.same), c.procs, c.vnodes, 0)
		assert.Nil(t, p.CPUs, c.name)
		assert.Contains(t, p.Why, c.why, c.name)
	}

	_, err = readConfig(func(k string) string { return map[string]string{"CSP_BIND": "core"}[k] })
	require.EqualError(t, err, `CasperII: CSP_BIND="core" is not valid; use auto or off`)
}

func TestJobCPUs(t *testing.T) {
	online := []int{0, 1, 2, 3}
	// Same affinity in every process of the host: the job's share.
	j := jobCPUs(online, []int{1, 2}, true)
	assert.Equal(t, []int{1, 2}, j.Pool)
	assert.False(t, j.Bound)
	// Different affinities: a launcher bound each process; the host's
	// online CPUs count.
	j = jobCPUs(online, []int{1}, false)
	assert.Equal(t, online, j.Pool)
	assert.True(t, j.Bound)
	// Affinity unknown: the online CPUs.
	assert.Equal(t, online, jobCPUs(online, nil, true).Pool)

	// The fingerprint tells sets apart, order and all.
	seen := map[uint32]string{}
	for _, c := range [][]int{nil, {0}, {1}, {0, 1}, {1, 0}, {0, 2}, {256}, {1, 2, 3}} {
		h := hashCPUs(c)
		_, dup := seen[h]
		assert.False(t, dup, "%v and %s hash alike", c, seen[h])
		seen[h] = fmt.Sprint(c)
	}
	assert.Equal(t, hashCPUs([]int{0, 1}), hashCPUs([]int{0, 1}))
}
