package user

/*
#include "user.h"
*/
import "C"

import (
	"unsafe"

	"github.com/casperii/casperii/internal/mpi"
)

// The Go entry points into the fast path, for the Go API. Each is one
// cgo call; buffers must stay valid (and, for Go memory, pinned) until the
// operation completes.

func dt(d mpi.Datatype) C.MPI_Datatype { return C.MPI_Datatype(d.Raw()) }

// codeError turns a return code of the fast path into an error, with the
// runtime's own one-line message for its codes (MPICH 4.0.2 loses the
// strings of codes added to predefined classes, see ErrorTexts).
func codeError(code int, fn string) error {
	if code == mpi.Success {
		return nil
	}
	if started {
		for i, e := range errorMessages {
			if int(C.csp_u.errcode[i]) == code {
				return &mpi.Error{Code: code, Class: e.class, Func: fn, Msg: e.msg}
			}
		}
	}
	return mpi.CodeError(code, fn)
}
func cm(c mpi.Comm) C.MPI_Comm { return C.MPI_Comm(c.Raw()) }

// Isend posts a nonblocking (synchronous if sync) send.
func Isend(buf unsafe.Pointer, count int, d mpi.Datatype, dest, tag int, comm mpi.Comm, sync bool) (mpi.Request, error) {
	var r C.MPI_Request
	s := C.int(0)
	if sync {
		s = 1
	}
	rc := C.csp_isend(buf, C.int(count), dt(d), C.int(dest), C.int(tag), cm(comm), &r, s)
	return mpi.RequestFromRaw(int32(r)), codeError(int(rc), "MPI_Isend")
}

// Irecv posts a nonblocking receive.
func Irecv(buf unsafe.Pointer, count int, d mpi.Datatype, src, tag int, comm mpi.Comm) (mpi.Request, error) {
	var r C.MPI_Request
	rc := C.csp_irecv(buf, C.int(count), dt(d), C.int(src), C.int(tag), cm(comm), &r)
	return mpi.RequestFromRaw(int32(r)), codeError(int(rc), "MPI_Irecv")
}

// Send is a blocking (synchronous if sync) send.
func Send(buf unsafe.Pointer, count int, d mpi.Datatype, dest, tag int, comm mpi.Comm, sync bool) error {
	s := C.int(0)
	if sync {
		s = 1
	}
	return codeError(int(C.csp_send(buf, C.int(count), dt(d), C.int(dest), C.int(tag), cm(comm), s)), "MPI_Send")
}

// Status is a completed receive's outcome.
type Status struct {
	Source, Tag, Error int
	Bytes              int64
	Cancelled          bool
}

func toStatus(st *C.MPI_Status) Status {
	var count C.MPI_Count
	C.PMPI_Get_elements_x(st, C.MPI_BYTE, &count)
	var canc C.int
	C.PMPI_Test_cancelled(st, &canc)
	return Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Error: int(st.MPI_ERROR), Bytes: int64(count), Cancelled: canc != 0}
}

// Recv is a blocking receive.
func Recv(buf unsafe.Pointer, count int, d mpi.Datatype, src, tag int, comm mpi.Comm) (Status, error) {
	var st C.MPI_Status
	rc := C.csp_recv(buf, C.int(count), dt(d), C.int(src), C.int(tag), cm(comm), &st)
	return toStatus(&st), codeError(int(rc), "MPI_Recv")
}

// Wait completes a request.
func Wait(r *mpi.Request) (Status, error) {
	var st C.MPI_Status
	h := C.MPI_Request(r.Raw())
	rc := C.csp_wait(&h, &st)
	*r = mpi.RequestFromRaw(int32(h))
	return toStatus(&st), codeError(int(rc), "MPI_Wait")
}

// Test checks a request once.
func Test(r *mpi.Request) (bool, Status, error) {
	var st C.MPI_Status
	var flag C.int
	h := C.MPI_Request(r.Raw())
	rc := C.csp_test(&h, &flag, &st)
	*r = mpi.RequestFromRaw(int32(h))
	return flag != 0, toStatus(&st), codeError(int(rc), "MPI_Test")
}

// Cancel asks for a request to be cancelled.
func Cancel(r *mpi.Request) error {
	h := C.MPI_Request(r.Raw())
	return codeError(int(C.csp_cancel(&h)), "MPI_Cancel")
}

// Iprobe probes once for a matching message.
func Iprobe(src, tag int, comm mpi.Comm) (bool, Status, error) {
	var st C.MPI_Status
	var flag C.int
	rc := C.csp_iprobe(C.int(src), C.int(tag), cm(comm), &flag, &st)
	if flag == 0 {
		return false, Status{}, codeError(int(rc), "MPI_Iprobe")
	}
	return true, toStatus(&st), codeError(int(rc), "MPI_Iprobe")
}

// Probe blocks until a matching message is there.
func Probe(src, tag int, comm mpi.Comm) (Status, error) {
	var st C.MPI_Status
	rc := C.csp_probe(C.int(src), C.int(tag), cm(comm), &st)
	return toStatus(&st), codeError(int(rc), "MPI_Probe")
}

// ExposedTagUB returns the MPI_TAG_UB the application sees.
func ExposedTagUB() int { return int(C.csp_u.tags.exposed_ub) }

// Waitall completes every request of reqs (nil statuses: ignored).
func Waitall(reqs []mpi.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	h := (*C.MPI_Request)(unsafe.Pointer(&reqs[0]))
	return codeError(int(C.csp_waitall_nostatus(C.int(len(reqs)), h)), "MPI_Waitall")
}
