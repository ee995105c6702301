/*
 * wait.c: the Wait/Test family over any mix of offloaded and ordinary
 * requests.
 *
 * Three kinds of handles can appear in one call:
 *   - ordinary MPICH requests: left to MPI;
 *   - offloaded nonblocking operations: MPICH generalized requests found in
 *     the request table (greq.h). We bring them to DONE (Wait) or check
 *     them (Test), call PMPI_Grequest_complete, and let MPI's own call free
 *     them, fill their statuses through our query callback, and handle the
 *     ordinary ones alongside;
 *   - persistent requests of offloaded communicators: handles of ours
 *     (persist.c) that MPICH must never see. They are completed here and
 *     masked as MPI_REQUEST_NULL in the array handed to MPI, then put back
 *     (a completed persistent request stays valid, inactive).
 */
#include "user.h"

#include <stdlib.h>
#include <string.h>

int csp_block_until(int (*ready)(void *), void *arg); /* engine.c */
int csp_unhold(struct csp_op *op);                    /* engine.c */
int csp_preq_free(struct csp_preq *p, MPI_Request *req);
struct csp_op *csp_preq_op(struct csp_preq *p);

/* Complete op's generalized request once (MPI then frees it when asked). */
static void complete_greq(struct csp_op *op)
{
    if (!op->greq_done) {
        op->greq_done = 1;
        PMPI_Grequest_complete(op->req);
    }
}

static inline MPI_Status *status_at(MPI_Status *sts, int i)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* A copy of reqs with our persistent handles masked as MPI_REQUEST_NULL,
 * for the MPI call; unmask writes MPI's changes back. */
struct mask {
    MPI_Request *reqs;
    MPI_Request local[32];
    int n, any;
};

static void mask_init(struct mask *m, int n, MPI_Request *reqs)
{
    m->n = n;
    m->any = 0;
    for (int i = 0; i < n && !m->any; i++)
        m->any = csp_is_preq(reqs[i]);
    if (!m->any) {
        m->reqs = reqs;
        return;
    }
    m->reqs = n <= 32 ? m->local : malloc(sizeof(MPI_Request) * (size_t)n);
    for (int i = 0; i < n; i++)
        m->reqs[i] = csp_is_preq(reqs[i]) ? MPI_REQUEST_NULL : reqs[i];
}

static void mask_done(struct mask *m, MPI_Request *reqs)
{
    if (!m->any)
        return;
    for (int i = 0; i < m->n; i++)
        if (!csp_is_preq(reqs[i]))
            reqs[i] = m->reqs[i];
    if (m->reqs != m->local)
        free(m->reqs);
}

int csp_wait(MPI_Request *req, MPI_Status *st)
{
    CSP_LOCK();
    struct csp_preq *p = csp_preq_of(*req);
    if (p) {
        int rc = csp_preq_wait(p);
        if (rc == MPI_SUCCESS)
            rc = csp_preq_finish(p, req, st);
        CSP_UNLOCK();
        return rc;
    }
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        csp_pump();
        CSP_UNLOCK();
        return PMPI_Wait(req, st);
    }
    int rc = csp_wait_op(op);
    if (rc == MPI_SUCCESS)
        complete_greq(op);
    CSP_UNLOCK();
    return rc == MPI_SUCCESS ? PMPI_Wait(req, st) : rc;
}

int csp_test(MPI_Request *req, int *flag, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_preq *p = csp_preq_of(*req);
    if (p) {
        int rc = MPI_SUCCESS;
        *flag = csp_preq_poll(p);
        if (*flag)
            rc = csp_preq_finish(p, req, st);
        else
            csp_poke_progress();
        CSP_UNLOCK();
        return rc;
    }
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Test(req, flag, st);
    }
    if (!csp_poll_op(op)) {
        csp_poke_progress();
        CSP_UNLOCK();
        *flag = 0;
        return MPI_SUCCESS;
    }
    complete_greq(op);
    CSP_UNLOCK();
    return PMPI_Test(req, flag, st);
}

/* Poll every offloaded request of reqs (generalized and persistent);
 * complete the generalized requests of those done. Returns how many are
 * still pending. */
static int sweep(int n, MPI_Request *reqs)
{
    int pending = 0;
    for (int i = 0; i < n; i++) {
        struct csp_preq *p = csp_preq_of(reqs[i]);
        if (p) {
            pending += !csp_preq_poll(p);
            continue;
        }
        struct csp_op *op = csp_greq_lookup(reqs[i]);
        if (!op)
            continue;
        if (csp_poll_op(op))
            complete_greq(op);
        else
            pending++;
    }
    return pending;
}

/* Finish the persistent requests of reqs (all done): statuses, errors. */
static int finish_preqs(int n, MPI_Request *reqs, MPI_Status *sts, int *errs)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        struct csp_preq *p = csp_preq_of(reqs[i]);
        if (!p)
            continue;
        int e = csp_preq_finish(p, &reqs[i], status_at(sts, i));
        if (e != MPI_SUCCESS) {
            rc = e;
            (*errs)++;
        }
        if (sts != MPI_STATUSES_IGNORE)
            sts[i].MPI_ERROR = e;
    }
    return rc;
}

