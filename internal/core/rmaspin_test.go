package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/internal/ghost"
)

// A ghost polls MPI on every round only where it costs no user anything:
// a core per process, or bound to CPUs that no user runs on and that have
// room for the ghosts bound there.
func TestRMASpin(t *testing.T) {
	mask, layout := maskOf(t), twoGhostsTwoUsers(t)
	cases := []struct {
		name  string
		cpus  int
		masks map[int][cpuMaskWords]uint64
		want  ghost.RMASpin
		why   string
	}{
		{"a core per process", 4, nil, ghost.RMASpinAlone, "a core per process"},
		{"shared, unbound", 2, nil, ghost.RMASpinNo, "4 processes on 2 cores, its core shared with users"},
		{"bound with its user", 2, map[int][cpuMaskWords]uint64{0: mask(0), 1: mask(0), 2: mask(1), 3: mask(1)},
			ghost.RMASpinNo, "bound to CPUs it shares with user 1"},
		{"ghosts on a CPU of their own", 2, map[int][cpuMaskWords]uint64{0: mask(1), 1: mask(0), 2: mask(1), 3: mask(0)},
			ghost.RMASpinNo, "bound to 1 CPUs with no user, shared by 2 ghosts"},
		{"a CPU per ghost", 3, map[int][cpuMaskWords]uint64{0: mask(1), 1: mask(0), 2: mask(2), 3: mask(0)},
			ghost.RMASpinAlone, "bound to 1 CPUs with no user, 1 ghosts on them"},
		{"two CPUs for two ghosts", 3, map[int][cpuMaskWords]uint64{0: mask(1, 2), 1: mask(0), 2: mask(1, 2), 3: mask(0)},
			ghost.RMASpinAlone, "bound to 2 CPUs with no user, 2 ghosts on them"},
		{"a CPU beyond the mask shares everything", 2, map[int][cpuMaskWords]uint64{0: mask(1), 1: all(), 2: mask(1), 3: mask(0)},
			ghost.RMASpinNo, "bound to CPUs it shares with user 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &runtime{wrank: 0, hostSize: 4, cpus: JobCPUs{Pool: make([]int, c.cpus)}, hostMasks: c.masks, layout: layout}
			got, why := r.rmaSpin()
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.why, why)
		})
	}
	_, ok := cpuMask([]int{64 * cpuMaskWords})
	assert.False(t, ok, "a CPU beyond the mask")
}

// maskOf returns a maker of CPU masks that fails t on a CPU beyond them.
func maskOf(t *testing.T) func(cpus ...int) [cpuMaskWords]uint64 {
	return func(cpus ...int) [cpuMaskWords]uint64 {
		m, ok := cpuMask(cpus)
		require.True(t, ok)
		return m
	}
}

// twoGhostsTwoUsers is the layout of 2 virtual nodes of 1 user + 1 ghost:
// world ranks 0 and 2 are ghosts, 1 and 3 their users.
func twoGhostsTwoUsers(t *testing.T) *commexpand.Layout {
	l, err := commexpand.NewLayout([]int32{-1, 0, -1, 2})
	require.NoError(t, err)
	return l
}

func all() [cpuMaskWords]uint64 {
	var m [cpuMaskWords]uint64
	for i := range m {
		m[i] = ^uint64(0)
	}
	return m
}

// A user counts the users bound to the CPUs it may use, itself
// included; ghosts do not count.
func TestBoundCrowd(t *testing.T) {
	mask, layout := maskOf(t), twoGhostsTwoUsers(t)
	cases := []struct {
		name        string
		masks       map[int][cpuMaskWords]uint64
		users, cpus int
	}{
		// osubench's ghost-cores placement: both users on CPU 0.
		{"users together", map[int][cpuMaskWords]uint64{0: mask(0), 1: mask(0), 2: mask(1), 3: mask(0)}, 2, 1},
		{"a CPU per user", map[int][cpuMaskWords]uint64{0: mask(0), 1: mask(0), 2: mask(1), 3: mask(1)}, 1, 1},
		{"both CPUs each", map[int][cpuMaskWords]uint64{0: mask(0, 1), 1: mask(0, 1), 2: mask(0, 1), 3: mask(0, 1)}, 2, 2},
		{"unknown", map[int][cpuMaskWords]uint64{0: mask(0)}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, n := boundCrowd(1, c.masks, layout.IsGhost)
			assert.Equal(t, c.users, u)
			assert.Equal(t, c.cpus, n)
		})
	}
}
