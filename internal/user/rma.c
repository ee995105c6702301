/*
 * rma.c: redirected windows (rma.h states the design).
 *
 * Threading: under MPI_THREAD_MULTIPLE the heap and the control cell are
 * taken under csp_u.lock; a window's epoch state is the application's to
 * serialize, as MPI's is (concurrent epochs on one window from several
 * threads are erroneous).
 */
#include "rma.h"
#include "control.h"
#include "dtype.h"
#include "submit.h"
#include "user.h"

#include <sched.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct csp_rma csp_rma = {.gwin = MPI_WIN_NULL};

/* The ghost's address of each heap segment it attached to gwin, valid
 * while the segment's table generation is gen. */
static struct {
    uint32_t gen;
    int64_t gbase;
} attached[CSP_MAX_SEGS];

/* The ghosts this origin has an epoch open to on gwin, by world rank.
 *
 * The origin's epoch on gwin is a shared lock with MPI_MODE_NOCHECK (no
 * message) on each ghost, taken at the first operation to it and kept
 * until MPI_Finalize, not a lock_all at MPI_Init: MPICH's unlock_all
 * flushes an endpoint to every process of the world, which connects them
 * all, and over UCX's TCP transport a job whose processes are all
 * connected hangs in MPI_Finalize most of the time (4 runs in 5 here;
 * plain MPICH 1 in 3 after an all-to-all; openucx/ucx#8738). Flushing a
 * ghost never locked is a no-op: nothing was issued to it. */
static uint8_t *locked;
static int nworld, nlocked;

/* Operations were issued to this process's own ghost since the last
 * flush that covered it (yield_to). */
static int own_owed;

/* gate opens the epoch to ghost g on gwin before the first operation;
 * every operation passes here. */
static int gate(int g)
{
    if (g == csp_u.ghost_wrank)
        own_owed = 1;
    if (g < 0 || g >= nworld || locked[g])
        return MPI_SUCCESS;
    int rc = PMPI_Win_lock(MPI_LOCK_SHARED, g, MPI_MODE_NOCHECK, csp_rma.gwin);
    if (rc == MPI_SUCCESS) {
        locked[g] = 1;
        nlocked++;
    }
    return rc;
}

/* nudge wakes ghost g before this origin waits for it, if g is this
 * process's own ghost and parked: an origin that shares its target's ghost
 * rings it, where others wait for its next poll (internal/ghost/
 * rmaserve.go; the operations are issued already, so the ghost's first
 * progress call finds them). */
static inline void nudge(int g)
{
    if (g == csp_u.ghost_wrank && csp_ring_doorbell())
        csp_rma.n_rings++;
}

/* yield_to lends this process's core to its own ghost before it waits
 * for ghost g in a flush, which MPICH spins in (coop.c), if operations
 * were issued to it since the last such flush. */
static inline void yield_to(int g)
{
    if (g == csp_u.ghost_wrank && own_owed) {
        own_owed = 0;
        csp_coop_lend_rma();
    }
}

static int gflush(int g)
{
    if (g < 0 || g >= nworld || !locked[g])
        return MPI_SUCCESS;
    nudge(g);
    yield_to(g);
    return PMPI_Win_flush(g, csp_rma.gwin);
}

static int gflush_local(int g)
{
    if (g < 0 || g >= nworld || !locked[g])
        return MPI_SUCCESS;
    yield_to(g);
    return PMPI_Win_flush_local(g, csp_rma.gwin);
}

static int own_locked(void)
{
    return csp_u.ghost_wrank >= 0 && csp_u.ghost_wrank < nworld && locked[csp_u.ghost_wrank];
}

static int gflush_all(void)
{
    if (!nlocked)
        return MPI_SUCCESS;
    if (own_locked()) {
        nudge(csp_u.ghost_wrank);
        yield_to(csp_u.ghost_wrank);
    }
    return PMPI_Win_flush_all(csp_rma.gwin);
}

static int gflush_local_all(void)
{
    if (!nlocked)
        return MPI_SUCCESS;
    if (own_locked())
        yield_to(csp_u.ghost_wrank);
    return PMPI_Win_flush_local_all(csp_rma.gwin);
}

int csp_rma_flush_ghosts(void) { return gflush_all(); }

int csp_rma_start(MPI_Win gwin)
{
    int rc = PMPI_Comm_size(MPI_COMM_WORLD, &nworld);
    if (rc != MPI_SUCCESS)
        return rc;
    locked = calloc((size_t)nworld, 1);
    if (!locked)
        return MPI_ERR_NO_MEM;
    csp_rma.gwin = gwin;
    csp_rma.on = 1;
    return MPI_SUCCESS;
}

int csp_rma_finish(void)
{
    if (csp_rma.gwin == MPI_WIN_NULL)
        return MPI_SUCCESS;
    csp_rma.on = 0;
    int rc = MPI_SUCCESS;
    for (int g = 0; g < nworld; g++)
        if (locked[g]) {
            int r = PMPI_Win_unlock(g, csp_rma.gwin);
            if (rc == MPI_SUCCESS)
                rc = r;
        }
    free(locked);
    locked = NULL;
    nlocked = 0;
    csp_rma_local_finish();
    int rc2 = PMPI_Win_free(&csp_rma.gwin);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* ---- errors ---- */

static int win_fatal(MPI_Win win)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    return PMPI_Win_get_errhandler(win, &eh) == MPI_SUCCESS && csp_errhandler_fatal(eh);
}

/* raise calls W's error handler with class cls. Under a fatal handler it
 * first prints the one line saying what was wrong (MPICH then prints its
 * own text for the class, which is coherent). Returns cls. */
static int raise(struct csp_rma_win *w, int cls, const char *fmt, ...)
{
    if (win_fatal(w->win)) {
        char line[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        csp_error_line(line);
    }
    PMPI_Win_call_errhandler(w->win, cls);
    return cls;
}

int csp_rma_raise_rc(struct csp_rma_win *w, const char *fn, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    int cls = MPI_ERR_OTHER;
    PMPI_Error_class(rc, &cls);
    return raise(w, cls, "%s: MPICH refused the operation on the ghost's window (error class %d)", fn, cls);
}

int csp_rma_raise_msg(struct csp_rma_win *w, int cls, const char *msg)
{
    if (win_fatal(w->win)) {
        csp_error_line(msg);
        PMPI_Win_call_errhandler(w->win, cls);
        return cls;
    }
    int code = csp_rma.errcode ? csp_rma.errcode(cls, msg) : cls;
    PMPI_Win_call_errhandler(w->win, code);
    return code;
}

/* raise_coded is raise with a code whose MPI_Error_string is the line
 * (for the few distinct lines of hints and epoch kinds). */
static int raise_coded(struct csp_rma_win *w, int cls, const char *fmt, ...)
{
    char line[512] = "CasperII: ";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 10, sizeof line - 10, fmt, ap);
    va_end(ap);
    return csp_rma_raise_msg(w, cls, line);
}

