package core

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/casperii/casperii/internal/calib"
	"github.com/casperii/casperii/internal/user"
)

// The windows' automatic choice (internal/user/rmaauto.c) on the members'
// sums: [not quiet, per member (wall us, in-MPI us, calls), per member
// operations it received].
func TestRMAAutoChoose(t *testing.T) {
	a := user.RMAAuto{LowCR: rmaLowCR, HighCR: rmaHighCR, MinStretchUS: rmaMinStretchUS}
	sums := func(prof [][3]int64, acc []int64) []int64 {
		v := []int64{0}
		for _, p := range prof {
			v = append(v, p[0], p[1], p[2])
		}
		return append(v, acc...)
	}
	computing := [3]int64{100000, 2000, 20} // 2% in MPI, 4.9 ms between calls
	idle := [3]int64{100000, 99000, 500}    // 99% in MPI, out of it 2 us at a time: counts as 100%
	polling := [3]int64{100000, 1000, 5000} // 1% in MPI, but every 20 us
	middle := [3]int64{100000, 65000, 20}   // 65%: between the thresholds
	for _, tc := range []struct {
		name   string
		prof   [][3]int64
		acc    []int64
		direct bool
		want   int
		cr     float64
	}{
		{"computing target: on", [][3]int64{idle, computing}, []int64{0, 5}, true, 0, 0.02},
		{"computing target stays on", [][3]int64{idle, computing}, []int64{0, 5}, false, 0, 0.02},
		{"idle target: off", [][3]int64{computing, idle}, []int64{0, 5}, false, 1, 1},
		{"idle target stays off", [][3]int64{computing, idle}, []int64{0, 5}, true, 1, 1},
		{"between: on stays on", [][3]int64{idle, middle}, []int64{0, 5}, false, 0, 0.65},
		{"between: off stays off", [][3]int64{idle, middle}, []int64{0, 5}, true, 1, 0.65},
		{"a target polling MPI counts as in MPI", [][3]int64{idle, polling}, []int64{0, 5}, false, 1, 1},
		{"weighted by accesses", [][3]int64{computing, idle}, []int64{1, 9}, false, 1, 0.902},
		{"weighted the other way", [][3]int64{computing, idle}, []int64{9, 1}, true, 0, 0.118},
		{"nobody accessed: no evidence", [][3]int64{computing, idle}, []int64{0, 0}, true, -1, 0},
		{"too short a profile: no evidence", [][3]int64{{900, 10, 1}, idle}, []int64{3, 3}, false, -1, 0},
		{"a short member nobody accessed does not matter", [][3]int64{{900, 10, 1}, computing}, []int64{0, 3}, true, 0, 0.02},
	} {
		got, cr := user.RMAAutoChoose(len(tc.prof), sums(tc.prof, tc.acc), tc.direct, a)
		assert.Equal(t, tc.want, got, tc.name)
		if tc.want >= 0 {
			assert.InDelta(t, tc.cr, cr, 0.001, tc.name)
		}
	}
}

// The calibration file's rma_auto line replaces the built-in thresholds.
func TestRMAAutoThresholds(t *testing.T) {
	m := &model{table: &calib.Table{Points: builtinCalibration}}
	assert.Equal(t, user.RMAAuto{Default: true, LowCR: 0.5, HighCR: 0.8, MinStretchUS: 500}, m.rmaAuto(true))
	m.table.RMA = &calib.RMAAuto{LowCRPct: 40, HighCRPct: 90, MinStretchUS: 0}
	assert.Equal(t, user.RMAAuto{LowCR: 0.4, HighCR: 0.9}, m.rmaAuto(false))
}

