// Package cgreq exposes greq's C request table to tests (cgo is not
// allowed in _test.go files).
package cgreq

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -I${SRCDIR}/../.. -O2 -Wall -Werror
#include "greq.h"
static void *cgreq_alloc(void) { return csp_op_alloc(); }
static void cgreq_release(void *op) { csp_op_release(op); }
static int cgreq_put(int r, void *op) { return csp_greq_put((MPI_Request)r, op); }
static void *cgreq_get(int r) { return csp_greq_lookup((MPI_Request)r); }
static void cgreq_forget(int r) { csp_greq_forget((MPI_Request)r); }
static void cgreq_set_result(void *p, int src, int tag, int err, long long bytes, int canc) {
	struct csp_op *op = p;
	op->st_source = src; op->st_tag = tag; op->st_error = err; op->st_bytes = bytes; op->st_cancelled = canc;
}
static int cgreq_query(void *op, int *src, int *tag, int *err, int *canc) {
	MPI_Status st;
	int rc = csp_greq_query(op, &st);
	*src = st.MPI_SOURCE; *tag = st.MPI_TAG; *err = st.MPI_ERROR;
	PMPI_Test_cancelled(&st, canc);
	return rc;
}
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

// Put enters request r -> op.
func Put(r int32, op Op) bool { return C.cgreq_put(C.int(r), unsafe.Pointer(op)) == 0 }

// Get looks r up.
func Get(r int32) Op { return Op(C.cgreq_get(C.int(r))) }

// Forget removes r.
func Forget(r int32) { C.cgreq_forget(C.int(r)) }

// SetResult stores a result in op.
func SetResult(op Op, src, tag, err int, bytes int64, cancelled bool) {
	c := 0
	if cancelled {
		c = 1
	}
	C.cgreq_set_result(unsafe.Pointer(op), C.int(src), C.int(tag), C.int(err), C.longlong(bytes), C.int(c))
}

// Query runs the MPI query callback on op.
func Query(op Op) (rc, src, tag, err int, cancelled bool) {
	var s, t, e, c C.int
	r := C.cgreq_query(unsafe.Pointer(op), &s, &t, &e, &c)
	return int(r), int(s), int(t), int(e), c != 0
}
