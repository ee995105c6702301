/*
 * engine.c: cells, backpressure, completion and polite waiting.
 *
 * Life of an operation record (greq.h):
 *   HELD   its class has no free cell, or older posts of its class wait:
 *          it waits in the class's FIFO backlog (order kept per class);
 *   POSTED a cell carries it; the ghost owns the cell's result line;
 *   DONE   finish() copied the result into the record, copied bounce data
 *          out, and recycled the cell.
 * Sends and receive-side operations are separate classes, each capped below
 * the pool size, so receives waiting for a peer never keep sends from
 * leaving (which could deadlock two processes that post many receives).
 */
#define _GNU_SOURCE
#include "user.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct csp_user csp_u;

static inline int op_class(uint8_t kind)
{
    return (kind == CSP_OP_SEND || kind == CSP_OP_SSEND) ? CSP_CLASS_SEND : CSP_CLASS_RECV;
}

static inline int is_recv_like(uint8_t kind)
{
    return kind == CSP_OP_RECV || kind == CSP_OP_MRECV || kind == CSP_OP_IPROBE ||
           kind == CSP_OP_PROBE || kind == CSP_OP_IMPROBE || kind == CSP_OP_MPROBE;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

void csp_futex_wait(uint32_t *addr, uint32_t val, long timeout_us)
{
    struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000};
    syscall(SYS_futex, addr, 0 /* FUTEX_WAIT */, val, &ts, NULL, 0);
}

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

/* csp_ring_doorbell rings the ghost if it is parked (coop.c: a lend). */
void csp_ring_doorbell(void) { doorbell(); }

void csp_poke_progress(void)
{
    if (!csp_u.on) /* no offload: the caller's PMPI calls make progress */
        return;
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, csp_u.progress_comm, &flag, MPI_STATUS_IGNORE);
}

int csp_raise_errmsg(MPI_Comm comm, int e); /* errnote.c */

int csp_error(MPI_Comm comm, enum csp_errmsg e) { return csp_raise_errmsg(comm, (int)e); }

/* ---- cells ---- */

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
    op->state = CSP_OPS_POSTED;
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
        uint32_t idx = p->idx[p->n - k];
        prefetch_write(&csp_u.cells[idx]);
        prefetch_write(&csp_u.cell_op[idx]);
        prefetch_write(&csp_u.gen[idx]);
    }
    prefetch_write(&csp_u.prod.r.slots[csp_u.prod.tail & csp_u.prod.r.mask]);
    prefetch_write(csp_u.prod.r.tail);
    __builtin_prefetch(&csp_u.ghost->parked, 0, 3);
    const struct csp_op *op = csp_greq.free;
    if (op) {
        prefetch_write(op);
        prefetch_write((const char *)op + 64);
        prefetch_write((const char *)op + 128);
    }
    for (int i = 0; i < 4; i++)
        __builtin_prefetch(csp_u.warm[i], 0, 3);
    if (csp_u.ctab_mask) { /* the table slot: hashed here, not on every post */
        size_t i = csp_comm_hash(csp_u.warm_comm) & csp_u.ctab_mask;
        __builtin_prefetch(&csp_u.ctab_keys[i], 0, 3);
        __builtin_prefetch(&csp_u.ctab_vals[i], 0, 3);
    }
    __builtin_prefetch(csp_u.heap, 0, 3);
}

static void release_cell(uint32_t idx, int cls)
{
    csp_u.cell_op[idx] = NULL;
    csp_pool_push(&csp_u.pool, idx);
    if (cls >= 0)
        csp_u.inflight[cls]--;
}

/* Unpack the first op->st_bytes bytes of a receive's bounce block into
 * the application's buffer (op->utype is not contiguous). A message may
 * end inside an element: MPI then fills the element's first bytes and
 * leaves the rest, so that element is completed with what the buffer holds
 * there now (packed first) and unpacked whole. */
