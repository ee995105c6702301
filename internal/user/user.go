// Package user is the user side of CasperII: the C fast path and the Go
// code that sets it up at MPI_Init, installs communicator entries, and
// shuts it down at MPI_Finalize.
//
// The C, one job per file: state.c (the process's state), comm.c (the
// communicator table), post.c (posting), submit.c (publishing to the
// ghost, back-pressure), complete.c (completion), pump.c (background
// work), block.c (polite waiting), wait.c (the Wait/Test family),
// control.c (control cells), persist.c, message.c, sendrecv.c, route.c and
// switch.c (the direct route and its counters), coop.c and lendtimer.c
// (lending the core), dtype.c, errors.c, liveness.c, prof.c, shared.c,
// testhook.c. user.h is what the interposer and Go see; op.h is an
// operation (greq's record and the user side's fields beside it).
//
// user must not import internal/ghost, internal/interpose or
// internal/core: the ghost side and the runtime reach it only through the
// shared layouts and the calls below.
//
// The C of the post path (this package, greq, heap, interpose) is built with
// -O3: GCC then inlines the route, cell and publish steps into the post,
// which took 13% off the Isend+Irecv post time at 64 KiB (osub-latency,
// medians over iterations, 10 interleaved runs).
package user

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -O3 -Wall -Werror
#include <stdlib.h>
#include "user.h"
#include "control.h"
#include "liveness.h"
#include "pump.h"
#include "block.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	_ "github.com/casperii/casperii/greq" // greq.c: the records op.h embeds
	"github.com/casperii/casperii/internal/channel"
	"github.com/casperii/casperii/internal/heap"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/tagenc"
)

// Config is what the user side needs from MPI_Init.
type Config struct {
	Channel    *channel.User
	Ghost      *channel.Ghost
	World      mpi.Comm // COMM_USER_WORLD
	WRank      int      // rank in the real MPI_COMM_WORLD
	GhostWRank int
	// NodeID: the world rank of the node's first process (a ghost), the
	// same for every process of the node (node-local windows: rma.h).
	NodeID     int
	Multiple   bool           // MPI_THREAD_MULTIPLE
	Tags       *tagenc.Layout // nil when no tag layout fits
	ExposedUB  int            // the MPI_TAG_UB the application sees
	ArenaShift int            // log2 of heap arena size
	// Progress is a communicator spanning the world on which this user is
	// never a destination (an internal one): probing it drives MPI's whole
	// progress engine without ever matching anything.
	Progress   mpi.Comm
	SpinIters  int // wait policy: busy polls, then
	YieldIters int // yields, then sleeps of
	SleepUS    int // this many microseconds on the wake word
	// Lend: the ghost runs at a lowered priority on this process's core;
	// lend it the core while waiting on MPICH with offloaded operations
	// in flight (coop.c).
	Lend bool
	// NBColl: some user of the job lends its core; every user runs
	// blocking collectives as their nonblocking twins (a blocking
	// collective does not match a nonblocking one).
	NBColl bool
	// DirectYield: a wait on MPICH polls and yields the core between
	// polls instead of spinning in MPICH (core/wait.go: directYield).
	DirectYield bool
}

// errorMessages are the one-line explanations of the errors the fast path
// raises, by enum csp_errmsg, with their MPI error classes.
var errorMessages = [C.CSP_E_MAX]struct {
	class int
	msg   string
}{
	C.CSP_E_TAG_BOUND:   {mpi.ErrTag, "CasperII: tag above the MPI_TAG_UB this job exposes (offload reserves tag bits); query MPI_TAG_UB on MPI_COMM_WORLD and keep tags at or below it, or, for a program that cannot, set CSP_TAG_UB to its largest tag (fewer tag contexts) or CSP_ASYNC_MODE=rma (no message offload: MPICH's MPI_TAG_UB)"},
	C.CSP_E_TAG_NEG:     {mpi.ErrTag, "CasperII: negative tag; tags are 0..MPI_TAG_UB (MPI_ANY_TAG only in receives and probes)"},
	C.CSP_E_RANK:        {mpi.ErrRank, "CasperII: rank outside the communicator; use 0..size-1, MPI_PROC_NULL, or MPI_ANY_SOURCE in receives and probes"},
	C.CSP_E_COUNT:       {mpi.ErrCount, "CasperII: negative count; counts are >= 0"},
	C.CSP_E_ANYSRC_NONE: {mpi.ErrRank, "CasperII: MPI_ANY_SOURCE on a communicator whose wildcard_used=none promises no wildcards; set wildcard_used=any_src on it"},
	C.CSP_E_ANYTAG_NONE: {mpi.ErrTag, "CasperII: MPI_ANY_TAG on a communicator whose wildcard_used=none promises no wildcards; set wildcard_used=any_tag_same_tag or any_src on it"},
	C.CSP_E_ANYSRC_DUP:  {mpi.ErrRank, "CasperII: MPI_ANY_SOURCE on a communicator with wildcard_used=any_tag_same_tag; set wildcard_used=any_src|any_tag_same_tag on it"},
	C.CSP_E_NOMEM:       {mpi.ErrNoMem, "CasperII: no memory for a bounce copy; allocate buffers with MPI_Alloc_mem and shmbuf_regist=true, or post fewer operations at once"},
	C.CSP_E_OVERFLOW:    {mpi.ErrCount, "CasperII: count times the datatype's size is more bytes than an MPI_Count holds; send less in one message"},
	C.CSP_E_GHOST_GONE:  {mpi.ErrOther, "CasperII: the ghost process serving this process has exited; the job cannot continue"},
	C.CSP_E_ACTIVE:      {mpi.ErrRequest, "CasperII: MPI_Start on a persistent request that is still active; complete it (MPI_Wait or MPI_Test) before starting it again"},
	C.CSP_E_BAD_REQUEST: {mpi.ErrRequest, "CasperII: not a live request (already completed or freed); use each request handle once, and only until it completes"},
}

