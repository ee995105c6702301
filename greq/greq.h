/*
 * greq.h: request records and request handles of offloaded operations.
 *
 * Every offloaded nonblocking operation has a private record, struct
 * csp_req, and hands the application a request handle of ours:
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
 *
 * greq owns the record's life, its handle and its result, and knows
 * nothing of what the operation is: its owner (the user side,
 * internal/user/op.h) keeps its own fields beside it, in a larger struct
 * whose first member is the record, and passes that struct's size to the
 * inline calls below (a constant there, so that finding a record by its
 * handle costs what it did with one fixed type). greq must not include
 * any header of the user side, of the cells or of the heap.
 */
#ifndef CASPERII_GREQ_H
#define CASPERII_GREQ_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Request handles of ours: CSP_REQ_KIND | index. (Persistent requests and
 * matched-probe messages use their own kinds, see internal/user.) */
#define CSP_HANDLE_KIND_MASK 0xfc000000u
#define CSP_REQ_KIND 0x10000000u
#define CSP_REQ_MAX 0x03ffffffu

/* Record states. */
enum csp_req_state {
    CSP_OPS_FREE = 0,   /* on the free list                                   */
    CSP_OPS_HELD = 1,   /* posted by the application, waiting for a free cell */
    CSP_OPS_POSTED = 2, /* carried by a cell, the ghost works on it           */
    CSP_OPS_DONE = 3    /* result copied into the record, cell recycled       */
};

struct csp_req {
    MPI_Request req;       /* the application's handle, or MPI_REQUEST_NULL      */
    uint32_t index;        /* position among the records (the handle's low bits) */
    uint8_t state;         /* enum csp_req_state                                  */
    uint8_t freed;         /* nobody will complete the handle: return the record
                              when the operation finishes (MPI_Request_free,
                              buffered sends, unmap notices)                      */
    uint8_t send;          /* the status carries only the cancelled flag         */
    uint8_t unrung;        /* with poll: only MPICH's progress in this process's
                              calls ends it, no ring of the ghost's (an
                              MPI_Comm_idup's agreement): its waits poll     */
    uint8_t pad0[4];
    struct csp_req *next;  /* the free list's link while FREE; the owner's to
                              use while live (the user side's backlog)          */
    /* result, valid in state DONE */
    int st_source;         /* communicator rank of the sender                     */
    int st_tag;            /* user tag                                            */
    int st_error;          /* MPI error code                                      */
    int st_cancelled;
    MPI_Count st_bytes;
    /* Deferred operations (no cell, e.g. MPI_Comm_idup's planning): the
     * Wait/Test family calls poll until it returns 1, then the record is
     * DONE. */
    int (*poll)(struct csp_req *r);
    void *ctx;
};

_Static_assert(sizeof(struct csp_req) == 64, "a record is one cache line");

#define CSP_OPS_PER_CHUNK 256u

/* The records of this process. */
struct csp_greq {
    struct csp_req *free;  /* free records                                     */
    size_t live;           /* records in use                                   */
    size_t allocated;      /* records ever allocated (they are never returned) */
    size_t handles;        /* records whose handle the application holds       */
    char **chunk;          /* chunk[i] holds records i*256 .. i*256+255        */
    uint32_t nchunks;
    size_t size;           /* bytes per record and its owner's fields          */
};

/* Hidden, as csp_u (user.h): addressed relative to the code. */
extern struct csp_greq csp_greq __attribute__((visibility("hidden")));

/* Add a chunk of records of size bytes each (the owner's struct, the
 * same on every call) to the free list: 0, or -1 on ENOMEM, on another
 * size, or when CSP_REQ_MAX records exist. */
int csp_req_grow(size_t size);

/* Record i (size: as csp_req_grow). */
static inline struct csp_req *csp_req_at(uint32_t i, size_t size)
{
    return (struct csp_req *)(csp_greq.chunk[i / CSP_OPS_PER_CHUNK] +
                              (size_t)(i % CSP_OPS_PER_CHUNK) * size);
}

/* A record in state FREE, with no handle, no poll and nothing freed, or
 * NULL on ENOMEM; its owner's fields are as the last owner left them.
 * Inline: every post takes one. */
static inline struct csp_req *csp_req_alloc(size_t size)
{
    if (__builtin_expect(!csp_greq.free, 0) && csp_req_grow(size) != 0)
        return NULL;
    struct csp_req *r = csp_greq.free;
    csp_greq.free = r->next;
    r->req = MPI_REQUEST_NULL;
    r->state = CSP_OPS_FREE;
    r->freed = 0;
    r->send = 0;
    r->next = NULL;
    r->poll = NULL;
    r->ctx = NULL;
    csp_greq.live++;
    return r;
}
/* Return a record (its owner dropped what its fields hold first). */
void csp_req_release(struct csp_req *r);

/* Give the application a handle for r. */
static inline void csp_req_start(struct csp_req *r, MPI_Request *req)
{
    r->req = (MPI_Request)(CSP_REQ_KIND | r->index);
    csp_greq.handles++;
    *req = r->req;
}

/* Is r one of our operation handles (live or not)? */
static inline int csp_is_req(MPI_Request r)
{
    return ((uint32_t)r & CSP_HANDLE_KIND_MASK) == CSP_REQ_KIND;
}

/* The record of handle h, or NULL if h is not a live handle of ours. */
static inline struct csp_req *csp_req_lookup(MPI_Request h, size_t size)
{
    if (!csp_is_req(h))
        return NULL;
    uint32_t i = (uint32_t)h & ~CSP_HANDLE_KIND_MASK;
    if (i / CSP_OPS_PER_CHUNK >= csp_greq.nchunks)
        return NULL;
    struct csp_req *r = csp_req_at(i, size);
    return r->state != CSP_OPS_FREE && r->req == h ? r : NULL;
}

/* Fill an MPI status from a finished record (docs/status-fields.md):
 * source, tag, count and the cancelled flag; a send's only the cancelled
 * flag. Never MPI_ERROR: single-completion calls leave it as it is, and
 * the calls that return several statuses write it themselves, only when
 * they return MPI_ERR_IN_STATUS (MPI 4.0, 3.2.5). */
void csp_req_fill_status(const struct csp_req *r, MPI_Status *status);

/* The application is done with r's handle (MPI_Wait/Test completed it):
 * take its result into st and set *req to MPI_REQUEST_NULL. Returns the
 * operation's error code; the owner then releases the record. */
int csp_req_result(struct csp_req *r, MPI_Request *req, MPI_Status *st);

/* Fill st with MPI's empty status (source MPI_ANY_SOURCE, tag MPI_ANY_TAG,
 * count 0, not cancelled); MPI_ERROR as csp_req_fill_status, untouched
 * (as MPICH's: the standard's empty status says MPI_SUCCESS, its 3.2.5
 * that such calls do not write the field). */
void csp_empty_status(MPI_Status *st);

#endif /* CASPERII_GREQ_H */