static void unpack_bounce(struct csp_op *op)
{
    if (op->usize <= 0)
        return;
    int whole = (int)(op->st_bytes / op->usize), part = (int)(op->st_bytes % op->usize);
    int n = whole;
    /* From MPI_BOTTOM an element is only reachable as one of the first
     * whole + 1 (absolute addresses): pack them all, take the last. */
    int bottom = op->ubuf == MPI_BOTTOM, k = bottom ? whole + 1 : 1;
    char *tmp = part ? malloc((size_t)op->usize * (size_t)k) : NULL;
    MPI_Aint lb, ext;
    if (tmp && PMPI_Type_get_extent(op->utype, &lb, &ext) == MPI_SUCCESS) {
        int pos = 0;
        const char *at = bottom ? MPI_BOTTOM : (char *)op->ubuf + (MPI_Aint)whole * ext;
        /* the part that did not arrive, as the element is in memory now */
        if (csp_pack(at, k, op->utype, tmp, op->usize * k, &pos) == MPI_SUCCESS) {
            memcpy((char *)op->bounce + op->st_bytes, tmp + (size_t)op->usize * (size_t)(k - 1) + part,
                   (size_t)(op->usize - part));
            n++; /* the bounce block holds ucount elements: room for it */
        }
    }
    free(tmp);
    int pos = 0;
    csp_unpack(op->bounce, n * op->usize, &pos, op->ubuf, n, op->utype);
}

/* Copy the result of op's finished cell into op, recycle the cell. */
static void finish(struct csp_op *op)
{
    const struct csp_cell *cell = &csp_u.cells[op->cell];
    struct csp_comm *c = op->comm;
    op->st_error = cell->st_error;
    op->st_cancelled = (cell->st_flags & CSP_ST_CANCELLED) != 0;
    op->st_found = (cell->st_flags & CSP_ST_FOUND) != 0;
    op->st_msg = cell->st_msg;
    op->st_bytes = (MPI_Count)cell->st_bytes;
    op->st_source = MPI_ANY_SOURCE;
    op->st_tag = MPI_ANY_TAG;
    int takes_data = op->kind == CSP_OP_RECV || op->kind == CSP_OP_MRECV;
    if (takes_data && op->st_bytes > (MPI_Count)op->nbytes)
        op->st_bytes = (MPI_Count)op->nbytes; /* the cell is shared memory: never trusted */
    /* A truncated receive took the part that fits: like MPICH's, it names
     * its message, and the buffer holds that part. */
    int matched = op->st_error == MPI_SUCCESS || (takes_data && op->st_error == MPI_ERR_TRUNCATE);
    if (is_recv_like(op->kind) && matched && !op->st_cancelled &&
        (op->kind != CSP_OP_IPROBE && op->kind != CSP_OP_IMPROBE ? 1 : op->st_found) && c) {
        const struct csp_tags *t = &csp_u.tags;
        int itag = cell->st_tag;
        op->st_tag = op->tag != MPI_ANY_TAG ? op->tag
                     : c->algo == CSP_ALGO_DUP ? itag
                                               : (int)((uint32_t)itag & t->user_mask);
        if (op->src != MPI_ANY_SOURCE) {
            op->st_source = op->src;
        } else {
            int soff = (int)(((uint32_t)itag >> t->src_shift) & t->off_mask);
            op->st_source = csp_comm_rank_of(c, cell->st_source, soff);
        }
        if (op->bounce && takes_data && op->st_bytes > 0) {
            if (op->contig)
                memcpy((char *)op->ubuf + op->ulb, op->bounce, (size_t)op->st_bytes);
            else
                unpack_bounce(op);
        }
    }
    if (op->kind == CSP_OP_SEND || op->kind == CSP_OP_SSEND)
        op->st_bytes = 0; /* a send's status carries no count */
    if (op->bounce) {
        csp_heap_free(csp_u.heap, op->bounce);
        op->bounce = NULL;
    }
    release_cell(op->cell, op->kind <= CSP_OP_MRECV ? op_class(op->kind) : -1);
    op->state = CSP_OPS_DONE;
    if (c) {
        csp_route_op_done(op);
        op->comm = NULL;
        csp_comm_unref(c);
    }
    if (op->freed) { /* nobody will complete its handle */
        csp_u.nfreed_pending--;
        csp_op_release(op);
    }
}

