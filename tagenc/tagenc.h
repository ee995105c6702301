/*
 * tagenc.h: the tag layout, the one definition of how an internal MPI tag
 * carries the routing fields (package tagenc builds the layouts; its Go
 * constants and its C view, struct csp_tags, are generated from this file:
 * tagenc/layout_defs.go, layout_gen.go).
 *
 * From high to low bits an internal tag is
 *
 *     [ flags | ctx | src offset | dst offset | user tag ]
 *
 * with CSP_TAG_FLAG_BITS flag bits, a context field, two offset fields of
 * equal width and at least CSP_TAG_MIN_USER_BITS user tag bits. Go picks
 * the widths for a job (tagenc.NewWithContexts) and hands C the positions
 * (tagenc.Layout.CTags); C encodes on the post path (csp_tag_encode) with
 * the same formula as tagenc.Layout.EncodeUnchecked, which
 * tagenc/internal/ctags checks.
 */
#ifndef CASPERII_TAGENC_H
#define CASPERII_TAGENC_H

#include <stdint.h>

#define CSP_TAG_FLAG_BITS 2        /* width of the flags field, the highest */
#define CSP_TAG_FLAG_SYNC 1        /* flag bit: synchronous send            */
#define CSP_TAG_FLAG_ACK 2         /* flag bit: acknowledgement             */
#define CSP_TAG_MIN_USER_BITS 15   /* user tag width giving MPI_TAG_UB 32767 */
#define CSP_TAG_MIN_UB 32767       /* smallest MPI_TAG_UB MPI allows        */
#define CSP_TAG_DEFAULT_CTX_BITS 6 /* context width tagenc.New asks for     */

/* The positions of a layout's fields (tagenc.Layout.CTags): a field's
 * value is (tag >> shift) & mask. The user tag's shift is 0; the two
 * offset fields share off_mask. exposed_ub is the MPI_TAG_UB the
 * application sees (its bound on user tags, set even without a layout). */
struct csp_tags {
    int32_t exposed_ub;
    int32_t user_bits;
    int32_t dst_shift, src_shift, ctx_shift, flag_shift;
    uint32_t user_mask, off_mask, ctx_mask, flag_mask;
};

/* The internal tag of fields already checked against their ranges. */
static inline int csp_tag_encode(const struct csp_tags *t, uint32_t flags, uint32_t ctx,
                                 uint32_t src, uint32_t dst, uint32_t tag)
{
    return (int)(flags << t->flag_shift | ctx << t->ctx_shift | src << t->src_shift |
                 dst << t->dst_shift | tag);
}

#endif /* CASPERII_TAGENC_H */
