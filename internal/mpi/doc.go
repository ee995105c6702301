// Package mpi is a thin cgo binding over the PMPI_* entry points of MPICH that
// the CasperII Go runtime needs.
//
// # Why PMPI only
//
// The binding is linked into the CasperII interposer library, which defines
// the MPI_* symbols itself. Calling MPI_* from here would recurse into the
// interposer, so every call goes to PMPI_* (a test checks the imported
// symbols of the test binary). MPI_* names appear only as compile-time
// constants from mpi.h.
//
// # Handles
//
// Comm, Group, Request, Datatype, Info, Win, Message, Op and Errhandler are
// opaque structs holding the MPICH integer handle. Predefined handles are
// package variables (CommWorld, Byte, OpSum, ...). Raw and the XxxFromRaw
// functions convert to and from the C integer handle (MPICH handles are C
// ints); they exist so that the runtime's own C code (cgo files in other
// packages, where this package's C types are not visible) can pass handles
// to C, for example C.MPI_Comm(c.Raw()). Request has exactly the size and
// layout of MPI_Request, so &reqs[0] of a []Request may be handed to C as an
// MPI_Request array.
//
// # Statuses
//
// MPI_STATUS_IGNORE is (MPI_Status*)1 in MPICH and must never be held in a Go
// pointer. Status outputs are Go values: functions take a *Status, and a nil
// *Status means MPI_STATUS_IGNORE (mapped in C). The MPI_Status itself lives
// on the C stack and is converted by the C shim. Status.Count is in bytes; use
// GetCount for a count in datatype units. Multiple-completion calls fill a
// caller-owned []Status, or ignore statuses when the slice is nil.
//
// # Buffers
//
// Point-to-point and collective calls take raw memory (unsafe.Pointer plus a
// count and a Datatype): the runtime passes pointers into shared mappings or
// memory from AllocMem. Go-allocated memory may be used for blocking calls
// only (cgo pins it for the duration of the call). It must NOT be used for
// nonblocking calls (Isend, Irecv, Imrecv, Iallreduce, ...): MPI keeps the
// address after the call returns, and Go gives no such guarantee for its own
// memory. For collectives, a nil send buffer means MPI_IN_PLACE (MPI_BOTTOM is
// not supported by this binding). The typed slice helpers (AllreduceInt64s,
// BcastBytes, ...) are blocking and take Go slices.
//
// # Errors
//
// Every call returns an error. A non-success MPI return code becomes an *Error
// carrying the code, its class (PMPI_Error_class), the MPI function name and
// PMPI_Error_string's text. Errors are only returned if the communicator (or,
// for calls without one, MPI_COMM_WORLD / MPI_COMM_SELF) uses ErrorsReturn:
// MPI's default handler, ErrorsAreFatal, aborts the job first. Argument errors
// that the binding detects itself (a count that does not fit a C int, a short
// index slice) are *Error values too, with Code == Class.
//
// # Threads
//
// Goroutines migrate between OS threads, so Go code calling MPI from more than
// one goroutine, or from a goroutine not locked to the main thread, needs
// ThreadSerialized or ThreadMultiple (or runtime.LockOSThread discipline).
//
// # Allocation
//
// The point-to-point, probe and completion wrappers (Isend, Irecv, Test,
// Testsome, Improbe, Imrecv, ...) do not allocate on the Go heap: C outputs
// come back in structs returned by value, and multiple-completion calls work
// on caller-owned slices (the C side keeps a per-thread MPI_Status scratch
// array).
package mpi
