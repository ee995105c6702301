/*
 * wait.c: the Wait/Test family over any mix of offloaded and ordinary
 * requests.
 *
 * Our requests carry handles MPICH never issues (greq.h: operation
 * handles; persist.c: persistent requests). Each call completes ours
 * itself and hands MPICH an array where ours are masked as
 * MPI_REQUEST_NULL, then merges the results: statuses of ours are filled
 * from their records, errors follow MPI_ERR_IN_STATUS rules.
 */
#include "user.h"
#include "block.h"
#include "complete.h"
#include "control.h"
#include "liveness.h"
#include "persist.h"
#include "pump.h"
#include "route.h"
#include "submit.h"

#include <stdlib.h>

/* Is r one of our handles (an operation's or a persistent request's)?
 * Their kinds differ in one bit, so one compare answers. */
_Static_assert((CSP_REQ_KIND & 0xf8000000u) == 0x10000000u && (CSP_PREQ_KIND & 0xf8000000u) == 0x10000000u &&
                   (CSP_REQ_KIND ^ CSP_PREQ_KIND) == 0x04000000u && CSP_HANDLE_KIND_MASK == 0xfc000000u,
               "ours(): the two kinds of our request handles");
static inline int ours(MPI_Request r) { return ((uint32_t)r & 0xf8000000u) == 0x10000000u; }

static inline MPI_Status *status_at(MPI_Status *sts, int i)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* Has our request r nothing left to wait for? (A stale handle: yes, and
 * completing it reports the error.) */
static int ours_ready(MPI_Request r)
{
    struct csp_op *op = csp_op_lookup(r);
    if (op)
        return csp_poll_op(op);
    struct csp_preq *p = csp_preq_of(r);
    return p ? csp_preq_poll(p) : 1;
}

/* Is our request r active (for MPI's "null or inactive" rules)? */
static int ours_active(MPI_Request r)
{
    if (csp_op_lookup(r))
        return 1;
    struct csp_preq *p = csp_preq_of(r);
    return p && csp_preq_active(p);
}

static int ours_wait(MPI_Request r)
{
    struct csp_op *op = csp_op_lookup(r);
    if (op)
        return csp_wait_op(op);
    struct csp_preq *p = csp_preq_of(r);
    return p ? csp_preq_wait(p) : MPI_SUCCESS;
}

/* Is our request r done (nothing left to wait for), without polling? */
static int ours_done(MPI_Request r)
{
    struct csp_op *op = csp_op_lookup(r);
    if (!op && csp_is_preq(r)) {
        struct csp_preq *p = csp_preq_of(r);
        op = p ? csp_preq_op(p) : NULL;
        if (p && !op)
            return 1; /* inactive */
    }
    return !op || op->r.state == CSP_OPS_DONE;
}

/* The error our done request r will complete with: MPI_SUCCESS, the
 * operation's error, or (a stale handle) MPI_ERR_REQUEST, which
 * ours_complete raises properly. */
static int ours_error(MPI_Request r)
{
    struct csp_op *op = csp_op_lookup(r);
    if (op)
        return op->r.st_error;
    struct csp_preq *p = csp_preq_of(r);
    if (!p)
        return MPI_ERR_REQUEST;
    op = csp_preq_op(p);
    return op ? op->r.st_error : MPI_SUCCESS;
}

/* Complete our ready request *r: its status, and *r becomes
 * MPI_REQUEST_NULL (an operation) or stays (an inactive persistent one).
 * Returns the operation's error. */
static int ours_complete(MPI_Request *r, MPI_Status *st)
{
    struct csp_op *op = csp_op_lookup(*r);
    if (op)
        return csp_op_complete(op, r, st);
    struct csp_preq *p = csp_preq_of(*r);
    if (p)
        return csp_preq_finish(p, r, st);
    csp_empty_status(st);
    return csp_error(csp_u.world, CSP_E_BAD_REQUEST);
}

/* The operation behind our request r (an operation or an active
 * persistent request) if it is not done yet, else NULL. */
static struct csp_op *pending_op(MPI_Request r)
{
    struct csp_op *op = csp_op_lookup(r);
    if (!op && csp_is_preq(r)) {
        struct csp_preq *p = csp_preq_of(r);
        op = p ? csp_preq_op(p) : NULL;
    }
    return op && op->r.state != CSP_OPS_DONE ? op : NULL;
}