int csp_waitall(int n, MPI_Request *reqs, MPI_Status *sts)
{
    CSP_LOCK();
    csp_pump();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct csp_preq *p = csp_preq_of(reqs[i]);
        if (p) {
            rc = csp_preq_wait(p);
            continue;
        }
        struct csp_op *op = csp_greq_lookup(reqs[i]);
        if (!op)
            continue;
        if ((rc = csp_wait_op(op)) == MPI_SUCCESS)
            complete_greq(op);
    }
    CSP_UNLOCK();
    if (rc != MPI_SUCCESS)
        return rc;
    struct mask m;
    mask_init(&m, n, reqs);
    if (!m.any)
        return PMPI_Waitall(n, reqs, sts);
    rc = PMPI_Waitall(n, m.reqs, sts);
    mask_done(&m, reqs);
    int errs = 0;
    CSP_LOCK();
    int prc = finish_preqs(n, reqs, sts, &errs);
    CSP_UNLOCK();
    if (rc == MPI_SUCCESS && errs)
        rc = sts == MPI_STATUSES_IGNORE ? prc : MPI_ERR_IN_STATUS;
    return rc;
}

int csp_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
    CSP_LOCK();
    csp_pump();
    int pending = sweep(n, reqs);
    CSP_UNLOCK();
    if (pending) {
        csp_poke_progress();
        *flag = 0;
        return MPI_SUCCESS;
    }
    struct mask m;
    mask_init(&m, n, reqs);
    if (!m.any)
        return PMPI_Testall(n, reqs, flag, sts);
    int rc = PMPI_Testall(n, m.reqs, flag, sts);
    mask_done(&m, reqs);
    if (rc == MPI_SUCCESS && *flag) {
        int errs = 0;
        CSP_LOCK();
        int prc = finish_preqs(n, reqs, sts, &errs);
        CSP_UNLOCK();
        if (errs)
            rc = sts == MPI_STATUSES_IGNORE ? prc : MPI_ERR_IN_STATUS;
    }
    return rc;
}

/* The first finished persistent request of reqs, or -1. */
static int done_preq(int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        struct csp_preq *p = csp_preq_of(reqs[i]);
        if (p && csp_preq_active(p) && csp_preq_poll(p))
            return i;
    }
    return -1;
}

struct any_arg {
    int n;
    MPI_Request *reqs;
    int *idx, *flag, *outcount, *idxs;
    MPI_Status *st;
    int rc;
    int some;
};

/* Testany / Testsome over a mixed array (one pass). */
static int test_any(struct any_arg *a)
{
    sweep(a->n, a->reqs);
    if (!a->some) {
        int i = done_preq(a->n, a->reqs);
        if (i >= 0) {
            *a->idx = i;
            *a->flag = 1;
            a->rc = csp_preq_finish(csp_preq_of(a->reqs[i]), &a->reqs[i], a->st);
            return 1;
        }
        struct mask m;
        mask_init(&m, a->n, a->reqs);
        a->rc = PMPI_Testany(a->n, m.reqs, a->idx, a->flag, a->st);
        mask_done(&m, a->reqs);
        if (a->rc == MPI_SUCCESS && *a->flag && *a->idx == MPI_UNDEFINED) {
            /* only null or inactive ordinary requests: still pending persistent ones? */
            for (int i = 0; i < a->n; i++) {
                struct csp_preq *p = csp_preq_of(a->reqs[i]);
                if (p && csp_preq_active(p)) {
                    *a->flag = 0;
                    break;
                }
            }
        }
        return a->rc != MPI_SUCCESS || *a->flag;
    }
    struct mask m;
    mask_init(&m, a->n, a->reqs);
    a->rc = PMPI_Testsome(a->n, m.reqs, a->outcount, a->idxs, a->st);
    mask_done(&m, a->reqs);
    if (a->rc != MPI_SUCCESS && a->rc != MPI_ERR_IN_STATUS)
        return 1;
    int active_preq = 0, cnt = *a->outcount == MPI_UNDEFINED ? 0 : *a->outcount;
    for (int i = 0; i < a->n; i++) {
        struct csp_preq *p = csp_preq_of(a->reqs[i]);
        if (!p || !csp_preq_active(p))
            continue;
        active_preq = 1;
        if (!csp_preq_poll(p))
            continue;
        MPI_Status *st = a->st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &a->st[cnt];
        int e = csp_preq_finish(p, &a->reqs[i], st);
        if (e != MPI_SUCCESS)
            a->rc = MPI_ERR_IN_STATUS;
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = e;
        a->idxs[cnt++] = i;
    }
    if (*a->outcount != MPI_UNDEFINED || cnt > 0 || active_preq)
        *a->outcount = cnt;
    return *a->outcount != 0;
}

