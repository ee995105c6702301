package mpi

/*
#include "cspmpi.h"
*/
import "C"

// Comm is an MPI communicator handle.
type Comm struct{ h C.MPI_Comm }

// Group is an MPI group handle.
type Group struct{ h C.MPI_Group }

// Request is an MPI request handle. It has the size and layout of
// MPI_Request, so a []Request can be passed to C as an MPI_Request array.
type Request struct{ h C.MPI_Request }

// Datatype is an MPI datatype handle.
type Datatype struct{ h C.MPI_Datatype }

// Info is an MPI info object handle.
type Info struct{ h C.MPI_Info }

// Win is an MPI window handle.
type Win struct{ h C.MPI_Win }

// Message is an MPI matched-message handle (MPI_Improbe, MPI_Mprobe).
type Message struct{ h C.MPI_Message }

// Op is an MPI reduction operation handle.
type Op struct{ h C.MPI_Op }

// Errhandler is an MPI error handler handle.
type Errhandler struct{ h C.MPI_Errhandler }

// Predefined communicators.
var (
	CommWorld = Comm{C.MPI_COMM_WORLD}
	CommSelf  = Comm{C.MPI_COMM_SELF}
	CommNull  = Comm{C.MPI_COMM_NULL}
)

// Predefined groups.
var (
	GroupEmpty = Group{C.MPI_GROUP_EMPTY}
	GroupNull  = Group{C.MPI_GROUP_NULL}
)

// Null and special requests and messages.
var (
	RequestNull   = Request{C.MPI_REQUEST_NULL}
	MessageNull   = Message{C.MPI_MESSAGE_NULL}
	MessageNoProc = Message{C.MPI_MESSAGE_NO_PROC}
)

// Predefined info objects.
var (
	InfoNull = Info{C.MPI_INFO_NULL}
	InfoEnv  = Info{C.MPI_INFO_ENV}
)

// WinNull is the null window.
var WinNull = Win{C.MPI_WIN_NULL}

// Predefined error handlers.
var (
	ErrhandlerNull = Errhandler{C.MPI_ERRHANDLER_NULL}
	ErrorsAreFatal = Errhandler{C.MPI_ERRORS_ARE_FATAL}
	ErrorsReturn   = Errhandler{C.MPI_ERRORS_RETURN}
	ErrorsAbort    = Errhandler{C.MPI_ERRORS_ABORT}
)

// Predefined reduction operations.
var (
	OpNull    = Op{C.MPI_OP_NULL}
	OpMax     = Op{C.MPI_MAX}
	OpMin     = Op{C.MPI_MIN}
	OpSum     = Op{C.MPI_SUM}
	OpProd    = Op{C.MPI_PROD}
	OpLand    = Op{C.MPI_LAND}
	OpBand    = Op{C.MPI_BAND}
	OpLor     = Op{C.MPI_LOR}
	OpBor     = Op{C.MPI_BOR}
	OpLxor    = Op{C.MPI_LXOR}
	OpBxor    = Op{C.MPI_BXOR}
	OpMinloc  = Op{C.MPI_MINLOC}
	OpMaxloc  = Op{C.MPI_MAXLOC}
	OpReplace = Op{C.MPI_REPLACE}
	OpNoOp    = Op{C.MPI_NO_OP}
)