/* The index of our request in reqs likely to finish last, or -1: the
 * last receive still pending (a receive waits for its sender), else the
 * last pending operation (the ghost serves a user's posts in order).
 * MPI_Waitall waits for it first, so that its sleeps end when the whole
 * set is nearly done rather than at each completion on the way. */
static int likely_last(int n, MPI_Request *reqs)
{
    int last = -1, last_recv = -1;
    for (int i = 0; i < n; i++) {
        struct csp_op *op = pending_op(reqs[i]);
        if (!op)
            continue;
        last = i;
        if (op->kind == CSP_OP_RECV || op->kind == CSP_OP_MRECV)
            last_recv = i;
    }
    return last_recv >= 0 ? last_recv : last;
}

/* MPI_Waitall's first wait: for reqs[k] (pending: likely_last chose it),
 * and if it sleeps, woken only once the last other pending operation is
 * done too (an exchange's send and receive finish close together: one
 * wake instead of two). Persistent requests too: pending_op sees through
 * them, as csp_preq_wait does. */
static int wait_first(int n, MPI_Request *reqs, int k)
{
    struct csp_op *op = pending_op(reqs[k]), *also = NULL;
    for (int i = n - 1; i >= 0 && !also; i--)
        if (i != k)
            also = pending_op(reqs[i]);
    return csp_wait_op_also(op, also);
}

/* Does reqs hold any request of ours? Long arrays without an early exit,
 * so that the loop vectorizes: the direct route's arrays hold none. */
static inline int any_ours(int n, MPI_Request *reqs)
{
    if (n <= 8) {
        for (int i = 0; i < n; i++)
            if (ours(reqs[i]))
                return 1;
        return 0;
    }
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= ours(reqs[i]);
    return any;
}

/* Wait for requests none of which is ours: MPICH's, lending the core to
 * a ghost that has work (coop.c). The common case (one thread, nothing
 * for the pump, an idle ghost) calls nothing but MPICH (csp_mpich_*): the
 * callers below then need no stack frame. */
static __attribute__((noinline)) int wait_theirs(MPI_Request *req, MPI_Status *st)
{
    csp_pump_unlocked();
    return csp_coop_wait(req, st);
}

static __attribute__((noinline)) int waitall_theirs(int n, MPI_Request *reqs, MPI_Status *sts)
{
    csp_pump_unlocked();
    return csp_coop_waitall(n, reqs, sts);
}

/* Is the common case above not given (then the *_theirs forms decide)?
 * Waits that yield the core (coop.c), or the ghost's work as
 * csp_coop_owed reads it, without the lock (one thread here): its busy
 * word, or cells of ours it has not taken. */
static inline int theirs_slow(void)
{
    if (csp_direct_slow() || csp_u.yield_direct)
        return 1;
    return csp_u.lend && csp_u.on &&
           (csp_ghost_busy(csp_u.ghost) || __atomic_load_n(csp_u.prod.r.head, __ATOMIC_ACQUIRE) != csp_u.prod.tail);
}

/* Does reqs hold a request for MPICH (not ours, not null)? When it does
 * not, the Wait/Test calls skip MPICH: merge_all writes every status. */
static int any_theirs(int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL && !ours(reqs[i]))
            return 1;
    return 0;
}

