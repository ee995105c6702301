/*
 * route.c: what a switch of route needs to know, and the direct route.
 *
 * A communicator carries its point-to-point messages on one route at a
 * time: through the ghosts (an offloaded plan) or straight to MPICH (the
 * direct route, algo CSP_ALGO_OFF). A receive posted on one route never
 * matches a message sent on the other, so the runtime may switch a
 * communicator's route (internal/core/switch.go) only at a point where the
 * old route is quiescent: every message sent on it has been received, and
 * no receive posted on it still waits.
 *
 * Invariant: every member counts, in its entry, since the entry was
 * installed, under csp_u.lock and before the message or receive can exist:
 *   sent       messages sent (not to MPI_PROC_NULL, not cancelled);
 *   matched    receives completed with a message (matched probes count at
 *              the probe: the message is taken out of matching there);
 *   pend_recv  receives posted and not completed yet.
 * At a collective every member enters, so no member posts between the
 * members' readings: sum(sent - matched) == 0 and sum(pend_recv) == 0
 * over the members means no message and no receive is in flight. Anything
 * the runtime cannot count (a receive request freed while active, a
 * cancelled receive whose status nobody kept) marks the entry stuck: it
 * never proves quiescent again (a switch then needs symmetric=true).
 *
 * Direct receives are MPICH's requests: they are tracked in a table
 * (request handle -> entry) until a completion call returns them; every
 * PMPI completion call on requests the application may hold goes through
 * the csp_mpich_* wrappers below, which cost one test while nothing is
 * tracked.
 */
#include "user.h"
#include "route.h"

#include <limits.h>
#include <stdlib.h>

/* ---- the table of tracked direct receives (route.h: struct csp_trk) ---- */

/* Put e in one of its two slots of table t (csp_u's mask and shift
 * already those of t) if one is free, else in the overflow array. */
static int trk_place(struct csp_trk *t, const struct csp_trk *e)
{
    struct csp_trk *s1 = &t[csp_trk_slot1(e->req)], *s = s1;
    if (s->req != MPI_REQUEST_NULL)
        s = &t[csp_trk_slot2(e->req)];
    if (s->req != MPI_REQUEST_NULL) {
        if (csp_u.trk_nover == csp_u.trk_over_cap) {
            uint32_t cap = csp_u.trk_over_cap ? csp_u.trk_over_cap * 2 : 16;
            struct csp_trk *o = realloc(csp_u.trk_over, cap * sizeof(*o));
            if (!o)
                return -1;
            csp_u.trk_over = o;
            csp_u.trk_over_cap = cap;
        }
        s = &csp_u.trk_over[csp_u.trk_nover++];
    }
    if (s != s1)
        s1->disp++;
    s->req = e->req;
    s->flags = e->flags;
    s->comm = e->comm;
    return 0;
}

/* Move every entry into a table of cap slots. */
static int trk_rehash(uint32_t cap)
{
    struct csp_trk *t = malloc(cap * sizeof(*t));
    if (!t)
        return -1;
    for (uint32_t i = 0; i < cap; i++) {
        t[i].req = MPI_REQUEST_NULL;
        t[i].disp = 0;
    }
    struct csp_trk *old = csp_u.trk;
    uint32_t ocap = old ? csp_u.trk_mask + 1 : 0, nover = csp_u.trk_nover;
    csp_u.trk_mask = cap - 1;
    csp_u.trk_shift = 32 - (uint32_t)__builtin_ctz(cap);
    csp_u.trk_nover = 0;
    /* The overflow array is only read below before anything is placed
     * in it again (placed entries go to its front, read ones from i on). */
    for (uint32_t i = 0; i < nover; i++) {
        struct csp_trk e = csp_u.trk_over[i];
        trk_place(t, &e); /* needs no memory: at most as many as before */
    }
    for (uint32_t i = 0; i < ocap; i++) {
        if (old[i].req != MPI_REQUEST_NULL && trk_place(t, &old[i]) != 0) {
            /* Out of memory: the receive cannot be followed to its end. */
            old[i].comm->stuck = 1;
            csp_u.ntrack--;
            csp_route_recv_end(old[i].comm, 0);
        }
    }
    free(old);
    csp_u.trk = t;
    return 0;
}

