package mpi

/*
#include "cspmpi.h"
*/
import "C"

import "unsafe"

// Status is the outcome of a receive, probe or completed request.
//
// Its memory layout equals the C struct cspmpi_status (checked at compile
// time below), so the C shims fill []Status slices directly.
type Status struct {
	Source    int   // MPI_SOURCE
	Tag       int   // MPI_TAG
	Error     int   // MPI_ERROR; set only by multiple-completion calls that fail with ErrInStatus
	Count     int64 // received size in bytes (use GetCount for datatype units)
	Cancelled bool  // MPI_Test_cancelled
}

var (
	_ = [1]int{}[unsafe.Sizeof(Status{})-unsafe.Sizeof(C.cspmpi_status{})]
	_ = [1]int{}[unsafe.Sizeof(C.cspmpi_status{})-unsafe.Sizeof(Status{})]
	_ = [1]int{}[unsafe.Offsetof(Status{}.Source)-unsafe.Offsetof(C.cspmpi_status{}.source)]
	_ = [1]int{}[unsafe.Offsetof(Status{}.Tag)-unsafe.Offsetof(C.cspmpi_status{}.tag)]
	_ = [1]int{}[unsafe.Offsetof(Status{}.Error)-unsafe.Offsetof(C.cspmpi_status{}.error)]
	_ = [1]int{}[unsafe.Offsetof(Status{}.Count)-unsafe.Offsetof(C.cspmpi_status{}.count)]
	_ = [1]int{}[unsafe.Offsetof(Status{}.Cancelled)-unsafe.Offsetof(C.cspmpi_status{}.cancelled)]
	_ = [1]int{}[unsafe.Sizeof(Status{}.Source)-8]
)

// storeStatus copies a C status into *st if st is not nil.
func storeStatus(st *Status, c *C.cspmpi_status) {
	if st != nil {
		*st = *(*Status)(unsafe.Pointer(c))
	}
}

func want(st *Status) C.int {
	if st != nil {
		return 1
	}
	return 0
}

// countErr reports a count that is negative or does not fit a C int.
func countErr(fn string) error {
	return argError(ErrCount, fn, "count is negative or does not fit a C int")
}

// Isend starts a standard-mode send of count elements of dt at buf (a
// count beyond a C int takes MPI_Isend_c). buf must not be Go memory (see
// the package documentation).
func Isend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, comm Comm) (Request, error) {
	if count < 0 {
		return RequestNull, countErr("MPI_Isend")
	}
	r := C.cspmpi_isend(buf, C.MPI_Count(count), dt.h, C.int(dest), C.int(tag), comm.h)
	if r.rc != C.MPI_SUCCESS {
		return RequestNull, newError(int(r.rc), "MPI_Isend")
	}
	return Request{C.MPI_Request(r.v)}, nil
}

// Issend starts a synchronous-mode send. buf must not be Go memory.
func Issend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, comm Comm) (Request, error) {
	if count < 0 {
		return RequestNull, countErr("MPI_Issend")
	}
	r := C.cspmpi_issend(buf, C.MPI_Count(count), dt.h, C.int(dest), C.int(tag), comm.h)
	if r.rc != C.MPI_SUCCESS {
		return RequestNull, newError(int(r.rc), "MPI_Issend")
	}
	return Request{C.MPI_Request(r.v)}, nil
}

// Irecv starts a receive of up to count elements of dt into buf.
// buf must not be Go memory.
func Irecv(buf unsafe.Pointer, count int, dt Datatype, source, tag int, comm Comm) (Request, error) {
	if count < 0 {
		return RequestNull, countErr("MPI_Irecv")
	}
	r := C.cspmpi_irecv(buf, C.MPI_Count(count), dt.h, C.int(source), C.int(tag), comm.h)
	if r.rc != C.MPI_SUCCESS {
		return RequestNull, newError(int(r.rc), "MPI_Irecv")
	}
	return Request{C.MPI_Request(r.v)}, nil
}

// Send is a blocking standard-mode send.
func Send(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, comm Comm) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Send")
	}
	return errOf(C.PMPI_Send(buf, n, dt.h, C.int(dest), C.int(tag), comm.h), "MPI_Send")
}

// Ssend is a blocking synchronous-mode send.
func Ssend(buf unsafe.Pointer, count int, dt Datatype, dest, tag int, comm Comm) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Ssend")
	}
	return errOf(C.PMPI_Ssend(buf, n, dt.h, C.int(dest), C.int(tag), comm.h), "MPI_Ssend")
}

