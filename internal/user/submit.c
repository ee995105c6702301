/*
 * submit.c: publishing posts to the ghost, with back-pressure.
 *
 * A post takes a free cell of its class, loads its request line into it,
 * pushes the cell's index on the submission ring and rings the ghost's
 * doorbell if it is parked (publish). Sends and receive-side operations
 * are separate classes, each capped below the pool size, so receives
 * waiting for a peer never keep sends from leaving (which could deadlock
 * two processes that post many receives). A class without a free cell, or
 * with older posts still held, holds the post in its FIFO backlog; the
 * pump (pump.c) pushes held posts as cells come back.
 */
#define _GNU_SOURCE
#include "submit.h"
#include "complete.h"

#include <limits.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static void futex_wake(uint32_t *addr)
{
    syscall(SYS_futex, addr, 1 /* FUTEX_WAKE */, INT_MAX, NULL, NULL, 0);
}

/* Ring the ghost's doorbell if it said it sleeps: the user's half of the
 * park handshake (csp_ghost_unpark, channel.h), after a ring publication.
 * The first poster to see the flag takes it down and rings; posts until
 * the ghost is up again see it down and make no system call. */
static inline void doorbell(void)
{
    if (csp_ghost_unpark(csp_u.ghost, csp_u.fence_free))
        futex_wake(&csp_u.ghost->doorbell);
}

/* csp_ring_doorbell rings the ghost if it is parked (coop.c: a lend;
 * rma.c: an origin of its windows); 1 if it rang. */
int csp_ring_doorbell(void)
{
    if (!csp_ghost_unpark(csp_u.ghost, csp_u.fence_free))
        return 0;
    futex_wake(&csp_u.ghost->doorbell);
    return 1;
}

/* The next op in a backlog (linked by greq's next, the owner's while the
 * record is live). */
static inline struct csp_op *held_next(struct csp_op *op) { return csp_op_of(op->r.next); }

/* Load op's request line into cell idx and publish it. */
static void publish(struct csp_op *op, uint32_t idx)
{
    struct csp_cell *c = &csp_u.cells[idx];
    uint32_t gen = csp_cell_next_gen(csp_u.gen[idx]);
    csp_u.gen[idx] = gen;
    c->op = op->kind;
    c->mode = op->mode;
    c->flags = op->flags;
    c->gen = gen;
    c->slot = op->slot;
    c->peer = op->peer;
    c->tag = op->itag;
    c->tag_mask = op->tag_mask;
    c->seg = op->seg;
    c->target = op->target;
    c->off = op->off;
    c->nbytes = op->nbytes;
    c->target_gen = op->target_gen;
    csp_u.cell_op[idx] = op;
    op->cell = idx;
    op->gen = gen;
    op->r.state = CSP_OPS_POSTED;
    if (!spsc_try_push(&csp_u.prod, idx)) {
        /* The ring holds at least ncells entries and only published cells
         * are in it, so this cannot happen unless memory is corrupt. */
        fprintf(stderr, "casperii: user %d: submission ring full with free cells; aborting\n",
                csp_u.wrank);
        PMPI_Abort(MPI_COMM_WORLD, 70);
    }
    doorbell();
}

/* Ask for write ownership of the line at p ahead of the stores that need
 * it (prefetchw; a no-op where the CPU lacks it). */
static inline void prefetch_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Start fetching what the next two posts store to: the cells on top of the
 * free stack (the lines of cells the ghost finished, or evicted by the
 * transfer's copy on this core), the ring slot and tail, the next record;
 * and what the last post read (its communicator's route tables and table
 * slot, the heap). Called as a wait returns, so the misses overlap the
 * application's return path instead of stalling the post one after
 * another. */
void csp_warm_posts(void)
{
    if (!csp_u.on)
        return;
    const struct csp_cell_pool *p = &csp_u.pool;
    for (uint32_t k = 1; k <= 2 && k <= p->n; k++) {
        uint32_t idx = k <= p->top ? p->idx[p->top - k] : p->fresh + (k - 1 - p->top);
        prefetch_write(&csp_u.cells[idx]);
        prefetch_write(&csp_u.cell_op[idx]);
        prefetch_write(&csp_u.gen[idx]);
    }
    prefetch_write(&csp_u.prod.r.slots[csp_u.prod.tail & csp_u.prod.r.mask]);
    prefetch_write(csp_u.prod.r.tail);
    __builtin_prefetch(&csp_u.ghost->parked, 0, 3);
    const struct csp_req *op = csp_greq.free;
    if (op) {
        prefetch_write(op);
        prefetch_write((const char *)op + 64);
        prefetch_write((const char *)op + 128);
    }
    for (int i = 0; i < 4; i++)
        __builtin_prefetch(csp_u.warm[i], 0, 3);
    __builtin_prefetch(&csp_u.ctab_last, 0, 3); /* the lookup's first compare */
    __builtin_prefetch(csp_u.heap, 0, 3);
}

/* A free cell for class cls (cls < 0: control, may use the reserve). */
static int take_cell(int cls, uint32_t *idx)
{
    if (cls >= 0 && csp_u.inflight[cls] >= csp_u.cap[cls]) {
        csp_reclaim();
        if (csp_u.inflight[cls] >= csp_u.cap[cls])
            return 0;
    }
    if (csp_u.pool.n <= (cls >= 0 ? CSP_CTRL_CELLS : 0)) {
        csp_reclaim();
        if (csp_u.pool.n <= (cls >= 0 ? CSP_CTRL_CELLS : 0))
            return 0;
    }
    csp_pool_pop(&csp_u.pool, idx);
    if (cls >= 0)
        csp_u.inflight[cls]++;
    return 1;
}

void csp_submit(struct csp_op *op)
{
    int cls = csp_op_class(op->kind);
    uint32_t idx;
    if (!csp_u.held_head[cls] && take_cell(cls, &idx)) {
        publish(op, idx);
        return;
    }
    op->r.state = CSP_OPS_HELD;
    op->cls = (uint8_t)cls;
    op->r.next = NULL;
    if (csp_u.held_tail[cls])
        csp_u.held_tail[cls]->r.next = &op->r;
    else
        csp_u.held_head[cls] = op;
    csp_u.held_tail[cls] = op;
    csp_u.nheld++;
    csp_u.n_held++;
}

/* Remove a held op from its backlog (cancellation). Returns 1 if found. */
int csp_unhold(struct csp_op *op)
{
    int cls = op->cls;
    struct csp_op *prev = NULL;
    for (struct csp_op *p = csp_u.held_head[cls]; p; prev = p, p = held_next(p)) {
        if (p != op)
            continue;
        if (prev)
            prev->r.next = p->r.next;
        else
            csp_u.held_head[cls] = held_next(p);
        if (csp_u.held_tail[cls] == p)
            csp_u.held_tail[cls] = prev;
        csp_u.nheld--;
        return 1;
    }
    return 0;
}

/* Push held posts, oldest first, while their class has cells. */
void csp_push_held(void)
{
    for (int cls = 0; cls < CSP_NCLASS; cls++) {
        uint32_t idx;
        while (csp_u.held_head[cls] && take_cell(cls, &idx)) {
            struct csp_op *op = csp_u.held_head[cls];
            csp_u.held_head[cls] = held_next(op);
            if (!csp_u.held_head[cls])
                csp_u.held_tail[cls] = NULL;
            csp_u.nheld--;
            publish(op, idx);
        }
    }
}

int csp_take_cell(int cls, uint32_t *idx) { return take_cell(cls, idx); }

void csp_publish(struct csp_op *op, uint32_t idx) { publish(op, idx); }
