package user

/*
#include "rma.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/casperii/casperii/internal/mpi"
)

// StartRMA lets MPI_Win_allocate redirect windows through the ghosts over
// gwin, the internal dynamic window every process created at MPI_Init
// (rma.h). The user locks each ghost it targets on it (shared,
// MPI_MODE_NOCHECK) at the first operation and until FinalizeMPI. With
// defaultOff (CSP_ASYNC_CONFIG=off) a window starts on MPICH's path unless
// its info says async_config=on. With local, windows whose members all
// share this node are served in shared memory by the origins (rma.h:
// node-local windows; CSP_RMA_LOCAL=0 turns it off).
func StartRMA(gwin mpi.Win, verbose int, defaultOff, local bool) error {
	C.csp_rma.verbose = C.int(verbose)
	if defaultOff {
		C.csp_rma.default_off = 1
	}
	if !local {
		C.csp_rma.local_off = 1
	}
	if rc := C.csp_rma_start(C.MPI_Win(gwin.Raw())); rc != C.MPI_SUCCESS {
		return fmt.Errorf("user: starting redirected RMA: %w", mpi.CodeError(int(rc), "MPI_Comm_size"))
	}
	return nil
}

// RMAAuto configures the automatic choice of windows (rmaauto.c).
type RMAAuto struct {
	// Default: CSP_ASYNC_CONFIG=auto, windows without async_config choose
	// themselves (the self-profile starts now, so that the first
	// allocation has one).
	Default bool
	// LowCR and HighCR: a window is redirected when its accessed targets
	// spent less than LowCR of their time in MPI, and no longer when they
	// spent more than HighCR (fractions, 0 < LowCR < HighCR < 1).
	LowCR, HighCR float64
	// MinStretchUS: a target that enters MPI at least this often counts
	// as in MPI.
	MinStretchUS float64
}

// SetRMAAuto sets the automatic choice of windows up (after StartRMA).
func SetRMAAuto(a RMAAuto) {
	C.csp_rma.cr_low = C.double(a.LowCR)
	C.csp_rma.cr_high = C.double(a.HighCR)
	C.csp_rma.min_stretch_us = C.double(a.MinStretchUS)
	if a.Default {
		C.csp_rma.default_auto = 1
		var p C.struct_csp_rma_prof
		C.csp_rma_prof_read(&p)
		C.csp_rma.hist = p
	}
}

// RMAAutoChoose runs the automatic choice on the members' sums v
// (rmaauto.c: csp_rma_auto_choose) for n members: 1 direct, 0
// redirected, -1 no evidence, and the access-weighted share of time in
// MPI. For tests.
func RMAAutoChoose(n int, v []int64, direct bool, a RMAAuto) (int, float64) {
	var cr C.double
	d := 0
	if direct {
		d = 1
	}
	r := C.csp_rma_auto_choose(C.int(n), (*C.int64_t)(unsafe.Pointer(&v[0])), C.int(d), C.double(a.LowCR),
		C.double(a.HighCR), C.double(a.MinStretchUS), &cr)
	return int(r), float64(cr)
}

// RMAAutoRegret runs the measured-cost check of the automatic choice
// (rmaauto.c: csp_rma_auto_regret) on the share's choice d for a window
// now direct or not, held or not, with the two paths' costs (us per
// operation, [0] redirected, [1] direct, 0 unknown): the choice and
// whether it is a regret. For tests.
func RMAAutoRegret(d int, direct bool, cost [2]float64, held bool) (int, bool) {
	c := [2]C.double{C.double(cost[0]), C.double(cost[1])}
	var dir, hld, regret C.int
	if direct {
		dir = 1
	}
	if held {
		hld = 1
	}
	r := C.csp_rma_auto_regret(C.int(d), dir, &c[0], hld, &regret)
	return int(r), regret != 0
}

// RMAAutoCost is the origins' wait per operation in the members' sums v
// (rmaauto.c: csp_rma_auto_cost) for n members. For tests.
func RMAAutoCost(n int, v []int64) float64 {
	return float64(C.csp_rma_auto_cost(C.int(n), (*C.int64_t)(unsafe.Pointer(&v[0]))))
}

// RMAStats are the redirection counters printed with CSP_STATS=1.
type RMAStats struct {
	Ops, Windows, LockRetries, Switches uint64
	// LockwordOps: atomics this origin issued on the windows' lock words;
	// Agreements: agreements of auto windows it took part in; Regrets: of
	// them, those that took a window back to the ghosts because MPICH's
	// path measured slower (rmaauto.c: csp_rma_auto_regret).
	LockwordOps, Agreements, Regrets uint64
	// AgreeUS: microseconds this process spent in the agreements'
	// reductions (rmaauto.c: agree_reduce).
	AgreeUS uint64
	// Rings: times this origin woke its own parked ghost, the target's
	// ghost too, instead of waiting for its poll.
	Rings uint64
	// LocalOps: operations this origin applied itself, in shared memory,
	// on node-local windows (no ghost); LocalPacked: of them, accumulates
	// with derived datatypes it applied by packing, without MPICH's call.
	LocalOps, LocalPacked uint64
}

// CurrentRMAStats returns this process's redirection counters.
func CurrentRMAStats() RMAStats {
	return RMAStats{Ops: uint64(C.csp_rma.n_ops), Windows: uint64(C.csp_rma.n_wins), LockRetries: uint64(C.csp_rma.n_lock_retries), Switches: uint64(C.csp_rma.n_switches),
		LocalOps: uint64(C.csp_rma.n_local_ops), LocalPacked: uint64(C.csp_rma.n_local_packed), LockwordOps: uint64(C.csp_rma.n_lockword_ops), Agreements: uint64(C.csp_rma.n_agreements), Regrets: uint64(C.csp_rma.n_regrets), Rings: uint64(C.csp_rma.n_rings),
		AgreeUS: uint64(float64(C.csp_rma.agree_t) * float64(C.csp_prof_ns_per_tick()) / 1e3)}
}

// RMAAgreeGap runs the agreements' cadence (rmaauto.c: csp_rma_agree_gap)
// for a window of n members, one of k agreeing at the same safe points:
// the safe points to the next agreement from the gap the choice asks, the
// safe points since the last agreement, and the members' sums of the
// microseconds since it and of what an agreement costs them. For tests.
func RMAAgreeGap(n, k int, gap, since uint32, elapsedSum, costSum int64) int {
	tail := [2]C.int64_t{C.int64_t(elapsedSum), C.int64_t(costSum)}
	return int(C.csp_rma_agree_gap(C.int(n), C.int(k), C.uint32_t(gap), C.uint32_t(since), &tail[0]))
}
