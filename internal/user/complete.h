/*
 * complete.h: completion of offloaded operations (complete.c).
 *
 * Life of an operation record (greq.h):
 *   HELD   its class has no free cell, or older posts of its class wait:
 *          it waits in the class's FIFO backlog (submit.c);
 *   POSTED a cell carries it; the ghost owns the cell's result line;
 *   DONE   csp_finish copied the result into the record, copied bounce
 *          data out, and recycled the cell.
 */
#ifndef CASPERII_USER_COMPLETE_H
#define CASPERII_USER_COMPLETE_H

#include "user.h"
#include "op.h"

/* The backlog class of an operation kind: sends, or receive-side ones. */
static inline int csp_op_class(uint8_t kind)
{
    return (kind == CSP_OP_SEND || kind == CSP_OP_SSEND) ? CSP_CLASS_SEND : CSP_CLASS_RECV;
}

/* Return cell idx to the free pool; cls >= 0: it counted in that class. */
static inline void csp_release_cell(uint32_t idx, int cls)
{
    csp_u.cell_op[idx] = NULL;
    csp_pool_push(&csp_u.pool, idx);
    if (cls >= 0)
        csp_u.inflight[cls]--;
}

/* Copy the result of op's finished cell into op, recycle the cell. */
void csp_finish(struct csp_op *op);

/* Finish every operation whose cell is done. */
void csp_reclaim(void);

/* Finish op if its cell is done (a deferred op: if its poll says so);
 * returns 1 if op is DONE. Inline: every wait and test polls. */
static inline int csp_poll_op(struct csp_op *op)
{
    if (op->r.poll) {
        if (op->r.state != CSP_OPS_DONE && op->r.poll(&op->r))
            op->r.state = CSP_OPS_DONE;
        return op->r.state == CSP_OPS_DONE;
    }
    if (op->r.state == CSP_OPS_POSTED && csp_cell_done(&csp_u.cells[op->cell]))
        csp_finish(op);
    return op->r.state == CSP_OPS_DONE;
}

#endif /* CASPERII_USER_COMPLETE_H */
