package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// AllocMem allocates size bytes with MPI_Alloc_mem; release with FreeMem.
// The memory is C memory, usable for nonblocking calls.
func AllocMem(size int, info Info) (unsafe.Pointer, error) {
	r := C.cspmpi_alloc_mem(C.longlong(size), info.h)
	return r.p, errOf(r.rc, "MPI_Alloc_mem")
}

// FreeMem frees memory from AllocMem.
func FreeMem(p unsafe.Pointer) error {
	return errOf(C.PMPI_Free_mem(p), "MPI_Free_mem")
}

// WinAllocateShared allocates a shared-memory window of size bytes per
// process over comm (whose processes must share memory) and returns it with
// the local segment's base address.
func WinAllocateShared(size int, dispUnit int, info Info, comm Comm) (Win, unsafe.Pointer, error) {
	r := C.cspmpi_win_allocate_shared(C.longlong(size), C.int(dispUnit), info.h, comm.h)
	if r.rc != C.MPI_SUCCESS {
		return WinNull, nil, newError(int(r.rc), "MPI_Win_allocate_shared")
	}
	return Win{C.MPI_Win(r.v)}, r.p, nil
}

// SharedQuery returns the size, displacement unit and base address of rank's
// segment of a shared window (rank ProcNull: the first non-empty segment).
func (w Win) SharedQuery(rank int) (size, dispUnit int, base unsafe.Pointer, err error) {
	r := C.cspmpi_win_shared_query(w.h, C.int(rank))
	if r.rc != C.MPI_SUCCESS {
		return 0, 0, nil, newError(int(r.rc), "MPI_Win_shared_query")
	}
	return int(r.a), int(r.v), r.p, nil
}

// GetInfo returns a new info object with w's hints; free it with Info.Free.
func (w Win) GetInfo() (Info, error) {
	r := C.cspmpi_win_get_info(w.h)
	return Info{C.MPI_Info(r.v)}, errOf(r.rc, "MPI_Win_get_info")
}

// Free frees the window (collective) and sets *w to WinNull.
func (w *Win) Free() error {
	r := C.cspmpi_win_free(w.h)
	w.h = C.MPI_Win(r.v)
	return errOf(r.rc, "MPI_Win_free")
}

// WinCreateDynamic creates a window without memory over comm (collective);
// memory is added with Attach.
func WinCreateDynamic(info Info, comm Comm) (Win, error) {
	r := C.cspmpi_win_create_dynamic(info.h, comm.h)
	if r.rc != C.MPI_SUCCESS {
		return WinNull, newError(int(r.rc), "MPI_Win_create_dynamic")
	}
	return Win{C.MPI_Win(r.v)}, nil
}

// Attach exposes [base, base+size) in the dynamic window w; RMA addresses
// it by its absolute address (MPI_Get_address).
func (w Win) Attach(base unsafe.Pointer, size int) error {
	return errOf(C.PMPI_Win_attach(w.h, base, C.MPI_Aint(size)), "MPI_Win_attach")
}

// Detach withdraws memory attached at base from the dynamic window w.
func (w Win) Detach(base unsafe.Pointer) error {
	return errOf(C.PMPI_Win_detach(w.h, base), "MPI_Win_detach")
}

// SetErrhandler sets w's error handler.
func (w Win) SetErrhandler(eh Errhandler) error {
	return errOf(C.PMPI_Win_set_errhandler(w.h, eh.h), "MPI_Win_set_errhandler")
}