// Recv is a blocking receive; st may be nil (MPI_STATUS_IGNORE).
func Recv(buf unsafe.Pointer, count int, dt Datatype, source, tag int, comm Comm, st *Status) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Recv")
	}
	r := C.cspmpi_recv(buf, n, dt.h, C.int(source), C.int(tag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return newError(int(r.rc), "MPI_Recv")
	}
	storeStatus(st, &r.st)
	return nil
}

// Sendrecv sends and receives in one call; st may be nil.
func Sendrecv(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype, dest, sendtag int,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, source, recvtag int, comm Comm, st *Status) error {
	sn, ok1 := cint(sendcount)
	rn, ok2 := cint(recvcount)
	if !ok1 || !ok2 {
		return countErr("MPI_Sendrecv")
	}
	r := C.cspmpi_sendrecv(sendbuf, sn, sendtype.h, C.int(dest), C.int(sendtag),
		recvbuf, rn, recvtype.h, C.int(source), C.int(recvtag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return newError(int(r.rc), "MPI_Sendrecv")
	}
	storeStatus(st, &r.st)
	return nil
}

// Probe blocks until a matching message is available; st may be nil.
func Probe(source, tag int, comm Comm, st *Status) error {
	r := C.cspmpi_probe(C.int(source), C.int(tag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return newError(int(r.rc), "MPI_Probe")
	}
	storeStatus(st, &r.st)
	return nil
}

// Iprobe reports whether a matching message is available; st (may be nil)
// is filled only when it is.
func Iprobe(source, tag int, comm Comm, st *Status) (bool, error) {
	r := C.cspmpi_iprobe(C.int(source), C.int(tag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return false, newError(int(r.rc), "MPI_Iprobe")
	}
	if r.flag != 0 {
		storeStatus(st, &r.st)
	}
	return r.flag != 0, nil
}

// Improbe matches a message without receiving it. When found, the message
// can only be received through the returned Message (Imrecv, Mrecv).
// A source of ProcNull yields MessageNoProc.
func Improbe(source, tag int, comm Comm, st *Status) (Message, bool, error) {
	r := C.cspmpi_improbe(C.int(source), C.int(tag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return MessageNull, false, newError(int(r.rc), "MPI_Improbe")
	}
	if r.flag != 0 {
		storeStatus(st, &r.st)
	}
	return Message{C.MPI_Message(r.h)}, r.flag != 0, nil
}

// Mprobe blocks until a message matches and returns it.
func Mprobe(source, tag int, comm Comm, st *Status) (Message, error) {
	r := C.cspmpi_mprobe(C.int(source), C.int(tag), comm.h, want(st))
	if r.rc != C.MPI_SUCCESS {
		return MessageNull, newError(int(r.rc), "MPI_Mprobe")
	}
	storeStatus(st, &r.st)
	return Message{C.MPI_Message(r.h)}, nil
}

// Imrecv starts receiving a matched message into buf and sets *m to
// MessageNull. buf must not be Go memory.
func Imrecv(buf unsafe.Pointer, count int, dt Datatype, m *Message) (Request, error) {
	if count < 0 {
		return RequestNull, countErr("MPI_Imrecv")
	}
	r := C.cspmpi_imrecv(buf, C.MPI_Count(count), dt.h, m.h)
	m.h = C.MPI_Message(r.h2)
	if r.rc != C.MPI_SUCCESS {
		return RequestNull, newError(int(r.rc), "MPI_Imrecv")
	}
	return Request{C.MPI_Request(r.h)}, nil
}

// Mrecv receives a matched message into buf and sets *m to MessageNull.
func Mrecv(buf unsafe.Pointer, count int, dt Datatype, m *Message, st *Status) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Mrecv")
	}
	r := C.cspmpi_mrecv(buf, n, dt.h, m.h, want(st))
	m.h = C.MPI_Message(r.h2)
	if r.rc != C.MPI_SUCCESS {
		return newError(int(r.rc), "MPI_Mrecv")
	}
	storeStatus(st, &r.st)
	return nil
}

// GetCount returns the number of dt elements described by st, or Undefined
// if the byte count is not a whole number of elements.
func GetCount(st *Status, dt Datatype) (int, error) {
	var canc C.int
	if st.Cancelled {
		canc = 1
	}
	r := C.cspmpi_get_count(C.longlong(st.Count), canc, dt.h)
	return int(r.v), errOf(r.rc, "MPI_Get_count")
}

// TestCancelled reports whether the request described by st was cancelled.
func TestCancelled(st *Status) bool { return st.Cancelled }

// GrequestComplete marks a generalized request complete (its callbacks are
// registered by the runtime's C code).
func GrequestComplete(r Request) error {
	return errOf(C.PMPI_Grequest_complete(r.h), "MPI_Grequest_complete")
}
