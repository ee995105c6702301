/*
 * wait.c: the Wait/Test family over any mix of offloaded and ordinary
 * requests.
 *
 * Offloaded requests are generalized requests; the table (greq.h) tells
 * them apart. Each call first brings its offloaded requests to DONE (or
 * checks them, for Test), calls PMPI_Grequest_complete on those that are,
 * and then lets MPI's own call do the rest: free the requests, call our
 * query callback for their statuses, and handle the ordinary ones.
 */
#include "user.h"

/* Complete op's generalized request once (MPI then frees it when asked). */
static void complete_greq(struct csp_op *op)
{
    if (!op->greq_done) {
        op->greq_done = 1;
        PMPI_Grequest_complete(op->req);
    }
}

int csp_wait(MPI_Request *req, MPI_Status *st)
{
    CSP_LOCK();
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

int csp_waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    CSP_LOCK();
    csp_pump();
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct csp_op *op = csp_greq_lookup(reqs[i]);
        if (!op)
            continue;
        if ((rc = csp_wait_op(op)) == MPI_SUCCESS)
            complete_greq(op);
    }
    CSP_UNLOCK();
    return rc == MPI_SUCCESS ? PMPI_Waitall(n, reqs, sts) : rc;
}

/* Poll every offloaded request of reqs; complete the generalized requests
 * of those done. Returns how many offloaded requests are still pending. */
static int sweep(int n, MPI_Request reqs[])
{
    int pending = 0;
    for (int i = 0; i < n; i++) {
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

int csp_testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
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
    return PMPI_Testall(n, reqs, flag, sts);
}

int csp_testany(int n, MPI_Request reqs[], int *idx, int *flag, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    sweep(n, reqs);
    CSP_UNLOCK();
    return PMPI_Testany(n, reqs, idx, flag, st);
}

int csp_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    CSP_LOCK();
    csp_pump();
    sweep(n, reqs);
    CSP_UNLOCK();
    return PMPI_Testsome(n, reqs, outcount, idx, sts);
}

struct any_arg {
    int n;
    MPI_Request *reqs;
    int *idx, *flag, *outcount, *idxs;
    MPI_Status *st;
    int rc;
    int some;
};

/* Ready when MPI's Testany/Testsome finds something (or nothing can). */
static int any_ready(void *p)
{
    struct any_arg *a = p;
    csp_pump();
    sweep(a->n, a->reqs);
    if (a->some) {
        a->rc = PMPI_Testsome(a->n, a->reqs, a->outcount, a->idxs, a->st);
        return a->rc != MPI_SUCCESS || *a->outcount != 0;
    }
    a->rc = PMPI_Testany(a->n, a->reqs, a->idx, a->flag, a->st);
    return a->rc != MPI_SUCCESS || *a->flag;
}

int csp_block_until(int (*ready)(void *), void *arg); /* engine.c */

int csp_waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
    if (csp_greq.used == 0)
        return PMPI_Waitany(n, reqs, idx, st);
    int flag = 0;
    struct any_arg a = {.n = n, .reqs = reqs, .idx = idx, .flag = &flag, .st = st};
    CSP_LOCK();
    int rc = csp_block_until(any_ready, &a);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : a.rc;
}

int csp_waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[])
{
    if (csp_greq.used == 0)
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
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Request_free(req);
    }
    /* MPI releases the handle now and may reuse its value at once: drop
     * our table entry, keep the record until the operation finishes. */
    MPI_Request h = *req;
    csp_greq_forget(h);
    op->freed = 1;
    int rc = PMPI_Request_free(req);
    if (op->state == CSP_OPS_DONE) {
        complete_greq(op); /* MPI frees it now: csp_greq_free returns the record */
    } else {
        csp_u.nfreed_pending++;
    }
    CSP_UNLOCK();
    return rc;
}

int csp_unhold(struct csp_op *op); /* engine.c */

int csp_cancel(MPI_Request *req)
{
    CSP_LOCK();
    struct csp_op *op = csp_greq_lookup(*req);
    if (!op) {
        CSP_UNLOCK();
        return PMPI_Cancel(req);
    }
    int rc = MPI_SUCCESS;
    if (op->state == CSP_OPS_HELD && csp_unhold(op)) {
        /* Never left this process: cancelled on the spot. */
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
    } else if (op->state == CSP_OPS_POSTED) {
        op->cancel = 1;
        rc = csp_control(CSP_OP_CANCEL, op->cell, op->gen);
    }
    CSP_UNLOCK();
    if (rc != MPI_SUCCESS)
        return rc;
    return PMPI_Cancel(req);
}

int csp_request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    CSP_LOCK();
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
