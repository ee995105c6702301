/*
 * block.c: polite waiting. A wait spins (polling MPI progress now and
 * then), then yields, then sleeps on the channel's wake word (the wake
 * handshake of channel.h) until the ghost completes what it waits for or
 * a short timeout passes. A dead ghost (liveness.c) turns waits into
 * errors.
 */
#define _GNU_SOURCE
#include "block.h"
#include "complete.h"
#include "liveness.h"
#include "pump.h"
#include "submit.h"

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* MPICH has work that progresses only in this process's MPI calls: a
 * window whose RMA MPICH serves (user.h: csp_u.nwins_live against the
 * redirected windows its ghost watches; MPI_Win_create, dynamic, or not
 * redirected), or a receive on a direct route (csp_u.ndirect_recv), whose
 * rendezvous needs it. Plain MPICH spins in progress inside whatever call
 * it waits in; asleep on the wake word, this process answers only when
 * it wakes. So its sleeps end every CSP_MPICH_WORK_NAP_US. A 256 KiB put
 * epoch on an MPI_Win_create window whose target waits in an offloaded
 * MPI_Recv then takes 2.8 ms (plain MPICH: 99 us; 20 ms naps: 220 ms;
 * 1 ms naps: 12 ms; yielding instead of sleeping: 106 us, but NWChem with
 * such windows and offload on then took 5.2-6.7 s against 2.3-2.4, its
 * users spinning where the ghost needed their cores; with these naps
 * 2.3 s), and a blocking 256 KiB send to a direct receive posted before
 * such a wait 1.4 ms (plain 1.2; 20 ms naps: 20.7 ms). */
#define CSP_MPICH_WORK_NAP_US 200
static inline int mpich_work(void)
{
    return csp_u.ndirect_recv > 0 || __atomic_load_n(&csp_u.nwins_live, __ATOMIC_RELAXED) >
                                         __atomic_load_n(&csp_u.nwatched, __ATOMIC_RELAXED);
}

int csp_futex_wait(uint32_t *addr, uint32_t val, long timeout_us)
{
    struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000};
    return syscall(SYS_futex, addr, 0 /* FUTEX_WAIT */, val, &ts, NULL, 0) != 0 && errno == ETIMEDOUT;
}

/* The cell whose completion should wake the waiter: the op's own while
 * it has one, else any. A sleeping user is then not woken by every
 * completion of its other operations (a window of 64 sends would wake a
 * user waiting for the last of them up to 64 times). */
static uint32_t wait_target(const struct csp_backoff *b)
{
    /* Posts held for lack of cells go out only when this process runs:
     * every completion frees a cell they need. */
    if (csp_u.nheld)
        return CSP_WAIT_ANY;
    if (b->op && b->op->r.state == CSP_OPS_POSTED && !b->op->r.poll)
        return b->op->cell;
    return CSP_WAIT_ANY;
}

/* The second cell that must be done before the waiter is woken (the rest
 * of an MPI_Waitall), or CSP_WAIT_ANY. Only with a first cell: a wait
 * for anything stays a wait for anything. */
static uint32_t wait_also(const struct csp_backoff *b)
{
    struct csp_op *a = b->also;
    if (wait_target(b) == CSP_WAIT_ANY || !a || a == b->op || a->r.state != CSP_OPS_POSTED || a->r.poll)
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
static int backoff(struct csp_backoff *b, int (*ready)(void *), void *arg)
{
    b->n++;
    if (b->n < csp_u.spin_iters) {
        csp_cpu_relax();
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
    if (csp_u.ndirect_ops || (b->op && b->op->r.poll && b->op->r.unrung && !csp_u.yield_direct)) {
        /* Direct starts (persist.c), or a deferred operation only MPICH's
         * progress in our calls ends (an MPI_Comm_idup's agreement):
         * nobody rings; ready() polls MPICH. An idup + MPI_Wait took
         * 310-400 us with 200 us naps, 35-48 so (2 users + 2 ghosts on 2
         * cores; plain MPICH's 2 processes 150-310). Where users
         * outnumber cores the naps were faster (4 users + 4 ghosts:
         * 790-1090 us against 1130-1570 polling): they stay there. */
        csp_u.n_yields++;
        CSP_UNLOCK();
        sched_yield();
        CSP_LOCK();
        return 0;
    }
    /* Is the ghost gone (it may have finished our operation, then exited)?
     * Its state word says so if it exited; a death shows only to the
     * pidfd's poll (liveness.c), a system call (0.35 us here) that a wait
     * the ghost ends by ringing never needs: it is made only after a sleep
     * of this wait ran out its timeout, since a dead ghost cannot ring.
     * So a death costs one sleep's timeout to notice. */
    if (!csp_ghost_running() || (b->timed_out && !csp_ghost_alive()))
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
         * most 1 ms. While MPICH has work only this process's calls
         * advance (mpich_work), every wait sleeps at most
         * CSP_MPICH_WORK_NAP_US. A long timeout is also cheaper: it is
         * seldom the CPU's earliest timer, so arming and cancelling it
         * do not reprogram the timer hardware (on a VM, an exit each). */
        uint32_t us = b->op ? csp_u.sleep_us : min_u32(csp_u.sleep_us, 1000);
        /* A deferred operation the ghost rings for (an MPI_Isendrecv
         * pair) may still wait on MPICH for a half on a direct route,
         * which progresses only in our calls: its sleeps are naps too
         * (idups, which wait on MPICH alone, poll above: with the sleep's
         * whole timeout 2037 of them waited for one by one took 90 s). */
        if (mpich_work() || (b->op && b->op->r.poll))
            us = min_u32(us, CSP_MPICH_WORK_NAP_US);
        b->timed_out = (uint8_t)csp_futex_wait(&csp_u.chan->wake, seq, us);
        CSP_LOCK();
        csp_prof_end_sleep(t0);
    }
    csp_user_sleep_end(csp_u.chan);
    return now;
}

static int op_ready(void *arg)
{
    struct csp_op *op = arg;
    csp_pump();
    if (op->r.state == CSP_OPS_HELD)
        csp_push_held();
    return csp_poll_op(op);
}

/* Wait until ready(arg), politely. ready() is called until it first
 * returns 1 and never again after, so it may consume what it finds (the
 * Waitany/Waitsome family passes a predicate that does). */
static int block_until(int (*ready)(void *), void *arg, struct csp_op *op, struct csp_op *also)
{
    struct csp_backoff b = {0, op, also};
    if (ready(arg))
        return MPI_SUCCESS;
    csp_user_in_mpi(csp_u.chan, 1); /* the ghost may poll windows often */
    int rc = MPI_SUCCESS;
    for (;;) {
        int r = backoff(&b, ready, arg);
        if (r < 0) {
            rc = csp_error(csp_u.world, CSP_E_GHOST_GONE);
            break;
        }
        if (r > 0 || ready(arg))
            break;
    }
    csp_user_in_mpi(csp_u.chan, -1);
    return rc;
}

int csp_block_until(int (*ready)(void *), void *arg) { return block_until(ready, arg, NULL, NULL); }

int csp_backoff(struct csp_backoff *b, int (*ready)(void *), void *arg) { return backoff(b, ready, arg); }

int csp_wait_op(struct csp_op *op) { return block_until(op_ready, op, op, NULL); }

int csp_wait_op_also(struct csp_op *op, struct csp_op *also) { return block_until(op_ready, op, op, also); }

static int all_finished(void *arg)
{
    (void)arg;
    return csp_all_finished();
}

void csp_drain_all(void)
{
    csp_block_until(all_finished, NULL);
}
