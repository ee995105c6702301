// Package ccell reports the C compiler's view of struct csp_cell, so that
// tests can compare it with postcell.Cell. (cgo is not allowed in tests.)
package ccell

/*
#cgo CFLAGS: -Wall -Werror
#include <stddef.h>
#include "postcell.h"

#define F(name) { #name, offsetof(struct csp_cell, name), sizeof(((struct csp_cell *)0)->name) }
static const struct { const char *name; size_t off, size; } ccell_fields[] = {
	F(op), F(mode), F(flags), F(gen), F(slot), F(peer), F(tag), F(tag_mask),
	F(seg), F(target), F(off), F(nbytes), F(target_gen),
	F(st_source), F(st_tag), F(st_error), F(st_flags), F(st_bytes), F(st_msg), F(done),
};
static int ccell_nfields(void) { return sizeof(ccell_fields) / sizeof(ccell_fields[0]); }
static const char *ccell_name(int i) { return ccell_fields[i].name; }
static size_t ccell_off(int i) { return ccell_fields[i].off; }
static size_t ccell_size(int i) { return ccell_fields[i].size; }
static size_t ccell_sizeof(void) { return sizeof(struct csp_cell); }
static int ccell_const(int i) {
	switch (i) {
	case 0: return CSP_OP_SEND; case 1: return CSP_OP_SSEND; case 2: return CSP_OP_RECV;
	case 3: return CSP_OP_IPROBE; case 4: return CSP_OP_PROBE; case 5: return CSP_OP_IMPROBE;
	case 6: return CSP_OP_MPROBE; case 7: return CSP_OP_MRECV; case 8: return CSP_OP_CANCEL;
	case 9: return CSP_OP_SEGMENT; case 10: return CSP_OP_FINALIZE; case 11: return CSP_OP_MAX;
	case 12: return CSP_MATCH_NATIVE; case 13: return CSP_MATCH_GHOST;
	case 14: return CSP_CELL_F_BOUNCE; case 15: return CSP_ST_CANCELLED; case 16: return CSP_ST_FOUND;
	case 17: return (int)CSP_SEG_NONE;
	}
	return -1;
}
*/
import "C"

// Field is one member of struct csp_cell as the C compiler lays it out.
type Field struct {
	Name         string
	Offset, Size uintptr
}

// Fields lists the members of struct csp_cell in declaration order
// (reserved padding excluded).
func Fields() []Field {
	n := int(C.ccell_nfields())
	fs := make([]Field, n)
	for i := range fs {
		fs[i] = Field{C.GoString(C.ccell_name(C.int(i))), uintptr(C.ccell_off(C.int(i))), uintptr(C.ccell_size(C.int(i)))}
	}
	return fs
}

// Sizeof is sizeof(struct csp_cell).
func Sizeof() uintptr { return uintptr(C.ccell_sizeof()) }

// Constants returns the C values of the ops (send..max), modes, flags and
// CSP_SEG_NONE, in that order.
func Constants() []int64 {
	var out []int64
	for i := 0; i <= 17; i++ {
		out = append(out, int64(C.ccell_const(C.int(i))))
	}
	return out
}