/* kind_refused raises the use of an epoch kind w's epoch_type (allowed)
 * excludes: MPI_ERR_RMA_SYNC naming the hint. */
static int kind_refused(struct csp_rma_win *w, const char *fn, int kind, int allowed)
{
    char have[64];
    csp_rma_epochs_string(allowed, have, sizeof have);
    const char *need = kind == CSP_RMA_EP_LOCK ? "lock" : kind == CSP_RMA_EP_FENCE ? "fence"
                       : kind == CSP_RMA_EP_PSCW ? "pscw" : "lockall (or lock)";
    return raise_coded(w, MPI_ERR_RMA_SYNC,
                       "%s: the window's epoch_type=%s excludes this epoch; add %s to epoch_type (the info of "
                       "MPI_Win_allocate or MPI_Win_set_info)",
                       fn, have, need);
}

/* CSP_RMA_KIND returns kind_refused from the calling function unless the
 * epoch kinds allowed include one of kinds. */
#define CSP_RMA_KIND(w, fn, kinds, allowed)                                                        \
    do {                                                                                           \
        if (__builtin_expect(!((allowed) & (kinds)), 0))                                           \
            return kind_refused(w, fn, kinds, allowed);                                            \
    } while (0)

/* ---- creation ---- */

/* attach makes sure the ghost has attached the heap segment holding p to
 * gwin and returns the ghost's address of p. Called with csp_u.lock held. */
static int attach(void *p, size_t n, int64_t *gaddr)
{
    uint32_t seg;
    uint64_t off;
    if (!csp_heap_find(csp_u.heap, p, n, &seg, &off))
        return MPI_ERR_INTERN;
    uint32_t gen = csp_u.heap->table[seg].gen;
    if (attached[seg].gbase == 0 || attached[seg].gen != gen) {
        uint64_t gbase = 0;
        int rc = csp_control_result(CSP_OP_WIN_ATTACH, seg, gen, &gbase);
        if (rc != MPI_SUCCESS)
            return rc;
        if (gbase == 0)
            return MPI_ERR_INTERN;
        attached[seg].gen = gen;
        attached[seg].gbase = (int64_t)gbase;
    }
    *gaddr = attached[seg].gbase + (int64_t)off;
    return MPI_SUCCESS;
}

/* watch asks the ghost to watch (on) or stop watching the lock word in
 * the header block at p (internal/ghost/rmaserve.go: a change starts a
 * burst of polling, so an epoch's round trips after its lock do not each
 * wait for a poll; a ghost polls for windows only while it watches one).
 * Only steers polling: a failure costs speed, never correctness. */
static void watch(void *p, int on)
{
    uint32_t seg;
    uint64_t off;
    CSP_LOCK();
    char *word = (char *)p + offsetof(struct csp_rma_hdr, lock);
    if (csp_heap_find(csp_u.heap, word, sizeof(int64_t), &seg, &off))
        (void)csp_control_buf(CSP_OP_WIN_WATCH, seg, off, on ? sizeof(int64_t) : 0);
    CSP_UNLOCK();
}

/* set_watched makes the ghost watch W's lock word or stop, and keeps
 * csp_u.nwatched (user.h) the number of this process's watched windows. */
static void set_watched(struct csp_rma_win *w, int want)
{
    if (want == w->watched)
        return;
    watch(w->block, want);
    w->watched = want;
    if (want)
        __atomic_add_fetch(&csp_u.nwatched, 1, __ATOMIC_RELAXED);
    else
        __atomic_sub_fetch(&csp_u.nwatched, 1, __ATOMIC_RELAXED);
}

void csp_rma_watch(struct csp_rma_win *w) { set_watched(w, !w->direct && w->block && !w->local); }

static void insert(struct csp_rma_win *w)
{
    CSP_LOCK();
    unsigned b = csp_rma_bucket(w->win);
    w->next = csp_rma.tab[b];
    csp_rma.tab[b] = w;
    csp_rma.nwins++;
    CSP_UNLOCK();
}

static void unlink_win(struct csp_rma_win *w)
{
    CSP_LOCK();
    struct csp_rma_win **p = &csp_rma.tab[csp_rma_bucket(w->win)];
    while (*p && *p != w)
        p = &(*p)->next;
    if (*p) {
        *p = w->next;
        csp_rma.nwins--;
    }
    CSP_UNLOCK();
}

static void free_record(struct csp_rma_win *w)
{
    csp_rma_coll_unlist(w);
    csp_rma_local_free(w);
    if (w->acomm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->acomm);
    free(w->acc);
    free(w->t);
    free(w->held);
    free(w->access);
    free(w);
}

/* redirectable: a window over comm may be redirected here; gives the
 * group's size and this member's rank. */
static int redirectable(MPI_Comm comm, int *n, int *me)
{
    int inter = 0;
    return csp_rma.on && csp_u.on && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter &&
           PMPI_Comm_size(comm, n) == MPI_SUCCESS && PMPI_Comm_rank(comm, me) == MPI_SUCCESS;
}

/* What each member brings to enroll: ok, its async_config (unset
 * resolved by CSP_ASYNC_CONFIG), where the others reach it, its epoch_type
 * and, for auto, its profile (csp_rma_alloc_profile). */
enum {
    E_OK, E_CONFIG, E_GHOST, E_GBASE, E_SIZE, E_UNIT, E_GLOCK, E_EPOCHS,
    E_NODE, /* csp_u.node_id, or -1 where CSP_RMA_LOCAL=0 or the header or
               memory is not in this member's heap                          */
    E_SEG,  /* CSP_RMA_SEG_N fields: the heap segment of the header (rma.h) */
    E_MSEG = E_SEG + CSP_RMA_SEG_N, /* and of the memory                    */
    E_PROF = E_MSEG + CSP_RMA_SEG_N,
    E_N = E_PROF + CSP_RMA_PROF_N
};