var (
	hp      *heap.Heap
	started bool
)

// Start builds the fast path's state. After Start, offloaded communicators
// (SetComm) carry their point-to-point traffic through the ghost.
func Start(cfg Config) error {
	C.csp_user_init_globals()
	startProfileClock()
	u := &C.csp_u
	ch := cfg.Channel
	n := ch.Hdr.Ncells
	u.world = C.MPI_Comm(cfg.World.Raw())
	u.wrank = C.int(cfg.WRank)
	u.ghost_wrank = C.int(cfg.GhostWRank)
	u.node_id = C.int(cfg.NodeID)
	if cfg.Multiple {
		u.multiple = 1
	}
	u._chan = (*C.struct_csp_chan_hdr)(ch.Seg.Base())
	u.cells = (*C.struct_csp_cell)(unsafe.Add(ch.Seg.Base(), ch.Hdr.CellsOff))
	u.ncells = C.uint32_t(n)
	ringMem := unsafe.Add(ch.Seg.Base(), ch.Hdr.RingOff)
	if rc := C.csp_user_attach_ring(ringMem, C.size_t(ch.Hdr.CellsOff-ch.Hdr.RingOff)); rc != 0 {
		return fmt.Errorf("user: attaching the submission ring: error %d", rc)
	}
	u.ghost = (*C.struct_csp_ghost_hdr)(cfg.Ghost.Seg.Base())
	C.csp_user_setup_fence()

	// Free cells: all fresh (postcell.h), the stack empty. calloc'd, so
	// the arrays' pages are touched only as cells come into use.
	u.pool.idx = (*C.uint32_t)(C.calloc(C.size_t(n), 4))
	u.cell_op = (**C.struct_csp_op)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0)))))
	u.gen = (*C.uint32_t)(C.calloc(C.size_t(n), 4))
	if u.pool.idx == nil || u.cell_op == nil || u.gen == nil {
		return fmt.Errorf("user: out of memory for %d cells", n)
	}
	u.pool.n, u.pool.cap = C.uint32_t(n), C.uint32_t(n)
	avail := n - C.CSP_CTRL_CELLS
	u.cap[0] = C.uint32_t(avail - avail/4)
	u.cap[1] = C.uint32_t(avail - avail/4)

	var err error
	hp, err = heap.New(unsafe.Add(ch.Seg.Base(), channel.SegTableOff), channel.MaxSegments, cfg.ArenaShift)
	if err != nil {
		return err
	}
	u.heap = (*C.struct_csp_heap)(hp.C())
	u.heap.on_remove = (*[0]byte)(C.csp_segment_removed)

	if cfg.Tags != nil {
		*(*tagenc.CTags)(unsafe.Pointer(&u.tags)) = cfg.Tags.CTags(cfg.ExposedUB)
	} else {
		u.tags.exposed_ub = C.int32_t(cfg.ExposedUB)
	}

	u.progress_comm = C.MPI_Comm(cfg.Progress.Raw())
	for i, e := range errorMessages {
		code, err := mpi.AddErrorCode(e.class)
		if err != nil {
			return fmt.Errorf("user: registering error codes: %w", err)
		}
		if err := mpi.AddErrorString(code, e.msg); err != nil {
			return fmt.Errorf("user: registering error strings: %w", err)
		}
		u.errcode[i] = C.int(code)
		C.csp_set_errtext(C.int(i), C.CString(e.msg)) // kept for the process's life
	}
	u.spin_iters = C.uint32_t(max(cfg.SpinIters, 1))
	u.yield_iters = C.uint32_t(max(cfg.YieldIters, 0))
	u.sleep_us = C.uint32_t(max(cfg.SleepUS, 10))
	if cfg.Lend {
		u.lend = 1
	}
	if cfg.NBColl {
		u.nbcoll = 1
	}
	if cfg.DirectYield {
		u.yield_direct = 1
	}
	C.csp_liveness_start()
	u.on = 1
	started = true
	return nil
}

