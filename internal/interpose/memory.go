package interpose

/*
#include "interpose.h"
*/
import "C"

import "github.com/casperii/casperii/internal/core"

// csp_go_alloc_regist tells MPI_Alloc_mem whether info asks for memory the
// ghost can map (shmbuf_regist=true).
//
//export csp_go_alloc_regist
func csp_go_alloc_regist(inf C.int, regist *C.int) C.int {
	ok, err := core.ShmbufRegist(infoOf(inf))
	if err != nil {
		return C.int(codeOf(err))
	}
	if ok {
		*regist = 1
	}
	return C.MPI_SUCCESS
}