/* The window-wide choices enroll agreed, for start. */
struct enrolled {
    int64_t *votes; /* every member's E_N fields (freed by start)          */
    int all_auto;   /* every member asked for async_config=auto           */
    struct csp_rma_prof now; /* the profile reading of this member's votes */
};

/* enroll decides together (one Allgather over comm) whether to redirect
 * the window: a member with bad arguments, a bad hint, or no memory or
 * header makes every member keep MPICH's window (which then reports the
 * bad arguments as MPICH does; a bad hint is raised by the caller, as for
 * communicators). async_config=off anywhere starts the window off, auto
 * holds where every member asks for it, and the epoch kinds are the union
 * of the members'. On agreement *out is the new record (not yet in the
 * table); otherwise NULL, and the return is MPI_SUCCESS unless the
 * Allgather failed, or MPI_ERR_NO_MEM when the record could not be made
 * after the members agreed (every member sees the same votes; only that
 * could split them, and it ends the job as MPICH would). */
static int enroll(MPI_Comm comm, int n, int me, int ok, const struct csp_rma_hints *h,
                  const struct csp_rma_target *mine, const void *hdr, const void *mem, int shared,
                  struct csp_rma_win **out, struct enrolled *e)
{
    *out = NULL;
    e->votes = NULL;
    int config = h->config;
    if (config == CSP_RMA_HINT_UNSET)
        config = csp_rma.default_off ? CSP_RMA_HINT_OFF : csp_rma.default_auto ? CSP_RMA_HINT_AUTO : CSP_RMA_HINT_ON;
    int64_t v[E_N] = {ok, config, mine->ghost, mine->gbase, mine->size, mine->disp_unit, mine->glock,
                      h->epochs ? h->epochs : CSP_RMA_EP_ALL};
    v[E_NODE] = !csp_rma.local_off && ok && csp_rma_local_mine(hdr, CSP_RMA_HDR, v + E_SEG) &&
                        csp_rma_local_mine(mem, (size_t)mine->size, v + E_MSEG)
                    ? csp_u.node_id
                    : -1;
    if (config == CSP_RMA_HINT_AUTO)
        csp_rma_alloc_profile(v + E_PROF, &e->now);
    int64_t *all = malloc(sizeof(int64_t) * E_N * (size_t)n);
    int rc = all ? PMPI_Allgather(v, E_N, MPI_INT64_T, all, E_N, MPI_INT64_T, comm) : MPI_ERR_NO_MEM;
    int agreed = rc == MPI_SUCCESS, off = 0, autos = 0, epochs = 0, local = agreed;
    for (int i = 0; agreed && i < n; i++) {
        const int64_t *a = &all[E_N * i];
        agreed = a[E_OK] == 1;
        local &= a[E_NODE] >= 0 && a[E_NODE] == all[E_NODE];
        off |= a[E_CONFIG] == CSP_RMA_HINT_OFF;
        autos += a[E_CONFIG] == CSP_RMA_HINT_AUTO;
        epochs |= (int)a[E_EPOCHS];
    }
    struct csp_rma_win *w = agreed ? calloc(1, sizeof *w) : NULL;
    if (w) {
        w->acomm = MPI_COMM_NULL;
        w->ucomm = MPI_COMM_NULL;
        w->t = malloc(sizeof(struct csp_rma_target) * (size_t)n);
        w->held = calloc((size_t)n, 1);
        w->access = calloc((size_t)n, 1);
    }
    if (!w || !w->t || !w->held || !w->access) {
        if (w)
            free_record(w);
        free(all);
        return agreed ? MPI_ERR_NO_MEM : rc;
    }
    for (int i = 0; i < n; i++) {
        const int64_t *a = &all[E_N * i];
        w->t[i] = (struct csp_rma_target){.ghost = a[E_GHOST], .gbase = a[E_GBASE], .size = a[E_SIZE],
                                          .disp_unit = a[E_UNIT], .glock = a[E_GLOCK]};
    }
    w->direct = off; /* async_config=off: MPICH's path until switched on */
    w->hinted = h->config != CSP_RMA_HINT_UNSET || h->epochs != 0;
    w->pending = -1;
    w->epochs = epochs;
    w->size = n;
    w->rank = me;
    w->shared = shared;
    /* Every member on this node: the origins serve the window themselves
     * (rmalocal.c; one Allreduce, which every member makes alike). */
    if (local && (rc = csp_rma_local_setup(w, comm, all + E_SEG, all + E_MSEG, E_N)) != MPI_SUCCESS) {
        free_record(w);
        free(all);
        return rc;
    }
    e->votes = all;
    e->all_auto = !off && autos == n;
    *out = w;
    return MPI_SUCCESS;
}

/* start makes w, agreed by enroll and now W's (w->win set), a window:
 * an auto window chooses where it starts (collective: every member has
 * the same votes), then the ghost watches its lock word if it starts
 * redirected, and it enters the table. On failure w is not in the table. */
static int start(struct csp_rma_win *w, MPI_Comm comm, struct enrolled *e)
{
    int rc = MPI_SUCCESS;
    /* A node-local window needs no choice: its operations wait for no
     * ghost and no target, so it stays on (rmalocal.c). */
    if (e->all_auto && !w->local)
        rc = csp_rma_alloc_choose(w, comm, e->votes + E_PROF, E_N, &e->now);
    if (rc == MPI_SUCCESS)
        csp_rma_coll_list(w, comm); /* auto, or a change MPI_Win_set_info asks */
    if (w->local && csp_rma.verbose >= 2 && w->rank == 0)
        fprintf(stderr, "casperii: window 0x%x: its %d members share this node: the origins apply the "
                        "operations in shared memory (no ghost)\n",
                (unsigned)w->win, w->size);
    free(e->votes);
    e->votes = NULL;
    if (rc != MPI_SUCCESS)
        return rc;
    csp_rma_watch(w);
    insert(w);
    csp_rma.n_wins++;
    return MPI_SUCCESS;
}

/* hint_error is the error of a bad hint (herr, why) for fn, with its
 * line: raised by the caller on the window or communicator. */
static int hint_error(int herr, const char *fn, const char *why)
{
    char msg[480];
    snprintf(msg, sizeof msg, "CasperII: %s: %s", fn, why);
    return csp_rma.errcode ? csp_rma.errcode(herr, msg) : herr;
}

