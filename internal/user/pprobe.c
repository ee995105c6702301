/*
 * pprobe.c: MPI_Iprobe and MPI_Improbe polled in a loop, answered
 * without waiting for the ghost on every call.
 *
 * On an offloaded communicator only the ghost sees the messages (they
 * travel on its internal communicators), so a probe is a cell to the
 * ghost and a wait for its answer: a round trip and, where the ghost
 * shares the core with computing processes, a sleep until it gets the
 * CPU. Programs that poll (a PGAS runtime's server loop, Global Arrays
 * over ARMCI-MPI waiting for a request) paid that on every call, most of
 * which find nothing. MPI asks of a polling loop only that it eventually
 * sees a message that was sent (MPI 4.0, section 3.8.1, and the progress
 * rule): an MPI_Iprobe that answers "nothing" may reflect any moment at
 * which the message had not arrived yet.
 *
 * So an MPI_Iprobe that finds nothing leaves a probe of the same source
 * and tag with the ghost (csp_u.pprobe) and returns. The next MPI_Iprobe
 * with the same arguments on the same entry takes that probe's answer if
 * the ghost has given it (a message: its status; nothing: it leaves
 * another probe) and otherwise answers "nothing" at once, waiting for no
 * one. An MPI_Iprobe without such a probe (the first of a loop, other
 * arguments) waits for the ghost as before, so a program that probes once
 * for a message it knows has arrived still finds it.
 *
 * MPI_Improbe polls the same way, with the same kind of probe: one that
 * matches would take a message out of matching for a call that may
 * never come. So the answer only tells an MPI_Improbe whether to ask the
 * ghost: "nothing" is answered at once, a message found is matched by a
 * probe that waits (and finds it, unless a receive of this process took
 * it meanwhile: then "nothing", and a probe is left). MPI_Iprobe and
 * MPI_Improbe with the same arguments share the probe.
 *
 * Where the ghost shares this process's core at the lowest priority
 * (csp_u.lend), it answers only while this process leaves the core, and a
 * loop that computes between its probes never does: the server of
 * osubench's probe benchmark then waited 6.7 ms per request (206x plain
 * MPICH, against 2.4x with a wait per probe). So a probe still unanswered
 * some patience after it was left is waited for (below), as coop.c lends
 * the core to a ghost with work every LEND_EVERY_US.
 *
 * Invariant: csp_u.pprobe.op, when set, is a probe record of this process
 * (CSP_OP_IPROBE, no handle) posted on the entry pprobe.entry with
 * pprobe.src and pprobe.tag; while HELD or POSTED it holds its reference
 * to the entry and counts in the entry's pend_recv, once DONE neither.
 * Its answer is given only while stale is 0: a receive posted on the
 * entry after the probe (csp_pprobe_note_recv) may take the message the
 * answer names. (The ghost handles one user's cells in order, so no
 * receive posted before the probe can take it.) The switch of route never
 * sees it in flight: the counters' readings (switch.c) drop it first,
 * and an entry replaced or destroyed drops it or forgets it (comm.c).
 * At most one such probe exists per process, and a call that waits for
 * it takes it out of csp_u.pprobe first: under MPI_THREAD_MULTIPLE the
 * wait lets other threads' calls run, and none may find it then.
 */
#include "user.h"
#include "block.h"
#include "complete.h"
#include "post.h"
#include "submit.h"

/* A probe left with a ghost that shares the core and still unanswered
 * after patience_us microseconds is waited for. The patience starts at
 * PATIENCE_MIN_US, doubles (up to PATIENCE_MAX_US) after every
 * PATIENCE_GROW such waits in a row that brought "nothing", and starts
 * over when a probe finds a message. A loop that keeps finding messages
 * (osubench's probe server with busy compute: about 4 probes a request)
 * is answered as fresh as with a wait per call: the same round trip,
 * 2.4x plain MPICH's, and the same 48% of the server's time computing
 * (doubling after every wait: 5.0x and 67%). A loop that polls long for
 * nothing (Global Arrays' processes under NWChem, about 55 probes per
 * message) sleeps about once per PATIENCE_MAX_US, and finds the message
 * that ends such a stretch at most that much later. */
#define PATIENCE_MIN_US 20u
#define PATIENCE_MAX_US 1000u
#define PATIENCE_GROW 4u
static uint32_t patience_us = PATIENCE_MIN_US, nothing_waits;