static int any_ready(void *p)
{
    csp_pump();
    return test_any(p);
}

int csp_testany(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st)
{
    int f = 0;
    struct any_arg a = {.n = n, .reqs = reqs, .idx = idx, .flag = &f, .st = st};
    CSP_LOCK();
    csp_pump();
    test_any(&a);
    CSP_UNLOCK();
    *flag = f;
    if (!f)
        csp_poke_progress();
    return a.rc;
}

int csp_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    struct any_arg a = {.n = n, .reqs = reqs, .outcount = outcount, .idxs = idx, .st = sts, .some = 1};
    CSP_LOCK();
    csp_pump();
    test_any(&a);
    CSP_UNLOCK();
    return a.rc;
}

/* Does reqs hold any request of ours? */
static int ours(int n, MPI_Request *reqs)
{
    if (csp_greq.used == 0) {
        for (int i = 0; i < n; i++)
            if (csp_is_preq(reqs[i]))
                return 1;
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (csp_is_preq(reqs[i]) || csp_greq_lookup(reqs[i]))
            return 1;
    return 0;
}

int csp_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st)
{
    if (!ours(n, reqs))
        return PMPI_Waitany(n, reqs, idx, st);
    int flag = 0;
    struct any_arg a = {.n = n, .reqs = reqs, .idx = idx, .flag = &flag, .st = st};
    CSP_LOCK();
    int rc = csp_block_until(any_ready, &a);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : a.rc;
}

int csp_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    if (!ours(n, reqs))
        return PMPI_Waitsome(n, reqs, outcount, idx, sts);
    struct any_arg a = {.n = n, .reqs = reqs, .outcount = outcount, .idxs = idx, .st = sts, .some = 1};
    CSP_LOCK();
    int rc = csp_block_until(any_ready, &a);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : a.rc;
}

int csp_request_free(MPI_Request *req)
{
    CSP_LOCK();
    struct csp_preq *p = csp_preq_of(*req);
    if (p) {
        int rc = csp_preq_free(p, req);
        CSP_UNLOCK();
        return rc;
    }
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Request_free(req);
    }
    /* MPI releases the handle now and may reuse its value at once: drop
     * our table entry, keep the record until the operation finishes (MPICH
     * calls csp_greq_free from PMPI_Request_free, which then leaves the
     * record alone; finish() returns it). A finished operation's request
     * is completed first, so MPI frees it and the record at once. */
    csp_greq_forget(*req);
    op->freed = 1;
    if (op->state == CSP_OPS_DONE) {
        complete_greq(op);
    } else if (op->poll) {
        csp_defer_freed(op);
    } else {
        csp_u.nfreed_pending++;
    }
    int rc = PMPI_Request_free(req);
    CSP_UNLOCK();
    return rc;
}

/* Cancel one offloaded operation: at once if it never left, else ask the
 * ghost (the operation then completes, cancelled or not). */
static int cancel_op(struct csp_op *op)
{
    if (op->state == CSP_OPS_HELD && csp_unhold(op)) {
        if (op->bounce) {
            csp_heap_free(csp_u.heap, op->bounce);
            op->bounce = NULL;
        }
        op->state = CSP_OPS_DONE;
        op->st_cancelled = 1;
        op->st_error = MPI_SUCCESS;
        op->st_source = MPI_ANY_SOURCE;
        op->st_tag = MPI_ANY_TAG;
        op->st_bytes = 0;
        if (op->comm) {
            csp_comm_unref(op->comm);
            op->comm = NULL;
        }
        return MPI_SUCCESS;
    }
    if (op->state == CSP_OPS_POSTED) {
        op->cancel = 1;
        return csp_control(CSP_OP_CANCEL, op->cell, op->gen);
    }
    return MPI_SUCCESS;
}

int csp_cancel(MPI_Request *req)
{
    CSP_LOCK();
    struct csp_preq *p = csp_preq_of(*req);
    if (p) {
        struct csp_op *op = csp_preq_op(p);
        int rc = op ? cancel_op(op) : MPI_SUCCESS;
        CSP_UNLOCK();
        return rc;
    }
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Cancel(req);
    }
    int rc = cancel_op(op);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : PMPI_Cancel(req);
}

int csp_request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    CSP_LOCK();
    struct csp_preq *p = csp_preq_of(req);
    if (p) {
        *flag = csp_preq_poll(p);
        struct csp_op *op = csp_preq_op(p);
        if (*flag && op)
            csp_greq_fill_status(op, st);
        else if (!*flag)
            csp_poke_progress();
        CSP_UNLOCK();
        return MPI_SUCCESS;
    }
    struct csp_op *op = csp_greq_lookup(req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Request_get_status(req, flag, st);
    }
    csp_pump();
    *flag = csp_poll_op(op);
    if (*flag)
        csp_greq_fill_status(op, st);
    else
        csp_poke_progress();
    CSP_UNLOCK();
    return MPI_SUCCESS;
}