static void heap_free_locked(void *p)
{
    if (!p)
        return;
    CSP_LOCK();
    csp_heap_free(csp_u.heap, p);
    CSP_UNLOCK();
}

/* new_block takes a heap block of n bytes whose first CSP_RMA_HDR bytes are
 * a zeroed header (struct csp_rma_hdr) and has the ghost attach it to gwin:
 * *glock is the ghost's address of it. NULL when the heap or the attach
 * fails (then nothing is held). */
static void *new_block(size_t n, int64_t *glock)
{
    CSP_LOCK();
    void *block = csp_heap_alloc(csp_u.heap, n);
    if (block) {
        memset(block, 0, CSP_RMA_HDR);
        if (attach(block, n, glock) != MPI_SUCCESS) {
            csp_heap_free(csp_u.heap, block);
            block = NULL;
        }
    }
    CSP_UNLOCK();
    return block;
}

int csp_rma_allocate(MPI_Aint size, MPI_Aint disp_unit, int large, MPI_Info info, MPI_Comm comm,
                     void *baseptr, MPI_Win *win, int *done)
{
    *done = 0;
    int n, me;
    if (!redirectable(comm, &n, &me))
        return MPI_SUCCESS; /* MPICH's window (and its errors) */
    struct csp_rma_hints h;
    char why[400];
    int herr = csp_rma_hints(info, &h, why, sizeof why), ok = 0;
    struct csp_rma_target mine = {.ghost = csp_u.ghost_wrank, .size = size, .disp_unit = disp_unit};
    void *block = NULL;
    if (size >= 0 && disp_unit > 0 && herr == MPI_SUCCESS && (uint64_t)size < ((uint64_t)1 << 46)) {
        block = new_block((size_t)size + CSP_RMA_HDR, &mine.glock);
        ok = block != NULL;
        mine.gbase = mine.glock + CSP_RMA_HDR;
    }
    struct csp_rma_win *w;
    struct enrolled e;
    int rc = enroll(comm, n, me, ok, &h, &mine, block, block ? (char *)block + CSP_RMA_HDR : NULL, 0, &w, &e);
    if (!w) {
        heap_free_locked(block);
        return herr != MPI_SUCCESS ? hint_error(herr, "MPI_Win_allocate", why) : rc;
    }
    char *base = (char *)block + CSP_RMA_HDR;
    rc = large ? PMPI_Win_create_c(base, size, disp_unit, info, comm, win)
               : PMPI_Win_create(base, size, (int)disp_unit, info, comm, win);
    *done = 1;
    if (rc != MPI_SUCCESS) {
        free(e.votes);
        free_record(w);
        heap_free_locked(block);
        return rc;
    }
    w->win = *win;
    w->block = block;
    if ((rc = start(w, comm, &e)) != MPI_SUCCESS) {
        PMPI_Win_free(win);
        free_record(w);
        heap_free_locked(block);
        return rc;
    }
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

int csp_rma_share(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                  MPI_Win win)
{
    int n, me;
    if (!redirectable(comm, &n, &me))
        return MPI_SUCCESS;
    /* The header is a heap block of its own; the memory is attached where
     * the registration put it (a member of 0 bytes has none: its gbase is
     * its header's, and the range check keeps every byte off it). */
    struct csp_rma_hints h;
    char why[400];
    int herr = csp_rma_hints(info, &h, why, sizeof why), ok = 0;
    struct csp_rma_target mine = {.ghost = csp_u.ghost_wrank, .size = size, .disp_unit = disp_unit};
    void *block = herr == MPI_SUCCESS ? new_block(CSP_RMA_HDR, &mine.glock) : NULL;
    if (block) {
        CSP_LOCK();
        ok = size == 0 || attach(base, (size_t)size, &mine.gbase) == MPI_SUCCESS;
        CSP_UNLOCK();
        if (size == 0)
            mine.gbase = mine.glock;
    }
    struct csp_rma_win *w;
    struct enrolled e;
    int rc = enroll(comm, n, me, ok, &h, &mine, block, base, 1, &w, &e);
    if (!w) {
        heap_free_locked(block);
        if (herr != MPI_SUCCESS)
            return hint_error(herr, "MPI_Win_allocate_shared", why);
        /* Said by each member that could not. */
        if (rc == MPI_SUCCESS && !ok && csp_rma.verbose >= 1)
            fprintf(stderr,
                    "casperii: window 0x%x (MPI_Win_allocate_shared): not redirected: this process could "
                    "not give its ghost a header for the lock word; RMA on it progresses when the target "
                    "calls MPI\n",
                    (unsigned)win);
        return rc;
    }
    w->win = win;
    w->block = block;
    if ((rc = start(w, comm, &e)) != MPI_SUCCESS) {
        free_record(w);
        heap_free_locked(block);
        return rc;
    }
    return MPI_SUCCESS;
}

int csp_rma_unlist(struct csp_rma_win *w)
{
    /* Lock words this origin gave back without waiting (release) reach
     * their targets before any member can let the memory go. */
    if (w->released) {
        int rc = gflush_all();
        if (rc != MPI_SUCCESS)
            return csp_rma_raise_rc(w, "MPI_Win_free", rc);
        w->released = 0;
    }
    unlink_win(w);
    csp_rma_coll_unlist(w); /* a window that stays (its free failed) agrees only at fences */
    return MPI_SUCCESS;
}

void csp_rma_freed(struct csp_rma_win *w, int ok)
{
    if (!ok) {
        insert(w); /* still a window */
        return;
    }
    set_watched(w, 0);
    heap_free_locked(w->block);
    free_record(w);
}

int csp_rma_free(struct csp_rma_win *w, MPI_Win *win)
{
    /* MPICH checks the epochs (W holds the mirror of every lock) and
     * synchronizes the members: after it, no origin has an operation on
     * this memory in flight. */
    int rc = csp_rma_unlist(w);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Win_free(win);
    csp_rma_freed(w, rc == MPI_SUCCESS);
    return rc;
}

/* ---- operations ---- */

static int epoch_open(const struct csp_rma_win *w, int rank)
{
    return w->fence || w->lock_all || w->held[rank] || (w->started && w->access[rank]);
}

int csp_rma_target_of(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint disp,
                      MPI_Count count, MPI_Datatype dt, int *ghost, MPI_Aint *gdisp, MPI_Win *gw)
{
    if (rank == MPI_PROC_NULL)
        return 1;
    if (rank < 0 || rank >= w->size)
        return raise(w, MPI_ERR_RANK, "%s: target rank %d is not in the window's group (size %d)", fn, rank,
                     w->size);
    if (!epoch_open(w, rank))
        return raise(w, MPI_ERR_RMA_SYNC,
                     "%s: no access epoch to rank %d is open on this window (call MPI_Win_lock, "
                     "MPI_Win_lock_all, MPI_Win_fence or MPI_Win_start first)",
                     fn, rank);
    const struct csp_rma_target *t = &w->t[rank];
    MPI_Aint at;
    if (__builtin_mul_overflow(disp, (MPI_Aint)t->disp_unit, &at))
        return raise(w, MPI_ERR_RMA_RANGE, "%s: target displacement %ld overflows", fn, (long)disp);
    if (count > 0) {
        MPI_Count lo, hi;
        int bsize = csp_builtin_size(dt);
        if (bsize > 0) {
            lo = at;
            hi = at + count * (MPI_Count)bsize;
        } else {
            MPI_Count lb, ext, tlb, text;
            if (PMPI_Type_get_extent_x(dt, &lb, &ext) != MPI_SUCCESS ||
                PMPI_Type_get_true_extent_x(dt, &tlb, &text) != MPI_SUCCESS)
                return raise(w, MPI_ERR_TYPE, "%s: the target datatype is not valid", fn);
            lo = at + tlb + (ext < 0 ? (count - 1) * ext : 0);
            hi = at + tlb + text + (ext > 0 ? (count - 1) * ext : 0);
        }
        if (lo < 0 || hi > t->size)
            return raise(w, MPI_ERR_RMA_RANGE,
                         "%s: bytes [%lld, %lld) of rank %d's window are outside its %lld bytes; check "
                         "target_disp, the count and the target datatype", fn,
                         (long long)lo, (long long)hi, rank, (long long)t->size);
    }
    if (w->local) {
        *ghost = 0;
        *gdisp = w->lm[rank].disp + at;
        *gw = w->lm[rank].win;
        csp_rma.n_local_ops++;
        return MPI_SUCCESS;
    }
    int rc = gate((int)t->ghost);
    if (rc != MPI_SUCCESS)
        return csp_rma_raise_rc(w, fn, rc);
    *ghost = (int)t->ghost;
    *gdisp = (MPI_Aint)t->gbase + at;
    *gw = csp_rma.gwin;
    csp_rma.n_ops++;
    return MPI_SUCCESS;
}

/* ---- the lock word (rma.h) ---- */

static void lock_backoff(int *n)
{
    csp_rma.n_lock_retries++;
    if ((*n)++ < 4) {
        sched_yield();
        return;
    }
    int us = 10 << (*n < 10 ? *n - 4 : 6);
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

/* The ghost's address of rank's lock word; opens the epoch to its ghost
 * (an error there shows in the operation that follows). */
static MPI_Aint lockword(const struct csp_rma_win *w, int rank)
{
    csp_rma.n_lockword_ops++; /* every access to a lock word comes here */
    gate((int)w->t[rank].ghost);
    return (MPI_Aint)(w->t[rank].glock + (int64_t)offsetof(struct csp_rma_hdr, lock));
}

/* The lock word of rank on a node-local window, mapped here. */
static int64_t *lockword_here(const struct csp_rma_win *w, int rank)
{
    csp_rma.n_lockword_ops++;
    return &w->lm[rank].hdr->lock;
}

/* fop adds add to rank's lock word and gives the old value, completed. */
static int fop(struct csp_rma_win *w, int rank, int64_t add, int64_t *old)
{
    if (w->local) {
        *old = __atomic_fetch_add(lockword_here(w, rank), add, __ATOMIC_ACQ_REL);
        return MPI_SUCCESS;
    }
    int g = (int)w->t[rank].ghost;
    int rc = PMPI_Fetch_and_op(&add, old, MPI_INT64_T, g, lockword(w, rank), MPI_SUM, csp_rma.gwin);
    if (rc == MPI_SUCCESS)
        rc = gflush(g);
    return rc;
}

static int acquire(struct csp_rma_win *w, int rank, int type)
{
    int n = 0;
    for (;;) {
        int64_t old = 0;
        int rc;
        if (type == MPI_LOCK_EXCLUSIVE && w->local) {
            int64_t zero = 0;
            if (__atomic_compare_exchange_n(lockword_here(w, rank), &zero, CSP_RMA_WRITER, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return MPI_SUCCESS;
        } else if (type == MPI_LOCK_EXCLUSIVE) {
            int64_t zero = 0, writer = CSP_RMA_WRITER;
            int g = (int)w->t[rank].ghost;
            rc = PMPI_Compare_and_swap(&writer, &zero, &old, MPI_INT64_T, g, lockword(w, rank),
                                       csp_rma.gwin);
            if (rc == MPI_SUCCESS)
                rc = gflush(g);
            if (rc != MPI_SUCCESS || old == 0)
                return rc;
        } else {
            rc = fop(w, rank, 1, &old);
            if (rc != MPI_SUCCESS || old >= 0)
                return rc;
            if ((rc = fop(w, rank, -1, &old)) != MPI_SUCCESS) /* a writer holds it: step back */
                return rc;
        }
        lock_backoff(&n);
    }
}

/* The values release adds to a lock word: they must stay valid until the
 * accumulate completes, after the call that issued it returned. */
static const int64_t unshare = -1, unwrite = -CSP_RMA_WRITER;

/* release gives the lock word back; the origin's operations to rank are
 * complete at the target already (flushed first). It does not wait for
 * the accumulate: MPI orders it before this origin's next atomic on the
 * word (accumulate_ordering, gwin's default), another origin that finds
 * the word still held retries (acquire), and whatever completes it (the
 * next flush to that ghost, a fence, MPI_Win_free: w->released, or gwin's
 * unlock at MPI_Finalize) comes before the memory goes away. */
static int release(struct csp_rma_win *w, int rank, int type)
{
    if (w->local) { /* the origin's operations completed in their calls */
        __atomic_fetch_add(lockword_here(w, rank), type == MPI_LOCK_EXCLUSIVE ? unwrite : unshare,
                           __ATOMIC_RELEASE);
        return MPI_SUCCESS;
    }
    w->released = 1;
    return PMPI_Accumulate(type == MPI_LOCK_EXCLUSIVE ? &unwrite : &unshare, 1, MPI_INT64_T,
                           (int)w->t[rank].ghost, lockword(w, rank), 1, MPI_INT64_T, MPI_SUM, csp_rma.gwin);
}

/* ---- passive target ---- */

/* On MPICH's path (w->direct) the epochs are MPICH's; what the library
 * keeps of them is only whether one is open, so that an agreement never
 * switches the window under it (rmaauto.c: blocking; a lock_all epoch,
 * dlock_all, is carried across instead). rc is MPICH's answer, counted
 * when it succeeded and counts (not MPI_PROC_NULL). */
static int direct_opened(struct csp_rma_win *w, int rc, int counts)
{
    if (rc == MPI_SUCCESS && counts) /* atomic: threads may lock apart */
        __atomic_fetch_add(&w->dopen, 1, __ATOMIC_RELAXED);
    return rc;
}
static int direct_closed(struct csp_rma_win *w, int rc, int counts)
{
    if (rc == MPI_SUCCESS && counts) /* MPICH closed one that was open */
        __atomic_fetch_sub(&w->dopen, 1, __ATOMIC_RELAXED);
    return rc;
}

int csp_rma_lock(struct csp_rma_win *w, int type, int rank, int assert_)
{
    if (rank != MPI_PROC_NULL)
        CSP_RMA_KIND(w, "MPI_Win_lock", CSP_RMA_EP_LOCK, w->epochs);
    if (w->direct)
        return direct_opened(w, PMPI_Win_lock(type, rank, assert_, w->win), rank != MPI_PROC_NULL);
    /* W's lock with NOCHECK sends nothing: MPICH checks the arguments and
     * the epoch rules, and W's free and unlock know it. */
    int rc = PMPI_Win_lock(type, rank, assert_ | MPI_MODE_NOCHECK, w->win);
    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if (!(assert_ & MPI_MODE_NOCHECK)) {
        rc = acquire(w, rank, type);
        if (rc != MPI_SUCCESS) {
            PMPI_Win_unlock(rank, w->win);
            return csp_rma_raise_rc(w, "MPI_Win_lock", rc);
        }
        w->held[rank] = type == MPI_LOCK_EXCLUSIVE ? CSP_RMA_EXCL : CSP_RMA_SHARED;
    } else {
        w->held[rank] = CSP_RMA_NOCHECK;
    }
    w->nheld++;
    return MPI_SUCCESS;
}

int csp_rma_unlock(struct csp_rma_win *w, int rank)
{
    if (w->direct)
        return direct_closed(w, PMPI_Win_unlock(rank, w->win), rank != MPI_PROC_NULL);
    if (rank < 0 || rank >= w->size || w->held[rank] == CSP_RMA_NONE)
        return PMPI_Win_unlock(rank, w->win); /* MPICH's answer, and error */
    int rc = w->local ? MPI_SUCCESS : gflush((int)w->t[rank].ghost);
    int h = w->held[rank];
    if (rc == MPI_SUCCESS && h != CSP_RMA_NOCHECK)
        rc = release(w, rank, h == CSP_RMA_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED);
    w->held[rank] = CSP_RMA_NONE;
    w->nheld--;
    int rc2 = PMPI_Win_unlock(rank, w->win);
    if (rc != MPI_SUCCESS)
        return csp_rma_raise_rc(w, "MPI_Win_unlock", rc);
    return rc2;
}

/* lockall_words takes this origin's part of MPI_Win_lock_all(assert_) in
 * the lock words, W's own lock_all already held: none where nobody takes
 * a lock on w but lock_all's shared ones (no lock in epoch_type), which
 * exclude nothing, or with NOCHECK (no round trip to any member's ghost;
 * the epoch kinds change only where no member has an epoch open), else a
 * shared lock on every member. */
static int lockall_words(struct csp_rma_win *w, int assert_)
{
    w->lockall_assert = assert_;
    if ((assert_ & MPI_MODE_NOCHECK) || !(w->epochs & CSP_RMA_EP_LOCK)) {
        w->lock_all = CSP_RMA_NOCHECK;
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    if (w->local) { /* a shared lock on every member, in shared memory */
        for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++)
            rc = acquire(w, r, MPI_LOCK_SHARED);
        w->lock_all = CSP_RMA_SHARED;
        return rc;
    }
    /* One fetch-and-add each, completed together; the few that met a
     * writer step back and retry alone. */
    int64_t one = 1, *old = calloc((size_t)w->size, sizeof *old);
    if (!old)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++)
        rc = PMPI_Fetch_and_op(&one, &old[r], MPI_INT64_T, (int)w->t[r].ghost, lockword(w, r), MPI_SUM,
                               csp_rma.gwin);
    if (rc == MPI_SUCCESS)
        rc = gflush_all();
    for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++) {
        if (old[r] >= 0)
            continue;
        int64_t o;
        rc = fop(w, r, -1, &o);
        if (rc == MPI_SUCCESS)
            rc = acquire(w, r, MPI_LOCK_SHARED);
    }
    free(old);
    if (rc == MPI_SUCCESS)
        w->lock_all = CSP_RMA_SHARED;
    return rc;
}

/* lockall_unwords gives back what lockall_words took (the origin's
 * operations complete at their targets already). */
static int lockall_unwords(struct csp_rma_win *w)
{
    int rc = MPI_SUCCESS;
    for (int r = 0; rc == MPI_SUCCESS && w->lock_all == CSP_RMA_SHARED && r < w->size; r++)
        rc = release(w, r, MPI_LOCK_SHARED);
    return rc;
}

int csp_rma_lock_all(struct csp_rma_win *w, int assert_)
{
    CSP_RMA_KIND(w, "MPI_Win_lock_all", CSP_RMA_EP_LOCKALL | CSP_RMA_EP_LOCK, w->epochs);
    if (w->direct) {
        int rc = PMPI_Win_lock_all(assert_, w->win);
        if (rc == MPI_SUCCESS)
            w->dlock_all = assert_ + 1;
        return rc;
    }
    int rc = PMPI_Win_lock_all(assert_ | MPI_MODE_NOCHECK, w->win);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = lockall_words(w, assert_);
    if (rc != MPI_SUCCESS) {
        PMPI_Win_unlock_all(w->win);
        if (rc == MPI_ERR_NO_MEM) /* lockall_words' own, not MPICH's */
            return raise(w, MPI_ERR_NO_MEM, "MPI_Win_lock_all: out of memory");
        return csp_rma_raise_rc(w, "MPI_Win_lock_all", rc);
    }
    return MPI_SUCCESS;
}

int csp_rma_unlock_all(struct csp_rma_win *w)
{
    if (w->direct) {
        int rc = PMPI_Win_unlock_all(w->win);
        if (rc == MPI_SUCCESS)
            w->dlock_all = 0;
        return rc;
    }
    if (w->lock_all == CSP_RMA_NONE)
        return PMPI_Win_unlock_all(w->win); /* MPICH's error */
    int rc = w->local ? MPI_SUCCESS : gflush_all();
    if (rc == MPI_SUCCESS)
        rc = lockall_unwords(w);
    w->lock_all = CSP_RMA_NONE;
    int rc2 = PMPI_Win_unlock_all(w->win);
    if (rc != MPI_SUCCESS)
        return csp_rma_raise_rc(w, "MPI_Win_unlock_all", rc);
    return rc2;
}

static int passive(const struct csp_rma_win *w, int rank)
{
    return w->lock_all || (rank >= 0 && rank < w->size && w->held[rank]);
}

int csp_rma_flush(struct csp_rma_win *w, int rank, int local)
{
    const char *fn = local ? "MPI_Win_flush_local" : "MPI_Win_flush";
    if (w->direct)
        return local ? PMPI_Win_flush_local(rank, w->win) : PMPI_Win_flush(rank, w->win);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= w->size)
        return raise(w, MPI_ERR_RANK, "%s: rank %d is not in the window's group (size %d)", fn, rank, w->size);
    if (!passive(w, rank))
        return raise(w, MPI_ERR_RMA_SYNC, "%s: rank %d is not locked (MPI_Win_lock or MPI_Win_lock_all first)",
                     fn, rank);
    if (w->local) { /* complete since their calls returned */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return MPI_SUCCESS;
    }
    int g = (int)w->t[rank].ghost;
    int rc = local ? gflush_local(g) : gflush(g);
    return csp_rma_raise_rc(w, fn, rc);
}

int csp_rma_flush_all(struct csp_rma_win *w, int local)
{
    const char *fn = local ? "MPI_Win_flush_local_all" : "MPI_Win_flush_all";
    if (w->direct)
        return local ? PMPI_Win_flush_local_all(w->win) : PMPI_Win_flush_all(w->win);
    if (!w->lock_all && w->nheld == 0)
        return raise(w, MPI_ERR_RMA_SYNC, "%s: no passive-target epoch is open on this window", fn);
    if (w->local) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return MPI_SUCCESS;
    }
    int rc = local ? gflush_local_all() : gflush_all();
    return csp_rma_raise_rc(w, fn, rc);
}