void csp_pprobe_settle(struct csp_comm *c)
{
    if (csp_u.pprobe.op && csp_u.pprobe.entry == c)
        csp_pprobe_drop(); /* its answer goes: the next call waits for a fresh one */
}

void csp_pprobe_drop(void)
{
    /* Taken out before the wait, which lets other threads' calls run
     * (MPI_THREAD_MULTIPLE): none of them may find it then. */
    struct csp_op *op = csp_u.pprobe.op;
    csp_u.pprobe = (struct csp_pprobe){0};
    if (!op)
        return;
    if (csp_wait_op(op) == MPI_SUCCESS && op->r.state == CSP_OPS_DONE) { /* at once if it is */
        csp_op_release(op);
        return;
    }
    /* The ghost is gone: whoever finishes it returns the record. */
    op->r.freed = 1;
    csp_u.nfreed_pending++;
}

/* Leave a probe of src and tag on c with the ghost. Nothing if no record
 * or cell line can be had: the next call then probes and waits. */
void csp_pprobe_post(struct csp_comm *c, int src, int tag)
{
    struct csp_op *op;
    if (csp_u.pprobe.op) /* another thread's, left while this call waited */
        return;
    if (csp_post_recv(CSP_OP_IPROBE, NULL, 0, MPI_BYTE, src, tag, c, &op) != MPI_SUCCESS)
        return;
    csp_u.n_probe++;
    csp_submit(op);
    csp_u.pprobe = (struct csp_pprobe){.op = op, .entry = c, .src = src, .tag = tag,
                                       .t0 = csp_u.lend ? csp_prof_now_ns() : 0};
}

/* take: the polled probe's answer for a call probing src and tag on c.
 * Returns -1 if there is none to use (the caller probes and waits);
 * otherwise *rc and 1 for a message (its status in *st, if st), 0 for
 * "nothing" (another probe is then left) or an error (*rc: the ghost is
 * gone). */
static int take(struct csp_comm *c, int src, int tag, MPI_Status *st, int *rc)
{
    struct csp_pprobe *p = &csp_u.pprobe;
    if (!p->op)
        return -1;
    if (p->entry != c || p->src != src || p->tag != tag || p->stale) {
        csp_pprobe_drop();
        return -1;
    }
    struct csp_op *op = p->op;
    if (op->r.state == CSP_OPS_HELD)
        csp_push_held();
    csp_u.n_probe_polled++;
    *rc = MPI_SUCCESS;
    if (!csp_poll_op(op)) {
        if (!csp_u.lend || csp_prof_now_ns() - p->t0 < patience_us * 1000u) { /* nothing yet */
            csp_poke_progress();
            return 0;
        }
        /* The ghost has not had the core since: give it until it answers.
         * This call owns the probe from here (the wait lets other
         * threads' calls run). */
        *p = (struct csp_pprobe){0};
        if ((*rc = csp_wait_op(op)) != MPI_SUCCESS) { /* the ghost is gone */
            op->r.freed = 1; /* whoever finishes it returns the record */
            csp_u.nfreed_pending++;
            return 0;
        }
        if (!op->st_found && ++nothing_waits == PATIENCE_GROW) {
            nothing_waits = 0;
            patience_us = patience_us * 2 > PATIENCE_MAX_US ? PATIENCE_MAX_US : patience_us * 2;
        }
    } else {
        *p = (struct csp_pprobe){0}; /* answered: this call takes it */
    }
    *rc = op->r.st_error;
    int found = *rc == MPI_SUCCESS && op->st_found;
    if (found) {
        patience_us = PATIENCE_MIN_US;
        nothing_waits = 0;
        if (st)
            csp_req_fill_status(&op->r, st);
    }
    csp_op_release(op);
    if (*rc == MPI_SUCCESS && !found) {
        csp_poke_progress();
        csp_pprobe_post(c, src, tag);
    }
    return found;
}

int csp_pprobe_answer(struct csp_comm *c, int src, int tag, int *flag, MPI_Status *st, int *rc)
{
    int a = take(c, src, tag, st, rc);
    if (a < 0)
        return 0;
    *flag = a;
    return 1;
}

/* MPI_Improbe's polling: the probe left with the ghost does not match
 * (an MPI_Iprobe's), so its answer only says whether this call must ask
 * the ghost to match: "nothing" is answered at once, a message found
 * sends the caller to the matching probe (which finds it, unless another
 * receive of this process took it meanwhile). */
int csp_pprobe_nothing(struct csp_comm *c, int src, int tag, int *rc)
{
    return take(c, src, tag, NULL, rc) == 0;
}