int csp_poll_op(struct csp_op *op)
{
    if (op->poll) {
        if (op->state != CSP_OPS_DONE && op->poll(op))
            op->state = CSP_OPS_DONE;
        return op->state == CSP_OPS_DONE;
    }
    if (op->state == CSP_OPS_POSTED && csp_cell_done(&csp_u.cells[op->cell]))
        finish(op);
    return op->state == CSP_OPS_DONE;
}

/* Finish every operation whose cell is done. */
static void reclaim(void)
{
    for (uint32_t i = 0; i < csp_u.ncells; i++) {
        struct csp_op *op = csp_u.cell_op[i];
        if (op && csp_cell_done(&csp_u.cells[i]) &&
            (op->kind <= CSP_OP_MRECV || op->kind == CSP_OP_SEGMENT))
            finish(op);
    }
}

/* A free cell for class cls (cls < 0: control, may use the reserve). */
static int take_cell(int cls, uint32_t *idx)
{
    if (cls >= 0 && csp_u.inflight[cls] >= csp_u.cap[cls]) {
        reclaim();
        if (csp_u.inflight[cls] >= csp_u.cap[cls])
            return 0;
    }
    if (csp_u.pool.n <= (cls >= 0 ? CSP_CTRL_CELLS : 0)) {
        reclaim();
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
    int cls = op_class(op->kind);
    uint32_t idx;
    if (!csp_u.held_head[cls] && take_cell(cls, &idx)) {
        publish(op, idx);
        return;
    }
    op->state = CSP_OPS_HELD;
    op->cls = (uint8_t)cls;
    op->next = NULL;
    if (csp_u.held_tail[cls])
        csp_u.held_tail[cls]->next = op;
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
    for (struct csp_op *p = csp_u.held_head[cls]; p; prev = p, p = p->next) {
        if (p != op)
            continue;
        if (prev)
            prev->next = p->next;
        else
            csp_u.held_head[cls] = p->next;
        if (csp_u.held_tail[cls] == p)
            csp_u.held_tail[cls] = prev;
        csp_u.nheld--;
        return 1;
    }
    return 0;
}

/* Push held posts, oldest first, while their class has cells. */
static void push_held(void)
{
    for (int cls = 0; cls < CSP_NCLASS; cls++) {
        uint32_t idx;
        while (csp_u.held_head[cls] && take_cell(cls, &idx)) {
            struct csp_op *op = csp_u.held_head[cls];
            csp_u.held_head[cls] = op->next;
            if (!csp_u.held_head[cls])
                csp_u.held_tail[cls] = NULL;
            csp_u.nheld--;
            publish(op, idx);
        }
    }
}

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
            while (!op->poll(op))
                csp_poke_progress();
            return;
        }
        deferred = d;
        capdeferred = cap;
    }
    deferred[ndeferred++] = op;
}

static void poll_deferred(void)
{
    for (size_t i = 0; i < ndeferred;) {
        struct csp_op *op = deferred[i];
        if (op->poll(op)) {
            deferred[i] = deferred[--ndeferred];
            csp_op_release(op);
        } else {
            i++;
        }
    }
    csp_u.pump_deferred = ndeferred != 0;
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
        if (!take_cell(-1, &idx))
            return;
        struct csp_op *op = csp_op_alloc();
        if (!op) {
            release_cell(idx, -1);
            return;
        }
        op->kind = CSP_OP_SEGMENT;
        op->mode = CSP_MATCH_NATIVE;
        op->seg = CSP_SEG_NONE;
        op->target = unmap_queue[--nunmap];
        op->freed = 1;
        csp_u.nfreed_pending++;
        publish(op, idx);
    }
    csp_u.pump_unmap = 0;
}