int csp_rma_sync(struct csp_rma_win *w)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return PMPI_Win_sync(w->win);
}

/* ---- switching (MPI_Win_set_info, the automatic choice: rmaauto.c) ---- */

int csp_rma_lockall_carry(struct csp_rma_win *w)
{
    int rc = MPI_SUCCESS, rc2;
    if (w->direct) { /* from the ghosts to MPICH */
        if (w->lock_all == CSP_RMA_NONE)
            return MPI_SUCCESS;
        rc = lockall_unwords(w);
        w->lock_all = CSP_RMA_NONE;
        /* W's epoch was taken with NOCHECK; MPICH's path needs its own. */
        rc2 = PMPI_Win_unlock_all(w->win);
        if (rc2 == MPI_SUCCESS)
            rc2 = PMPI_Win_lock_all(w->lockall_assert, w->win);
        if (rc2 == MPI_SUCCESS)
            w->dlock_all = w->lockall_assert + 1;
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    if (!w->dlock_all) /* from MPICH to the ghosts */
        return MPI_SUCCESS;
    int a = w->dlock_all - 1;
    w->dlock_all = 0;
    /* MPICH's lock_all would make the unlock wait for every target's
     * progress: W's epoch becomes a NOCHECK one, as redirected epochs
     * are (the members are all inside the switch's barriers). */
    rc2 = PMPI_Win_unlock_all(w->win);
    if (rc2 == MPI_SUCCESS)
        rc2 = PMPI_Win_lock_all(a | MPI_MODE_NOCHECK, w->win);
    if (rc2 == MPI_SUCCESS)
        rc = lockall_words(w, a);
    return rc2 != MPI_SUCCESS ? rc2 : rc;
}

void csp_rma_take_pending(struct csp_rma_win *w, const char *where)
{
    int p = w->pending, e = w->pend_epochs;
    int say = csp_rma.verbose >= 1 && w->rank == 0;
    w->pending = -1;
    w->pend_epochs = 0;
    if (e && e != w->epochs) {
        w->epochs = e;
        if (say) {
            char ep[64];
            csp_rma_epochs_string(e, ep, sizeof ep);
            fprintf(stderr, "casperii: window 0x%x: epoch_type=%s took effect at %s\n", (unsigned)w->win, ep, where);
        }
    }
    if (p < 0)
        return;
    if (p == CSP_RMA_HINT_AUTO && w->local)
        p = CSP_RMA_HINT_ON; /* nothing to choose: start(), rmalocal.c */
    if (p == CSP_RMA_HINT_AUTO) {
        if (!w->auto_) {
            csp_rma_auto_begin(w);
            if (say)
                fprintf(stderr,
                        "casperii: window 0x%x: async_config=auto took effect at %s (%s until the members "
                        "choose)\n",
                        (unsigned)w->win, where, w->direct ? "off" : "on");
        }
        return;
    }
    w->auto_ = 0;
    int off = p == CSP_RMA_HINT_OFF;
    if (off == w->direct)
        return;
    w->direct = off;
    csp_rma_watch(w);
    csp_rma.n_switches++;
    if (say)
        fprintf(stderr, "casperii: window 0x%x: async_config=%s took effect at %s\n", (unsigned)w->win,
                off ? "off" : "on", where);
}

int csp_rma_set_info(struct csp_rma_win *w, MPI_Info info)
{
    struct csp_rma_hints h;
    char why[400];
    if (csp_rma_hints(info, &h, why, sizeof why) != MPI_SUCCESS)
        return raise_coded(w, MPI_ERR_INFO_VALUE, "MPI_Win_set_info: %s", why);
    int rc = PMPI_Win_set_info(w->win, info);
    if (rc != MPI_SUCCESS)
        return rc;
    w->hinted = 1;
    /* MPI_Win_set_info is collective, and MPI asks the members to give the
     * same values of such hints: every member does the same here. A
     * change waits for the next fence, where no origin of the window has
     * an epoch open (its synchronization orders every member's operations
     * of the old path before any of the new), or, on a window without
     * fences, for the next collective on its communicator where the
     * members find that none of them has an epoch open (rmaauto.c:
     * csp_rma_coll), unless the application asserts that now is such a
     * point (symmetric=true, as in Casper): then the members check that
     * none of them has an epoch open and take it at once (else it waits),
     * in one Allreduce that also carries an auto window's choice. */
    if (h.config != CSP_RMA_HINT_UNSET)
        w->pending = h.config;
    if (h.epochs)
        w->pend_epochs = h.epochs;
    if (w->pending == CSP_RMA_HINT_AUTO && !w->auto_ &&
        (rc = csp_rma_auto_start(w, MPI_COMM_NULL)) != MPI_SUCCESS) {
        w->pending = -1;
        return csp_rma_raise_rc(w, "MPI_Win_set_info", rc);
    }
    if (!h.symmetric && w->pending < 0 && !w->pend_epochs)
        return MPI_SUCCESS;
    /* The members' communicator, which every agreement needs (here, where
     * every member is: MPI_Win_set_info is collective). */
    if ((rc = csp_rma_comm(w, MPI_COMM_NULL)) != MPI_SUCCESS)
        return csp_rma_raise_rc(w, "MPI_Win_set_info", rc);
    if (!h.symmetric) {
        w->next_coll = w->ncoll + 1; /* the next collective on its communicator tries it */
        return MPI_SUCCESS;
    }
    return csp_rma_agree(w, CSP_RMA_AT_SYMMETRIC, "MPI_Win_set_info (symmetric=true)");
}

int csp_rma_get_info(struct csp_rma_win *w, MPI_Info *info)
{
    char ep[64];
    csp_rma_epochs_string(w->epochs, ep, sizeof ep);
    int rc = PMPI_Win_get_info(w->win, info);
    /* A shared window is MPICH's own, whose info drops keys MPICH does
     * not know: ours appear once the application gave one of them. */
    if (w->shared && !w->hinted)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "async_config", w->auto_ ? "auto" : w->direct ? "off" : "on");
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "async_config_in_effect", w->direct ? "off" : "on");
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "epoch_type", ep);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Info_set(*info, "epochs_used", ep);
    return rc;
}