// The measured-cost check on the share's choice (rmaauto.c:
// csp_rma_auto_regret): a direct window whose origins waited far longer
// per operation than through the ghosts goes back to them; held there,
// the share may not take it off while the ghosts measure faster.
func TestRMAAutoRegretRule(t *testing.T) {
	for _, tc := range []struct {
		name       string
		d          int
		direct     bool
		cost       [2]float64
		held       bool
		want       int
		wantRegret bool
	}{
		{"direct 20 ms against 10 us: back on", 1, true, [2]float64{10, 20000}, false, 0, true},
		{"direct slower, but within 3x + 100 us: stays", 1, true, [2]float64{400, 1250}, false, 1, false},
		{"direct just past 3x + 100 us: back on", 1, true, [2]float64{400, 1301}, false, 0, true},
		{"direct faster: stays", 1, true, [2]float64{400, 5}, false, 1, false},
		{"never measured on the ghosts: 1 ms assumed, 3 ms direct stays", 1, true, [2]float64{0, 3000}, false, 1, false},
		{"never measured on the ghosts: 4 ms direct goes on", 1, true, [2]float64{0, 4000}, false, 0, true},
		{"the share already chose on: no regret needed", 0, true, [2]float64{10, 20000}, false, 0, true},
		{"no evidence: nothing", -1, true, [2]float64{10, 20000}, false, -1, false},
		{"held, ghosts faster: the share may not take it off", 1, false, [2]float64{10, 20000}, true, 0, false},
		{"held, ghosts no faster: off", 1, false, [2]float64{30000, 20000}, true, 1, false},
		{"not held: the share decides", 1, false, [2]float64{10, 20000}, false, 1, false},
		{"held, the share chose on: on", 0, false, [2]float64{10, 20000}, true, 0, false},
	} {
		got, regret := user.RMAAutoRegret(tc.d, tc.direct, tc.cost, tc.held)
		assert.Equal(t, tc.want, got, tc.name)
		assert.Equal(t, tc.wantRegret, regret, tc.name)
	}
}

// The origins' wait per operation from the agreement's sums: their
// synchronization microseconds over every origin's operations.
func TestRMAAutoCost(t *testing.T) {
	v := []int64{0, 1, 2, 3, 4, 5, 6} // nobody open; 2 members' profiles
	assert.Zero(t, user.RMAAutoCost(2, append(v, 0, 0, 500)), "no operation: unknown")
	assert.InDelta(t, 100.0, user.RMAAutoCost(2, append(v, 1, 4, 500)), 1e-9)
	assert.Zero(t, user.RMAAutoCost(2, append(v, 1, 4, 0)), "no time in passive synchronization (fence epochs): unknown")
}

// The agreements' cadence (rmaauto.c: csp_rma_agree_gap): the gap the
// choice asks, unless the agreements of the k windows that agree at the
// same safe points would take over a fiftieth of the members' time and
// cost at least 200 us each, then as many safe points as keep them to
// that, at most 4096; without a measurement, the gap.
func TestRMAAgreeGap(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, k          int
		gap, since    uint32
		elapsed, cost int64 // the members' sums (us)
		want          int
	}{
		{"cheap agreements: the gap", 2, 1, 16, 16, 2 * 16000, 2 * 10, 16},
		{"1/50 of the time exactly: the gap", 2, 1, 16, 16, 2 * 16000, 2 * 320, 16},
		{"1/5 of the time, but 20 us each: the gap", 2, 1, 16, 16, 2 * 1600, 2 * 20, 16},
		{"199 us each: the gap", 2, 1, 16, 16, 2 * 1600, 2 * 199, 16},
		{"200 us each: the floor", 2, 1, 16, 16, 2 * 1600, 2 * 200, 100},
		{"NWChem: 1.5 ms against 0.7 ms per collective", 4, 1, 8, 8, 4 * 5600, 4 * 1500, 108},
		{"and 3 windows on the communicator", 4, 3, 8, 8, 4 * 5600, 4 * 1500, 322},
		{"as long as the collectives: 50 of them", 2, 1, 8, 8, 2 * 8 * 16000, 2 * 16000, 50},
		{"the members' means, not sums", 4, 1, 2, 2, 4 * 2000, 4 * 2000, 100},
		{"capped", 2, 1, 16, 1, 2 * 10, 2 * 1000000, 4096},
		{"no agreement measured yet", 2, 1, 4, 4, 2 * 400, 0, 4},
		{"no safe point since", 2, 1, 4, 0, 2 * 400, 2 * 1000, 4},
		{"no time since", 2, 1, 4, 4, 0, 2 * 1000, 4},
	} {
		assert.Equal(t, tc.want, user.RMAAgreeGap(tc.n, tc.k, tc.gap, tc.since, tc.elapsed, tc.cost), tc.name)
	}
}