void csp_pump_slow(void)
{
    static uint32_t tick;
    if (csp_u.nheld)
        push_held();
    else if (csp_u.nfreed_pending && (++tick & 63) == 0)
        reclaim();
    if (ndeferred)
        poll_deferred();
    if (nunmap)
        notify_unmaps();
}

/* ---- waiting ---- */

/* Is the ghost still there? A dead ghost must turn waits into errors
 * (liveness.c: a zombie counts as dead). */
int csp_ghost_alive(void);
#define ghost_alive csp_ghost_alive

struct backoff {
    uint32_t n;
    struct csp_op *op;   /* the operation waited for; NULL: anything      */
    struct csp_op *also; /* with op: one that must be done too to wake us */
};

/* The cell whose completion should wake the waiter: the op's own while
 * it has one, else any. A sleeping user is then not woken by every
 * completion of its other operations (a window of 64 sends would wake a
 * user waiting for the last of them up to 64 times). */
static uint32_t wait_target(const struct backoff *b)
{
    /* Posts held for lack of cells go out only when this process runs:
     * every completion frees a cell they need. */
    if (csp_u.nheld)
        return CSP_WAIT_ANY;
    if (b->op && b->op->state == CSP_OPS_POSTED && !b->op->poll)
        return b->op->cell;
    return CSP_WAIT_ANY;
}

/* The second cell that must be done before the waiter is woken (the rest
 * of an MPI_Waitall), or CSP_WAIT_ANY. Only with a first cell: a wait
 * for anything stays a wait for anything. */
static uint32_t wait_also(const struct backoff *b)
{
    struct csp_op *a = b->also;
    if (wait_target(b) == CSP_WAIT_ANY || !a || a == b->op || a->state != CSP_OPS_POSTED || a->poll)
        return CSP_WAIT_ANY;
    return a->cell;
}

/*
 * One step of a polite wait: spin (polling MPI progress now and then),
 * then yield, then sleep on the channel's wake word until the ghost
 * completes something or a short timeout passes. ready() is re-checked
 * after announcing sleep, so a completion between the check and the
 * sleep is never missed. Returns 1 if that re-check found the caller
 * ready (the caller must not call ready() again: for MPI_Waitany it
 * consumes a request), 0 to go on waiting, -1 if the ghost is gone.
 */
static int backoff(struct backoff *b, int (*ready)(void *), void *arg)
{
    b->n++;
    if (b->n < csp_u.spin_iters) {
        cpu_relax();
        if ((b->n & 255) == 0)
            csp_poke_progress();
        return 0;
    }
    csp_poke_progress();
    if (b->n < csp_u.spin_iters + csp_u.yield_iters) {
        csp_u.n_yields++;
        CSP_UNLOCK();
        sched_yield();
        CSP_LOCK();
        return 0;
    }
    if (csp_u.ndirect_ops) {
        /* Direct starts (persist.c): MPICH completes them, nobody rings;
         * ready() polls MPICH. */
        csp_u.n_yields++;
        CSP_UNLOCK();
        sched_yield();
        CSP_LOCK();
        return 0;
    }
    if (!ghost_alive()) /* it may have finished our operation, then exited */
        return ready(arg) ? 1 : -1;
    /* The wake handshake (channel.h): announce, re-check, sleep while wake
     * is unchanged. */
    uint32_t seq = csp_user_sleep_begin(csp_u.chan, wait_target(b), wait_also(b));
    int now = ready(arg);
    if (!now) {
        csp_u.n_sleeps++;
        uint64_t t0 = csp_prof_begin();
        CSP_UNLOCK();
        /* Waiting for one offloaded operation, only the ghost can end
         * the wait and it rings: the timeout is a safety net. Other waits
         * (Waitany and Waitsome over requests MPI completes, the
         * finalize drain) poll what no ring announces, so they sleep at
         * most 1 ms. A long timeout is also cheaper: it is seldom the
         * CPU's earliest timer, so arming and cancelling it do not
         * reprogram the timer hardware (on a VM, an exit each). */
        csp_futex_wait(&csp_u.chan->wake, seq, b->op ? csp_u.sleep_us : min_u32(csp_u.sleep_us, 1000));
        CSP_LOCK();
        if (t0)
            csp_u.prof_sleep_ns += csp_now_ns() - t0;
    }
    csp_user_sleep_end(csp_u.chan);
    return now;
}

