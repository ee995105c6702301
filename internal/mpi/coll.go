package mpi

/*
#include "cspmpi.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// Raw collectives follow MPI's argument order. A nil send buffer means
// MPI_IN_PLACE. Go memory is fine for the blocking ones.

// Bcast broadcasts count elements of dt at buf from root.
func Bcast(buf unsafe.Pointer, count int, dt Datatype, root int, comm Comm) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Bcast")
	}
	return errOf(C.PMPI_Bcast(buf, n, dt.h, C.int(root), comm.h), "MPI_Bcast")
}

// Reduce reduces to root; sendbuf nil means MPI_IN_PLACE (at the root).
func Reduce(sendbuf, recvbuf unsafe.Pointer, count int, dt Datatype, op Op, root int, comm Comm) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Reduce")
	}
	return errOf(C.cspmpi_reduce(sendbuf, recvbuf, n, dt.h, op.h, C.int(root), comm.h), "MPI_Reduce")
}

// Allreduce reduces to all; sendbuf nil means MPI_IN_PLACE.
func Allreduce(sendbuf, recvbuf unsafe.Pointer, count int, dt Datatype, op Op, comm Comm) error {
	n, ok := cint(count)
	if !ok {
		return countErr("MPI_Allreduce")
	}
	return errOf(C.cspmpi_allreduce(sendbuf, recvbuf, n, dt.h, op.h, comm.h), "MPI_Allreduce")
}

// Iallreduce starts a nonblocking Allreduce; sendbuf nil means MPI_IN_PLACE.
// The buffers must not be Go memory.
func Iallreduce(sendbuf, recvbuf unsafe.Pointer, count int, dt Datatype, op Op, comm Comm) (Request, error) {
	n, ok := cint(count)
	if !ok {
		return RequestNull, countErr("MPI_Iallreduce")
	}
	r := C.cspmpi_iallreduce(sendbuf, recvbuf, n, dt.h, op.h, comm.h)
	return Request{C.MPI_Request(r.v)}, errOf(r.rc, "MPI_Iallreduce")
}

// Allgather gathers sendcount elements from every process into recvbuf;
// sendbuf nil means MPI_IN_PLACE.
func Allgather(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, comm Comm) error {
	sn, ok1 := cint(sendcount)
	rn, ok2 := cint(recvcount)
	if !ok1 || !ok2 {
		return countErr("MPI_Allgather")
	}
	return errOf(C.cspmpi_allgather(sendbuf, sn, sendtype.h, recvbuf, rn, recvtype.h, comm.h), "MPI_Allgather")
}

// Gather gathers to root; sendbuf nil means MPI_IN_PLACE (at the root).
func Gather(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, root int, comm Comm) error {
	sn, ok1 := cint(sendcount)
	rn, ok2 := cint(recvcount)
	if !ok1 || !ok2 {
		return countErr("MPI_Gather")
	}
	return errOf(C.cspmpi_gather(sendbuf, sn, sendtype.h, recvbuf, rn, recvtype.h, C.int(root), comm.h), "MPI_Gather")
}

// Alltoall exchanges sendcount elements with every process; sendbuf nil
// means MPI_IN_PLACE.
func Alltoall(sendbuf unsafe.Pointer, sendcount int, sendtype Datatype,
	recvbuf unsafe.Pointer, recvcount int, recvtype Datatype, comm Comm) error {
	sn, ok1 := cint(sendcount)
	rn, ok2 := cint(recvcount)
	if !ok1 || !ok2 {
		return countErr("MPI_Alltoall")
	}
	return errOf(C.cspmpi_alltoall(sendbuf, sn, sendtype.h, recvbuf, rn, recvtype.h, comm.h), "MPI_Alltoall")
}

// Elem is the element type of the typed slice helpers.
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 |
		~int | ~uint | ~uintptr | ~float32 | ~float64
}

// DatatypeOf returns the predefined datatype matching T.
func DatatypeOf[T Elem]() Datatype {
	var z T
	size := unsafe.Sizeof(z)
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32:
		return Float
	case reflect.Float64:
		return Double
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		switch size {
		case 1:
			return Int8
		case 2:
			return Int16
		case 4:
			return Int32
		}
		return Int64
	default:
		switch size {
		case 1:
			return Uint8
		case 2:
			return Uint16
		case 4:
			return Uint32
		}
		return Uint64
	}
}

func slicePtr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// AllreduceSlice reduces send element-wise into recv on all processes. A nil
// send means in place (recv holds the input).
func AllreduceSlice[T Elem](comm Comm, send, recv []T, op Op) error {
	n := len(recv)
	if send != nil {
		if len(recv) < len(send) {
			return argError(ErrCount, "MPI_Allreduce", "recv shorter than send")
		}
		n = len(send)
	}
	if n == 0 {
		return nil
	}
	return Allreduce(slicePtr(send), slicePtr(recv), n, DatatypeOf[T](), op, comm)
}

// AllgatherSlice gathers len(send) elements from each process into recv,
// which must hold size*len(send) elements. A nil send means in place: each
// process's block is already at its rank's position in recv, and the block
// length is len(recv)/size.
func AllgatherSlice[T Elem](comm Comm, send, recv []T) error {
	size, err := comm.Size()
	if err != nil {
		return err
	}
	n := len(send)
	if send == nil {
		n = len(recv) / size
	}
	if len(recv) < n*size {
		return argError(ErrCount, "MPI_Allgather", "recv shorter than size*len(send)")
	}
	dt := DatatypeOf[T]()
	return Allgather(slicePtr(send), n, dt, slicePtr(recv), n, dt, comm)
}

// GatherSlice gathers len(send) elements from each process into recv at
// root, where recv must hold size*len(send) elements (recv is ignored
// elsewhere).
func GatherSlice[T Elem](comm Comm, send, recv []T, root int) error {
	rank, err := comm.Rank()
	if err != nil {
		return err
	}
	if rank == root {
		size, err := comm.Size()
		if err != nil {
			return err
		}
		if len(recv) < len(send)*size {
			return argError(ErrCount, "MPI_Gather", "recv shorter than size*len(send)")
		}
	}
	dt := DatatypeOf[T]()
	return Gather(slicePtr(send), len(send), dt, slicePtr(recv), len(send), dt, root, comm)
}

// AlltoallSlice sends len(send)/size elements to each process and receives
// as many from each into recv (len(recv) >= len(send)). A nil send means in
// place, with blocks of len(recv)/size elements.
func AlltoallSlice[T Elem](comm Comm, send, recv []T) error {
	size, err := comm.Size()
	if err != nil {
		return err
	}
	n := len(send) / size
	if send == nil {
		n = len(recv) / size
	}
	if len(recv) < n*size {
		return argError(ErrCount, "MPI_Alltoall", "recv shorter than send")
	}
	dt := DatatypeOf[T]()
	return Alltoall(slicePtr(send), n, dt, slicePtr(recv), n, dt, comm)
}

// BcastSlice broadcasts buf from root (len(buf) must agree on all processes).
func BcastSlice[T Elem](comm Comm, buf []T, root int) error {
	if len(buf) == 0 {
		return nil
	}
	return Bcast(slicePtr(buf), len(buf), DatatypeOf[T](), root, comm)
}

// AllreduceInt64s is AllreduceSlice for int64.
func AllreduceInt64s(comm Comm, send, recv []int64, op Op) error {
	return AllreduceSlice(comm, send, recv, op)
}

// AllreduceInt32s is AllreduceSlice for int32.
func AllreduceInt32s(comm Comm, send, recv []int32, op Op) error {
	return AllreduceSlice(comm, send, recv, op)
}

// AllreduceUint64s is AllreduceSlice for uint64 (for example OpBand over bitmaps).
func AllreduceUint64s(comm Comm, send, recv []uint64, op Op) error {
	return AllreduceSlice(comm, send, recv, op)
}

// AllgatherInt32s is AllgatherSlice for int32.
func AllgatherInt32s(comm Comm, send, recv []int32) error { return AllgatherSlice(comm, send, recv) }

// AllgatherInt64s is AllgatherSlice for int64.
func AllgatherInt64s(comm Comm, send, recv []int64) error { return AllgatherSlice(comm, send, recv) }

// AllgatherBytes is AllgatherSlice for bytes.
func AllgatherBytes(comm Comm, send, recv []byte) error { return AllgatherSlice(comm, send, recv) }

// GatherInt32s is GatherSlice for int32.
func GatherInt32s(comm Comm, send, recv []int32, root int) error {
	return GatherSlice(comm, send, recv, root)
}

// AlltoallInt32s is AlltoallSlice for int32.
func AlltoallInt32s(comm Comm, send, recv []int32) error { return AlltoallSlice(comm, send, recv) }

// BcastBytes is BcastSlice for bytes.
func BcastBytes(comm Comm, buf []byte, root int) error { return BcastSlice(comm, buf, root) }

// BcastInt64s is BcastSlice for int64.
func BcastInt64s(comm Comm, buf []int64, root int) error { return BcastSlice(comm, buf, root) }