/* r's entry, or NULL. */
static inline struct csp_trk *trk_find(MPI_Request r)
{
    struct csp_trk *t = csp_u.trk;
    if (__builtin_expect(t == NULL, 0))
        return NULL;
    struct csp_trk *e = &t[csp_trk_slot1(r)];
    if (e->req == r)
        return e;
    if (e->disp == 0)
        return NULL;
    e = &t[csp_trk_slot2(r)];
    if (e->req == r)
        return e;
    for (uint32_t i = 0; i < csp_u.trk_nover; i++)
        if (csp_u.trk_over[i].req == r)
            return &csp_u.trk_over[i];
    return NULL;
}

/* Remove entry e (trk_find's). */
static inline void trk_remove(struct csp_trk *e)
{
    struct csp_trk *t = csp_u.trk, *s1 = &t[csp_trk_slot1(e->req)];
    csp_u.ntrack--;
    if (__builtin_expect(e == s1, 1)) {
        e->req = MPI_REQUEST_NULL;
        return;
    }
    s1->disp--;
    if (e >= t && e <= t + csp_u.trk_mask) {
        e->req = MPI_REQUEST_NULL;
        return;
    }
    struct csp_trk *last = &csp_u.trk_over[--csp_u.trk_nover]; /* the overflow array */
    e->req = last->req;
    e->flags = last->flags;
    e->comm = last->comm;
}

/* ---- counting, called with csp_u.lock held ---- */

struct csp_comm *csp_route_of(MPI_Comm comm)
{
    struct csp_comm *c = csp_comm_get(comm);
    return c && c->algo == CSP_ALGO_OFF ? c : NULL;
}

void csp_route_track_slow(struct csp_comm *c, MPI_Request r)
{
    /* A quarter full: twice as large. */
    int rc = 0;
    if (!csp_u.trk)
        rc = trk_rehash(256);
    else if ((csp_u.ntrack + 1) * 4 > csp_u.trk_mask)
        rc = trk_rehash((csp_u.trk_mask + 1) * 2);
    struct csp_trk e = {.req = r, .flags = 0, .comm = c};
    if (rc != 0 || trk_place(csp_u.trk, &e) != 0) {
        /* Out of memory: the receive cannot be followed to its end. */
        c->stuck = 1;
        csp_route_recv_end(c, 0);
        return;
    }
    csp_u.ntrack++;
}

int csp_route_consumed_slow(int err)
{
    int cls = err;
    if (err != MPI_SUCCESS)
        PMPI_Error_class(err, &cls);
    return cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE;
}

void csp_route_op_done(struct csp_op *op)
{
    struct csp_comm *c = op->comm;
    if (!c)
        return;
    switch (op->kind) {
    case CSP_OP_RECV:
        /* Cancelled: no message taken. Failed other than by truncation:
         * perhaps none either; counting it unmatched can only make the
         * entry look busy for ever, never quiescent too early. */
        c->pend_recv--;
        c->matched += !op->r.st_cancelled && csp_route_consumed(op->r.st_error);
        break;
    case CSP_OP_MPROBE:
    case CSP_OP_IMPROBE:
        c->pend_recv--;
        c->matched += op->st_found && op->r.st_error == MPI_SUCCESS;
        break;
    case CSP_OP_PROBE:
    case CSP_OP_IPROBE:
        c->pend_recv--;
        break;
    }
}

/* ---- the direct route, for calls made straight to MPICH ---- */

void csp_direct_send(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype dt)
{
    if (dest == MPI_PROC_NULL || csp_u.ctab_used == 0)
        return;
    CSP_LOCK();
    struct csp_comm *c = csp_route_of(comm);
    if (c) {
        c->sent++;
        csp_prof_sent(c, count, dt);
    }
    CSP_UNLOCK();
}

struct csp_comm *csp_direct_recv(MPI_Comm comm, int src)
{
    if (src == MPI_PROC_NULL || csp_u.ctab_used == 0)
        return NULL;
    CSP_LOCK();
    struct csp_comm *c = csp_route_recv_on(csp_comm_get(comm), src);
    CSP_UNLOCK();
    return c;
}

void csp_direct_recv_posted(struct csp_comm *c, int rc, MPI_Request r)
{
    csp_route_recv_posted(c, rc, r);
}

void csp_direct_recv_end(struct csp_comm *c, int rc, int matched)
{
    csp_route_recv_done(c, rc, matched);
}