/* The empty statuses MPICH would give reqs' null requests. */
static void empty_nulls(int n, MPI_Request *reqs, MPI_Status *sts)
{
    if (sts == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        if (reqs[i] == MPI_REQUEST_NULL)
            csp_empty_status(&sts[i]);
}

/* A copy of reqs with ours masked as MPI_REQUEST_NULL, for MPICH. */
struct mask {
    MPI_Request *reqs;
    MPI_Request local[32];
    int n;
};

static int mask_init(struct mask *m, int n, MPI_Request *reqs)
{
    m->n = n;
    m->reqs = n <= 32 ? m->local : malloc(sizeof(MPI_Request) * (size_t)n);
    if (!m->reqs)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        m->reqs[i] = ours(reqs[i]) ? MPI_REQUEST_NULL : reqs[i];
    return MPI_SUCCESS;
}

/* Write MPICH's changes back (it nulls the requests it completed). */
static void mask_done(struct mask *m, MPI_Request *reqs)
{
    for (int i = 0; i < m->n; i++)
        if (!ours(reqs[i]))
            reqs[i] = m->reqs[i];
    if (m->reqs != m->local)
        free(m->reqs);
}

/* multi_raised: the code rc of a Wait/Test call, raised as MPICH raises it
 * there (on the world's handler) when one of our requests failed with
 * cause and MPICH's part of the call, which raises its own, succeeded. A
 * stale handle's error was raised where it was found. Call unlocked. */
static int multi_raised(int rc, int cause)
{
    if (cause == MPI_SUCCESS || cause == csp_u.errcode[CSP_E_BAD_REQUEST])
        return rc;
    return csp_raise_op(csp_u.world, rc, cause);
}

/* raised: e, the error one request of ours completed with (ours_complete). */
static int raised(int e) { return multi_raised(e, e); }

static __attribute__((noinline)) int wait_ours(MPI_Request *req, MPI_Status *st)
{
    CSP_LOCK();
    int rc = ours_wait(*req), e = MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = e = ours_complete(req, st);
    csp_warm_posts();
    CSP_UNLOCK();
    return e != MPI_SUCCESS ? raised(e) : rc;
}

int csp_wait(MPI_Request *req, MPI_Status *st)
{
    if (ours(*req))
        return wait_ours(req, st);
    if (__builtin_expect(theirs_slow(), 0))
        return wait_theirs(req, st);
    return csp_mpich_wait(req, st);
}

int csp_test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (!ours(*req))
        return csp_mpich_test(req, flag, st);
    CSP_LOCK();
    csp_pump();
    int rc = MPI_SUCCESS;
    *flag = ours_ready(*req);
    if (*flag) {
        rc = ours_complete(req, st);
        csp_warm_posts();
    } else if ((rc = csp_test_miss()) == MPI_SUCCESS)
        csp_poke_progress();
    CSP_UNLOCK();
    if (*flag)
        return raised(rc);
    if (rc == MPI_SUCCESS)
        csp_coop_test_miss();
    return rc;
}

/* The code of a call that returns several statuses, MPICH's part of which
 * returned rc, when errs of our requests failed: MPI_ERR_IN_STATUS, as
 * MPICH's own calls return it, with MPI_STATUSES_IGNORE too. */
static int multi_code(int rc, int errs)
{
    return errs && rc == MPI_SUCCESS ? MPI_ERR_IN_STATUS : rc;
}

/* Complete every request of ours in reqs (all done); MPICH completed the
 * rest with return code rc. Statuses' MPI_ERROR fields are written only
 * when the call returns MPI_ERR_IN_STATUS, and then all of them: MPICH
 * wrote its own if it returned that, else they are MPI_SUCCESS (null
 * requests included). Returns the call's code; *cause is the first error
 * of ours when the code is ours to raise (MPICH's part succeeded; see
 * multi_raised), else MPI_SUCCESS. */