/* ---- active target ---- */

int csp_rma_fence(struct csp_rma_win *w, int assert_)
{
    /* A change of epoch_type asked for takes effect at this fence: the
     * fence is allowed if either set allows it. */
    CSP_RMA_KIND(w, "MPI_Win_fence", CSP_RMA_EP_FENCE, w->epochs | w->pend_epochs);
    /* The origin's operations of the closing epoch complete at their
     * targets before the fence's synchronization, so every target sees
     * them once its own fence returns. */
    if (w->local)
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* its operations are complete: in order */
    if (w->fence && !w->direct && !w->local) {
        int rc = gflush_all();
        if (rc != MPI_SUCCESS)
            return csp_rma_raise_rc(w, "MPI_Win_fence", rc);
    }
    int rc = PMPI_Win_fence(assert_, w->win);
    if (rc == MPI_SUCCESS) {
        /* A safe point: every member is here between the same epochs. */
        w->fence = !(assert_ & MPI_MODE_NOSUCCEED);
        w->nfence++;
        if (w->pending >= 0 || w->pend_epochs)
            csp_rma_take_pending(w, "MPI_Win_fence");
        else if (w->auto_ && w->nfence >= w->next_eval)
            rc = csp_rma_agree(w, CSP_RMA_AT_FENCE, "MPI_Win_fence");
    }
    return rc;
}

