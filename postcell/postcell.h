/*
 * postcell.h: the post cell, the unit a user process hands to its ghost.
 *
 * The one definition of the shared-memory layout: the C fast path includes
 * it, and the Go package postcell is generated from it (layout_gen.go, by
 * cmd/layoutgen from layout_defs.go; TestLayoutGenerated fails when stale).
 *
 * A cell is 128 bytes, two cache lines:
 *   line 0, the request: written by the user before it publishes the cell's
 *           index on its ring, read (and validated) by the ghost;
 *   line 1, the result: written by the ghost, read by the user once the
 *           completion word `done` equals the cell's `gen`.
 *
 * Ownership: a free cell belongs to the user alone (its private free stack).
 * Publishing the index on the ring hands line 0 to the ghost read-only; the
 * ghost owns line 1 until it stores `done` (release).  The user reads line 1
 * only after loading done == gen (acquire), then the cell is the user's again.
 */
#ifndef CASPERII_POSTCELL_H
#define CASPERII_POSTCELL_H

#include <stddef.h>
#include <stdint.h>

#define CSP_CELL_SIZE 128u

/* Operations (cell.op). */
enum csp_cell_op {
    CSP_OP_NONE = 0,
    CSP_OP_SEND = 1,     /* Isend of nbytes at (seg, off) to peer, tag, slot        */
    CSP_OP_SSEND = 2,    /* synchronous send (Issend semantics)                      */
    CSP_OP_RECV = 3,     /* Irecv of up to nbytes into (seg, off) from peer, tag     */
    CSP_OP_IPROBE = 4,   /* one probe; result flag CSP_ST_FOUND                      */
    CSP_OP_PROBE = 5,    /* completes when a matching message is there              */
    CSP_OP_IMPROBE = 6,  /* matched probe: on success st_msg names the message      */
    CSP_OP_MPROBE = 7,   /* blocking matched probe                                  */
    CSP_OP_MRECV = 8,    /* receive the message st_msg of an earlier (I)MPROBE       */
    CSP_OP_CANCEL = 9,   /* cancel the pending cell `target` (generation target_gen) */
    CSP_OP_SEGMENT = 10, /* segment table entry `target` changed: (re)map or unmap   */
    CSP_OP_FINALIZE = 11,/* the user finalizes; no cell follows                       */
    CSP_OP_WIN_ATTACH = 12, /* attach segment `target` (generation target_gen) to the
                            * RMA window; st_bytes: the ghost's address of it      */
    CSP_OP_WIN_WATCH = 13,  /* nbytes 8: watch the lock word of a redirected window
                            * at (seg, off), a sign of epochs on it; nbytes 0: stop */
    CSP_OP_MAX = 14
};

/* Matching modes (cell.mode). */
enum csp_cell_mode {
    CSP_MATCH_NATIVE = 0, /* MPI matches on (peer, tag, slot) as posted          */
    CSP_MATCH_GHOST = 1   /* the ghost matches: peer and (tag & tag_mask)        */
};

/* Request flags (cell.flags). */
#define CSP_CELL_F_BOUNCE 0x1u /* buffer is a bounce copy (informational)       */

/* Result flags (cell.st_flags). */
#define CSP_ST_CANCELLED 0x1u /* the operation was cancelled                    */
#define CSP_ST_FOUND 0x2u     /* a probe found a message                        */

/* cell.seg when the operation carries no buffer (nbytes == 0). */
#define CSP_SEG_NONE 0xffffffffu

struct csp_cell {
    /* ---- line 0: request (user -> ghost) ---- */
    uint8_t op;          /* enum csp_cell_op                                    */
    uint8_t mode;        /* enum csp_cell_mode                                  */
    uint16_t flags;      /* CSP_CELL_F_*                                         */
    uint32_t gen;        /* nonzero generation of this use of the cell          */
    int32_t slot;        /* internal communicator: index in the world-dup pool  */
    int32_t peer;        /* peer ghost's world rank, or MPI_ANY_SOURCE          */
    int32_t tag;         /* internal (encoded) tag, or MPI_ANY_TAG              */
    uint32_t tag_mask;   /* CSP_MATCH_GHOST: bits of tag that must match        */
    uint32_t seg;        /* buffer segment index, or CSP_SEG_NONE               */
    uint32_t target;     /* CANCEL: cell index; MRECV: message id; SEGMENT: seg */
    uint64_t off;        /* buffer offset inside the segment                    */
    uint64_t nbytes;     /* SEND: message length; RECV: capacity                */
    uint32_t target_gen; /* CANCEL: generation of the target cell               */
    uint32_t reserved0[3];

    /* ---- line 1: result (ghost -> user) ---- */
    int32_t st_source;   /* internal source: world rank of the sending ghost    */
    int32_t st_tag;      /* internal tag as received (the user decodes it)      */
    int32_t st_error;    /* MPI error class; MPI_SUCCESS (0) on success         */
    uint32_t st_flags;   /* CSP_ST_*                                             */
    uint64_t st_bytes;   /* bytes received, or size of the probed message       */
    uint32_t st_msg;     /* IMPROBE/MPROBE: message id for a later MRECV        */
    uint32_t reserved1[8];
    uint32_t done;       /* completion word: the ghost stores gen here, last    */
};

_Static_assert(sizeof(struct csp_cell) == CSP_CELL_SIZE, "post cell is 128 bytes");
_Static_assert(offsetof(struct csp_cell, st_source) == 64, "the result starts on line 1");

/*
 * The completion word handshake, a release/acquire pair on `done`; Go has
 * the same pair as Cell.Complete and Cell.IsDone (postcell/cell.go).
 * Invariant: line 1 belongs to the ghost until it stores done = gen, its
 * last write to the cell; the user reads line 1 only after it loaded
 * done == gen.
 */

/* Completion, user side (acquire): has the ghost finished this use of the cell? */
static inline int csp_cell_done(const struct csp_cell *c)
{
    return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == c->gen;
}

/* Completion, ghost side (release): publish the result written in line 1. */
static inline void csp_cell_complete(struct csp_cell *c, uint32_t gen)
{
    __atomic_store_n(&c->done, gen, __ATOMIC_RELEASE);
}

/*
 * The user-private free-cell pool: a LIFO stack of cell indices in private
 * memory (LIFO keeps recently used, cache-warm cells in circulation), over
 * cells never used yet, handed out from index 0 up once the stack is empty.
 * So a channel of many cells costs memory (here and in the shared cells,
 * which are touched on first use) only for the cells its busiest moment
 * needed: fresh is that high-water mark, and the cells at or above it have
 * never carried an operation.
 */
struct csp_cell_pool {
    uint32_t *idx;  /* the stack: cells freed after use (capacity cap)    */
    uint32_t top;   /* entries on the stack                               */
    uint32_t fresh; /* cells [fresh, cap) were never handed out           */
    uint32_t n;     /* free cells: top + (cap - fresh)                    */
    uint32_t cap;   /* number of cells in the channel                     */
};

static inline int csp_pool_pop(struct csp_cell_pool *p, uint32_t *out)
{
    if (p->n == 0)
        return 0;
    p->n--;
    *out = p->top ? p->idx[--p->top] : p->fresh++;
    return 1;
}

static inline void csp_pool_push(struct csp_cell_pool *p, uint32_t i)
{
    p->idx[p->top++] = i;
    p->n++;
}

/* Next generation for a reused cell: never zero, so a zeroed done never matches. */
static inline uint32_t csp_cell_next_gen(uint32_t gen)
{
    gen++;
    return gen ? gen : 1;
}

#endif /* CASPERII_POSTCELL_H */
