package mpi

/*
#cgo pkg-config: mpich
#include "cspmpi.h"
*/
import "C"

import (
	"unsafe"
)

// MPICH handles are C ints; Raw/FromRaw and the Request slice layout rely on it.
var (
	_ = [1]int{}[unsafe.Sizeof(C.MPI_Comm(0))-4]
	_ = [1]int{}[unsafe.Sizeof(C.MPI_Request(0))-4]
	_ = [1]int{}[unsafe.Sizeof(C.MPI_Datatype(0))-4]
	_ = [1]int{}[unsafe.Sizeof(C.MPI_Message(0))-4]
	_ = [1]int{}[unsafe.Sizeof(C.int(0))-4]
)

// Wildcards and special values.
const (
	AnySource = int(C.MPI_ANY_SOURCE)
	AnyTag    = int(C.MPI_ANY_TAG)
	ProcNull  = int(C.MPI_PROC_NULL)
	Root      = int(C.MPI_ROOT)
	Undefined = int(C.MPI_UNDEFINED)
)

// Thread support levels (InitThread, QueryThread).
const (
	ThreadSingle     = int(C.MPI_THREAD_SINGLE)
	ThreadFunneled   = int(C.MPI_THREAD_FUNNELED)
	ThreadSerialized = int(C.MPI_THREAD_SERIALIZED)
	ThreadMultiple   = int(C.MPI_THREAD_MULTIPLE)
)

// Results of Comm.Compare and Group.Compare.
const (
	Ident     = int(C.MPI_IDENT)
	Congruent = int(C.MPI_CONGRUENT)
	Similar   = int(C.MPI_SIMILAR)
	Unequal   = int(C.MPI_UNEQUAL)
)

// Split types for Comm.SplitType.
const (
	CommTypeShared = int(C.MPI_COMM_TYPE_SHARED)
)

// Predefined integer-valued attribute keys (Comm.GetAttrInt).
const (
	TagUB         = int(C.MPI_TAG_UB)
	Host          = int(C.MPI_HOST)
	IO            = int(C.MPI_IO)
	WtimeIsGlobal = int(C.MPI_WTIME_IS_GLOBAL)
	UniverseSize  = int(C.MPI_UNIVERSE_SIZE)
	LastUsedCode  = int(C.MPI_LASTUSEDCODE)
	AppNum        = int(C.MPI_APPNUM)
)

// Limits of strings returned by MPI.
const (
	MaxInfoKey              = int(C.MPI_MAX_INFO_KEY)
	MaxInfoVal              = int(C.MPI_MAX_INFO_VAL)
	MaxErrorString          = int(C.MPI_MAX_ERROR_STRING)
	MaxObjectName           = int(C.MPI_MAX_OBJECT_NAME)
	MaxProcessorName        = int(C.MPI_MAX_PROCESSOR_NAME)
	MaxLibraryVersionString = int(C.MPI_MAX_LIBRARY_VERSION_STRING)
)

// Datatype combiners (Datatype.Envelope).
const (
	CombinerNamed      = int(C.MPI_COMBINER_NAMED)
	CombinerContiguous = int(C.MPI_COMBINER_CONTIGUOUS)
	CombinerVector     = int(C.MPI_COMBINER_VECTOR)
)

// Init initializes MPI (MPI_Init with argc/argv NULL).
func Init() error {
	return errOf(C.PMPI_Init(nil, nil), "MPI_Init")
}

// InitThread initializes MPI (MPI_Init_thread with argc/argv NULL) and
// returns the provided thread level.
func InitThread(required int) (int, error) {
	r := C.cspmpi_init_thread(C.int(required))
	return int(r.v), errOf(r.rc, "MPI_Init_thread")
}

// Finalize finalizes MPI.
func Finalize() error {
	return errOf(C.PMPI_Finalize(), "MPI_Finalize")
}

// Initialized reports whether MPI has been initialized.
func Initialized() (bool, error) {
	r := C.cspmpi_initialized()
	return r.v != 0, errOf(r.rc, "MPI_Initialized")
}

// Finalized reports whether MPI has been finalized.
func Finalized() (bool, error) {
	r := C.cspmpi_finalized()
	return r.v != 0, errOf(r.rc, "MPI_Finalized")
}

// Abort aborts all processes of comm's job with the given exit code.
func Abort(comm Comm, code int) error {
	return errOf(C.PMPI_Abort(comm.h, C.int(code)), "MPI_Abort")
}

// QueryThread returns the thread level provided by the MPI library.
func QueryThread() (int, error) {
	r := C.cspmpi_query_thread()
	return int(r.v), errOf(r.rc, "MPI_Query_thread")
}

// IsThreadMain reports whether the calling OS thread called MPI_Init[_thread].
func IsThreadMain() (bool, error) {
	r := C.cspmpi_is_thread_main()
	return r.v != 0, errOf(r.rc, "MPI_Is_thread_main")
}

// Wtime returns MPI_Wtime, in seconds.
func Wtime() float64 { return float64(C.PMPI_Wtime()) }

// Wtick returns the resolution of Wtime, in seconds.
func Wtick() float64 { return float64(C.PMPI_Wtick()) }

// GetVersion returns the MPI standard version implemented by the library.
func GetVersion() (major, minor int, err error) {
	r := C.cspmpi_get_version()
	return int(r.v), int(r.v2), errOf(r.rc, "MPI_Get_version")
}

// GetLibraryVersion returns the library's version string.
func GetLibraryVersion() (string, error) {
	buf := make([]byte, MaxLibraryVersionString+1)
	var n C.int
	rc := C.PMPI_Get_library_version((*C.char)(unsafe.Pointer(&buf[0])), &n)
	return cstr(buf, n), errOf(rc, "MPI_Get_library_version")
}

// GetProcessorName returns the name of the processor (host).
func GetProcessorName() (string, error) {
	buf := make([]byte, MaxProcessorName+1)
	var n C.int
	rc := C.PMPI_Get_processor_name((*C.char)(unsafe.Pointer(&buf[0])), &n)
	return cstr(buf, n), errOf(rc, "MPI_Get_processor_name")
}

// cstr returns buf[:n] cut at the first NUL.
func cstr(buf []byte, n C.int) string {
	m := int(n)
	if m < 0 || m > len(buf) {
		m = len(buf)
	}
	for i := 0; i < m; i++ {
		if buf[i] == 0 {
			m = i
			break
		}
	}
	return string(buf[:m])
}

// cint converts n to a C int, reporting whether it fits.
func cint(n int) (C.int, bool) {
	c := C.int(n)
	return c, int(c) == n
}