// StartFenceRegistration starts this process's registration for the
// ghost's global membarriers on a thread of its own (state.c): it waits
// for an RCU grace period, which then overlaps MPICH's MPI_Init instead
// of adding to Start's. Call it before MPI_Init; Start takes the result.
func StartFenceRegistration() { C.csp_fence_register_start() }

// FenceFree reports whether posts skip their memory fence because the
// ghost issues a global membarrier before parking (channel.h: membarrier).
func FenceFree() bool { return C.csp_u.fence_free != 0 }

// Started reports whether this process runs the offload fast path.
func Started() bool { return started }

// Heap returns the shared heap (registered buffers, bounce copies).
func Heap() *heap.Heap { return hp }

// Stats are the per-process counters printed with CSP_STATS=1.
type Stats struct {
	Isend, Irecv, Direct, Bounce, Held, Yields, Sleeps, Probes, Lends uint64
	// ProbesPolled: MPI_Iprobe calls answered from a probe left with the
	// ghost by an earlier call, without waiting (pprobe.c).
	ProbesPolled uint64
	// DirectYields: yields of the core by waits on MPICH (coop.c:
	// yield_until).
	DirectYields uint64
	// SetInfoC: MPI_Comm_set_info calls taken in C without MPICH's own
	// (internal/interpose/comm.c, an info MPICH checked before).
	SetInfoC uint64
}

// CurrentStats returns this process's counters.
func CurrentStats() Stats {
	u := &C.csp_u
	return Stats{Isend: uint64(u.n_isend), Irecv: uint64(u.n_irecv), Direct: uint64(u.n_direct),
		Bounce: uint64(u.n_bounce), Held: uint64(u.n_held), Yields: uint64(u.n_yields), Sleeps: uint64(u.n_sleeps), Probes: uint64(u.n_probe), Lends: uint64(u.n_lends),
		ProbesPolled: uint64(u.n_probe_polled), DirectYields: uint64(u.n_yields_direct), SetInfoC: uint64(u.n_setinfo_c)}
}

// DropPolledProbe waits for the probe a polling MPI_Iprobe left with the
// ghost, if there is one, and returns its record (pprobe.c): MPI_Finalize
// calls it before the counters are read.
func DropPolledProbe() {
	if !started {
		return
	}
	Lock()
	C.csp_pprobe_drop()
	Unlock()
}

// Finish waits for every offloaded operation, tells the ghost this user is
// done, and releases the fast path's resources. Called by MPI_Finalize.
func Finish() error {
	if !started {
		return nil
	}
	C.csp_drain_all()
	rc := C.csp_control(C.CSP_OP_FINALIZE, 0, 0)
	C.csp_u._chan.user_state = C.CSP_USER_FINALIZED
	C.csp_u.on = 0
	C.csp_liveness_stop()
	started = false
	if rc != 0 {
		return fmt.Errorf("user: the ghost did not acknowledge finalization (error %d)", rc)
	}
	return nil
}

// StopInitLending stops the timer that lends this process's core while
// MPI and the runtime initialize on an oversubscribed host (lendtimer.c,
// started by the interposer's MPI_Init). It returns the real-time signal
// that timed it (0: none), how many times the process lent its core, and
// how many of those lends yielded it (the rest slept).
func StopInitLending() (sig, lends, yields int) {
	var s, n C.int
	C.csp_lend_timer_stop(&s, &n)
	return int(s), int(n), int(C.csp_lend_timer_yields())
}

// FinalizeMPI frees the internal RMA window (rma.h; collective with the
// ghosts, which Finish told to finish) and calls MPI_Finalize. Where the
// ghost shares this process's core at a lowered priority, the process
// lends the core to it meanwhile (lendtimer.c): the free's and MPICH's
// last barriers spin, and the ghost must reach them. It returns the
// real-time signal that timed the lending (0: none) and how many times
// the process lent its core.
func FinalizeMPI() (sig, lends int, err error) {
	var s, n, rrc C.int
	rc := C.csp_finalize_lending(&s, &n, &rrc)
	if err := mpi.CodeError(int(rrc), "MPI_Win_free"); err != nil {
		return int(s), int(n), err
	}
	return int(s), int(n), mpi.CodeError(int(rc), "MPI_Finalize")
}
