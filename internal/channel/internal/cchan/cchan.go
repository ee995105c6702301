// Package cchan reports the C compiler's view of channel.h for tests.
package cchan

/*
#cgo CFLAGS: -Wall -Werror
#include <stddef.h>
#include "channel.h"
#define F(s, name) { #s "." #name, offsetof(struct s, name) }
static const struct { const char *name; size_t off; } cchan_fields[] = {
	F(csp_chan_hdr, magic), F(csp_chan_hdr, version), F(csp_chan_hdr, ncells), F(csp_chan_hdr, ring_cap),
	F(csp_chan_hdr, ring_off), F(csp_chan_hdr, cells_off), F(csp_chan_hdr, size), F(csp_chan_hdr, user_wrank),
	F(csp_chan_hdr, user_pid), F(csp_chan_hdr, user_state), F(csp_chan_hdr, user_sleeping), F(csp_chan_hdr, wait_cell), F(csp_chan_hdr, wait_also), F(csp_chan_hdr, give_seq), F(csp_chan_hdr, wake),
	F(csp_ghost_hdr, magic), F(csp_ghost_hdr, version), F(csp_ghost_hdr, ghost_wrank), F(csp_ghost_hdr, ghost_pid), F(csp_ghost_hdr, membarrier),
	F(csp_ghost_hdr, doorbell), F(csp_ghost_hdr, parked), F(csp_ghost_hdr, state), F(csp_ghost_hdr, busy),
	F(csp_seg_entry, size), F(csp_seg_entry, fd), F(csp_seg_entry, gen),
};
static int cchan_n(void) { return sizeof(cchan_fields) / sizeof(cchan_fields[0]); }
static const char *cchan_name(int i) { return cchan_fields[i].name; }
static size_t cchan_off(int i) { return cchan_fields[i].off; }
static size_t cchan_sizes(int i) {
	switch (i) { case 0: return sizeof(struct csp_chan_hdr); case 1: return sizeof(struct csp_ghost_hdr); case 2: return sizeof(struct csp_seg_entry); }
	return 0;
}
static long cchan_const(int i) {
	switch (i) {
	case 0: return CSP_CHAN_MAGIC; case 1: return CSP_GHOST_MAGIC; case 2: return CSP_CHAN_VERSION;
	case 3: return CSP_MAX_SEGS; case 4: return CSP_CHAN_SEGTAB_OFF; case 5: return CSP_CHAN_HDR_BYTES;
	case 6: return CSP_USER_RUNNING; case 7: return CSP_USER_FINALIZED; case 8: return CSP_GHOST_RUNNING; case 9: return CSP_GHOST_EXITED; case 10: return CSP_WAIT_ANY; case 11: return CSP_WAIT_GIVE;
	}
	return -1;
}
*/
import "C"

// Offsets returns "struct.field" -> offsetof.
func Offsets() map[string]uintptr {
	m := map[string]uintptr{}
	for i := 0; i < int(C.cchan_n()); i++ {
		m[C.GoString(C.cchan_name(C.int(i)))] = uintptr(C.cchan_off(C.int(i)))
	}
	return m
}

// Sizes returns the sizes of csp_chan_hdr, csp_ghost_hdr, csp_seg_entry.
func Sizes() [3]uintptr {
	return [3]uintptr{uintptr(C.cchan_sizes(0)), uintptr(C.cchan_sizes(1)), uintptr(C.cchan_sizes(2))}
}

// Constants returns the C constants in a fixed order (see cchan_const).
func Constants() []int64 {
	var out []int64
	for i := 0; i < 12; i++ {
		out = append(out, int64(C.cchan_const(C.int(i))))
	}
	return out
}