int csp_rma_post(struct csp_rma_win *w, MPI_Group g, int assert_)
{
    CSP_RMA_KIND(w, "MPI_Win_post", CSP_RMA_EP_PSCW, w->epochs);
    return PMPI_Win_post(g, assert_, w->win);
}

int csp_rma_start_epoch(struct csp_rma_win *w, MPI_Group g, int assert_)
{
    CSP_RMA_KIND(w, "MPI_Win_start", CSP_RMA_EP_PSCW, w->epochs);
    int rc = PMPI_Win_start(g, assert_, w->win);
    if (w->direct)
        return direct_opened(w, rc, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Group wg;
    int n = 0;
    if (PMPI_Win_get_group(w->win, &wg) != MPI_SUCCESS)
        return raise(w, MPI_ERR_INTERN, "MPI_Win_start: no group for the window");
    PMPI_Group_size(g, &n);
    int *in = malloc(sizeof(int) * 2 * (size_t)(n ? n : 1));
    if (!in) {
        PMPI_Group_free(&wg);
        return raise(w, MPI_ERR_NO_MEM, "MPI_Win_start: out of memory");
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    rc = PMPI_Group_translate_ranks(g, n, in, wg, in + n);
    PMPI_Group_free(&wg);
    memset(w->access, 0, (size_t)w->size);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (in[n + i] >= 0 && in[n + i] < w->size)
            w->access[in[n + i]] = 1;
    free(in);
    w->started = 1;
    return csp_rma_raise_rc(w, "MPI_Win_start", rc);
}

int csp_rma_complete(struct csp_rma_win *w)
{
    int rc = MPI_SUCCESS;
    if (w->local)
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (w->started && !w->direct && !w->local)
        for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++)
            if (w->access[r])
                rc = gflush((int)w->t[r].ghost);
    if (rc != MPI_SUCCESS)
        return csp_rma_raise_rc(w, "MPI_Win_complete", rc);
    if (w->direct)
        return direct_closed(w, PMPI_Win_complete(w->win), 1);
    rc = PMPI_Win_complete(w->win);
    if (rc == MPI_SUCCESS) {
        w->started = 0;
        memset(w->access, 0, (size_t)w->size);
    }
    return rc;
}

int csp_rma_wait(struct csp_rma_win *w) { return PMPI_Win_wait(w->win); }

int csp_rma_test(struct csp_rma_win *w, int *flag) { return PMPI_Win_test(w->win, flag); }