void csp_direct_pin(MPI_Comm comm)
{
    CSP_LOCK();
    struct csp_comm *c = csp_route_of(comm);
    if (c)
        c->stuck = 1;
    CSP_UNLOCK();
}

/* A tracked request r came back from a completion call with status st
 * (NULL: the caller kept none). */
static inline void trk_done(MPI_Request r, const MPI_Status *st)
{
    struct csp_trk *e = trk_find(r);
    if (!e)
        return;
    struct csp_comm *c = e->comm;
    int matched = 1;
    if (__builtin_expect(e->flags & CSP_TRK_CANCEL, 0)) {
        csp_u.ntrack_cancel--;
        int cancelled = 0;
        if (st)
            PMPI_Test_cancelled(st, &cancelled);
        else
            c->stuck = 1; /* cancelled or not: nobody knows */
        matched = !cancelled;
    }
    trk_remove(e);
    csp_route_recv_end(c, matched);
}

/* ---- completion calls on MPICH's requests ---- */

/*
 * Each wrapper saves the handles before the call: a tracked handle that
 * the call set to MPI_REQUEST_NULL finished (MPICH nulls the nonpersistent
 * requests it completes; an error handler the call runs may post and
 * complete others, so the table is read only after it). When the caller keeps no statuses but a tracked
 * receive was cancelled, the call writes statuses of ours, so that
 * MPI_Test_cancelled can tell. The bookkeeping takes csp_u.lock unless the
 * caller holds it (the _locked forms).
 */
#define SCAN_SAVED 256 /* handles saved on the stack (more: the heap) */
struct scan {
    MPI_Request before[SCAN_SAVED];
    MPI_Request *saved;
    MPI_Status stl[32];
    MPI_Status *sts; /* what the call writes: the caller's, stl, or the heap */
    MPI_Status *heap_sts;
};

static int scan_begin(struct scan *s, int n, const MPI_Request *reqs, MPI_Status *sts, int nsts)
{
    s->saved = n <= SCAN_SAVED ? s->before : malloc(sizeof(MPI_Request) * (size_t)n);
    if (!s->saved)
        return -1;
    for (int i = 0; i < n; i++)
        s->saved[i] = reqs[i];
    s->sts = sts;
    s->heap_sts = NULL;
    if (sts == MPI_STATUSES_IGNORE && csp_u.ntrack_cancel) {
        if (nsts <= 32)
            s->sts = s->stl;
        else if ((s->heap_sts = malloc(sizeof(MPI_Status) * (size_t)nsts)) != NULL)
            s->sts = s->heap_sts;
    }
    return 0;
}

static inline void scan_free(struct scan *s)
{
    if (__builtin_expect(s->saved != s->before, 0))
        free(s->saved);
    if (__builtin_expect(s->heap_sts != NULL, 0))
        free(s->heap_sts);
}

/* Request i of the scan finished if the call nulled it; its status is
 * status k of the call. */
static void scan_one(const struct scan *s, const MPI_Request *reqs, int i, int k)
{
    if (s->saved[i] != MPI_REQUEST_NULL && reqs[i] == MPI_REQUEST_NULL)
        trk_done(s->saved[i], s->sts == MPI_STATUSES_IGNORE ? NULL : &s->sts[k]);
}

static void scan_all(struct scan *s, const MPI_Request *reqs, int n, int locked)
{
    if (!locked)
        CSP_LOCK();
    for (int i = 0; i < n; i++)
        scan_one(s, reqs, i, i);
    if (!locked)
        CSP_UNLOCK();
    scan_free(s);
}

/* Waitsome/Testsome: status k belongs to request idx[k]. */
static void scan_some(struct scan *s, const MPI_Request *reqs, int outcount, const int *idx,
                      int locked)
{
    if (!locked)
        CSP_LOCK();
    for (int k = 0; outcount != MPI_UNDEFINED && k < outcount; k++)
        scan_one(s, reqs, idx[k], k);
    if (!locked)
        CSP_UNLOCK();
    scan_free(s);
}

/* Waitany/Testany: one status, for request idx. */
static void scan_any(struct scan *s, const MPI_Request *reqs, int idx, int locked)
{
    if (!locked)
        CSP_LOCK();
    if (idx != MPI_UNDEFINED)
        scan_one(s, reqs, idx, 0);
    if (!locked)
        CSP_UNLOCK();
    scan_free(s);
}

