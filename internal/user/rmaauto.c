/*
 * rmaauto.c: the automatic choice of redirected windows (async_config=auto
 * on a window, or CSP_ASYNC_CONFIG=auto), and the members' agreement at
 * the window-wide safe points.
 *
 * Redirection pays when a target computes outside MPI while origins
 * access it (plain MPICH makes the origin wait for the target's next MPI
 * call: milliseconds), and loses when the targets are mostly inside MPI
 * (an idle target answers MPICH's epoch in microseconds; a redirected
 * epoch costs round trips to a ghost that polls: docs/design.md section
 * 11). As in Casper's self-profiling (the paper's section 5.3), each
 * process measures the share of its time spent inside MPI (the CR rate:
 * waits, blocking point-to-point, collectives, RMA synchronization;
 * user.h: csp_prof_*), and the members choose with two thresholds
 * (hysteresis): redirect when the share is below cr_low, stop above
 * cr_high, change nothing in between. Two refinements of Casper's rule:
 *
 *   - the shares are weighted by how often the members were accessed
 *     (each origin counts its operations per target: csp_rma_direct and
 *     csp_rma_target_of), since only targets make an origin wait; a
 *     window nobody accessed keeps its choice;
 *   - a target that enters MPI at least every min_stretch_us (its time
 *     outside MPI over its calls) counts as inside MPI: plain MPICH's
 *     epochs to it wait less than a redirected epoch costs;
 *   - the origins also measure what each path costs them, their time in
 *     the window's passive-target synchronization per operation (the
 *     interposer's CSP_RMA_PSYNC), and a direct window that waits far
 *     longer than the ghosts took goes back to them, held there for a
 *     doubling number of agreements (csp_rma_auto_regret): a target in
 *     MPI answers promptly only where it gets a CPU promptly.
 *
 * Every member must make the same choice at the same point, so the choice
 * is made only where all members are, between the same two epochs: at
 * MPI_Win_allocate (from the members' profiles between allocations,
 * every member weighted alike: no access yet; a window of a burst, whose
 * profile is too short, takes its members' last choice if they all chose
 * direct), at MPI_Win_set_info with
 * symmetric=true, and at MPI_Win_fence, not every one: a fence is
 * collective, so every member counts them alike and agrees at the same
 * ones (after CSP_RMA_GAP_MIN fences, then at doubling intervals up to
 * CSP_RMA_GAP_MAX while nothing changes, or further apart where the
 * agreements would take more than a fiftieth of the members' time:
 * csp_rma_agree_gap), and, until its first fence, at
 * the blocking collectives on the communicator it was made on, on the
 * same cadence (csp_rma_coll; a window that is not auto goes there only
 * to take a change MPI_Win_set_info asked): every member makes
 * them in the same order, and where the agreement finds that no member
 * has an epoch open (passive target epochs are each origin's own, so
 * this is checked, in the same Allreduce), every operation of the old
 * path is complete at its target, as at a fence. A program synchronized
 * by locks and barriers (Global Arrays, osubench's rma-ga) thus chooses
 * by what its targets do, not once at the allocation before any epoch.
 * An epoch of MPI_Win_lock_all (ARMCI-MPI and DART hold one for a window's
 * life) does not block a switch: it is carried across (switch_holding);
 * any other open epoch does. An agreement is one Allreduce
 * (MPI_SUM of int64s, exact, so every member reads the same sums) over the
 * window's private communicator: per member its wall time, time in MPI and
 * calls since the last agreement (its own slot, zero elsewhere), the
 * operations each origin issued to each member, and the origins' time in
 * passive-target synchronization. A profile shorter than
 * CSP_RMA_AUTO_BASE_US decides nothing (it is kept for the next). Under
 * MPI_THREAD_MULTIPLE no window agrees at collectives (another thread may
 * open an epoch between the check and the switch): there a change waits
 * for a fence or MPI_Win_set_info(symmetric=true).
 */
#include "rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fences before the first agreement of an auto window, and at most
 * between two. */
#define CSP_RMA_GAP_MIN 2
#define CSP_RMA_GAP_MAX 16
/* The shortest profile (wall time of each accessed member) that decides. */
#define CSP_RMA_AUTO_BASE_US 1000
/* A direct window goes back to the ghosts when its origins waited more
 * than CSP_RMA_REGRET_X times per operation what they waited there, plus
 * CSP_RMA_REGRET_US (csp_rma_auto_regret); never measured there, a
 * redirected operation is taken to cost CSP_RMA_ON_GUESS_US, more than an
 * isolated epoch on a ghost that shares a core costs (docs/design.md
 * section 11). The share may then not take it off again for a hold of
 * agreements that doubles with every regret, from CSP_RMA_HOLD_MIN to
 * CSP_RMA_HOLD_MAX. */