// Predefined datatypes.
var (
	DatatypeNull     = Datatype{C.MPI_DATATYPE_NULL}
	Byte             = Datatype{C.MPI_BYTE}
	Packed           = Datatype{C.MPI_PACKED}
	Char             = Datatype{C.MPI_CHAR}
	SignedChar       = Datatype{C.MPI_SIGNED_CHAR}
	UnsignedChar     = Datatype{C.MPI_UNSIGNED_CHAR}
	Short            = Datatype{C.MPI_SHORT}
	UnsignedShort    = Datatype{C.MPI_UNSIGNED_SHORT}
	Int              = Datatype{C.MPI_INT}
	Unsigned         = Datatype{C.MPI_UNSIGNED}
	Long             = Datatype{C.MPI_LONG}
	UnsignedLong     = Datatype{C.MPI_UNSIGNED_LONG}
	LongLong         = Datatype{C.MPI_LONG_LONG}
	UnsignedLongLong = Datatype{C.MPI_UNSIGNED_LONG_LONG}
	Float            = Datatype{C.MPI_FLOAT}
	Double           = Datatype{C.MPI_DOUBLE}
	Int8             = Datatype{C.MPI_INT8_T}
	Int16            = Datatype{C.MPI_INT16_T}
	Int32            = Datatype{C.MPI_INT32_T}
	Int64            = Datatype{C.MPI_INT64_T}
	Uint8            = Datatype{C.MPI_UINT8_T}
	Uint16           = Datatype{C.MPI_UINT16_T}
	Uint32           = Datatype{C.MPI_UINT32_T}
	Uint64           = Datatype{C.MPI_UINT64_T}
	CBool            = Datatype{C.MPI_C_BOOL}
	Aint             = Datatype{C.MPI_AINT}
	Offset           = Datatype{C.MPI_OFFSET}
	Count            = Datatype{C.MPI_COUNT}
)

// Raw returns the MPICH integer handle, for the runtime's C code.
func (c Comm) Raw() int32 { return int32(c.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (g Group) Raw() int32 { return int32(g.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (r Request) Raw() int32 { return int32(r.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (d Datatype) Raw() int32 { return int32(d.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (i Info) Raw() int32 { return int32(i.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (w Win) Raw() int32 { return int32(w.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (m Message) Raw() int32 { return int32(m.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (o Op) Raw() int32 { return int32(o.h) }

// Raw returns the MPICH integer handle, for the runtime's C code.
func (e Errhandler) Raw() int32 { return int32(e.h) }

// CommFromRaw wraps an MPICH integer handle coming from C code.
func CommFromRaw(h int32) Comm { return Comm{C.MPI_Comm(h)} }

// GroupFromRaw wraps an MPICH integer handle coming from C code.
func GroupFromRaw(h int32) Group { return Group{C.MPI_Group(h)} }

// RequestFromRaw wraps an MPICH integer handle coming from C code (for
// example a generalized request started by the runtime's C code).
func RequestFromRaw(h int32) Request { return Request{C.MPI_Request(h)} }

// DatatypeFromRaw wraps an MPICH integer handle coming from C code.
func DatatypeFromRaw(h int32) Datatype { return Datatype{C.MPI_Datatype(h)} }

// InfoFromRaw wraps an MPICH integer handle coming from C code.
func InfoFromRaw(h int32) Info { return Info{C.MPI_Info(h)} }

// WinFromRaw wraps an MPICH integer handle coming from C code.
func WinFromRaw(h int32) Win { return Win{C.MPI_Win(h)} }

// MessageFromRaw wraps an MPICH integer handle coming from C code.
func MessageFromRaw(h int32) Message { return Message{C.MPI_Message(h)} }

// OpFromRaw wraps an MPICH integer handle coming from C code.
func OpFromRaw(h int32) Op { return Op{C.MPI_Op(h)} }

// ErrhandlerFromRaw wraps an MPICH integer handle coming from C code.
func ErrhandlerFromRaw(h int32) Errhandler { return Errhandler{C.MPI_Errhandler(h)} }

// IsNull reports whether c is CommNull.
func (c Comm) IsNull() bool { return c.h == C.MPI_COMM_NULL }

// IsNull reports whether g is GroupNull.
func (g Group) IsNull() bool { return g.h == C.MPI_GROUP_NULL }

// IsNull reports whether r is RequestNull.
func (r Request) IsNull() bool { return r.h == C.MPI_REQUEST_NULL }

// IsNull reports whether d is DatatypeNull.
func (d Datatype) IsNull() bool { return d.h == C.MPI_DATATYPE_NULL }

// IsNull reports whether i is InfoNull.
func (i Info) IsNull() bool { return i.h == C.MPI_INFO_NULL }

// IsNull reports whether w is WinNull.
func (w Win) IsNull() bool { return w.h == C.MPI_WIN_NULL }

// IsNull reports whether m is MessageNull.
func (m Message) IsNull() bool { return m.h == C.MPI_MESSAGE_NULL }
