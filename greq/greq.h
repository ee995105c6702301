/*
 * greq.h: generalized requests for offloaded operations.
 *
 * Every offloaded nonblocking operation has a private record, struct
 * csp_op, and hands the application an MPI generalized request bound to it
 * (PMPI_Grequest_start with the record as extra_state). The record outlives
 * the cell that carried the operation to the ghost: when the ghost is done,
 * the user copies the result into the record and recycles the cell at once;
 * the record lives until MPI frees the request.
 *
 * Completion: the user calls PMPI_Grequest_complete(op->req), then MPI's
 * own Wait/Test calls csp_greq_query (fills the status from the record) and
 * csp_greq_free (drops the table entry and returns the record).
 *
 * The request table maps the application's MPI_Request to its record, so
 * the interposed Wait/Test family can tell offloaded requests from ordinary
 * ones: open addressing, linear probing, backward-shift deletion, no
 * tombstones. Only the user process touches any of this.
 */
#ifndef CASPERII_GREQ_H
#define CASPERII_GREQ_H

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>

/* Operation record states. */
enum csp_op_state {
    CSP_OPS_FREE = 0,   /* on the free list                                   */
    CSP_OPS_HELD = 1,   /* posted by the application, waiting for a free cell */
    CSP_OPS_POSTED = 2, /* carried by a cell, the ghost works on it           */
    CSP_OPS_DONE = 3    /* result copied into the record, cell recycled       */
};

struct csp_comm; /* internal/user */

struct csp_op {
    MPI_Request req;       /* the application's generalized request, or MPI_REQUEST_NULL */
    uint32_t cell;         /* cell index while POSTED                             */
    uint32_t gen;          /* the cell's generation for this operation            */
    uint8_t state;         /* enum csp_op_state                                   */
    uint8_t kind;          /* enum csp_cell_op (postcell.h)                       */
    uint8_t freed;         /* the application freed the request (MPI_Request_free)*/
    uint8_t cls;           /* backlog class while HELD                            */
    uint8_t cancel;        /* the application asked to cancel                     */
    uint8_t persistent;    /* owned by a persistent request: never returned here  */
    uint8_t greq_done;     /* PMPI_Grequest_complete has been called              */
    uint8_t contig;        /* ubuf holds the data contiguously at ubuf + ulb      */
    struct csp_op *next;   /* free list / backlog FIFO / in-flight links          */
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

/* The operation records and the request table of this process. */
struct csp_greq {
    struct csp_op *free;       /* free records                                     */
    size_t live;               /* records in use                                   */
    size_t allocated;          /* records ever allocated (they are never returned) */
    /* request table */
    MPI_Request *keys;
    struct csp_op **vals;
    size_t mask;               /* capacity - 1 (power of two)                      */
    size_t used;
    /* Called from csp_greq_free before the record is returned (drop refs). */
    void (*on_release)(struct csp_op *op);
};

extern struct csp_greq csp_greq;

/* A zeroed record, in state FREE until the caller sets it. NULL on ENOMEM. */
struct csp_op *csp_op_alloc(void);
/* Return a record (the caller has dropped it from the table). */
void csp_op_release(struct csp_op *op);

/* Start the application's generalized request for op and enter it in the
 * table. Returns an MPI error code. */
int csp_greq_start(struct csp_op *op, MPI_Request *req);

/* The record of request r, or NULL if r is not an offloaded request. */
static inline struct csp_op *csp_greq_lookup(MPI_Request r);

/* Enter r -> op in the table (replacing an entry for r). 0, or -1 on ENOMEM. */
int csp_greq_put(MPI_Request r, struct csp_op *op);

/* Remove r from the table (no-op if absent). */
void csp_greq_forget(MPI_Request r);

/* MPI callbacks (exposed for tests). */
int csp_greq_query(void *extra_state, MPI_Status *status);
int csp_greq_free(void *extra_state);
int csp_greq_cancel(void *extra_state, int complete);

/* Fill an MPI status from a finished record. */
void csp_greq_fill_status(const struct csp_op *op, MPI_Status *status);

/* ---- inline table lookup ---- */

static inline size_t csp_greq_hash(MPI_Request r)
{
    uint32_t x = (uint32_t)r;
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static inline struct csp_op *csp_greq_lookup(MPI_Request r)
{
    if (csp_greq.used == 0)
        return NULL;
    size_t i = csp_greq_hash(r) & csp_greq.mask;
    for (;;) {
        struct csp_op *v = csp_greq.vals[i];
        if (!v)
            return NULL;
        if (csp_greq.keys[i] == r)
            return v;
        i = (i + 1) & csp_greq.mask;
    }
}

#endif /* CASPERII_GREQ_H */