static int op_ready(void *arg)
{
    struct csp_op *op = arg;
    csp_pump();
    if (op->state == CSP_OPS_HELD)
        push_held();
    return csp_poll_op(op);
}

/* Wait until ready(arg), politely. ready() is called until it first
 * returns 1 and never again after, so it may consume what it finds (the
 * Waitany/Waitsome family passes a predicate that does). */
static int block_until(int (*ready)(void *), void *arg, struct csp_op *op, struct csp_op *also)
{
    struct backoff b = {0, op, also};
    while (!ready(arg)) {
        int r = backoff(&b, ready, arg);
        if (r < 0)
            return csp_error(csp_u.world, CSP_E_GHOST_GONE);
        if (r > 0)
            break;
    }
    return MPI_SUCCESS;
}

int csp_block_until(int (*ready)(void *), void *arg) { return block_until(ready, arg, NULL, NULL); }

int csp_wait_op(struct csp_op *op) { return block_until(op_ready, op, op, NULL); }

/* csp_wait_op_also waits for op; if it sleeps, the ghost wakes it only
 * once also is done too (MPI_Waitall waits for both anyway). */
int csp_wait_op_also(struct csp_op *op, struct csp_op *also) { return block_until(op_ready, op, op, also); }

/* For control cells: keep backing off until take_cell succeeds (the
 * re-check must not take the cell itself, so it only recycles). */
static int no_cell_yet(void *arg)
{
    (void)arg;
    reclaim();
    return 0;
}

int csp_control(uint8_t kind, uint32_t target, uint32_t target_gen)
{
    return csp_control_result(kind, target, target_gen, NULL);
}

int csp_control_result(uint8_t kind, uint32_t target, uint32_t target_gen, uint64_t *result)
{
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return MPI_ERR_NO_MEM;
    op->kind = kind;
    op->mode = CSP_MATCH_NATIVE;
    op->seg = CSP_SEG_NONE;
    op->target = target;
    op->target_gen = target_gen;
    uint32_t idx;
    struct backoff b = {0};
    while (!take_cell(-1, &idx)) {
        if (backoff(&b, no_cell_yet, NULL) < 0) {
            csp_op_release(op);
            return MPI_ERR_OTHER;
        }
    }
    publish(op, idx);
    b.n = 0;
    int rc = MPI_SUCCESS;
    while (!csp_cell_done(&csp_u.cells[idx])) {
        /* A ghost may answer, then exit (it does after the last user's
         * MPI_Finalize): look at the cell once more before calling it
         * gone. */
        if (!ghost_alive()) {
            if (!csp_cell_done(&csp_u.cells[idx]))
                rc = MPI_ERR_OTHER;
            break;
        }
        if (b.n++ < 1000)
            cpu_relax();
        else
            sched_yield();
    }
    if (rc == MPI_SUCCESS)
        rc = csp_u.cells[idx].st_error;
    if (rc == MPI_SUCCESS && result)
        *result = csp_u.cells[idx].st_bytes;
    release_cell(idx, -1);
    csp_op_release(op);
    return rc;
}

static int all_finished(void *arg)
{
    (void)arg;
    push_held();
    reclaim();
    if (ndeferred)
        poll_deferred();
    if (ndeferred)
        return 0;
    for (uint32_t i = 0; i < csp_u.ncells; i++)
        if (csp_u.cell_op[i])
            return 0;
    return csp_u.nheld == 0;
}

void csp_drain_all(void)
{
    csp_block_until(all_finished, NULL);
}
