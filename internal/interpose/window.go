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

// A shared window whose memory the ghost can map.
//
// MPI allocates the window (MPI_Win_allocate_shared); then the window's
// pages (remapRange) are put under one memfd shared by the window's
// processes:
//
//  1. every process computes the window's range from MPI_Win_shared_query
//     of every rank (each process sees the same layout at its own address);
//  2. rank 0 creates the memfd and broadcasts (pid, fd, geometry); the
//     others open it through /proc/<pid>/fd/<fd>;
//  3. one Allreduce(MIN) agrees that every process wants the window
//     registered and could open the memfd with the same geometry; if not,
//     nothing changed anywhere and the window stays as MPI made it
//     (offloaded sends from it take a bounce copy);
//  4. rank 0 copies the current contents into the memfd (every process is
//     past MPI_Win_allocate_shared now, so nothing writes the window), every
//     process maps the memfd with MAP_FIXED over its own range, and a
//     barrier keeps all of them inside until all have remapped (so no
//     store, and no MPI access on behalf of a peer, can hit a page still
//     backed by MPI's segment);
//  5. each process registers the range with its heap (AddExternal), so
//     buffers in it are offloaded without a copy.
//
// Loads, stores, MPI_Win_shared_query and RMA keep working: MPI's pointers
// still point at the same addresses, now backed by the memfd. MPI_Win_free
// unregisters the range (the ghost unmaps it), closes the descriptor, then
// MPI unmaps its segment, memfd pages included.
type window struct {
	seg     *shm.Segment // this process's descriptor of the memfd (and a second mapping)
	heapSeg int          // heap segment index, -1 if the heap table was full
}

// windows are the registered windows by handle.
var (
	winMu   sync.Mutex // MPI_THREAD_MULTIPLE: windows may be made and freed on several threads
	windows = map[int32]*window{}
)

// setWindowCount publishes how many windows are registered, so that
// MPI_Win_free calls into Go only when one may be. Called with winMu held.
func setWindowCount() { C.csp_ip_nwins = C.int(len(windows)) }

//export csp_go_win_allocated
func csp_go_win_allocated(win, c, inf C.int) C.int {
	r := core.Current()
	want, herr := r.WindowRegist(comm(c), infoOf(inf))
	w, err := shareWindow(mpi.WinFromRaw(int32(win)), comm(c), want && herr == nil)
	if err != nil {
		return C.int(codeOf(err))
	}
	if w != nil {
		winMu.Lock()
		windows[int32(win)] = w
		setWindowCount()
		winMu.Unlock()
	}
	return C.int(codeOf(herr))
}

//export csp_go_win_freeing
func csp_go_win_freeing(win C.int) C.int {
	winMu.Lock()
	w := windows[int32(win)]
	delete(windows, int32(win))
	setWindowCount()
	winMu.Unlock()
	if w != nil {
		w.close()
	}
	return C.MPI_SUCCESS
}

func (w *window) close() {
	if w.heapSeg >= 0 {
		C.csp_ip_heap_remove_external(C.uint32_t(w.heapSeg))
	}
	w.seg.Close()
}

// closeWindows releases windows the application did not free before
// MPI_Finalize.
func closeWindows() {
	winMu.Lock()
	defer winMu.Unlock()
	for h, w := range windows {
		w.close()
		delete(windows, h)
	}
	setWindowCount()
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

// shareWindow runs the protocol above over comm (collective). It returns
// nil, nil when the window stays as MPI made it.
func shareWindow(win mpi.Win, comm mpi.Comm, want bool) (*window, error) {
	rank, err := comm.Rank()
	if err != nil {
		return nil, err
	}
	size, err := comm.Size()
	if err != nil {
		return nil, err
	}
	var lo, hi uintptr
	var loPtr unsafe.Pointer // lo, as a pointer MPI gave us
	for i := 0; i < size; i++ {
		n, _, base, err := win.SharedQuery(i)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			continue
		}
		b := uintptr(base)
		if hi == 0 || b < lo {
			lo, loPtr = b, base
		}
		hi = max(hi, b+uintptr(n))
	}
	var start, n uintptr
	if f, err := os.Open("/proc/self/maps"); err == nil {
		start, n = remapRange(lo, hi, uintptr(os.Getpagesize()), parseMaps(f))
		f.Close()
	}
	ok := want && n > 0
	var seg *shm.Segment
	geo := make([]int64, gN)
	if rank == 0 && ok {
		if seg, err = shm.Create("casperii-window", int(n)); err != nil {
			core.Current().Verbosef(1, "shared window not registered: %v", err)
			ok = false
		} else {
			geo = []int64{gOK: 1, gPid: int64(shm.Pid()), gFd: int64(seg.Fd()), gOff: int64(start) - int64(lo), gLen: int64(n)}
		}
	}
	if err := mpi.BcastInt64s(comm, geo, 0); err != nil {
		seg.Close()
		return nil, err
	}
	if rank != 0 && ok {
		ok = geo[gOK] == 1 && geo[gOff] == int64(start)-int64(lo) && geo[gLen] == int64(n)
		if ok {
			if seg, err = shm.Open(int(geo[gPid]), int(geo[gFd]), int(n)); err != nil {
				core.Current().Verbosef(1, "shared window not registered: %v", err)
				ok = false
			}
		}
	}
	mine, all := []int32{0}, []int32{0}
	if ok {
		mine[0] = 1
	}
	if err := mpi.AllreduceInt32s(comm, mine, all, mpi.OpMin); err != nil || all[0] == 0 {
		seg.Close()
		if err == nil && want && rank == 0 {
			core.Current().Verbosef(1, "shared window not registered with the ghosts: not every process asked for shmbuf_regist=true, or the window is smaller than a page, or a process could not open the shared memory; offloaded sends from it take a bounce copy")
		}
		return nil, err
	}
	mem := unsafe.Add(loPtr, int(start)-int(lo)) // start may lie below lo (whole pages)
	if rank == 0 {
		copy(seg.Bytes(), unsafe.Slice((*byte)(mem), n))
	}
	if p, err := unix.MmapPtr(seg.Fd(), 0, mem, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_FIXED); err != nil || p != mem {
		// The range may be gone: this process cannot go on consistently.
		fmt.Fprintf(os.Stderr, "casperii: remapping %d bytes of a shared window at %p: %v; aborting\n", n, mem, err)
		mpi.Abort(mpi.CommWorld, 1)
	}
	if err := comm.Barrier(); err != nil {
		return nil, err
	}
	w := &window{seg: seg, heapSeg: int(C.csp_ip_heap_add_external(C.int(seg.Fd()), mem, C.uint64_t(n)))}
	if w.heapSeg < 0 {
		core.Current().Verbosef(1, "shared window of %d bytes shared but not registered: the heap's segment table is full", n)
	}
	return w, nil
}
