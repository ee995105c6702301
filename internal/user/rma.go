package user

/*
#include "rma.h"
*/
import "C"

import (
	"fmt"

	"github.com/casperii/casperii/internal/mpi"
)

// StartRMA lets MPI_Win_allocate redirect windows through the ghosts over
// gwin, the internal dynamic window every process created at MPI_Init
// (rma.h). The user locks each ghost it targets on it (shared,
// MPI_MODE_NOCHECK) at the first operation and until FinalizeMPI. With
// defaultOff (CSP_ASYNC_CONFIG=off) a window starts on MPICH's path unless
// its info says async_config=on.
func StartRMA(gwin mpi.Win, verbose int, defaultOff bool) error {
	C.csp_rma.verbose = C.int(verbose)
	if defaultOff {
		C.csp_rma.default_off = 1
	}
	if rc := C.csp_rma_start(C.MPI_Win(gwin.Raw())); rc != C.MPI_SUCCESS {
		return fmt.Errorf("user: starting redirected RMA: %w", mpi.CodeError(int(rc), "MPI_Comm_size"))
	}
	return nil
}

// RMAStats are the redirection counters printed with CSP_STATS=1.
type RMAStats struct {
	Ops, Windows, LockRetries, Switches uint64
}

// CurrentRMAStats returns this process's redirection counters.
func CurrentRMAStats() RMAStats {
	return RMAStats{Ops: uint64(C.csp_rma.n_ops), Windows: uint64(C.csp_rma.n_wins), LockRetries: uint64(C.csp_rma.n_lock_retries), Switches: uint64(C.csp_rma.n_switches)}
}