/* A single status argument as a status array of the scan. */
static MPI_Status *as_array(MPI_Status *st)
{
    return st == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : st;
}
static MPI_Status *as_single(MPI_Status *sts)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : sts;
}

/* The common case of a wrapper: one thread, no tracked receive
 * cancelled, up to SCAN_FAST requests. Then the scan needs no statuses
 * of its own and no lock: the handles are saved in a small array. */
#define SCAN_FAST 64
static inline int scan_fast(int n)
{
    return n <= SCAN_FAST && (csp_u.ntrack_cancel | (uint32_t)csp_u.multiple) == 0;
}

/* Copy n handles (n <= SCAN_FAST) as a loop of its own: GCC would turn
 * an inline copy into rep movs, slow to start for the few handles of an
 * exchange. */
static __attribute__((noinline)) void save_handles(MPI_Request *to, const MPI_Request *from, int n)
{
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        uint64_t two;
        __builtin_memcpy(&two, &from[i], sizeof(two));
        __builtin_memcpy(&to[i], &two, sizeof(two));
    }
    if (i < n)
        to[i] = from[i];
}

static __attribute__((noinline)) int waitall_scan(int n, MPI_Request *reqs, MPI_Status *sts)
{
    struct scan s;
    if (scan_begin(&s, n, reqs, sts, n) != 0)
        return PMPI_Waitall(n, reqs, sts);
    int rc = PMPI_Waitall(n, reqs, s.sts);
    scan_all(&s, reqs, n, 0);
    return rc;
}

/* Request r, saved before the call, came back nulled with status st: the
 * common case inline (r in its first slot, not cancelled), else
 * trk_done. */
static inline void scan_done(MPI_Request r, const MPI_Status *st)
{
    struct csp_trk *e = &csp_u.trk[csp_trk_slot1(r)];
    if (__builtin_expect(e->req == r && !(e->flags & CSP_TRK_CANCEL), 1)) {
        e->req = MPI_REQUEST_NULL;
        csp_u.ntrack--;
        csp_route_recv_end(e->comm, 1);
    } else if (e->disp) {
        trk_done(r, st);
    }
}

/* An exchange's waitall (n <= 2, scan_fast: user.h decides): the two
 * handles in registers, a small frame. */
int csp_mpich_waitall_pair(int n, MPI_Request *reqs, MPI_Status *sts)
{
    MPI_Request a = n > 0 ? reqs[0] : MPI_REQUEST_NULL, b = n > 1 ? reqs[1] : MPI_REQUEST_NULL;
    int rc = PMPI_Waitall(n, reqs, sts);
    if (a != MPI_REQUEST_NULL && reqs[0] == MPI_REQUEST_NULL)
        scan_done(a, sts == MPI_STATUSES_IGNORE ? NULL : &sts[0]);
    if (b != MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL)
        scan_done(b, sts == MPI_STATUSES_IGNORE ? NULL : &sts[1]);
    return rc;
}

int csp_mpich_waitall_tracked(int n, MPI_Request *reqs, MPI_Status *sts)
{
    if (!csp_u.ntrack)
        return PMPI_Waitall(n, reqs, sts);
    if (__builtin_expect(!scan_fast(n), 0))
        return waitall_scan(n, reqs, sts);
    if (n <= 2)
        return csp_mpich_waitall_pair(n, reqs, sts);
    MPI_Request saved[SCAN_FAST];
    save_handles(saved, reqs, n);
    int rc = PMPI_Waitall(n, reqs, sts);
    for (int i = 0; i < n; i++)
        if (saved[i] != MPI_REQUEST_NULL && reqs[i] == MPI_REQUEST_NULL)
            scan_done(saved[i], sts == MPI_STATUSES_IGNORE ? NULL : &sts[i]);
    return rc;
}

int csp_mpich_testall_tracked(int n, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, n, reqs, sts, n) != 0)
        return PMPI_Testall(n, reqs, flag, sts);
    int rc = PMPI_Testall(n, reqs, flag, s.sts);
    scan_all(&s, reqs, n, 0);
    return rc;
}

