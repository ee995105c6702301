/*
 * pump.c: the user side's background work, done from its own calls (no
 * thread of ours runs): posts held for lack of cells (submit.c), freed
 * operations whose cells are still busy, deferred operations whose
 * request the application freed, and segment unmap notices. csp_pump
 * (pump.h) costs one test when there is none.
 */
#include "pump.h"
#include "complete.h"
#include "submit.h"

#include <stdlib.h>

/* Deferred operations (no cell) whose request the application freed:
 * polled here until done, then their records return. */
static struct csp_op **deferred;
static size_t ndeferred, capdeferred;

void csp_defer_freed(struct csp_op *op)
{
    csp_u.pump_deferred = 1;
    if (ndeferred == capdeferred) {
        size_t cap = capdeferred ? capdeferred * 2 : 16;
        struct csp_op **d = realloc(deferred, cap * sizeof(*d));
        if (!d) { /* cannot track it: finish it now */
            while (!op->r.poll(&op->r))
                csp_poke_progress();
            return;
        }
        deferred = d;
        capdeferred = cap;
    }
    deferred[ndeferred++] = op;
}

/* Poll the deferred operations the application freed; returns how many
 * are not done yet. */
int csp_poll_deferred(void)
{
    for (size_t i = 0; i < ndeferred;) {
        struct csp_op *op = deferred[i];
        if (op->r.poll(&op->r)) {
            deferred[i] = deferred[--ndeferred];
            csp_op_release(op);
        } else {
            i++;
        }
    }
    csp_u.pump_deferred = ndeferred != 0;
    return (int)ndeferred;
}

/* Segments the heap gave back (freed huge blocks): the ghost is told to
 * unmap them, from the pump, because the heap frees them from inside
 * finish(), where no cell may be taken. */
#define CSP_UNMAP_QUEUE 64
static uint32_t unmap_queue[CSP_UNMAP_QUEUE];
static uint32_t nunmap;

void csp_segment_removed(void *arg, uint32_t seg)
{
    (void)arg;
    if (csp_u.heap->seg[seg].kind != CSP_SEG_HUGE)
        return; /* external segments: their owner tells the ghost itself */
    if (nunmap < CSP_UNMAP_QUEUE)
        unmap_queue[nunmap++] = seg;
    csp_u.pump_unmap = 1;
    /* else: the ghost remaps or drops it lazily when the entry changes */
}

/* Post an unmap notice without waiting; reclaim() recycles its cell. */
static void notify_unmaps(void)
{
    while (nunmap) {
        uint32_t idx;
        if (!csp_take_cell(-1, &idx))
            return;
        struct csp_op *op = csp_op_alloc();
        if (!op) {
            csp_release_cell(idx, -1);
            return;
        }
        op->kind = CSP_OP_SEGMENT;
        op->mode = CSP_MATCH_NATIVE;
        op->seg = CSP_SEG_NONE;
        op->target = unmap_queue[--nunmap];
        op->r.freed = 1;
        csp_u.nfreed_pending++;
        csp_publish(op, idx);
    }
    csp_u.pump_unmap = 0;
}

void csp_pump_slow(void)
{
    static uint32_t tick;
    if (csp_u.nheld)
        csp_push_held();
    else if (csp_u.nfreed_pending && (++tick & 63) == 0)
        csp_reclaim();
    if (ndeferred)
        csp_poll_deferred();
    if (nunmap)
        notify_unmaps();
}

/* Has every operation finished? Pushes, reclaims and polls first. */
int csp_all_finished(void)
{
    csp_push_held();
    csp_reclaim();
    if (ndeferred)
        csp_poll_deferred();
    if (ndeferred)
        return 0;
    for (uint32_t i = 0; i < csp_u.pool.fresh; i++) /* above: never used */
        if (csp_u.cell_op[i])
            return 0;
    return csp_u.nheld == 0;
}
