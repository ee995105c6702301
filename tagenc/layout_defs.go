//go:build ignore

// The Go view of tagenc.h, the one definition of the tag layout's fixed
// widths and of struct csp_tags, written by layoutgen (go generate) from
// layout_defs.go with every C reference replaced by what the C compiler
// says. Edit tagenc.h or layout_defs.go, never layout_gen.go;
// TestLayoutGenerated fails while they disagree.

package tagenc

/*
#include "tagenc.h"
*/
import "C"

const (
	// FlagBits is the width of the flags field, the highest field of a tag.
	FlagBits = C.CSP_TAG_FLAG_BITS

	// FlagSync and FlagAck name the two flag bits. Their meaning is the
	// caller's; tagenc only stores them.
	FlagSync = C.CSP_TAG_FLAG_SYNC
	FlagAck  = C.CSP_TAG_FLAG_ACK

	// DefaultCtxBits is the context width New asks for.
	DefaultCtxBits = C.CSP_TAG_DEFAULT_CTX_BITS

	// MinTagUB is the smallest MPI_TAG_UB the MPI standard allows. Both
	// the implementation's bound given to New and the exposed bound a
	// Layout gives the application are at least MinTagUB.
	MinTagUB = C.CSP_TAG_MIN_UB

	// minUserBits is the user tag width that gives ExposedTagUB == MinTagUB.
	minUserBits = C.CSP_TAG_MIN_USER_BITS
)

// CTags is struct csp_tags, the positions of a layout's fields as the C
// fast path reads them (Layout.CTags fills it).
type CTags C.struct_csp_tags
