/*
 * op.h: an offloaded operation as the user side keeps it: greq's record
 * (greq.h: handle, state, result) first, and beside it what only the user
 * side knows: the communicator, the application's buffer and datatype,
 * the bounce block, and the cell request line kept until a cell is free.
 * greq allocates records of sizeof(struct csp_op) bytes and finds them by
 * handle; the helpers below pass that size as a constant.
 */
#ifndef CASPERII_USER_OP_H
#define CASPERII_USER_OP_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "greq.h"

struct csp_comm; /* user.h */

struct csp_op {
    struct csp_req r;      /* greq's record: handle, state, result (first)       */
    uint32_t cell;         /* cell index while POSTED                             */
    uint32_t gen;          /* the cell's generation for this operation            */
    uint8_t kind;          /* enum csp_cell_op (postcell.h)                       */
    uint8_t cls;           /* backlog class while HELD                            */
    uint8_t cancel;        /* the application asked to cancel                     */
    uint8_t persistent;    /* owned by a persistent request                       */
    uint8_t contig;        /* ubuf holds the data contiguously at ubuf + ulb      */
    uint8_t utype_ref;     /* utype is the runtime's own type (csp_type_ref), for
                              a receive unpacked at completion: freed when the
                              record returns, so the application may free its
                              type at any time, as MPI allows                     */
    uint8_t mode;          /* cell request line (below)                           */
    uint8_t pad0;
    uint16_t flags;
    uint16_t pad1;
    /* posting arguments needed after completion */
    int src;               /* posted source (communicator rank) or MPI_ANY_SOURCE */
    struct csp_comm *comm; /* referenced communicator (status translation)        */
    int tag;               /* posted user tag or MPI_ANY_TAG                      */
    MPI_Datatype utype;
    void *ubuf;            /* application buffer (receives copied out of bounce)  */
    MPI_Count usize;       /* size of one utype element in bytes                  */
    MPI_Aint ulb;          /* true lower bound of utype                           */
    void *bounce;          /* bounce block in the shared heap, or NULL            */
    /* the cell request line, kept until a cell is available (HELD) */
    int32_t slot, peer, itag;
    uint32_t tag_mask, seg;
    uint32_t target, target_gen;
    int st_found;          /* result: probes found a message                      */
    uint64_t off, nbytes;
    uint32_t st_msg;       /* result: matched probes: ghost message id            */
    uint32_t pad2;
};

_Static_assert(sizeof(struct csp_op) == 192, "an operation is three cache lines");

/* Zero op's own posting fields (from cell to nbytes). This runs on every
 * post: as a memset, GCC emits rep stos, whose start-up costs more than
 * these stores. */
static inline void csp_op_clear_args(struct csp_op *op)
{
#if defined(__SSE2__)
    _Static_assert(offsetof(struct csp_op, cell) == 64 &&
                       offsetof(struct csp_op, st_msg) == 184,
                   "update csp_op_clear_args");
    __m128i z = _mm_setzero_si128();
    char *p = (char *)op;
    _mm_storeu_si128((__m128i *)(p + 64), z);
    _mm_storeu_si128((__m128i *)(p + 80), z);
    _mm_storeu_si128((__m128i *)(p + 96), z);
    _mm_storeu_si128((__m128i *)(p + 112), z);
    _mm_storeu_si128((__m128i *)(p + 128), z);
    _mm_storeu_si128((__m128i *)(p + 144), z);
    _mm_storeu_si128((__m128i *)(p + 160), z);
    _mm_storel_epi64((__m128i *)(p + 176), z);
#else
    memset(&op->cell, 0, offsetof(struct csp_op, st_msg) - offsetof(struct csp_op, cell));
#endif
}

/* A fresh operation (greq: FREE, no handle), its fields zeroed, or NULL
 * on ENOMEM. Inline: every post takes one. */
static inline struct csp_op *csp_op_alloc(void)
{
    struct csp_op *op = (struct csp_op *)csp_req_alloc(sizeof(struct csp_op));
    if (op)
        csp_op_clear_args(op);
    return op;
}

/* The operation of handle h, or NULL if h is not a live handle of ours. */
static inline struct csp_op *csp_op_lookup(MPI_Request h)
{
    return (struct csp_op *)csp_req_lookup(h, sizeof(struct csp_op));
}

/* The operation whose record is r. */
static inline struct csp_op *csp_op_of(struct csp_req *r) { return (struct csp_op *)r; }

/* Set op's kind (enum csp_cell_op); a send's status carries only the
 * cancelled flag (greq.h). */
static inline void csp_op_set_kind(struct csp_op *op, uint8_t kind, int send)
{
    op->kind = kind;
    op->r.send = (uint8_t)send;
}

/* Return op's record, dropping what it holds (its communicator, its
 * datatype, its bounce block) (complete.c). */
void csp_op_release(struct csp_op *op);

/* The application is done with op's handle (MPI_Wait/Test completed it):
 * take its result into st and return the record. Returns the operation's
 * error code. */
static inline int csp_op_complete(struct csp_op *op, MPI_Request *req, MPI_Status *st)
{
    int err = csp_req_result(&op->r, req, st);
    csp_op_release(op);
    return err;
}

#endif /* CASPERII_USER_OP_H */
