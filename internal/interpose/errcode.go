package interpose

/*
#include <stdlib.h>
#include "interpose.h"
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	"github.com/casperii/casperii/internal/core"
	"github.com/casperii/casperii/internal/mpi"
)

// codes caches the error codes registered for the runtime's messages: one
// MPI error code per distinct (class, message), so an application that
// hits the same error repeatedly does not exhaust MPI's code space.
var codes struct {
	sync.Mutex
	m map[codeKey]int
}

type codeKey struct {
	class int
	msg   string
}

// codeOf returns the MPI error code to hand the application for err: MPI's
// own code for an MPI error, else a code of err's class (core.ErrorClass:
// MPI_ERR_INFO_VALUE for a bad hint, MPI_ERR_PENDING, ...) whose error
// string is err's one-line message.
func codeOf(err error) int {
	if err == nil {
		return mpi.Success
	}
	var me *mpi.Error
	if errors.As(err, &me) && me.Code != mpi.Success {
		return me.Code
	}
	return registered(core.ErrorClass(err), err.Error())
}

// registered returns the error code of class carrying msg, registering it
// with MPI the first time. If MPI refuses, the bare class is returned.
func registered(class int, msg string) int {
	if class == mpi.Success {
		class = mpi.ErrOther
	}
	if len(msg) >= mpi.MaxErrorString {
		msg = msg[:mpi.MaxErrorString-4] + "..."
	}
	codes.Lock()
	defer codes.Unlock()
	k := codeKey{class, msg}
	if c, ok := codes.m[k]; ok {
		return c
	}
	c, err := mpi.AddErrorCode(class)
	if err != nil {
		return class
	}
	if err := mpi.AddErrorString(c, msg); err != nil {
		return class
	}
	if codes.m == nil {
		codes.m = map[codeKey]int{}
	}
	codes.m[k] = c
	errText(c, msg)
	return c
}

// errText makes MPI_Error_string answer msg for code (errstring.c).
func errText(code int, msg string) {
	cs := C.CString(msg)
	C.csp_ip_errtext_add(C.int(code), cs)
	C.free(unsafe.Pointer(cs))
}
