package user

/*
#include "user.h"
*/
import "C"

// ErrorTexts returns the error codes the fast path registered at Start
// with their one-line messages. The interposer answers MPI_Error_string
// for them itself: MPICH 4.0.2 loses the string of a code added to a
// predefined class (MPI_Add_error_code returns it without the dynamic-code
// bit, so MPI_Error_string decodes it as one of its own generic messages).
func ErrorTexts() map[int]string {
	m := map[int]string{}
	if !started {
		return m
	}
	for i, e := range errorMessages {
		m[int(C.csp_u.errcode[i])] = e.msg
	}
	return m
}
