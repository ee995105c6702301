/*
 * greq.h: request records and request handles of offloaded operations.
 *
 * Every offloaded nonblocking operation has a private record, struct
 * csp_op, and hands the application a request handle of ours:
 * CSP_REQ_KIND | index of the record. The kind bits are ones MPICH never
 * issues (MPICH keeps a handle's kind in its top two bits, and 00 means
 * "invalid" there), so the interposed Wait/Test family tells our requests
 * from MPICH's by a mask and finds the record by its index, without a table.
 *
 * Why not MPI generalized requests (MPI_Grequest_start), as the paper and
 * the architecture guide suggest: measured here, starting one costs more
 * than the rest of an offloaded post (MPICH allocates a callback block per
 * request), completing one costs more again, and MPICH calls the free
 * callback inside MPI_Request_free of an unfinished request. Our own handles
 * keep MPICH off the per-call path; the price is that every MPI call that
 * takes a request must be interposed, and the interposer does that.
 *
 * A record outlives the cell that carried its operation to the ghost: when
 * the ghost is done, the user copies the result into the record and
 * recycles the cell at once; the record lives until the application
 * completes the request (Wait/Test) or, if it freed the request, until the
 * operation finishes. Only the user process touches any of this.
 */
#ifndef CASPERII_GREQ_H
#define CASPERII_GREQ_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Request handles of ours: CSP_REQ_KIND | index. (Persistent requests and
 * matched-probe messages use their own kinds, see internal/user.) */
#define CSP_HANDLE_KIND_MASK 0xfc000000u
#define CSP_REQ_KIND 0x10000000u
#define CSP_REQ_MAX 0x03ffffffu

/* Operation record states. */
enum csp_op_state {
    CSP_OPS_FREE = 0,   /* on the free list                                   */
    CSP_OPS_HELD = 1,   /* posted by the application, waiting for a free cell */
    CSP_OPS_POSTED = 2, /* carried by a cell, the ghost works on it           */
    CSP_OPS_DONE = 3    /* result copied into the record, cell recycled       */
};

struct csp_comm; /* internal/user */

struct csp_op {
    MPI_Request req;       /* the application's handle, or MPI_REQUEST_NULL      */
    uint32_t index;        /* position among the records (the handle's low bits) */
    uint32_t cell;         /* cell index while POSTED                             */
    uint32_t gen;          /* the cell's generation for this operation            */
    uint8_t state;         /* enum csp_op_state                                   */
    uint8_t kind;          /* enum csp_cell_op (postcell.h)                       */
    uint8_t freed;         /* nobody will complete the handle: return the record
                              when the operation finishes (MPI_Request_free,
                              buffered sends, unmap notices)                      */
    uint8_t cls;           /* backlog class while HELD                            */
    uint8_t cancel;        /* the application asked to cancel                     */
    uint8_t persistent;    /* owned by a persistent request                       */
    uint8_t contig;        /* ubuf holds the data contiguously at ubuf + ulb      */
    uint8_t utype_ref;     /* utype is the runtime's own type (csp_type_ref), for
                              a receive unpacked at completion: freed when the
                              record returns, so the application may free its
                              type at any time, as MPI allows                     */
    struct csp_op *next;   /* free list / backlog FIFO links                      */
    struct csp_comm *comm; /* referenced communicator (status translation)        */
    /* posting arguments needed after completion */
    int src;               /* posted source (communicator rank) or MPI_ANY_SOURCE */
    int tag;               /* posted user tag or MPI_ANY_TAG                      */
    void *ubuf;            /* application buffer (receives copied out of bounce)  */
    int ucount;
    MPI_Datatype utype;
    MPI_Aint ulb;          /* true lower bound of utype                           */
    int usize;             /* size of one utype element in bytes                  */
    void *bounce;          /* bounce block in the shared heap, or NULL            */
    /* the cell request line, kept until a cell is available (HELD) */
    int32_t slot, peer, itag;
    uint32_t tag_mask, seg;
    uint8_t mode;
    uint16_t flags;
    uint64_t off, nbytes;
    uint32_t target, target_gen;
    /* result, valid in state DONE */
    int st_source;         /* communicator rank of the sender                     */
    int st_tag;            /* user tag                                            */
    int st_error;          /* MPI error code                                      */
    int st_cancelled;
    int st_found;          /* probes                                              */
    uint32_t st_msg;       /* matched probes: ghost message id                    */
    MPI_Count st_bytes;
    /* Deferred operations (no cell, e.g. MPI_Comm_idup's planning): the
     * Wait/Test family calls poll until it returns 1, then the op is DONE. */
    int (*poll)(struct csp_op *op);
    void *ctx;
};

