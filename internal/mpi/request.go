package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// Test checks r for completion. When complete, the request is freed (*r
// becomes RequestNull, unless it is persistent) and st, if not nil, is filled.
func (r *Request) Test(st *Status) (bool, error) {
	res := C.cspmpi_test(r.h, want(st))
	r.h = C.MPI_Request(res.h)
	if res.rc != C.MPI_SUCCESS {
		return false, newError(int(res.rc), "MPI_Test")
	}
	if res.flag != 0 {
		storeStatus(st, &res.st)
	}
	return res.flag != 0, nil
}

// Wait blocks until r completes, frees it (*r becomes RequestNull) and
// fills st if not nil.
func (r *Request) Wait(st *Status) error {
	res := C.cspmpi_wait(r.h, want(st))
	r.h = C.MPI_Request(res.h)
	if res.rc != C.MPI_SUCCESS {
		return newError(int(res.rc), "MPI_Wait")
	}
	storeStatus(st, &res.st)
	return nil
}

// GetStatus checks r for completion without freeing it (MPI_Request_get_status).
func (r Request) GetStatus(st *Status) (bool, error) {
	res := C.cspmpi_request_get_status(r.h, want(st))
	if res.rc != C.MPI_SUCCESS {
		return false, newError(int(res.rc), "MPI_Request_get_status")
	}
	if res.flag != 0 {
		storeStatus(st, &res.st)
	}
	return res.flag != 0, nil
}

// Cancel marks r for cancellation; it must still be completed (Wait, Test...).
func (r Request) Cancel() error {
	return errOf(C.cspmpi_cancel(r.h), "MPI_Cancel")
}

// Free frees r (the operation, if active, still completes) and sets *r to RequestNull.
func (r *Request) Free() error {
	res := C.cspmpi_request_free(r.h)
	r.h = C.MPI_Request(res.v)
	return errOf(res.rc, "MPI_Request_free")
}

// reqPtr returns reqs as a C MPI_Request array (nil if empty).
func reqPtr(reqs []Request) *C.MPI_Request {
	if len(reqs) == 0 {
		return nil
	}
	return (*C.MPI_Request)(unsafe.Pointer(&reqs[0]))
}

// statusPtr returns statuses as a C cspmpi_status array, or nil (ignore).
func statusPtr(statuses []Status) *C.cspmpi_status {
	if len(statuses) == 0 {
		return nil
	}
	return (*C.cspmpi_status)(unsafe.Pointer(&statuses[0]))
}

func checkStatuses(fn string, n int, statuses []Status) error {
	if statuses != nil && len(statuses) < n {
		return argError(ErrArg, fn, "statuses slice shorter than requests")
	}
	return nil
}

// Testsome tests reqs and returns the number of completed requests, or
// Undefined when no request is active. indices[:n] receives the indices of
// the completed requests (those entries of reqs become RequestNull) and, if
// statuses is not nil, statuses[:n] their statuses (statuses[i] belongs to
// indices[i]). indices, and statuses when not nil, must be at least as long
// as reqs. Nothing is allocated.
func Testsome(reqs []Request, indices []int32, statuses []Status) (int, error) {
	return somesome(0, "MPI_Testsome", reqs, indices, statuses)
}

// Waitsome is the blocking form of Testsome.
func Waitsome(reqs []Request, indices []int32, statuses []Status) (int, error) {
	return somesome(1, "MPI_Waitsome", reqs, indices, statuses)
}

func somesome(wait C.int, fn string, reqs []Request, indices []int32, statuses []Status) (int, error) {
	if len(indices) < len(reqs) {
		return 0, argError(ErrArg, fn, "indices slice shorter than requests")
	}
	if err := checkStatuses(fn, len(reqs), statuses); err != nil {
		return 0, err
	}
	n, ok := cint(len(reqs))
	if !ok {
		return 0, countErr(fn)
	}
	var idx *C.int
	if len(indices) > 0 {
		idx = (*C.int)(unsafe.Pointer(&indices[0]))
	}
	var st *C.cspmpi_status
	if statuses != nil {
		st = statusPtr(statuses)
	}
	r := C.cspmpi_somesome(wait, n, reqPtr(reqs), idx, st)
	if r.rc != C.MPI_SUCCESS {
		return int(r.v), newError(int(r.rc), fn)
	}
	return int(r.v), nil
}

// Testall reports whether all reqs are complete; if so they are freed and,
// if statuses is not nil, statuses[:len(reqs)] filled.
func Testall(reqs []Request, statuses []Status) (bool, error) {
	if err := checkStatuses("MPI_Testall", len(reqs), statuses); err != nil {
		return false, err
	}
	n, ok := cint(len(reqs))
	if !ok {
		return false, countErr("MPI_Testall")
	}
	var st *C.cspmpi_status
	if statuses != nil {
		st = statusPtr(statuses)
	}
	r := C.cspmpi_allall(0, n, reqPtr(reqs), st)
	if r.rc != C.MPI_SUCCESS {
		return false, newError(int(r.rc), "MPI_Testall")
	}
	return r.v != 0, nil
}

// Waitall waits for all reqs; statuses (may be nil) as in Testall.
// On ErrInStatus, each Status.Error tells which request failed.
func Waitall(reqs []Request, statuses []Status) error {
	if err := checkStatuses("MPI_Waitall", len(reqs), statuses); err != nil {
		return err
	}
	n, ok := cint(len(reqs))
	if !ok {
		return countErr("MPI_Waitall")
	}
	var st *C.cspmpi_status
	if statuses != nil {
		st = statusPtr(statuses)
	}
	r := C.cspmpi_allall(1, n, reqPtr(reqs), st)
	return errOf(r.rc, "MPI_Waitall")
}

// Testany tests reqs for the completion of any one; it returns its index
// (Undefined if none is active) and whether one completed.
func Testany(reqs []Request, st *Status) (int, bool, error) {
	n, ok := cint(len(reqs))
	if !ok {
		return Undefined, false, countErr("MPI_Testany")
	}
	r := C.cspmpi_testany(n, reqPtr(reqs), want(st))
	if r.rc != C.MPI_SUCCESS {
		return Undefined, false, newError(int(r.rc), "MPI_Testany")
	}
	if r.flag != 0 && int(r.h2) != Undefined {
		storeStatus(st, &r.st)
	}
	return int(r.h2), r.flag != 0, nil
}

// Waitany waits for any one of reqs and returns its index (Undefined if
// none is active).
func Waitany(reqs []Request, st *Status) (int, error) {
	n, ok := cint(len(reqs))
	if !ok {
		return Undefined, countErr("MPI_Waitany")
	}
	r := C.cspmpi_waitany(n, reqPtr(reqs), want(st))
	if r.rc != C.MPI_SUCCESS {
		return Undefined, newError(int(r.rc), "MPI_Waitany")
	}
	if int(r.h2) != Undefined {
		storeStatus(st, &r.st)
	}
	return int(r.h2), nil
}
