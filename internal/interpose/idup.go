package interpose

/*
#include <stdlib.h>
#include "interpose.h"
*/
import "C"

import (
	"runtime/cgo"
	"unsafe"

	"github.com/casperii/casperii/internal/core"
)

// pending is what idup.c holds between MPI_Comm_idup and the completion of
// its request: the runtime's half-made plan.
type pending struct {
	p      *core.PendingPlan
	nwords int
}

//export csp_go_idup_propose
func csp_go_idup_propose(parent, inf C.int, plan *C.uintptr_t, words **C.uint64_t, nwords *C.int) C.int {
	p, w, err := core.Current().ProposeDup(comm(parent), infoOf(inf))
	if err != nil {
		return C.int(codeOf(err))
	}
	*plan = C.uintptr_t(cgo.NewHandle(pending{p, len(w)}))
	*nwords = C.int(len(w))
	*words = nil
	if len(w) > 0 {
		// C memory: MPI reads and writes it after this call returns.
		buf := (*C.uint64_t)(C.calloc(C.size_t(2*len(w)), 8))
		if buf == nil {
			core.Current().DecideDup(p, comm(C.int(C.MPI_COMM_NULL)), nil)
			cgo.Handle(*plan).Delete()
			return C.MPI_ERR_NO_MEM
		}
		copy(unsafe.Slice((*uint64)(unsafe.Pointer(buf)), len(w)), w)
		*words = buf
	}
	return C.MPI_SUCCESS
}

//export csp_go_idup_decide
func csp_go_idup_decide(plan C.uintptr_t, newcomm C.int, reduced *C.uint64_t) C.int {
	h := cgo.Handle(plan)
	pd := h.Value().(pending)
	h.Delete()
	var red []uint64
	if reduced != nil {
		red = unsafe.Slice((*uint64)(unsafe.Pointer(reduced)), pd.nwords)
	}
	return C.int(codeOf(core.Current().DecideDup(pd.p, comm(newcomm), red)))
}
