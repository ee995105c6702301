package core

import (
	"fmt"
	"os"
	"strings"

	"github.com/casperii/casperii/internal/mpi"
)

// setupRMA creates the internal window of redirected RMA windows
// (internal/user/rma.h): a dynamic window over the real world, users and
// ghosts, to which each ghost attaches its users' window memory. It is
// made here because it is collective over every process, and a ghost
// never joins a collective after MPI_Init. Its errors come back as codes:
// the user raises them on the application's window.
func (r *runtime) setupRMA() error {
	if !r.cfg.RMA {
		return nil
	}
	if !r.cfg.RMASet {
		// The default: every process votes (hosts may differ).
		why := overTCP(r.hostSize < r.wsize, os.Getenv)
		mine, all := []int32{1}, []int32{0}
		if why != "" {
			mine[0] = 0
		}
		if err := mpi.AllreduceInt32s(mpi.CommWorld, mine, all, mpi.OpMin); err != nil {
			return err
		}
		if all[0] == 0 {
			if r.wrank == 0 && why != "" {
				r.verbosef(1, "RMA windows are not redirected by default here: %s; MPICH 4.0.2 over UCX's TCP transport hangs in MPI_Finalize most of the time once every process is connected, as the internal window connects them (CSP_ASYNC_MODE=rma|pt2pt redirects them anyway)", why)
			}
			r.cfg.RMA = false
			return nil
		}
	}
	w, err := mpi.WinCreateDynamic(mpi.InfoNull, mpi.CommWorld)
	if err != nil {
		return fmt.Errorf("CasperII: the internal window of redirected RMA: %w", err)
	}
	if err := w.SetErrhandler(mpi.ErrorsReturn); err != nil {
		return err
	}
	r.rmaWin = w
	return nil
}

// overTCP says why this process's MPI traffic to other processes likely
// goes over UCX's TCP transport ("" if not): processes on other hosts (or
// MPICH told to treat every process as remote, MPIR_CVAR_NOLOCAL) and UCX
// either told to use tcp without an InfiniBand transport (UCX_TLS) or
// left to choose on a host without InfiniBand devices.
func overTCP(multiHost bool, getenv func(string) string) string {
	nolocal := false
	for _, k := range []string{"MPIR_CVAR_NOLOCAL", "MPIR_CVAR_CH4_NOLOCAL"} {
		switch strings.ToLower(strings.TrimSpace(getenv(k))) {
		case "1", "true", "yes", "on":
			nolocal = true
		}
	}
	if !multiHost && !nolocal {
		return ""
	}
	where := "processes on several hosts"
	if nolocal {
		where = "MPIR_CVAR_NOLOCAL"
	}
	if tls := strings.ToLower(getenv("UCX_TLS")); tls != "" {
		ib := false
		for _, t := range strings.Split(tls, ",") {
			switch strings.TrimSpace(strings.TrimPrefix(t, "^")) {
			case "rc", "rc_v", "rc_x", "rc_mlx5", "dc", "dc_x", "dc_mlx5", "ud", "ud_v", "ud_x", "ud_mlx5", "ib", "all":
				ib = !strings.HasPrefix(strings.TrimSpace(t), "^")
			}
		}
		if strings.Contains(tls, "tcp") && !strings.Contains(tls, "^tcp") && !ib {
			return where + " with UCX_TLS=" + tls
		}
		return ""
	}
	if entries, err := os.ReadDir("/sys/class/infiniband"); err == nil && len(entries) > 0 {
		return ""
	}
	return where + " and no InfiniBand device here (UCX will use TCP)"
}

// memEfficientVar is the MPICH control variable that releases an origin's
// per-target state of a window at the end of each epoch.
const memEfficientVar = "MPIR_CVAR_CH4_RMA_MEM_EFFICIENT"

// keepRMATargetsFresh sets MPIR_CVAR_CH4_RMA_MEM_EFFICIENT=1 before
// MPI_Init where RMA windows may be redirected, unless the environment
// sets it (or its alias): MPICH 4.0.2 (ch4, MPIDIG_mpi_win_lock) ORs
// MPI_MODE_NOCHECK into the per-target state it caches for the window's
// life, and its unlock then skips the unlock message of every later lock
// on that target, NOCHECK or not: the target keeps that lock forever, and
// the next exclusive lock on it (or any lock after an exclusive one) waits
// for good. A redirected window's epochs take W's lock with NOCHECK
// (internal/user/rma.c), so a window that the automatic choice or
// MPI_Win_set_info moved to MPICH's path hung at its first exclusive lock
// (plain MPICH does the same: docs/perf/probes/nochecklock.c). Released
// per epoch, the state starts clean at every lock. Every process of the
// job sets it alike (MPICH wants one value in a group). The text for
// CSP_VERBOSE.
func keepRMATargetsFresh(rma bool, getenv func(string) string, setenv func(string, string) error) string {
	if !rma {
		return ""
	}
	for _, k := range []string{memEfficientVar, "MPICH_CH4_RMA_MEM_EFFICIENT"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			if v == "0" {
				return k + "=0 as the environment sets it: an RMA window switched to MPICH's path may hang at its next exclusive lock (MPICH 4.0.2 keeps MPI_MODE_NOCHECK per target)"
			}
			return ""
		}
	}
	if err := setenv(memEfficientVar, "1"); err != nil {
		return "could not set " + memEfficientVar + "=1 (" + err.Error() + "): an RMA window switched to MPICH's path may hang at its next exclusive lock"
	}
	return ""
}