#define CSP_RMA_REGRET_X 3
#define CSP_RMA_REGRET_US 100
#define CSP_RMA_ON_GUESS_US 1000
#define CSP_RMA_HOLD_MIN 4
#define CSP_RMA_HOLD_MAX 256
/* An agreement is a collective of its own, which costs what the
 * members' cores make it: a few microseconds where each has a core,
 * milliseconds where they share them (NWChem's 4 users with 2 ghosts on 2
 * cores: 2.2 ms each, 2,600 per process at gaps of 16, a third of its
 * run). So the gap is never less than what keeps the agreements at most
 * 1/CSP_RMA_AGREE_SHARE of the members' time (csp_rma_agree_gap), and at
 * most CSP_RMA_GAP_CAP safe points. */
#define CSP_RMA_AGREE_SHARE 50
#define CSP_RMA_GAP_CAP 4096
/* The floor counts safe points at the pace of the period before, and a
 * phase that changes the pace (a loop of barriers 10 us apart, then
 * computing 5 ms between them) meets its agreement that much later:
 * TestRMAAutoCollective's phases of 60 collectives ended before it. So
 * the floor applies only where an agreement costs at least
 * CSP_RMA_AGREE_DEAR_US (users sharing cores: 0.4-6 ms; each with a core
 * of its own, 2-10 us, where the rule's gaps of at most 16 cost little). */
#define CSP_RMA_AGREE_DEAR_US 200
/* A tag for MPI_Comm_create_group (collective over the window's group). */
#define CSP_RMA_COMM_TAG 0x5c51

void csp_rma_prof_read(struct csp_rma_prof *p)
{
    if (!csp_u.prof)
        csp_u.prof = 1;
    p->t = csp_prof_now();
    /* Light waits (user.h) are not timed: the timed ones stand for them. */
    double scale = csp_prof_scale(__atomic_load_n(&csp_u.prof_waits, __ATOMIC_RELAXED),
                                  __atomic_load_n(&csp_u.prof_waits_timed, __ATOMIC_RELAXED));
    p->in_t = (uint64_t)((double)__atomic_load_n(&csp_u.prof_mpi_t, __ATOMIC_RELAXED) * scale) +
              __atomic_load_n(&csp_u.prof_coll_t, __ATOMIC_RELAXED) +
              __atomic_load_n(&csp_u.prof_rma_t, __ATOMIC_RELAXED);
    p->calls = __atomic_load_n(&csp_u.prof_waits, __ATOMIC_RELAXED) +
               __atomic_load_n(&csp_u.prof_calls, __ATOMIC_RELAXED);
}

int csp_rma_comm(struct csp_rma_win *w, MPI_Comm comm)
{
    if (w->acomm != MPI_COMM_NULL)
        return MPI_SUCCESS;
    int rc;
    if (comm != MPI_COMM_NULL) {
        rc = PMPI_Comm_dup(comm, &w->acomm);
    } else {
        MPI_Group g;
        rc = PMPI_Win_get_group(w->win, &g);
        if (rc == MPI_SUCCESS) {
            rc = PMPI_Comm_create_group(csp_u.world, g, CSP_RMA_COMM_TAG, &w->acomm);
            PMPI_Group_free(&g);
        }
    }
    if (rc != MPI_SUCCESS) {
        w->acomm = MPI_COMM_NULL;
        return rc;
    }
    return PMPI_Comm_set_errhandler(w->acomm, MPI_ERRORS_RETURN);
}

/* restart begins a profile epoch of w: now, no operation counted. */
static void restart(struct csp_rma_win *w)
{
    csp_rma_prof_read(&w->snap);
    for (int i = 0; i < w->size; i++)
        __atomic_store_n(&w->acc[i], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&w->psync_t, 0, __ATOMIC_RELAXED);
}