#define CSP_OPS_PER_CHUNK 256u

/* The operation records of this process. */
struct csp_greq {
    struct csp_op *free;   /* free records                                     */
    size_t live;           /* records in use                                   */
    size_t allocated;      /* records ever allocated (they are never returned) */
    size_t handles;        /* records whose handle the application holds       */
    struct csp_op **chunk; /* chunk[i] holds records i*256 .. i*256+255        */
    uint32_t nchunks;
    /* Called when a record returns (drop the references it holds). */
    void (*on_release)(struct csp_op *op);
};

extern struct csp_greq csp_greq;

/* Add a chunk of records to the free list: 0, or -1 on ENOMEM or when
 * CSP_REQ_MAX records exist. */
int csp_op_grow(void);

/* Zero op's posting fields (everything before the result, which is set
 * when the operation is done). This runs on every post: as a memset, GCC
 * emits rep stos, whose start-up costs more than these nine stores. */
static inline void csp_op_clear_args(struct csp_op *op)
{
#if defined(__SSE2__)
    _Static_assert(offsetof(struct csp_op, st_source) == 136, "update csp_op_clear_args");
    __m128i z = _mm_setzero_si128();
    char *p = (char *)op;
    _mm_storeu_si128((__m128i *)(p + 0), z);
    _mm_storeu_si128((__m128i *)(p + 16), z);
    _mm_storeu_si128((__m128i *)(p + 32), z);
    _mm_storeu_si128((__m128i *)(p + 48), z);
    _mm_storeu_si128((__m128i *)(p + 64), z);
    _mm_storeu_si128((__m128i *)(p + 80), z);
    _mm_storeu_si128((__m128i *)(p + 96), z);
    _mm_storeu_si128((__m128i *)(p + 112), z);
    _mm_storel_epi64((__m128i *)(p + 128), z);
#else
    memset(op, 0, offsetof(struct csp_op, st_source));
#endif
}

/* A zeroed record in state FREE, NULL on ENOMEM. Inline: every post
 * takes one. */
static inline struct csp_op *csp_op_alloc(void)
{
    if (__builtin_expect(!csp_greq.free, 0) && csp_op_grow() != 0)
        return NULL;
    struct csp_op *op = csp_greq.free;
    csp_greq.free = op->next;
    uint32_t index = op->index;
    csp_op_clear_args(op);
    op->index = index;
    op->req = MPI_REQUEST_NULL;
    op->poll = NULL;
    op->ctx = NULL;
    csp_greq.live++;
    return op;
}
/* Return a record. */
void csp_op_release(struct csp_op *op);

/* Give the application a handle for op. */
static inline void csp_req_start(struct csp_op *op, MPI_Request *req)
{
    op->req = (MPI_Request)(CSP_REQ_KIND | op->index);
    csp_greq.handles++;
    *req = op->req;
}

/* Is r one of our operation handles (live or not)? */
static inline int csp_is_req(MPI_Request r)
{
    return ((uint32_t)r & CSP_HANDLE_KIND_MASK) == CSP_REQ_KIND;
}

/* The record of handle r, or NULL if r is not a live handle of ours. */
static inline struct csp_op *csp_req_op(MPI_Request r)
{
    if (!csp_is_req(r))
        return NULL;
    uint32_t i = (uint32_t)r & ~CSP_HANDLE_KIND_MASK;
    if (i / CSP_OPS_PER_CHUNK >= csp_greq.nchunks)
        return NULL;
    struct csp_op *op = &csp_greq.chunk[i / CSP_OPS_PER_CHUNK][i % CSP_OPS_PER_CHUNK];
    return op->state != CSP_OPS_FREE && op->req == r ? op : NULL;
}

/* Fill an MPI status from a finished record (docs/status-fields.md):
 * source, tag, count and the cancelled flag; a send's only the cancelled
 * flag. Never MPI_ERROR: single-completion calls leave it as it is, and
 * the calls that return several statuses write it themselves, only when
 * they return MPI_ERR_IN_STATUS (MPI 4.0, 3.2.5). */
void csp_req_fill_status(const struct csp_op *op, MPI_Status *status);

/* The application is done with op's handle (MPI_Wait/Test completed it):
 * take its result into st and return the record. Returns the operation's
 * error code. */
int csp_req_complete(struct csp_op *op, MPI_Request *req, MPI_Status *st);

/* Fill st with MPI's empty status (source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
 * count 0, not cancelled); MPI_ERROR as csp_req_fill_status, untouched
 * (as MPICH's: the standard's empty status says MPI_SUCCESS, its 3.2.5
 * that such calls do not write the field). */
void csp_empty_status(MPI_Status *st);

#endif /* CASPERII_GREQ_H */
