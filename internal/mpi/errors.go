package mpi

/*
#include "cspmpi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// MPI error classes.
const (
	Success          = int(C.MPI_SUCCESS)
	ErrBuffer        = int(C.MPI_ERR_BUFFER)
	ErrCount         = int(C.MPI_ERR_COUNT)
	ErrType          = int(C.MPI_ERR_TYPE)
	ErrTag           = int(C.MPI_ERR_TAG)
	ErrComm          = int(C.MPI_ERR_COMM)
	ErrRank          = int(C.MPI_ERR_RANK)
	ErrRoot          = int(C.MPI_ERR_ROOT)
	ErrTruncate      = int(C.MPI_ERR_TRUNCATE)
	ErrGroup         = int(C.MPI_ERR_GROUP)
	ErrOp            = int(C.MPI_ERR_OP)
	ErrRequest       = int(C.MPI_ERR_REQUEST)
	ErrTopology      = int(C.MPI_ERR_TOPOLOGY)
	ErrDims          = int(C.MPI_ERR_DIMS)
	ErrArg           = int(C.MPI_ERR_ARG)
	ErrOther         = int(C.MPI_ERR_OTHER)
	ErrUnknown       = int(C.MPI_ERR_UNKNOWN)
	ErrInternal      = int(C.MPI_ERR_INTERN)
	ErrInStatus      = int(C.MPI_ERR_IN_STATUS)
	ErrPending       = int(C.MPI_ERR_PENDING)
	ErrInfo          = int(C.MPI_ERR_INFO)
	ErrInfoKey       = int(C.MPI_ERR_INFO_KEY)
	ErrInfoValue     = int(C.MPI_ERR_INFO_VALUE)
	ErrInfoNokey     = int(C.MPI_ERR_INFO_NOKEY)
	ErrNoMem         = int(C.MPI_ERR_NO_MEM)
	ErrKeyval        = int(C.MPI_ERR_KEYVAL)
	ErrWin           = int(C.MPI_ERR_WIN)
	ErrSize          = int(C.MPI_ERR_SIZE)
	ErrDisp          = int(C.MPI_ERR_DISP)
	ErrRMAShared     = int(C.MPI_ERR_RMA_SHARED)
	ErrUnsupportedOp = int(C.MPI_ERR_UNSUPPORTED_OPERATION)
	ErrProcAborted   = int(C.MPI_ERR_PROC_ABORTED)
	ErrValueTooLarge = int(C.MPI_ERR_VALUE_TOO_LARGE)
	ErrLastCode      = int(C.MPI_ERR_LASTCODE)
)

// Error is a failed MPI call.
type Error struct {
	Code  int    // the MPI error code returned
	Class int    // its class (PMPI_Error_class)
	Func  string // the MPI function, for example "MPI_Isend"
	Msg   string // PMPI_Error_string of Code
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (class %d, code %d)", e.Func, e.Msg, e.Class, e.Code)
}

// ClassOf returns the MPI error class of err: Success for nil, the class of an
// *Error found with errors.As, and ErrOther for any other error.
func ClassOf(err error) int {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ErrOther
}

// errOf turns an MPI return code into an error (nil on success).
func errOf(rc C.int, fn string) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	return newError(int(rc), fn)
}

// newError builds an *Error for code, asking MPI for its class and text.
func newError(code int, fn string) *Error {
	e := &Error{Code: code, Class: code, Func: fn}
	if r := C.cspmpi_error_class(C.int(code)); r.rc == C.MPI_SUCCESS {
		e.Class = int(r.v)
	}
	e.Msg = ErrorString(code)
	return e
}

// argError is an argument error detected by the binding itself.
func argError(class int, fn, msg string) *Error {
	return &Error{Code: class, Class: class, Func: fn, Msg: msg}
}

// ErrorString returns PMPI_Error_string of code (empty if MPI rejects the code).
func ErrorString(code int) string {
	buf := make([]byte, MaxErrorString+1)
	var n C.int
	if C.PMPI_Error_string(C.int(code), (*C.char)(unsafe.Pointer(&buf[0])), &n) != C.MPI_SUCCESS {
		return ""
	}
	return cstr(buf, n)
}

// ErrorClass returns the class of an error code.
func ErrorClass(code int) (int, error) {
	r := C.cspmpi_error_class(C.int(code))
	return int(r.v), errOf(r.rc, "MPI_Error_class")
}

// AddErrorClass creates a new error class.
func AddErrorClass() (int, error) {
	r := C.cspmpi_add_error_class()
	return int(r.v), errOf(r.rc, "MPI_Add_error_class")
}

// AddErrorCode creates a new error code in class.
func AddErrorCode(class int) (int, error) {
	r := C.cspmpi_add_error_code(C.int(class))
	return int(r.v), errOf(r.rc, "MPI_Add_error_code")
}

// AddErrorString sets the text of a user-defined error code or class.
func AddErrorString(code int, s string) error {
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	return errOf(C.PMPI_Add_error_string(C.int(code), cs), "MPI_Add_error_string")
}

// CallErrhandler invokes c's error handler with code. With ErrorsReturn it
// returns nil (MPICH returns MPI_SUCCESS once the handler has returned); with
// ErrorsAreFatal the job aborts.
func (c Comm) CallErrhandler(code int) error {
	return errOf(C.PMPI_Comm_call_errhandler(c.h, C.int(code)), "MPI_Comm_call_errhandler")
}

// SetErrhandler sets c's error handler (ErrorsReturn, ErrorsAreFatal, ...).
func (c Comm) SetErrhandler(eh Errhandler) error {
	return errOf(C.PMPI_Comm_set_errhandler(c.h, eh.h), "MPI_Comm_set_errhandler")
}

// Errhandler returns c's error handler; free it with Errhandler.Free.
func (c Comm) Errhandler() (Errhandler, error) {
	r := C.cspmpi_comm_get_errhandler(c.h)
	return Errhandler{C.MPI_Errhandler(r.v)}, errOf(r.rc, "MPI_Comm_get_errhandler")
}

// Free frees the error handler and sets *e to ErrhandlerNull.
func (e *Errhandler) Free() error {
	r := C.cspmpi_errhandler_free(e.h)
	e.h = C.MPI_Errhandler(r.v)
	return errOf(r.rc, "MPI_Errhandler_free")
}

// CodeError turns an MPI return code from C code of the runtime into an
// error (nil for MPI_SUCCESS), with fn naming the MPI function.
func CodeError(code int, fn string) error {
	if code == Success {
		return nil
	}
	return newError(code, fn)
}