int csp_rma_auto_start(struct csp_rma_win *w, MPI_Comm comm)
{
    int rc = csp_rma_comm(w, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!w->acc && !(w->acc = calloc((size_t)w->size, sizeof *w->acc)))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* begin makes w choose itself from now on (its state made by
 * csp_rma_auto_start). */
static void begin(struct csp_rma_win *w)
{
    restart(w);
    w->cost[0] = w->cost[1] = 0;
    w->hold = 0;
    w->hold_len = CSP_RMA_HOLD_MIN;
    w->gap = CSP_RMA_GAP_MIN;
    w->next_eval = w->nfence + w->gap;
    w->next_coll = w->ncoll + w->gap;
    w->agreed_fence = w->nfence;
    w->agreed_coll = w->ncoll;
    w->agreed_t = csp_prof_now();
    w->auto_ = 1;
}

int csp_rma_auto_choose(int n, const int64_t *v, int direct, double low, double high, double min_stretch_us,
                        double *cr)
{
    const int64_t *m = v + 1, *acc = v + 1 + 3 * (size_t)n;
    double num = 0, den = 0;
    for (int t = 0; t < n; t++) {
        if (acc[t] <= 0)
            continue;
        double wall = (double)m[3 * t], in = (double)m[3 * t + 1], calls = (double)m[3 * t + 2];
        if (wall < CSP_RMA_AUTO_BASE_US)
            return -1;
        double c = in >= wall ? 1 : in / wall;
        if ((wall - in) / (calls + 1) < min_stretch_us)
            c = 1; /* it enters MPI often enough to answer epochs itself */
        num += (double)acc[t] * c;
        den += (double)acc[t];
    }
    if (den == 0)
        return -1;
    *cr = num / den;
    if (direct && *cr < low)
        return 0;
    if (!direct && *cr > high)
        return 1;
    return direct;
}

double csp_rma_auto_cost(int n, const int64_t *v)
{
    const int64_t *acc = v + 1 + 3 * (size_t)n;
    double ops = 0;
    for (int t = 0; t < n; t++)
        if (acc[t] > 0)
            ops += (double)acc[t];
    return ops > 0 && acc[n] > 0 ? (double)acc[n] / ops : 0;
}

/* The share of time in MPI says where the targets are, not what an epoch
 * costs the origins: an idle target answers MPICH's epochs only when it
 * gets the CPU, and where the origin shares one with it (users
 * outnumbering cores, the ghosts on cores of their own) MPICH's epoch
 * waits for both processes' time slices, 20 ms, while a ghost on its own
 * core answers in microseconds (docs/design.md section 11). So each
 * direct period's measured wait is checked against the ghosts' last
 * (regret), and after a regret the share may take the window off again
 * only once the hold has passed or the ghosts measure no better. */
int csp_rma_auto_regret(int d, int direct, const double cost[2], int held, int *regret)
{
    *regret = 0;
    if (d < 0)
        return d;
    if (direct) {
        double on = cost[0] > 0 ? cost[0] : CSP_RMA_ON_GUESS_US;
        if (cost[1] > CSP_RMA_REGRET_X * on + CSP_RMA_REGRET_US) {
            *regret = 1;
            return 0;
        }
        return d;
    }
    if (held && d == 1 && cost[0] < cost[1])
        return 0;
    return d;
}

/* ---- at the collectives on a window's communicator ---- */

void csp_rma_coll_list(struct csp_rma_win *w, MPI_Comm comm)
{
    if (csp_u.multiple || comm == MPI_COMM_NULL || w->ucomm != MPI_COMM_NULL)
        return;
    w->ucomm = comm;
    w->ncoll = 0;
    if (w->gap == 0)
        w->gap = CSP_RMA_GAP_MIN;
    w->next_coll = w->gap;
    w->cnext = NULL;
    struct csp_rma_win **p = &csp_rma.coll;
    while (*p)
        p = &(*p)->cnext;
    *p = w;
    csp_u.nrma_coll++;
}

void csp_rma_coll_unlist(struct csp_rma_win *w)
{
    if (w->ucomm == MPI_COMM_NULL)
        return;
    struct csp_rma_win **p = &csp_rma.coll;
    while (*p && *p != w)
        p = &(*p)->cnext;
    if (*p)
        *p = w->cnext;
    w->ucomm = MPI_COMM_NULL;
    w->cnext = NULL;
    csp_u.nrma_coll--;
}

void csp_rma_comm_forget(MPI_Comm comm)
{
    struct csp_rma_win *w = csp_rma.coll, *next;
    for (; w; w = next) {
        next = w->cnext;
        if (w->ucomm == comm)
            csp_rma_coll_unlist(w);
    }
}

/* blocking: an epoch of this process other than MPI_Win_lock_all's is
 * open on w (a switch waits for it to close). */
static int blocking(const struct csp_rma_win *w)
{
    return w->fence || w->nheld > 0 || w->started || __atomic_load_n(&w->dopen, __ATOMIC_RELAXED) > 0;
}

/* holds_all: this process's MPI_Win_lock_all epoch is open on w, on
 * either path (the automatic choice carries it across a switch). */
static int holds_all(const struct csp_rma_win *w) { return w->lock_all != CSP_RMA_NONE || w->dlock_all != 0; }

/* The first int64 of a member's part of an agreement: 1 << 32 if an epoch
 * blocks a switch, else 1 if it holds lock_all, else 0; the sum gives
 * both counts (quiet: the sum is 0). */
#define CSP_RMA_BLOCKING ((int64_t)1 << 32)

/* What a choice went by (choose_say). */
enum why {
    WHY_NONE,  /* no profile yet: the default */
    WHY_SHARE, /* the share cr of time in MPI */
    WHY_KEPT,  /* too short a profile: the members' last choice */
    WHY_COST,  /* the direct path measured slower than the ghosts (a regret) */
};

/* choose_say tells (CSP_VERBOSE, the window's rank 0) what the automatic
 * choice did at where, and why. */
static void choose_say(const struct csp_rma_win *w, const char *what, const char *where, double cr, enum why why)
{
    if (csp_rma.verbose < 1 || w->rank != 0)
        return;
    if (why == WHY_KEPT) {
        fprintf(stderr,
                "casperii: window 0x%x: async_config=auto: %s at %s (profile under %d us since the members' last "
                "choice, which this keeps)\n",
                (unsigned)w->win, what, where, CSP_RMA_AUTO_BASE_US);
        return;
    }
    if (why == WHY_COST) {
        fprintf(stderr,
                "casperii: window 0x%x: async_config=auto: %s at %s (its origins waited %.0f us per operation "
                "on MPICH's path against %.0f us through the ghosts, though its targets spent %.0f%% of their "
                "time in MPI; kept on for %u agreements)\n",
                (unsigned)w->win, what, where, w->cost[1], w->cost[0], 100 * cr, (unsigned)w->hold);
        return;
    }
    if (why == WHY_NONE) {
        fprintf(stderr, "casperii: window 0x%x: async_config=auto: %s at %s (no profile yet)\n", (unsigned)w->win,
                what, where);
        return;
    }
    fprintf(stderr,
            "casperii: window 0x%x: async_config=auto: %s at %s (its targets spent %.0f%% of their time in MPI; "
            "on below %.0f%%, off above %.0f%%)\n",
            (unsigned)w->win, what, where, 100 * cr, 100 * csp_rma.cr_low, 100 * csp_rma.cr_high);
}

/* set_direct makes w direct (or redirected) from now on: the members
 * agreed at a point where no origin has an operation of the old path in
 * flight (this origin's are flushed first). */
static int set_direct(struct csp_rma_win *w, int direct)
{
    int rc = MPI_SUCCESS;
    if (!w->direct && direct)
        rc = csp_rma_flush_ghosts();
    w->direct = direct;
    csp_rma_watch(w);
    csp_rma.n_switches++;
    return rc;
}

/* switch_holding switches w (every member, collectively) where some
 * members hold MPI_Win_lock_all, as ARMCI-MPI and DART do for a window's
 * whole life: their epochs go on on the new path. Each holder first
 * completes its operations of the old path, and nobody issues one on the
 * new before all have (the barrier); each then retakes its lock_all as
 * the new path takes it, inside a second barrier, since MPICH's part of
 * that may wait for the other members' progress. */
static int switch_holding(struct csp_rma_win *w, int direct)
{
    int rc = MPI_SUCCESS, r;
    if (holds_all(w))
        rc = w->direct ? PMPI_Win_flush_all(w->win) : csp_rma_flush_ghosts();
    r = PMPI_Barrier(w->acomm); /* every member calls it, whatever failed */
    if (rc == MPI_SUCCESS)
        rc = r;
    r = set_direct(w, direct);
    if (rc == MPI_SUCCESS)
        rc = r;
    r = csp_rma_lockall_carry(w);
    if (rc == MPI_SUCCESS)
        rc = r;
    r = PMPI_Barrier(w->acomm);
    return rc == MPI_SUCCESS ? r : rc;
}

/* An agreement of w (csp_rma_agree): the int64s it sums, which depend on
 * au, whether w chooses itself (w->auto_ when its part is filled). */
static size_t agree_len(const struct csp_rma_win *w, int au) { return 1 + (au ? 4 * (size_t)w->size + 3 : 0); }

/* agreed_us: microseconds of the profile's clock in ticks t. */
static double agreed_us(uint64_t t) { return (double)t * csp_prof_ns_per_tick() / 1e3; }

/* agree_reduce is an agreement's reduction of len int64s over w's
 * members' communicator, timed (csp_rma.agree_t, agree_recent). The first
 * on a communicator is not what the next ones cost (MPICH sets up its
 * collectives there), so it is not remembered. */
static int agree_reduce(const int64_t *mine, int64_t *sum, size_t len, struct csp_rma_win *w)
{
    uint64_t t0 = csp_prof_now();
    int rc = PMPI_Allreduce(mine, sum, (int)len, MPI_INT64_T, MPI_SUM, w->acomm);
    uint64_t t = csp_prof_now() - t0;
    if (w->acomm_used)
        csp_rma.agree_recent[csp_rma.agree_next++ % CSP_RMA_AGREE_RECENT] = t ? t : 1;
    w->acomm_used = 1;
    csp_rma.agree_t += t;
    return rc;
}

/* agree_cost: what an agreement costs this process, in microseconds: the
 * least of its last CSP_RMA_AGREE_RECENT reductions, since MPICH's own
 * set-up of a communicator's collectives lands in one of its first few
 * (6 ms against 0.1-2 ms after, where 2 users share a core); 0 (not
 * known) before CSP_RMA_AGREE_KNOWN of them. */
static double agree_cost(void)
{
    uint64_t least = 0;
    int known = 0;
    for (int i = 0; i < CSP_RMA_AGREE_RECENT; i++)
        if (csp_rma.agree_recent[i]) {
            known++;
            if (!least || csp_rma.agree_recent[i] < least)
                least = csp_rma.agree_recent[i];
        }
    return known >= CSP_RMA_AGREE_KNOWN ? agreed_us(least) : 0;
}

int csp_rma_agree_gap(int n, int k, uint32_t gap, uint32_t since, const int64_t *tail)
{
    double elapsed = (double)tail[0] / n, cost = (double)tail[1] / n;
    if (since == 0 || elapsed <= 0 || cost < CSP_RMA_AGREE_DEAR_US)
        return (int)gap;
    double need = CSP_RMA_AGREE_SHARE * cost * k * since / elapsed;
    if (need > CSP_RMA_GAP_CAP)
        return CSP_RMA_GAP_CAP;
    int least = (int)need; /* rounded up */
    least += least < need;
    return least > (int)gap ? least : (int)gap;
}

/* coll_siblings: the auto windows that agree at the collectives on w's
 * communicator, w among them (at least 1). Each keeps its own cadence, so
 * together they agree that many times as often; every member lists the
 * same ones (csp_rma_coll). */
static int coll_siblings(const struct csp_rma_win *w)
{
    int k = 0;
    if (w->ucomm != MPI_COMM_NULL)
        for (const struct csp_rma_win *v = csp_rma.coll; v; v = v->cnext)
            k += v->ucomm == w->ucomm && v->auto_;
    return k > 0 ? k : 1;
}

/* agree_fill writes this member's part of w's agreement at at into mine
 * (agree_len(w, w->auto_) int64s, zero): whether it has an epoch open that
 * blocks a switch, or only lock_all's (CSP_RMA_BLOCKING; nothing is at a
 * fence), then for an auto window its profile since the
 * last agreement in its own slot, the operations it issued to each
 * member, the microseconds it spent in w's passive-target
 * synchronization (csp_rma_auto_cost), since w's last agreement, and
 * what an agreement costs this process (agree_cost; both for
 * csp_rma_agree_gap). */
static void agree_fill(struct csp_rma_win *w, enum csp_rma_point at, int64_t *mine)
{
    int n = w->size;
    mine[0] = at == CSP_RMA_AT_FENCE ? 0 : blocking(w) ? CSP_RMA_BLOCKING : holds_all(w) ? 1 : 0;
    if (!w->auto_)
        return;
    struct csp_rma_prof now;
    csp_rma_prof_read(&now);
    int64_t *m = mine + 1 + 3 * (size_t)w->rank;
    double us = csp_prof_ns_per_tick() / 1e3; /* microseconds per tick */
    m[0] = (int64_t)((double)(now.t - w->snap.t) * us);
    m[1] = (int64_t)((double)(now.in_t - w->snap.in_t) * us);
    m[2] = (int64_t)(now.calls - w->snap.calls);
    for (int t = 0; t < n; t++)
        mine[1 + 3 * (size_t)n + t] = (int64_t)__atomic_load_n(&w->acc[t], __ATOMIC_RELAXED);
    mine[1 + 4 * (size_t)n] = (int64_t)((double)__atomic_load_n(&w->psync_t, __ATOMIC_RELAXED) * us);
    mine[2 + 4 * (size_t)n] = (int64_t)((double)(now.t - w->agreed_t) * us);
    mine[3 + 4 * (size_t)n] = (int64_t)agree_cost();
}

/* agree_apply takes what the members' sums sum of w's agreement say (its
 * parts filled with au = w->auto_ then): a pending change where every
 * member was quiet, and an auto window's choice. The code of what failed
 * (not raised). */
static int agree_apply(struct csp_rma_win *w, enum csp_rma_point at, int au, const int64_t *sum,
                       const char *where)
{
    int rc = MPI_SUCCESS, n = w->size;
    int all_quiet = sum[0] == 0;
    int64_t nblocking = sum[0] / CSP_RMA_BLOCKING, nholding = sum[0] % CSP_RMA_BLOCKING;
    int pending = w->pending >= 0 || w->pend_epochs;
    if (at != CSP_RMA_AT_FENCE && all_quiet && pending) {
        if (!w->direct)
            rc = csp_rma_flush_ghosts();
        csp_rma_take_pending(w, where);
        au = au && w->auto_; /* a change of async_config ends or begins the choice */
    } else if (at == CSP_RMA_AT_SYMMETRIC && !all_quiet && pending && csp_rma.verbose >= 1 && w->rank == 0) {
        fprintf(stderr,
                "casperii: window 0x%x: %s: %lld member(s) had an epoch open; the change waits for the next "
                "MPI_Win_fence or collective on its communicator where none has\n",
                (unsigned)w->win, where, (long long)(nblocking + nholding));
    }
    if (at == CSP_RMA_AT_COLL && !au) {
        /* A pending change not taken (an epoch was open) is tried again
         * at doubling intervals; taken, the next one starts afresh. */
        if (!(w->pending >= 0 || w->pend_epochs))
            w->gap = CSP_RMA_GAP_MIN;
        else if (w->gap < CSP_RMA_GAP_MAX)
            w->gap *= 2;
        w->next_coll = w->ncoll + w->gap;
    }
    if (au && w->auto_) {
        csp_rma.n_agreements++;
        double cr = 0;
        int d = csp_rma_auto_choose(n, sum, w->direct, csp_rma.cr_low, csp_rma.cr_high, csp_rma.min_stretch_us,
                                    &cr);
        if (nblocking > 0)
            d = -1; /* an epoch was open: the profile goes on to the next */
        /* What the period cost the origins on the path it ran on, and
         * what that makes of the share's choice (a direct period is
         * judged only by its own measurement). */
        int regret = 0, held_back = 0;
        if (d >= 0) {
            double c = csp_rma_auto_cost(n, sum);
            if (c > 0)
                w->cost[w->direct] = c;
            if (c > 0 || !w->direct) {
                int d_share = d;
                d = csp_rma_auto_regret(d, w->direct, w->cost, w->hold > 0, &regret);
                held_back = !w->direct && d_share == 1 && d == 0; /* the hold kept it on */
            }
            if (!w->direct && w->hold > 0)
                w->hold--;
        }
        if (regret) {
            csp_rma.n_regrets++;
            w->hold = w->hold_len;
            if (w->hold_len < CSP_RMA_HOLD_MAX)
                w->hold_len *= 2;
        }
        /* At collectives a window goes back to the ghosts on the second
         * vote in a row only, which comes soon after the first: libraries
         * use a window in a burst between computations and free it
         * (NWChem's temporary arrays under Global Arrays, 43-53
         * operations each), where one vote redirected windows nobody
         * accessed again, which the ghost then polled (0.1 s of a 1.1 s
         * job); a window nobody accessed since the first vote has no
         * evidence (d < 0), which ends the streak. */
        int voted = 0; /* a first vote: the next agreement comes soon */
        if (d == 0 && w->direct && at == CSP_RMA_AT_COLL && !regret && ++w->on_votes < 2)
            d = 1, voted = 1;
        else if (d != 0)
            w->on_votes = 0;
        int change = d >= 0 && d != w->direct;
        if (d >= 0)
            restart(w); /* else: too short, kept for the next agreement */
        if (change) {
            w->on_votes = 0;
            int r = nholding > 0 ? switch_holding(w, d) : set_direct(w, d);
            if (rc == MPI_SUCCESS)
                rc = r;
            choose_say(w, d ? "off" : "on", where, cr, regret ? WHY_COST : WHY_SHARE);
            w->gap = CSP_RMA_GAP_MIN;
        } else if (voted) {
            w->gap = CSP_RMA_GAP_MIN;
        } else if (w->gap < CSP_RMA_GAP_MAX) {
            w->gap *= 2;
        }
        /* The next agreement: after the gap, or the cost's floor; but
         * soon after a switch or a first vote, which the next agreement
         * confirms or undoes (the floor counts safe points at the old
         * path's pace: where a target in MPI answers MPICH's epochs only
         * in time slices, 12-60 us apart on the ghosts and 24 ms on
         * MPICH's path, a floor of 4096 kept the window there for the
         * rest of the run). */
        const int64_t *tail = sum + 2 + 4 * (size_t)n;
        uint32_t since = at == CSP_RMA_AT_FENCE ? w->nfence - w->agreed_fence : w->ncoll - w->agreed_coll;
        uint32_t gap = change || voted ? w->gap : (uint32_t)csp_rma_agree_gap(n, coll_siblings(w), w->gap, since, tail);
        w->agreed_fence = w->nfence;
        w->agreed_coll = w->ncoll;
        w->agreed_t = csp_prof_now();
        w->next_eval = w->nfence + gap;
        w->next_coll = w->ncoll + gap;
        const char *pts = at == CSP_RMA_AT_FENCE ? "fences" : "collectives";
        if (gap > w->gap && gap != w->floor_said && csp_rma.verbose >= 2 && w->rank == 0)
            fprintf(stderr,
                    "casperii: window 0x%x: async_config=auto: the next agreement in %u %s, not %u (an agreement "
                    "took %.0f us; the %s came %.0f us apart)\n",
                    (unsigned)w->win, gap, pts, w->gap, (double)tail[1] / n, pts, (double)tail[0] / n / since);
        w->floor_said = gap > w->gap ? gap : 0;
        if (!change && held_back && csp_rma.verbose >= 2 && w->rank == 0)
            fprintf(stderr,
                    "casperii: window 0x%x: async_config=auto: stays on at %s (its targets spent %.0f%% of their "
                    "time in MPI, but its origins waited %.0f us per operation through the ghosts against %.0f "
                    "on MPICH's path; %u agreements of the hold left)\n",
                    (unsigned)w->win, where, 100 * cr, w->cost[0], w->cost[1], (unsigned)w->hold);
        else if (!change && d >= 0 && csp_rma.verbose >= 2 && w->rank == 0)
            fprintf(stderr,
                    "casperii: window 0x%x: async_config=auto: stays %s at %s (its targets spent %.0f%% of their "
                    "time in MPI; its origins waited %.0f us per operation %s, %.0f %s)\n",
                    (unsigned)w->win, w->direct ? "off" : "on", where, 100 * cr, w->cost[w->direct],
                    w->direct ? "on MPICH's path" : "through the ghosts", w->cost[!w->direct],
                    w->direct ? "through the ghosts" : "on MPICH's path");
    }
    return rc;
}

int csp_rma_agree(struct csp_rma_win *w, enum csp_rma_point at, const char *where)
{
    int au = w->auto_;
    size_t len = agree_len(w, au);
    int64_t *mine = calloc(2 * len, sizeof *mine);
    if (!mine) /* every member must call the Allreduce: this ends the job */
        return csp_rma_raise_msg(w, MPI_ERR_NO_MEM, "CasperII: out of memory in a window's agreement");
    int64_t *sum = mine + len;
    agree_fill(w, at, mine);
    int rc = agree_reduce(mine, sum, len, w);
    if (rc == MPI_SUCCESS)
        rc = agree_apply(w, at, au, sum, where);
    free(mine);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : csp_rma_raise_rc(w, where, rc);
}

/* The windows of comm due at one of its collectives agree together, in
 * one Allreduce over the first one's members' communicator (they all
 * span comm's group, and every member lists them in the same order):
 * a program with many windows on one communicator pays one reduction
 * per due collective, not one per window. */
int csp_rma_coll(MPI_Comm comm)
{
    static const char where[] = "a collective on its communicator";
    struct csp_rma_win *w, *first = NULL;
    size_t total = 0;
    for (w = csp_rma.coll; w; w = w->cnext) {
        w->coll_due = 0;
        if (w->ucomm != comm)
            continue;
        w->ncoll++; /* every member counts every one alike */
        /* A fence is the window's own safe point from its first on. */
        int pending = w->pending >= 0 || w->pend_epochs;
        if (w->nfence > 0 || !(w->auto_ || pending) || w->ncoll < w->next_coll ||
            w->acomm == MPI_COMM_NULL) /* made by every member alike: never here */
            continue;
        w->coll_due = 1;
        w->coll_auto = (uint8_t)w->auto_;
        total += agree_len(w, w->auto_);
        if (!first)
            first = w;
    }
    if (!first)
        return MPI_SUCCESS;
    int64_t *mine = calloc(2 * total, sizeof *mine);
    if (!mine) /* every member must call the Allreduce: this ends the job */
        return csp_rma_raise_msg(first, MPI_ERR_NO_MEM, "CasperII: out of memory in a window's agreement");
    int64_t *sum = mine + total;
    size_t off = 0;
    for (w = first; w; w = w->cnext)
        if (w->coll_due) {
            agree_fill(w, CSP_RMA_AT_COLL, mine + off);
            off += agree_len(w, w->coll_auto);
        }
    int rc = agree_reduce(mine, sum, total, first);
    if (rc != MPI_SUCCESS) {
        free(mine);
        return csp_rma_raise_rc(first, where, rc);
    }
    off = 0;
    for (w = first; w; w = w->cnext)
        if (w->coll_due) {
            int r = agree_apply(w, CSP_RMA_AT_COLL, w->coll_auto, sum + off, where);
            off += agree_len(w, w->coll_auto);
            if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
                rc = csp_rma_raise_rc(w, where, r);
        }
    free(mine);
    return rc;
}

/* ---- at allocation (csp_rma_allocate) ---- */

/* csp_rma_alloc_profile fills this member's profile fields of the
 * allocation's Allgather: wall, in-MPI microseconds and calls since the
 * end of the last allocation that decided (zero the first time: the
 * profile starts with this allocation), and what that allocation chose;
 * *now is the reading they end at (csp_rma_alloc_choose). */
void csp_rma_alloc_profile(int64_t out[CSP_RMA_PROF_N], struct csp_rma_prof *now)
{
    csp_rma_prof_read(now);
    out[0] = out[1] = out[2] = 0;
    out[3] = csp_rma.last_choice;
    if (csp_rma.hist.t == 0) {
        csp_rma.hist = *now; /* moved to the allocation's end (alloc_choose) */
        return;
    }
    double us = csp_prof_ns_per_tick() / 1e3; /* microseconds per tick */
    out[0] = (int64_t)((double)(now->t - csp_rma.hist.t) * us);
    out[1] = (int64_t)((double)(now->in_t - csp_rma.hist.in_t) * us);
    out[2] = (int64_t)(now->calls - csp_rma.hist.calls);
}

/* csp_rma_alloc_choose chooses an auto window's start from the members'
 * profile fields (prof[stride * i ...], as csp_rma_alloc_profile gave
 * them), every member weighted alike, and starts it (w made, its
 * communicator comm's duplicate: collective). Redirected unless the
 * members were mostly in MPI; where their profiles are too short to tell,
 * as the members' last allocations chose if they all chose direct (a
 * burst of windows follows the first one's choice), else redirected.
 * Every member reads the same fields, so all choose alike. An allocation
 * too short to decide leaves the profile running for the next, with its
 * own time taken out. */
int csp_rma_alloc_choose(struct csp_rma_win *w, MPI_Comm comm, const int64_t *prof, int stride,
                         const struct csp_rma_prof *now)
{
    int rc = csp_rma_auto_start(w, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = w->size, all_off = 1;
    int64_t *v = calloc(1 + 4 * (size_t)n, sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        const int64_t *p = prof + (size_t)stride * i;
        memcpy(v + 1 + 3 * (size_t)i, p, 3 * sizeof *v);
        v[1 + 3 * (size_t)n + i] = 1;
        all_off &= p[3] == CSP_RMA_CHOSE_OFF;
    }
    double cr = 0;
    int d = csp_rma_auto_choose(n, v, 0, csp_rma.cr_low, csp_rma.cr_high, csp_rma.min_stretch_us, &cr);
    free(v);
    /* The next allocation's profile starts at the end of this one if it
     * decided; else the one running goes on, this allocation's time taken
     * out of it (it tells nothing of the application). */
    struct csp_rma_prof end;
    csp_rma_prof_read(&end);
    if (d >= 0) {
        csp_rma.hist = end;
    } else {
        csp_rma.hist.t += end.t - now->t;
        csp_rma.hist.in_t += end.in_t - now->in_t;
        csp_rma.hist.calls += end.calls - now->calls;
    }
    w->direct = d >= 0 ? d == 1 : all_off;
    csp_rma.last_choice = w->direct ? CSP_RMA_CHOSE_OFF : CSP_RMA_CHOSE_ON;
    begin(w);
    choose_say(w, w->direct ? "starts off" : "starts on", "MPI_Win_allocate", cr,
               d >= 0 ? WHY_SHARE : all_off ? WHY_KEPT : WHY_NONE);
    return MPI_SUCCESS;
}

/* csp_rma_auto_begin makes w choose itself from now on (MPI_Win_set_info
 * asked for async_config=auto; its state was made there). */
void csp_rma_auto_begin(struct csp_rma_win *w) { begin(w); }