static int merge_all(int n, MPI_Request *reqs, MPI_Status *sts, int rc, int *cause)
{
    int errs = 0;
    *cause = MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        errs += ours(reqs[i]) && ours_error(reqs[i]) != MPI_SUCCESS;
    int in_status = sts != MPI_STATUSES_IGNORE && multi_code(rc, errs) == MPI_ERR_IN_STATUS;
    for (int i = 0; i < n; i++) {
        if (!ours(reqs[i])) {
            if (in_status && rc == MPI_SUCCESS)
                sts[i].MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        int e = ours_complete(&reqs[i], status_at(sts, i));
        if (in_status)
            sts[i].MPI_ERROR = e;
        if (e != MPI_SUCCESS && *cause == MPI_SUCCESS && rc == MPI_SUCCESS)
            *cause = e;
    }
    return multi_code(rc, errs);
}

static __attribute__((noinline)) int waitall_ours(int n, MPI_Request *reqs, MPI_Status *sts, int *cause)
{
    *cause = MPI_SUCCESS;
    CSP_LOCK();
    csp_pump();
    int rc = MPI_SUCCESS;
    int k = likely_last(n, reqs);
    if (k >= 0)
        rc = wait_first(n, reqs, k);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (ours(reqs[i]))
            rc = ours_wait(reqs[i]);
    CSP_UNLOCK();
    if (rc != MPI_SUCCESS)
        return rc;
    if (any_theirs(n, reqs)) {
        struct mask m;
        if ((rc = mask_init(&m, n, reqs)) != MPI_SUCCESS)
            return rc;
        rc = csp_coop_waitall(n, m.reqs, sts);
        mask_done(&m, reqs);
    } else {
        empty_nulls(n, reqs, sts);
    }
    CSP_LOCK();
    rc = merge_all(n, reqs, sts, rc, cause);
    csp_warm_posts();
    CSP_UNLOCK();
    return rc;
}

int csp_waitall_unraised(int n, MPI_Request *reqs, MPI_Status *sts, int *cause)
{
    *cause = MPI_SUCCESS;
    return any_ours(n, reqs) ? waitall_ours(n, reqs, sts, cause) : csp_waitall(n, reqs, sts);
}

int csp_waitall(int n, MPI_Request *reqs, MPI_Status *sts)
{
    if (any_ours(n, reqs)) {
        int cause, rc = waitall_ours(n, reqs, sts, &cause);
        return multi_raised(rc, cause);
    }
    if (__builtin_expect(theirs_slow(), 0))
        return waitall_theirs(n, reqs, sts);
    return csp_mpich_waitall(n, reqs, sts);
}

int csp_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
    if (!any_ours(n, reqs))
        return csp_mpich_testall(n, reqs, flag, sts);
    CSP_LOCK();
    csp_pump();
    int pending = 0;
    for (int i = 0; i < n; i++)
        if (ours(reqs[i]) && !ours_ready(reqs[i]))
            pending++;
    CSP_UNLOCK();
    if (pending) {
        csp_poke_progress();
        *flag = 0;
        int rc = csp_test_miss();
        if (rc == MPI_SUCCESS)
            csp_coop_test_miss();
        return rc;
    }
    int rc = MPI_SUCCESS;
    if (any_theirs(n, reqs)) {
        struct mask m;
        if ((rc = mask_init(&m, n, reqs)) != MPI_SUCCESS)
            return rc;
        rc = csp_mpich_testall(n, m.reqs, flag, sts);
        mask_done(&m, reqs);
    } else {
        *flag = 1;
        empty_nulls(n, reqs, sts);
    }
    if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *flag) {
        int cause;
        CSP_LOCK();
        rc = merge_all(n, reqs, sts, rc, &cause);
        csp_warm_posts();
        CSP_UNLOCK();
        rc = multi_raised(rc, cause);
    }
    return rc;
}

struct any_arg {
    int n;
    MPI_Request *reqs;
    int *idx, *flag, *outcount, *idxs;
    MPI_Status *st;
    int rc;
    int some;
    int cause; /* an error of ours for the caller to raise (multi_raised) */
};

/* One pass of Testany / Testsome over a mixed array. Returns 1 when the
 * call is answered (something completed, nothing is active, or an error). */
