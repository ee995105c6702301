package interpose

/*
#include "interpose.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/casperii/casperii/internal/core"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/shm"
	"golang.org/x/sys/unix"
)

// Registered shared windows.
//
// A window of MPI_Win_allocate_shared whose info (or communicator) says
// shmbuf_regist=true gets memory the ghost can map, every byte of it,
// whatever its communicator, sizes and alignment. How depends on where MPI
// would put the window's memory:
//
//   - In a shared segment (a /dev/shm file every process of the window
//     maps), where processes of the window share MPI's node: the window's
//     pages are put under one memfd shared by the window's processes
//     (remapped windows). The segment holds nothing but the window, so its
//     whole pages are remapped, the first and last included.
//   - In private memory, where a process is alone: malloc memory for a
//     communicator of one process (MPI_COMM_SELF), an anonymous mapping
//     where MPI's processes do not share memory (MPIR_CVAR_NOLOCAL=1). The
//     pages around such a window may hold other objects, which another
//     thread may be writing while they would be copied, so they are never
//     remapped. The window is instead created with MPI_Win_create over a
//     block of the shared heap (stand-in windows): the same size,
//     displacement unit, info (with MPICH's alloc_shm=true, as for its own
//     shared windows) and MPI_Win_shared_query answers as MPI's; its
//     MPI_WIN_CREATE_FLAVOR is reported as MPI_WIN_FLAVOR_SHARED
//     (MPI_Win_get_attr, memory.c; MPI_WIN_GET_ATTR, fortran_attr.c). A
//     communicator of one process is known beforehand and MPI's allocation
//     skipped; a larger one shows after MPI_Win_allocate_shared, whose
//     window is then freed and replaced.
//
// Remapping, and telling the two apart, is collective over the window's
// communicator (shareWindow):
//
//  1. every process computes the window's range from MPI_Win_shared_query
//     of every rank (in a shared segment each sees the same layout at its
//     own address; in private memory every answer is its own part) and
//     whether it lies in one shared mapping (sharedPages);
//  2. in a shared mapping, rank 0 creates the memfd and broadcasts (pid,
//     fd, geometry); the others open it through /proc/<pid>/fd/<fd>; each
//     registers the range with its heap (AddExternal). In private memory,
//     each takes a heap block the size of its part;
//  3. one Allreduce(MIN) of votes: if every process asked for registration
//     and every one is ready in a shared mapping, the window is remapped; if
//     every one is ready in private memory (or has none), it is replaced by
//     a stand-in. Otherwise nothing has changed anywhere, the window stays
//     as MPI made it, and rank 0 says why with CSP_VERBOSE=1, once per
//     window, naming it and its bytes (one Allreduce(SUM) more);
//  4. remapping: rank 0 copies the current contents into the memfd (every
//     process is past MPI_Win_allocate_shared now, so nothing writes the
//     window), every process maps the memfd with MAP_FIXED over its own
//     range, and a barrier keeps all of them inside until all have
//     remapped (so no store, and no MPI access on behalf of a peer, can hit
//     a page still backed by MPI's segment).
//
// Loads, stores, MPI_Win_shared_query and RMA keep working: MPI's pointers
// still point at the same addresses, now backed by the memfd. Where the
// ghosts serve RMA windows (CSP_ASYNC_MODE rma), every shared window is
// registered so, asked or not, and then redirected (memory.c,
// internal/user/rma.h). MPI_Win_free hides a remapped window's range from
// this process's lookups, MPI frees the window (synchronizing its
// processes, so no origin has an operation on it in flight) and unmaps its
// segment, and only then the ghost unmaps the memfd and the descriptor is
// closed; a stand-in's heap block is freed once MPI has freed the window.
type window struct {
	seg     *shm.Segment   // remapped: this process's descriptor of the memfd (and a second mapping)
	heapSeg int            // remapped: heap segment index
	standIn bool           // created with MPI_Win_create over mem
	mem     unsafe.Pointer // stand-in: the heap block under it (nil for a part of 0 bytes)
}

// windows are the registered windows by handle; freeing those in
// MPI_Win_free, by token (csp_go_win_freeing).
var (
	winMu     sync.Mutex // MPI_THREAD_MULTIPLE: windows may be made and freed on several threads
	windows   = map[int32]*window{}
	freeing   = map[uint64]freeingWin{}
	nextToken uint64
)

// freeingWin is a window in MPI_Win_free, and its handle.
type freeingWin struct {
	h int32
	w *window
}

// putWindow records a registered window and publishes how many there are,
// so that MPI_Win_free and MPI_Win_get_attr call into Go only when one may
// be registered.
func putWindow(h int32, w *window) {
	winMu.Lock()
	windows[h] = w
	C.csp_ip_nwins = C.int(len(windows))
	winMu.Unlock()
}

// takeWindow removes and returns the window of handle h (nil if h is not
// registered).
func takeWindow(h int32) *window {
	winMu.Lock()
	defer winMu.Unlock()
	w := windows[h]
	delete(windows, h)
	C.csp_ip_nwins = C.int(len(windows))
	return w
}

// winArgs are the arguments of one MPI_Win_allocate_shared call.
type winArgs struct {
	size, dispUnit int64
	large          bool // MPI_Win_allocate_shared_c
	info           mpi.Info
	comm           mpi.Comm // mapped
	redirect       bool     // registered to be redirected (rma.h), asked or not
}

// csp_go_win_allocate_shared makes a shared window for the application.
// With redirect (the ghosts serve RMA windows: internal/user/rma.h) every
// window is registered, not only those asked for, so that it can be
// redirected; *mappable then reports that every process's part is memory
// its ghost can map (or that the window has no memory anywhere), the same
// on every process: the caller redirects the window.
//
//export csp_go_win_allocate_shared
func csp_go_win_allocate_shared(size, dispUnit C.int64_t, large, inf, c, redirect C.int, baseptr unsafe.Pointer, win, raise, mappable *C.int) C.int {
	a := winArgs{size: int64(size), dispUnit: int64(dispUnit), large: large != 0, info: infoOf(inf), comm: comm(c), redirect: redirect != 0}
	want, herr := core.Current().WindowRegist(a.comm, a.info)
	w, created, empty, rc := allocateShared(a, (want || a.redirect) && herr == nil, (*unsafe.Pointer)(baseptr), (*C.MPI_Win)(unsafe.Pointer(win)))
	if w != nil {
		putWindow(int32(*win), w)
	}
	if rc == C.MPI_SUCCESS && herr != nil {
		rc = C.int(codeOf(herr))
	}
	if rc == C.MPI_SUCCESS && a.redirect && (w != nil || empty) {
		*mappable = 1
	}
	if rc != C.MPI_SUCCESS && created {
		*raise = 1 // our error, on a window that exists: raise it there
	}
	return rc
}

// allocateShared makes the window, MPI's or a stand-in, and registers it
// when want. created reports that *win is a window when rc is an error of
// ours (MPI raised its own errors already); empty that it is MPI's and has
// no memory on any process.
func allocateShared(a winArgs, want bool, baseptr *unsafe.Pointer, win *C.MPI_Win) (w *window, created, empty bool, rc C.int) {
	if want && a.alone() {
		// MPI would malloc it: make a stand-in over heap memory at once.
		if mem := C.csp_shared_alloc(C.size_t(a.size)); mem != nil {
			if rc := a.createStandIn(mem, baseptr, win); rc != C.MPI_SUCCESS {
				C.csp_shared_free(mem)
				return nil, false, false, rc
			}
			return &window{standIn: true, mem: mem}, true, false, C.MPI_SUCCESS
		}
		// No heap memory: MPI's window, which shareWindow reports.
	}
	rc = C.csp_ip_win_allocate_shared(C.MPI_Aint(a.size), C.MPI_Aint(a.dispUnit), boolInt(a.large), C.MPI_Info(a.info.Raw()), C.MPI_Comm(a.comm.Raw()), unsafe.Pointer(baseptr), win)
	if rc != C.MPI_SUCCESS {
		return nil, false, false, rc
	}
	mw := mpi.WinFromRaw(int32(*win))
	sh, err := shareWindow(mw, a, want)
	if err != nil {
		return nil, true, false, C.int(codeOf(err))
	}
	if !sh.standIn {
		return sh.remapped, true, sh.empty, C.MPI_SUCCESS
	}
	if err := mw.Free(); err != nil {
		C.csp_shared_free(sh.mem)
		return nil, false, false, C.int(codeOf(err))
	}
	if rc := a.createStandIn(sh.mem, baseptr, win); rc != C.MPI_SUCCESS {
		C.csp_shared_free(sh.mem)
		return nil, false, false, rc
	}
	return &window{standIn: true, mem: sh.mem}, true, false, C.MPI_SUCCESS
}

// alone reports that the window has bytes and valid arguments on an
// intracommunicator of one process: MPICH would allocate it with malloc
// (a process alone on its node gets private memory).
func (a winArgs) alone() bool {
	if a.size <= 0 || a.dispUnit <= 0 || a.comm.IsNull() {
		return false
	}
	if inter, err := a.comm.TestInter(); err != nil || inter {
		return false
	}
	n, err := a.comm.Size()
	return err == nil && n == 1
}

// createStandIn creates the stand-in window over mem (nil for 0 bytes) and
// hands mem to the caller as the window's base.
func (a winArgs) createStandIn(mem unsafe.Pointer, baseptr *unsafe.Pointer, win *C.MPI_Win) C.int {
	rc := C.csp_ip_win_create_shared(mem, C.MPI_Aint(a.size), C.MPI_Aint(a.dispUnit), boolInt(a.large), C.MPI_Info(a.info.Raw()), C.MPI_Comm(a.comm.Raw()), win)
	if rc == C.MPI_SUCCESS {
		*baseptr = mem
	}
	return rc
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// csp_go_win_freeing begins MPI_Win_free of a registered window: its
// record leaves the table (under MPI_THREAD_MULTIPLE a window made while
// MPI frees this one may get its handle) for the list of windows being
// freed, under the token returned (0: the window is not registered), and
// a remapped window's range is hidden from this process's lookups, so no
// message is sent from pages MPI is about to unmap, while the ghost keeps
// its mapping (and the RMA window its attachment) until csp_go_win_freed,
// after MPI's free has synchronized the window's processes: an origin may
// have an operation on the memory in flight through a ghost until then.
//
//export csp_go_win_freeing
func csp_go_win_freeing(win C.int) C.uint64_t {
	w := takeWindow(int32(win))
	if w == nil {
		return 0
	}
	if !w.standIn && w.heapSeg >= 0 {
		C.csp_shared_hide_external(C.uint32_t(w.heapSeg), 1)
	}
	winMu.Lock()
	defer winMu.Unlock()
	nextToken++
	freeing[nextToken] = freeingWin{h: int32(win), w: w}
	return C.uint64_t(nextToken)
}

// csp_go_win_freed ends MPI_Win_free: on success (ok) the window releases
// what it holds of ours; otherwise it is still a window: a remapped range
// is shown again and the record goes back to the table.
//
//export csp_go_win_freed
func csp_go_win_freed(token C.uint64_t, ok C.int) {
	winMu.Lock()
	f, found := freeing[uint64(token)]
	delete(freeing, uint64(token))
	winMu.Unlock()
	switch {
	case !found:
	case ok != 0:
		f.w.close()
	default:
		if !f.w.standIn && f.w.heapSeg >= 0 {
			C.csp_shared_hide_external(C.uint32_t(f.w.heapSeg), 0)
		}
		putWindow(f.h, f.w)
	}
}

//export csp_go_win_stands_in
func csp_go_win_stands_in(win C.int) C.int {
	winMu.Lock()
	defer winMu.Unlock()
	if w := windows[int32(win)]; w != nil && w.standIn {
		return 1
	}
	return 0
}

// close releases what the window holds of ours.
func (w *window) close() {
	if w.standIn {
		C.csp_shared_free(w.mem)
		return
	}
	if w.heapSeg >= 0 {
		C.csp_shared_remove_external(C.uint32_t(w.heapSeg))
	}
	w.seg.Close()
}

// closeWindows releases windows the application did not free before
// MPI_Finalize (nothing accesses a window's memory from then on).
func closeWindows() {
	winMu.Lock()
	defer winMu.Unlock()
	for h, w := range windows {
		w.close()
		delete(windows, h)
	}
	C.csp_ip_nwins = 0
}

// Geometry broadcast by rank 0.
const (
	gOK = iota
	gPid
	gFd
	gOff // range start minus the window's lowest address
	gLen
	gN
)

// Votes of shareWindow, reduced with MIN over the window's communicator.
const (
	vWant      = iota // this process asked for registration
	vNoWant           // it did not (MIN 0: some process asked)
	vNotPriv          // the window's memory here is not private (shared, or none)
	vNotShared        // it is not in a shared mapping (private, or none)
	vReady            // what this kind of memory needs is ready (the memfd open and registered, a heap block)
	vWhy              // minus the reason it is not (MIN: the highest reason anywhere)
	vN
)

// Why a window is not registered.
const (
	whyNone = iota
	whyShm  // creating or opening the memfd failed
	whySegs // a heap's segment table is full
	whyHeap // the heap had no block for a private part (other than for want of a segment)
	whyNotAsked
	whyMixed
)

var whyText = map[int]string{
	whyShm:      "a process could not create or open the shared memory (CSP_VERBOSE=2 says why)",
	whySegs:     "a process's table of shared segments is full: free registered memory (MPI_Free_mem, MPI_Win_free) or raise CSP_HEAP_ARENA so fewer segments hold it",
	whyHeap:     "a process's shared heap could not supply its part (CSP_VERBOSE=2 says why)",
	whyNotAsked: "not every process of the window asked for shmbuf_regist=true",
	whyMixed:    "MPI put it in a shared segment on some processes and in private memory on others",
}

// share is what shareWindow decided.
type share struct {
	remapped *window        // MPI's window, remapped and registered
	standIn  bool           // replace MPI's window with a stand-in over mem
	mem      unsafe.Pointer // the stand-in's heap block (nil for a part of 0 bytes)
	empty    bool           // the window has no memory on any process
}

// extent is the window's memory as this process sees it.
type extent struct {
	lo, hi uintptr        // the range MPI_Win_shared_query reports over all ranks
	loPtr  unsafe.Pointer // lo, as a pointer MPI gave us
	mine   int64          // bytes of this process's part
	parts  [][2]uintptr   // every rank's part with bytes: [base, end)
}

func extentOf(win mpi.Win, rank, size int) (extent, error) {
	var e extent
	for i := 0; i < size; i++ {
		n, _, base, err := win.SharedQuery(i)
		if err != nil {
			return e, err
		}
		if i == rank {
			e.mine = int64(n)
		}
		if n <= 0 {
			continue
		}
		b := uintptr(base)
		e.parts = append(e.parts, [2]uintptr{b, b + uintptr(n)})
		if e.hi == 0 || b < e.lo {
			e.lo, e.loPtr = b, base
		}
		e.hi = max(e.hi, b+uintptr(n))
	}
	return e, nil
}

// shareWindow runs the protocol above over a.comm (collective) for MPI's
// window win.
func shareWindow(win mpi.Win, a winArgs, want bool) (share, error) {
	rank, err := a.comm.Rank()
	if err != nil {
		return share{}, err
	}
	size, err := a.comm.Size()
	if err != nil {
		return share{}, err
	}
	e, err := extentOf(win, rank, size)
	if err != nil {
		return share{}, err
	}
	var start, n uintptr
	inShared := false
	if e.hi > e.lo {
		start, n, inShared = sharedPages(e.lo, e.hi, uintptr(os.Getpagesize()), mapsAround(e.lo))
	}
	private := e.hi > e.lo && !inShared
	mem := unsafe.Add(e.loPtr, int(start)-int(e.lo)) // start may lie below lo (whole pages)
	verbose := core.Current().Verbosef

	why := whyNone
	var seg *shm.Segment
	geo := make([]int64, gN)
	if rank == 0 && want && inShared {
		if seg, err = shm.Create("casperii-window", int(n)); err != nil {
			verbose(2, "window %#x: %v", uint32(win.Raw()), err)
			why = whyShm
		} else {
			geo = []int64{gOK: 1, gPid: int64(shm.Pid()), gFd: int64(seg.Fd()), gOff: int64(start) - int64(e.lo), gLen: int64(n)}
		}
	}
	if err := mpi.BcastInt64s(a.comm, geo, 0); err != nil {
		seg.Close()
		return share{}, err
	}
	if rank != 0 && want && inShared {
		if geo[gOK] != 1 || geo[gOff] != int64(start)-int64(e.lo) || geo[gLen] != int64(n) {
			why = whyShm
		} else if seg, err = shm.Open(int(geo[gPid]), int(geo[gFd]), int(n)); err != nil {
			verbose(2, "window %#x: %v", uint32(win.Raw()), err)
			why = whyShm
		}
	}
	heapSeg := -1
	if seg != nil {
		if heapSeg = int(C.csp_shared_add_external(C.int(seg.Fd()), mem, C.uint64_t(n))); heapSeg < 0 {
			why = whySegs
		}
	}
	var own unsafe.Pointer
	if want && private {
		var errno error
		if own, errno = C.csp_shared_alloc(C.size_t(e.mine)); own == nil {
			verbose(2, "window %#x: no block of %d bytes in the shared heap: %v", uint32(win.Raw()), e.mine, errno)
			why = whyHeap
			if errno == unix.ENOSPC {
				why = whySegs
			}
		}
	}

	mine := []int32{vWant: 0, vNoWant: 1, vNotPriv: 1, vNotShared: 1, vReady: 1, vWhy: int32(-why)}
	if want {
		mine[vWant], mine[vNoWant] = 1, 0
	}
	if private {
		mine[vNotPriv] = 0
	}
	if inShared {
		mine[vNotShared] = 0
	}
	if why != whyNone {
		mine[vReady] = 0
	}
	all := make([]int32, vN)
	err = mpi.AllreduceInt32s(a.comm, mine, all, mpi.OpMin)
	remap := err == nil && all[vWant] == 1 && all[vReady] == 1 && all[vNotPriv] == 1 && all[vNotShared] == 0
	standIn := err == nil && all[vWant] == 1 && all[vReady] == 1 && all[vNotShared] == 1 && all[vNotPriv] == 0
	if !remap {
		if heapSeg >= 0 {
			C.csp_shared_remove_external(C.uint32_t(heapSeg))
		}
		seg.Close()
	}
	if !standIn {
		C.csp_shared_free(own)
	}
	switch {
	case err != nil:
		return share{}, err
	case standIn:
		return share{standIn: true, mem: own}, nil
	case !remap:
		empty := all[vNotPriv] == 1 && all[vNotShared] == 1
		return share{empty: empty}, reportUnregistered(win, a, rank, size, e.mine, all)
	}

	if rank == 0 {
		// Only what lies outside the parts: a fresh window's parts hold
		// nothing, and copying them cost each of the segment's pages a
		// fault on both sides (MPICH's test win_large_shm, 1 GiB a
		// process: minutes).
		dst, src := seg.Bytes(), unsafe.Slice((*byte)(mem), n)
		for _, g := range outside(start, start+n, e.parts) {
			copy(dst[g[0]-start:g[1]-start], src[g[0]-start:g[1]-start])
		}
	}
	if p, err := unix.MmapPtr(seg.Fd(), 0, mem, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED); err != nil || p != mem {
		// The range may be gone: this process cannot go on consistently.
		fmt.Fprintf(os.Stderr, "casperii: remapping %d bytes of a shared window at %p: %v; aborting\n", n, mem, err)
		mpi.Abort(mpi.CommWorld, 1)
	}
	if err := a.comm.Barrier(); err != nil {
		return share{}, err
	}
	return share{remapped: &window{seg: seg, heapSeg: heapSeg}}, nil
}

// reportUnregistered says, once per window (rank 0, CSP_VERBOSE=1), why a
// window some process asked to register (or that was to be redirected)
// stays as MPI made it, with its bytes over all processes (collective:
// all reduced the same votes).
func reportUnregistered(win mpi.Win, a winArgs, rank, size int, mine int64, all []int32) error {
	if all[vNoWant] == 1 || (all[vNotPriv] == 1 && all[vNotShared] == 1) {
		return nil // nobody asked, or there is no memory
	}
	why := int(-all[vWhy])
	switch {
	case all[vWant] == 0:
		why = whyNotAsked
	case all[vNotPriv] == 0 && all[vNotShared] == 0:
		why = whyMixed
	}
	total := []int64{0}
	if err := mpi.AllreduceInt64s(a.comm, []int64{mine}, total, mpi.OpSum); err != nil {
		return err
	}
	if rank == 0 {
		rma := ""
		if a.redirect {
			rma = "RMA on it is not redirected (it progresses when the target calls MPI), and "
		}
		core.Current().Verbosef(1, "window %#x (MPI_Win_allocate_shared over %d processes): %d bytes not registered with the ghosts: %s; %soffloaded operations on them take a bounce copy",
			uint32(win.Raw()), size, total[0], whyText[why], rma)
	}
	return nil
}