int csp_mpich_wait_tracked(MPI_Request *req, MPI_Status *st)
{
    if (!csp_u.ntrack)
        return PMPI_Wait(req, st);
    if (__builtin_expect(scan_fast(1), 1)) {
        MPI_Request saved = *req;
        int rc = PMPI_Wait(req, st);
        if (saved != MPI_REQUEST_NULL && *req == MPI_REQUEST_NULL)
            scan_done(saved, st == MPI_STATUS_IGNORE ? NULL : st);
        return rc;
    }
    struct scan s;
    if (scan_begin(&s, 1, req, as_array(st), 1) != 0)
        return PMPI_Wait(req, st);
    int rc = PMPI_Wait(req, as_single(s.sts));
    scan_all(&s, req, 1, 0);
    return rc;
}

static int test1(MPI_Request *req, int *flag, MPI_Status *st, int locked)
{
    if (csp_u.ntrack && scan_fast(1)) {
        MPI_Request saved = *req;
        int rc = PMPI_Test(req, flag, st);
        if (saved != MPI_REQUEST_NULL && *req == MPI_REQUEST_NULL)
            scan_done(saved, st == MPI_STATUS_IGNORE ? NULL : st);
        return rc;
    }
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, 1, req, as_array(st), 1) != 0)
        return PMPI_Test(req, flag, st);
    int rc = PMPI_Test(req, flag, as_single(s.sts));
    scan_all(&s, req, 1, locked);
    return rc;
}

int csp_mpich_test_tracked(MPI_Request *req, int *flag, MPI_Status *st) { return test1(req, flag, st, 0); }
int csp_mpich_test_locked(MPI_Request *req, int *flag, MPI_Status *st)
{
    return test1(req, flag, st, 1);
}

int csp_mpich_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st)
{
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, n, reqs, as_array(st), 1) != 0)
        return PMPI_Waitany(n, reqs, idx, st);
    int rc = PMPI_Waitany(n, reqs, idx, as_single(s.sts));
    scan_any(&s, reqs, *idx, 0);
    return rc;
}

static int testany(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st, int locked)
{
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, n, reqs, as_array(st), 1) != 0)
        return PMPI_Testany(n, reqs, idx, flag, st);
    int rc = PMPI_Testany(n, reqs, idx, flag, as_single(s.sts));
    scan_any(&s, reqs, *flag ? *idx : MPI_UNDEFINED, locked);
    return rc;
}

int csp_mpich_testany(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st)
{
    return testany(n, reqs, idx, flag, st, 0);
}
int csp_mpich_testany_locked(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st)
{
    return testany(n, reqs, idx, flag, st, 1);
}

int csp_mpich_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, n, reqs, sts, n) != 0)
        return PMPI_Waitsome(n, reqs, outcount, idx, sts);
    int rc = PMPI_Waitsome(n, reqs, outcount, idx, s.sts);
    scan_some(&s, reqs, *outcount, idx, 0);
    return rc;
}

static int testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts, int locked)
{
    struct scan s;
    if (!csp_u.ntrack || scan_begin(&s, n, reqs, sts, n) != 0)
        return PMPI_Testsome(n, reqs, outcount, idx, sts);
    int rc = PMPI_Testsome(n, reqs, outcount, idx, s.sts);
    scan_some(&s, reqs, *outcount, idx, locked);
    return rc;
}

int csp_mpich_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    return testsome(n, reqs, outcount, idx, sts, 0);
}
int csp_mpich_testsome_locked(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts)
{
    return testsome(n, reqs, outcount, idx, sts, 1);
}

int csp_mpich_request_free(MPI_Request *req)
{
    if (csp_u.ntrack) {
        CSP_LOCK();
        struct csp_trk *e = trk_find(*req);
        if (e) {
            /* Whether and when it matches, nobody will know. */
            struct csp_comm *c = e->comm;
            if (e->flags & CSP_TRK_CANCEL)
                csp_u.ntrack_cancel--;
            c->stuck = 1;
            trk_remove(e);
            csp_route_recv_end(c, 0);
        }
        CSP_UNLOCK();
    }
    return PMPI_Request_free(req);
}

int csp_mpich_cancel(MPI_Request *req)
{
    if (csp_u.ntrack) {
        CSP_LOCK();
        struct csp_trk *e = trk_find(*req);
        if (e && !(e->flags & CSP_TRK_CANCEL)) {
            e->flags |= CSP_TRK_CANCEL;
            csp_u.ntrack_cancel++;
        }
        CSP_UNLOCK();
    }
    return PMPI_Cancel(req);
}

int csp_route_coll(MPI_Comm comm)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    int n = c && c->watch ? csp_fam_count(c->fam) : 0;
    CSP_UNLOCK();
    return n;
}