static int test_any(struct any_arg *a)
{
    int active = 0;
    if (!a->some) {
        for (int i = 0; i < a->n; i++) {
            if (!ours(a->reqs[i]) || !ours_active(a->reqs[i]))
                continue;
            active = 1;
            if (ours_ready(a->reqs[i])) {
                *a->idx = i;
                *a->flag = 1;
                a->rc = a->cause = ours_complete(&a->reqs[i], a->st);
                return 1;
            }
        }
        struct mask m;
        if ((a->rc = mask_init(&m, a->n, a->reqs)) != MPI_SUCCESS)
            return 1;
        a->rc = csp_mpich_testany_locked(a->n, m.reqs, a->idx, a->flag, a->st);
        mask_done(&m, a->reqs);
        if (a->rc == MPI_SUCCESS && *a->flag && *a->idx == MPI_UNDEFINED) {
            if (active)
                *a->flag = 0; /* MPICH saw only nulls, but ours are still active */
            else if (a->st != MPI_STATUS_IGNORE)
                csp_empty_status(a->st); /* MPICH 4.0.2 skips this when it saw an inactive persistent request */
        }
        return a->rc != MPI_SUCCESS || *a->flag;
    }
    struct mask m;
    if ((a->rc = mask_init(&m, a->n, a->reqs)) != MPI_SUCCESS)
        return 1;
    a->rc = csp_mpich_testsome_locked(a->n, m.reqs, a->outcount, a->idxs, a->st);
    mask_done(&m, a->reqs);
    if (a->rc != MPI_SUCCESS && a->rc != MPI_ERR_IN_STATUS)
        return 1;
    int theirs = *a->outcount == MPI_UNDEFINED ? 0 : *a->outcount, errs = 0;
    for (int i = 0; i < a->n; i++) {
        if (!ours(a->reqs[i]) || !ours_active(a->reqs[i]))
            continue;
        active = 1;
        errs += ours_ready(a->reqs[i]) && ours_error(a->reqs[i]) != MPI_SUCCESS;
    }
    /* MPI_ERROR fields as merge_all writes them */
    int in_status = a->st != MPI_STATUSES_IGNORE && multi_code(a->rc, errs) == MPI_ERR_IN_STATUS;
    for (int j = 0; j < theirs && in_status && a->rc == MPI_SUCCESS; j++)
        a->st[j].MPI_ERROR = MPI_SUCCESS;
    int cnt = theirs;
    for (int i = 0; i < a->n; i++) {
        if (!ours(a->reqs[i]) || !ours_active(a->reqs[i]) || !ours_done(a->reqs[i]))
            continue;
        MPI_Status *st = a->st == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &a->st[cnt];
        int e = ours_complete(&a->reqs[i], st);
        if (in_status)
            st->MPI_ERROR = e;
        if (e != MPI_SUCCESS && a->cause == MPI_SUCCESS && a->rc == MPI_SUCCESS)
            a->cause = e;
        a->idxs[cnt++] = i;
    }
    a->rc = multi_code(a->rc, errs);
    if (*a->outcount != MPI_UNDEFINED || cnt > 0 || active)
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
    if (!any_ours(n, reqs))
        return csp_mpich_testany(n, reqs, idx, flag, st);
    int f = 0;
    struct any_arg a = {.n = n, .reqs = reqs, .idx = idx, .flag = &f, .st = st};
    CSP_LOCK();
    any_ready(&a);
    CSP_UNLOCK();
    *flag = f;
    if (!f) {
        csp_poke_progress();
        if (a.rc == MPI_SUCCESS && (a.rc = csp_test_miss()) == MPI_SUCCESS)
            csp_coop_test_miss();
    }
    return multi_raised(a.rc, a.cause);
}

int csp_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    if (!any_ours(n, reqs))
        return csp_mpich_testsome(n, reqs, outcount, idx, sts);
    struct any_arg a = {.n = n, .reqs = reqs, .outcount = outcount, .idxs = idx, .st = sts, .some = 1};
    CSP_LOCK();
    int done = any_ready(&a);
    CSP_UNLOCK();
    if (!done && a.rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED &&
        (a.rc = csp_test_miss()) == MPI_SUCCESS)
        csp_coop_test_miss();
    return multi_raised(a.rc, a.cause);
}

int csp_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st)
{
    if (!any_ours(n, reqs))
        return csp_u.yield_direct ? csp_coop_waitany(n, reqs, idx, st) : csp_mpich_waitany(n, reqs, idx, st);
    int flag = 0;
    struct any_arg a = {.n = n, .reqs = reqs, .idx = idx, .flag = &flag, .st = st};
    CSP_LOCK();
    int rc = csp_block_until(any_ready, &a);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : multi_raised(a.rc, a.cause);
}

int csp_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    if (!any_ours(n, reqs))
        return csp_u.yield_direct ? csp_coop_waitsome(n, reqs, outcount, idx, sts)
                                  : csp_mpich_waitsome(n, reqs, outcount, idx, sts);
    struct any_arg a = {.n = n, .reqs = reqs, .outcount = outcount, .idxs = idx, .st = sts, .some = 1};
    CSP_LOCK();
    int rc = csp_block_until(any_ready, &a);
    CSP_UNLOCK();
    return rc != MPI_SUCCESS ? rc : multi_raised(a.rc, a.cause);
}

