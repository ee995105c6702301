package interpose

/*
#cgo pkg-config: mpich
#cgo CFLAGS: -O3 -Wall -Werror
#include "interpose.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/casperii/casperii/internal/core"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/user"
)

// The hooks below are called from the C wrappers with MPI handles as C
// ints (MPICH handles are ints). Each returns an MPI error code: a hook
// never raises an error itself; the C wrapper raises it through the right
// error handler.

// At library load the process's threads are its main thread and the Go
// runtime's: the runtime lowers the latter's priority where the ghost
// shares the application's core (internal/core/priority.go).
func init() { core.NoteRuntimeThreads() }

func comm(h C.int) mpi.Comm   { return mpi.CommFromRaw(int32(h)) }
func infoOf(h C.int) mpi.Info { return mpi.InfoFromRaw(int32(h)) }

//export csp_go_init
func csp_go_init(required C.int, provided, world, isUser, tagUB *C.int) C.int {
	p, err := core.Init(int(required)) // a ghost never returns
	if err != nil {
		var ie *core.InitError
		if errors.As(err, &ie) {
			return C.CSP_IP_INIT_FAILED
		}
		return C.int(codeOf(err))
	}
	r := core.Current()
	*provided = C.int(p)
	*world = C.int(r.UserWorld().Raw())
	if r.Role() == core.RoleUser && user.Started() {
		*isUser = 1
	}
	*tagUB = C.int(r.ExposedTagUB())
	for code, msg := range user.ErrorTexts() {
		errText(code, msg)
	}
	if n := int(C.csp_f08_nbound); n > 0 && r.Role() == core.RoleUser {
		r.Verbosef(2, "mpi_f08: %d of MPICH's Fortran bindings call the wrappers (fortran_f08.c)", n)
	}
	return C.MPI_SUCCESS
}

//export csp_go_finalize
func csp_go_finalize() C.int {
	if core.Current() == nil {
		return C.PMPI_Finalize()
	}
	closeWindows()
	return C.int(codeOf(core.Finalize()))
}

//export csp_go_comm_created
func csp_go_comm_created(parent, newcomm, inf C.int) C.int {
	return C.int(codeOf(core.Current().CommCreated(comm(parent), comm(newcomm), infoOf(inf))))
}

//export csp_go_comm_set_info
func csp_go_comm_set_info(c, inf C.int) C.int {
	return C.int(codeOf(core.Current().CommSetInfo(comm(c), infoOf(inf))))
}

//export csp_go_comm_set_info_agreed
func csp_go_comm_set_info_agreed(c, inf C.int, sum *C.int64_t) C.int {
	s := (*[core.AgreementFields]int64)(unsafe.Pointer(sum))
	return C.int(codeOf(core.Current().CommSetInfoAgreed(comm(c), infoOf(inf), s)))
}

//export csp_go_coll_check
func csp_go_coll_check(c, n C.int, site C.uintptr_t) C.int {
	return C.int(codeOf(core.Current().CollCheck(comm(c), int(n), uintptr(site))))
}

//export csp_go_comm_get_info
func csp_go_comm_get_info(c, inf C.int) C.int {
	out := infoOf(inf)
	for _, kv := range core.Current().CommInfoPairs(comm(c)) {
		if err := out.Set(kv[0], kv[1]); err != nil {
			return C.int(codeOf(err))
		}
	}
	return C.MPI_SUCCESS
}

//export csp_go_comm_freed
func csp_go_comm_freed(c C.int) {
	core.Current().CommFreed(comm(c))
}

//export csp_go_error_code
func csp_go_error_code(class C.int, msg *C.char) C.int {
	return C.int(registered(int(class), C.GoString(msg)))
}
