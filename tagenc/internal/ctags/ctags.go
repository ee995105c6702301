// Package ctags runs the C encoder of tagenc.h (csp_tag_encode, the one
// the user side's post path calls) from Go, so that tests of package
// tagenc can check it against Layout.EncodeUnchecked. It exists because
// _test.go files cannot use cgo.
//
// tagenc.h in this directory is a symbolic link to ../../tagenc.h: the go
// command hashes only the headers inside a package's directory when it
// decides what to rebuild.
package ctags

/*
#cgo CFLAGS: -std=c11 -Wall -Wextra
#include "tagenc.h"
*/
import "C"

import (
	"unsafe"

	"github.com/casperii/casperii/tagenc"
)

// Encode returns csp_tag_encode(&t, flags, ctx, src, dst, tag).
func Encode(t tagenc.CTags, flags, ctx, src, dst, tag int) int {
	ct := (*C.struct_csp_tags)(unsafe.Pointer(&t))
	return int(C.csp_tag_encode(ct, C.uint32_t(flags), C.uint32_t(ctx), C.uint32_t(src),
		C.uint32_t(dst), C.uint32_t(tag)))
}

// Size is sizeof(struct csp_tags).
const Size = C.sizeof_struct_csp_tags
