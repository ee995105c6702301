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