int csp_request_free(MPI_Request *req)
{
    if (!ours(*req))
        return csp_mpich_request_free(req);
    CSP_LOCK();
    int rc = MPI_SUCCESS;
    struct csp_preq *p = csp_preq_of(*req);
    struct csp_op *op = csp_op_lookup(*req);
    if (p) {
        rc = csp_preq_free(p, req);
    } else if (op) {
        /* The handle dies now; the operation runs on, and its record
         * returns when it finishes (finish(), or the pump for deferred
         * operations). */
        op->r.req = MPI_REQUEST_NULL;
        csp_greq.handles--;
        *req = MPI_REQUEST_NULL;
        if (op->r.state == CSP_OPS_DONE) {
            csp_op_release(op);
        } else {
            op->r.freed = 1;
            if (op->r.poll)
                csp_defer_freed(op);
            else
                csp_u.nfreed_pending++;
        }
    } else {
        rc = csp_error(csp_u.world, CSP_E_BAD_REQUEST);
    }
    CSP_UNLOCK();
    return rc;
}

/* Cancel one offloaded operation: at once if it never left, else ask the
 * ghost (the operation then completes, cancelled or not). */
static int cancel_op(struct csp_op *op)
{
    if (op->flags & CSP_OPF_DIRECT)
        return csp_direct_op_cancel(op);
    if (op->r.poll)
        return MPI_SUCCESS; /* deferred: nothing to cancel (it completes) */
    if (op->r.state == CSP_OPS_HELD && csp_unhold(op)) {
        if (op->bounce) {
            csp_heap_free(csp_u.heap, op->bounce);
            op->bounce = NULL;
        }
        op->r.state = CSP_OPS_DONE;
        op->r.st_cancelled = 1;
        op->r.st_error = MPI_SUCCESS;
        op->r.st_source = MPI_ANY_SOURCE;
        op->r.st_tag = MPI_ANY_TAG;
        op->r.st_bytes = 0;
        if (op->comm) {
            csp_route_op_done(op);
            csp_comm_unref(op->comm);
            op->comm = NULL;
        }
        return MPI_SUCCESS;
    }
    if (op->r.state == CSP_OPS_POSTED) {
        op->cancel = 1;
        return csp_control(CSP_OP_CANCEL, op->cell, op->gen);
    }
    return MPI_SUCCESS;
}

int csp_cancel(MPI_Request *req)
{
    if (!ours(*req))
        return csp_mpich_cancel(req);
    CSP_LOCK();
    int rc = MPI_SUCCESS;
    struct csp_preq *p = csp_preq_of(*req);
    struct csp_op *op = p ? csp_preq_op(p) : csp_op_lookup(*req);
    if (op)
        rc = cancel_op(op);
    else if (!p)
        rc = csp_error(csp_u.world, CSP_E_BAD_REQUEST);
    CSP_UNLOCK();
    return rc;
}

int csp_request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    if (!ours(req))
        return PMPI_Request_get_status(req, flag, st);
    CSP_LOCK();
    csp_pump();
    int rc = MPI_SUCCESS, cause = MPI_SUCCESS;
    struct csp_preq *p = csp_preq_of(req);
    struct csp_op *op = p ? csp_preq_op(p) : csp_op_lookup(req);
    if (!op && !p) {
        rc = csp_error(csp_u.world, CSP_E_BAD_REQUEST);
    } else {
        *flag = op ? csp_poll_op(op) : 1;
        if (*flag && op) {
            csp_req_fill_status(&op->r, st);
            rc = cause = op->r.st_error; /* as MPI_Test would return it */
        } else if (*flag)
            csp_empty_status(st); /* an inactive persistent request */
        else
            csp_poke_progress();
    }
    CSP_UNLOCK();
    if (cause != MPI_SUCCESS)
        return raised(cause);
    if (rc == MPI_SUCCESS && !*flag)
        csp_coop_test_miss();
    return rc;
}

int csp_test_inner(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (*req == MPI_REQUEST_NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    struct csp_op *op = csp_op_lookup(*req);
    if (!op)
        return csp_mpich_test_locked(req, flag, st);
    if (!csp_poll_op(op)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    /* Take the result from the record and return it; the error goes to
     * our caller, not to an error handler. */
    *flag = 1;
    return csp_op_complete(op, req, st);
}

int csp_waitall_nostatus(int n, MPI_Request *reqs) { return csp_waitall(n, reqs, MPI_STATUSES_IGNORE); }
