// Package cgreq exposes greq's C records and handles to tests (cgo is not
// allowed in _test.go files).
package cgreq

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -O2 -Wall -Werror
#include "greq.h"
enum { KeptField = 4242 };
// An owner's struct around the record, as the user side's (op.h) is.
struct owner { struct csp_req r; char fields[128]; };
static void *cgreq_alloc(void) { return csp_req_alloc(sizeof(struct owner)); }
static void cgreq_release(void *r) { csp_req_release(r); }
static int cgreq_start(void *r) { MPI_Request h; ((struct csp_req *)r)->state = CSP_OPS_POSTED; csp_req_start(r, &h); return (int)h; }
static void *cgreq_lookup(int h) { return csp_req_lookup((MPI_Request)h, sizeof(struct owner)); }
static int cgreq_complete(void *p, int *src, int *tag, int *err, int *canc, int *req_after) {
	MPI_Status st;
	st.MPI_SOURCE = st.MPI_TAG = KeptField;
	st.MPI_ERROR = KeptField;
	struct csp_req *r = p;
	MPI_Request h = r->req;
	int rc = csp_req_result(r, &h, &st);
	csp_req_release(r);
	*src = st.MPI_SOURCE; *tag = st.MPI_TAG; *err = st.MPI_ERROR;
	PMPI_Test_cancelled(&st, canc);
	*req_after = (int)h;
	return rc;
}
static void cgreq_set_result(void *p, int src, int tag, int err, long long bytes, int canc) {
	struct csp_req *r = p;
	r->st_source = src; r->st_tag = tag; r->st_error = err; r->st_bytes = bytes; r->st_cancelled = canc;
	r->state = CSP_OPS_DONE;
}
static void cgreq_mark_send(void *r) { ((struct csp_req *)r)->send = 1; }
static int cgreq_null(void) { return (int)MPI_REQUEST_NULL; }
*/
import "C"

import (
	"unsafe"

	_ "github.com/casperii/casperii/greq" // links greq.c
)

// Op is an opaque operation record.
type Op unsafe.Pointer

// Alloc returns a fresh record.
func Alloc() Op { return Op(C.cgreq_alloc()) }

// Release returns a record.
func Release(op Op) { C.cgreq_release(unsafe.Pointer(op)) }

// Start gives op a handle and returns it.
func Start(op Op) int32 { return int32(C.cgreq_start(unsafe.Pointer(op))) }

// Lookup returns the record of handle r, nil if r is not a live handle.
func Lookup(r int32) Op { return Op(C.cgreq_lookup(C.int(r))) }

// SetResult stores a result in op and marks it done.
func SetResult(op Op, src, tag, err int, bytes int64, cancelled bool) {
	c := 0
	if cancelled {
		c = 1
	}
	C.cgreq_set_result(unsafe.Pointer(op), C.int(src), C.int(tag), C.int(err), C.longlong(bytes), C.int(c))
}

// Complete completes op's handle as MPI_Wait would (csp_req_result, then
// the owner returns the record): the status, and the handle afterwards
// (MPI_REQUEST_NULL).
func Complete(op Op) (rc, src, tag, err int, cancelled bool, after int32) {
	var s, t, e, c, a C.int
	r := C.cgreq_complete(unsafe.Pointer(op), &s, &t, &e, &c, &a)
	return int(r), int(s), int(t), int(e), c != 0, int32(a)
}

// KeptField is what Complete's status holds in its source, tag and error
// fields before the completion: a field still holding it was not written.
const KeptField = C.KeptField

// MarkSend makes op a send (its status carries only the cancelled flag).
func MarkSend(op Op) { C.cgreq_mark_send(unsafe.Pointer(op)) }

// Null is MPI_REQUEST_NULL.
func Null() int32 { return int32(C.cgreq_null()) }
