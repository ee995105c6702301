// Package csptest gives the integration-test programs the runtime's C entry
// points that the Go API (package casperii) does not expose yet:
// MPI_Sendrecv, and the multiple-completion calls that return statuses
// (MPI_Waitall with statuses, MPI_Waitany, MPI_Testsome), with every field
// of MPI_Status including MPI_ERROR. They call the same C fast path
// (internal/user) as the interposer's MPI_* symbols will.
//
// The Go API keeps its handles unexported; this package reads them through
// unsafe, and checks at start-up that the layouts it relies on still hold.
package csptest

/*
#cgo pkg-config: mpich
#include <mpi.h>

int csp_sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st);
int csp_waitall(int n, MPI_Request reqs[], MPI_Status sts[]);
int csp_waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st);
int csp_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[]);

static int csp_test_count(MPI_Status *st)
{
	int n = -1;
	if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS)
		return -2;
	return n;
}

static void csp_test_fill(MPI_Status *st, int n)
{
	for (int i = 0; i < n; i++) {
		st[i].MPI_SOURCE = -7;
		st[i].MPI_TAG = -7;
		st[i].MPI_ERROR = MPI_SUCCESS;
	}
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/casperii/casperii/casperii"
	"github.com/casperii/casperii/internal/mpi"
	_ "github.com/casperii/casperii/internal/user" // defines the csp_* symbols
)

// Both handles sit first in their Go API structs: casperii.Comm is
// struct{ mpi.Comm } and casperii.Request struct{ mpi.Request; pinner }.
func init() {
	if unsafe.Sizeof(casperii.Comm{}) != unsafe.Sizeof(C.MPI_Comm(0)) {
		panic("csptest: casperii.Comm is no longer a bare MPI_Comm handle; update csptest")
	}
}

func comm(c casperii.Comm) C.MPI_Comm { return *(*C.MPI_Comm)(unsafe.Pointer(&c)) }

func handle(r *casperii.Request) *C.MPI_Request { return (*C.MPI_Request)(unsafe.Pointer(r)) }

// Status is a complete MPI_Status.
type Status struct {
	Source, Tag, Error int
	Count              int // MPI_Get_count in bytes
}

func status(st *C.MPI_Status) Status {
	return Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Error: int(st.MPI_ERROR),
		Count: int(C.csp_test_count(st))}
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// Sendrecv is MPI_Sendrecv of bytes.
func Sendrecv(sbuf []byte, dest, stag int, rbuf []byte, src, rtag int, c casperii.Comm) (Status, error) {
	var st C.MPI_Status
	C.csp_test_fill(&st, 1)
	rc := C.csp_sendrecv(ptr(sbuf), C.int(len(sbuf)), C.MPI_BYTE, C.int(dest), C.int(stag),
		ptr(rbuf), C.int(len(rbuf)), C.MPI_BYTE, C.int(src), C.int(rtag), comm(c), &st)
	return status(&st), mpi.CodeError(int(rc), "MPI_Sendrecv")
}

// release lets the Go API forget requests completed here (it unpins their
// buffers): Wait on MPI_REQUEST_NULL returns at once.
func release(reqs []*casperii.Request) {
	for _, r := range reqs {
		if *handle(r) == C.MPI_REQUEST_NULL {
			_, _ = r.Wait()
		}
	}
}

func handles(reqs []*casperii.Request) []C.MPI_Request {
	hs := make([]C.MPI_Request, len(reqs))
	for i, r := range reqs {
		hs[i] = *handle(r)
	}
	return hs
}

func store(reqs []*casperii.Request, hs []C.MPI_Request) {
	for i, r := range reqs {
		*handle(r) = hs[i]
	}
	release(reqs)
}

// Waitall is MPI_Waitall with statuses. Statuses are preset with source
// and tag -7 and error MPI_SUCCESS, so a field MPI did not fill shows.
func Waitall(reqs ...*casperii.Request) ([]Status, error) {
	n := len(reqs)
	if n == 0 {
		return nil, nil
	}
	hs := handles(reqs)
	sts := make([]C.MPI_Status, n)
	C.csp_test_fill(&sts[0], C.int(n))
	rc := C.csp_waitall(C.int(n), &hs[0], &sts[0])
	store(reqs, hs)
	out := make([]Status, n)
	for i := range sts {
		out[i] = status(&sts[i])
	}
	return out, mpi.CodeError(int(rc), "MPI_Waitall")
}

// Waitany is MPI_Waitany: the index completed (-1 for MPI_UNDEFINED) and
// its status.
func Waitany(reqs ...*casperii.Request) (int, Status, error) {
	n := len(reqs)
	if n == 0 {
		return -1, Status{}, nil
	}
	hs := handles(reqs)
	var st C.MPI_Status
	C.csp_test_fill(&st, 1)
	var idx C.int
	rc := C.csp_waitany(C.int(n), &hs[0], &idx, &st)
	store(reqs, hs)
	if idx == C.MPI_UNDEFINED {
		return -1, status(&st), mpi.CodeError(int(rc), "MPI_Waitany")
	}
	return int(idx), status(&st), mpi.CodeError(int(rc), "MPI_Waitany")
}

// Testsome is MPI_Testsome: the indices completed and their statuses.
func Testsome(reqs ...*casperii.Request) ([]int, []Status, error) {
	n := len(reqs)
	if n == 0 {
		return nil, nil, nil
	}
	hs := handles(reqs)
	sts := make([]C.MPI_Status, n)
	C.csp_test_fill(&sts[0], C.int(n))
	idx := make([]C.int, n)
	var outcount C.int
	rc := C.csp_testsome(C.int(n), &hs[0], &outcount, &idx[0], &sts[0])
	store(reqs, hs)
	if err := mpi.CodeError(int(rc), "MPI_Testsome"); err != nil {
		return nil, nil, err
	}
	if outcount == C.MPI_UNDEFINED {
		return nil, nil, fmt.Errorf("MPI_Testsome: MPI_UNDEFINED (no active request)")
	}
	ix := make([]int, outcount)
	st := make([]Status, outcount)
	for i := range ix {
		ix[i] = int(idx[i])
		st[i] = status(&sts[i])
	}
	return ix, st, nil
}
