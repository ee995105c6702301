/*
 * rma.h: one-sided communication through the ghosts (Casper's redirection).
 *
 * Windows of MPI_Win_allocate and of MPI_Win_allocate_shared are
 * redirected: their memory is memory the user's ghost maps (a block of the
 * user's shared heap for MPI_Win_allocate; for a shared window the memory
 * section 9 of docs/design.md registers, a memfd under MPICH's segment or
 * a stand-in's heap block), and every RMA operation to target rank r goes
 * to r's ghost, on one internal dynamic window (csp_rma.gwin) that spans
 * the real world, users and ghosts, created at MPI_Init. The ghost
 * attaches each heap segment that holds window memory (CSP_OP_WIN_ATTACH)
 * and tells the user its own address of it, which every member of the
 * window learns at creation. An operation at target displacement d of
 * rank r becomes one at gbase(r) + d * disp_unit(r) on r's ghost, so the
 * ghost's MPI progress completes it while r computes.
 *
 * Every user holds a shared lock (MPI_MODE_NOCHECK) on each ghost it has
 * sent an operation to, from the first one to MPI_Finalize, so one
 * origin's operations are always in an epoch there (rma.c: gate); the
 * application's epochs live on its own window W, which also keeps the
 * group, attributes, info and error handlers MPI gives it: an
 * MPI_Win_create over the same memory and communicator for
 * MPI_Win_allocate, the registered window itself (MPICH's, or the
 * stand-in) for MPI_Win_allocate_shared, so loads, stores and
 * MPI_Win_shared_query stay MPICH's:
 *
 *   fence, post/start/complete/wait/test: W's own calls, after the
 *     origin's operations to the affected targets are flushed on gwin;
 *   lock/unlock, lock_all/unlock_all: W's calls with MPI_MODE_NOCHECK (no
 *     message, but MPICH checks the epoch rules), while the lock itself
 *     is a word in the target's header (struct csp_rma_hdr) taken with
 *     atomics on gwin, which the target's ghost serves (rma.c: lockword);
 *   flush*, sync: gwin's, to the target's ghost.
 *
 * Operations on one window to one target all go to the same ghost (the
 * one serving that user), so MPI's ordering and atomicity of accumulates
 * hold with several ghosts per node.
 *
 * A window is redirected or direct (every call to W as is) as a whole,
 * and only changes between the same two epochs of every member: at a
 * fence, or at MPI_Win_set_info(symmetric=true) or (auto, rmaauto.c) a
 * collective on its communicator where no member has an epoch open
 * (checked in one Allreduce). The application asks for it
 * (async_config=on|off), or the members choose from their self-profile
 * (async_config=auto, rmaauto.c). epoch_type (Casper's epochs_used,
 * rmahint.c) restricts the epoch kinds; it changes at the same points, so
 * while any member has an epoch open the set is fixed, which is what lets
 * lock_all skip the lock words on a window without lock.
 */
#ifndef CASPERII_RMA_H
#define CASPERII_RMA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "user.h" /* CSP_LOCK */

/* log2 of the buckets of the redirected windows' table. */
#define CSP_RMA_TAB_BITS 6
/* Bytes of a member's header (struct csp_rma_hdr). */
#define CSP_RMA_HDR 64
/* The lock word: number of shared holders, plus CSP_RMA_WRITER while an
 * exclusive holder has it (negative then). */
#define CSP_RMA_WRITER (-((int64_t)1 << 40))

/* Each member's header: memory its ghost serves on gwin, zero at creation,
 * read and written only with atomics on gwin (on a node-local window,
 * only with the CPU's atomics, by the origins themselves: rmalocal.c). An MPI_Win_allocate window
 * keeps it in front of the member's memory, in the same heap block; the
 * parts of an MPI_Win_allocate_shared window are contiguous (MPICH's
 * layout, which loads and stores rely on), so there it is a heap block of
 * its own. Either way every member learns its ghost's address (glock). */
struct csp_rma_hdr {
    int64_t lock;  /* the lock word */
    int64_t mutex; /* node-local windows (rmalocal.c): 0, or the world rank
                      + 1 of the origin applying an atomic operation to
                      the member's memory (CPU atomics, never on gwin)  */
    char pad[CSP_RMA_HDR - 2 * sizeof(int64_t)];
};
_Static_assert(sizeof(struct csp_rma_hdr) == CSP_RMA_HDR, "the header is CSP_RMA_HDR bytes");

/* One member of a redirected window, as every member sees it. */
struct csp_rma_target {
    int64_t ghost;     /* world rank of the ghost serving the member      */
    int64_t gbase;     /* that ghost's address of the member's memory      */
    int64_t size;      /* bytes of the member's window                    */
    int64_t disp_unit; /* the member's displacement unit                 */
    int64_t glock;     /* that ghost's address of the member's header     */
};

/* Where an origin of a node-local window reaches one member (rmalocal.c):
 * the member's heap segment mapped here, and a dynamic window on
 * MPI_COMM_SELF with it attached, through which MPICH applies the
 * operations (every datatype and op as MPICH does them), completed
 * before the call returns. */
struct csp_rma_lseg;
struct csp_rma_lmem {
    MPI_Win win;              /* the self window over the mapped segment   */
    MPI_Aint disp;            /* the member's memory there (an address)     */
    struct csp_rma_hdr *hdr;  /* the member's header, mapped here          */
    struct csp_rma_lseg *seg; /* the header's mapping (rmalocal.c)         */
    struct csp_rma_lseg *mseg;/* the memory's (the same for MPI_Win_allocate;
                                 NULL for a member of no bytes)            */
};

/* The async_config hint of a window's info (csp_rma_hints). */
enum {
    CSP_RMA_HINT_UNSET = -1,
    CSP_RMA_HINT_ON = 0,
    CSP_RMA_HINT_OFF = 1,
    CSP_RMA_HINT_AUTO = 2
};

/* The epoch kinds a window may use (epoch_type, Casper's epochs_used;
 * Casper's bits). A window uses only those its hint names: MPI_Win_lock
 * needs lock; MPI_Win_lock_all lockall or lock; MPI_Win_fence fence;
 * MPI_Win_post and MPI_Win_start pscw (any other is MPI_ERR_RMA_SYNC with
 * one line naming the hint, where Casper aborts). Without lock no process
 * ever takes an exclusive lock, nor a shared one by MPI_Win_lock, so
 * MPI_Win_lock_all opens its epoch without touching the lock words (no
 * round trip); without pscw no access group is kept. */
enum {
    CSP_RMA_EP_LOCKALL = 1,
    CSP_RMA_EP_LOCK = 2,
    CSP_RMA_EP_PSCW = 4,
    CSP_RMA_EP_FENCE = 8,
    CSP_RMA_EP_ALL = 15
};

/* A window's CasperII hints, read from an info (rmahint.c). */
struct csp_rma_hints {
    int config;    /* async_config: CSP_RMA_HINT_UNSET, _ON, _OFF or _AUTO */
    int epochs;    /* epoch_type (or epochs_used): CSP_RMA_EP_* bits, 0 unset */
    int symmetric; /* symmetric=true                                      */
};

/* A reading of the process's self-profile (user.h: prof.c) for the
 * automatic choice of windows (rmaauto.c). */
struct csp_rma_prof {
    uint64_t t;    /* when, in ticks of csp_prof_now (never 0 once read)  */
    uint64_t in_t; /* ticks inside MPI calls that wait: point-to-point,
                      collectives, RMA synchronization                    */
    uint64_t calls; /* such calls                                         */
};

/* What this origin holds on one target (csp_rma_win.held). */
enum { CSP_RMA_NONE = 0, CSP_RMA_SHARED = 1, CSP_RMA_EXCL = 2, CSP_RMA_NOCHECK = 3 };

struct csp_rma_win {
    MPI_Win win;       /* the application's handle, W                    */
    int size, rank;    /* of the window's group                          */
    void *block;       /* heap block: header, then the memory (shared: the
                          header alone)                                  */
    int shared;        /* of MPI_Win_allocate_shared: W and the memory are
                          the registered window's (interpose/window.go)   */
    int hinted;        /* the application gave async_config (at creation or
                          with MPI_Win_set_info)                          */
    struct csp_rma_target *t; /* [size]                                  */
    uint8_t *held;     /* [size] lock held on each target (CSP_RMA_*)     */
    uint8_t *access;   /* [size] in the group of the open MPI_Win_start   */
    int nheld;         /* targets with held != NONE                       */
    int lock_all;      /* CSP_RMA_NONE, _SHARED or _NOCHECK               */
    int fence;         /* a fence opened an epoch                        */
    int started;       /* MPI_Win_start's epoch is open                  */
    int dopen;         /* access epochs of this origin open on MPICH's path
                          (direct: MPI_Win_lock, start), which the fields
                          above do not track: no switch while one is
                          (rmaauto.c: blocking)                           */
    int dlock_all;     /* direct: MPI_Win_lock_all's assert + 1 while its
                          epoch is open on MPICH's path, else 0: carried
                          across a switch (csp_rma_lockall_carry)         */
    int lockall_assert;/* redirected: the assert lock_all was given      */
    int direct;        /* async_config=off now: every call goes to W as is */
    int local;         /* node-local: every member shares this node, and the
                          origins apply the operations and take the locks
                          in shared memory themselves (rmalocal.c); set at
                          creation by every member alike, never changed  */
    struct csp_rma_lmem *lm; /* [size] where each member is, when local   */
    int released;      /* a lock word was given back without waiting: flush
                          gwin before the memory goes (rma.c: release)     */
    int watched;       /* the ghost watches the lock word (csp_rma_watch) */
    int pending;       /* a switch asked by MPI_Win_set_info (CSP_RMA_HINT_ON,
                          _OFF or _AUTO), taken at the next fence; -1: none */
    int epochs;        /* CSP_RMA_EP_* the window may use (epoch_type)    */
    int pend_epochs;   /* epoch_type asked by MPI_Win_set_info, taken with
                          pending (the same points); 0: none               */
    /* async_config=auto (rmaauto.c): every member's choice is the same,
     * made at the window-wide safe points only (allocation, fences on a
     * cadence every member counts alike, MPI_Win_set_info with
     * symmetric=true, until the first fence the collectives on its
     * communicator on the same cadence), from the members' profiles, in
     * one Allreduce. */
    int auto_;         /* the runtime chooses direct                      */
    MPI_Comm acomm;    /* the members' private communicator, made when
                          first needed (auto, symmetric=true); or NULL    */
    uint64_t *acc;     /* [size] operations this origin issued to each
                          member since the last agreement (auto)          */
    uint32_t nfence;   /* MPI_Win_fence calls on the window              */
    uint32_t next_eval;/* the fence of the next agreement (auto)          */
    uint32_t gap;      /* fences (or collectives) between agreements now
                          (auto), before the cost's floor
                          (csp_rma_agree_gap)                             */
    uint32_t agreed_fence, agreed_coll; /* nfence and ncoll at the last
                          agreement (auto)                                */
    uint32_t floor_said; /* the gap CSP_VERBOSE=2 last said the cost set  */
    uint8_t acomm_used; /* an agreement's reduction ran on acomm         */
    uint64_t agreed_t; /* csp_prof_now at the last agreement (auto)       */
    /* A window agrees at the blocking collectives on the communicator
     * it was made on too, until its first fence, when it is auto or a
     * change MPI_Win_set_info asked waits (rmaauto.c: csp_rma_coll). */
    MPI_Comm ucomm;    /* that communicator (mapped: the users' world for
                          MPI_COMM_WORLD) while the window is on the list
                          below, else MPI_COMM_NULL                       */
    uint32_t ncoll;    /* blocking collectives on ucomm since listed      */
    uint32_t next_coll;/* the collective of the next agreement            */
    uint8_t coll_due;  /* csp_rma_coll: agrees at this collective        */
    uint8_t coll_auto; /* csp_rma_coll: its part had the choice's fields  */
    uint8_t on_votes;  /* agreements in a row at collectives that chose the
                          ghosts while direct (rmaauto.c)                 */
    /* What each path costs the origins (rmaauto.c: csp_rma_auto_regret). */
    uint64_t psync_t;  /* ticks this origin spent in w's passive-target
                          synchronization since the last agreement (auto) */
    double cost[2];    /* microseconds the origins waited there per
                          operation over the last agreement's period on
                          each path: [0] redirected, [1] direct; 0 unknown */
    uint32_t hold;     /* agreements left in which the share of time in MPI
                          may not take w off the ghosts (after a regret)  */
    uint32_t hold_len; /* the next regret's hold                         */
    struct csp_rma_win *cnext; /* that list, in the order of creation    */
    struct csp_rma_prof snap; /* the profile at the last agreement (auto) */
    struct csp_rma_win *next; /* hash chain                              */
};

/* Agreements' reductions remembered for their cost, and how many it
 * takes to know it (rmaauto.c: agree_cost). */
#define CSP_RMA_AGREE_RECENT 4
#define CSP_RMA_AGREE_KNOWN 3

struct csp_rma {
    int on;            /* windows may be redirected (CSP_ASYNC_MODE rma) */
    int verbose;       /* CSP_VERBOSE                                    */
    int default_off;   /* CSP_ASYNC_CONFIG=off: windows without the hint
                          start on MPICH's path                           */
    MPI_Win gwin;      /* internal dynamic window over the real world     */
    int nwins;         /* redirected windows alive                        */
    struct csp_rma_win *tab[1u << CSP_RMA_TAB_BITS]; /* by csp_rma_bucket */
    int local_off;     /* CSP_RMA_LOCAL=0: node-local windows go through
                          the ghosts too                                  */
    uint64_t n_ops;    /* operations redirected (CSP_STATS rma_redirected) */
    uint64_t n_local_ops; /* operations applied in shared memory (rma_local) */
    uint64_t n_local_packed; /* of them, accumulates with derived types
                                applied by packing (rma_local_packed)   */
    uint64_t n_wins;   /* windows redirected                             */
    uint64_t n_lock_retries;
    uint64_t n_switches; /* windows switched (MPI_Win_set_info, auto)     */
    uint64_t n_lockword_ops; /* atomics this origin issued on lock words  */
    uint64_t n_rings;  /* parked own ghost rung before waiting for it (rma.c) */
    uint64_t n_agreements;   /* agreements of auto windows (rmaauto.c)    */
    uint64_t n_regrets;      /* of them, taking a window back to the ghosts
                                because the direct path measured slower   */
    uint64_t agree_t;  /* ticks this process spent in the agreements'
                          reductions (CSP_STATS rma_agree_us)             */
    uint64_t agree_recent[CSP_RMA_AGREE_RECENT]; /* ticks the last ones
                          took, oldest overwritten (0: none yet)          */
    unsigned agree_next; /* the entry the next one takes                  */
    /* The automatic choice (rmaauto.c; thresholds from internal/core). */
    int default_auto;  /* CSP_ASYNC_CONFIG=auto: windows without the hint
                          choose themselves                               */
    double cr_low;     /* switch on below this share of time in MPI       */
    double cr_high;    /* switch off above it                            */
    double min_stretch_us; /* a target entering MPI at least this often
                          counts as in MPI                                */
    struct csp_rma_prof hist; /* the profile at the last allocation that
                          decided (rmaauto.c)                             */
    int last_choice;   /* what it chose: 0 none yet, CSP_RMA_CHOSE_ON or
                          CSP_RMA_CHOSE_OFF                               */
    struct csp_rma_win *coll; /* the auto windows that agree at collectives
                          (csp_u.nrma_coll of them), oldest first         */
    /* Registers an error code of class cls whose MPI_Error_string is msg
     * (the interposer's; NULL: the bare class). */
    int (*errcode)(int cls, const char *msg);
};

extern struct csp_rma csp_rma;

/* The redirected windows' hash table bucket of handle w. */
static inline unsigned csp_rma_bucket(MPI_Win w)
{
    return ((uint32_t)w * 0x9e3779b1u) >> (32 - CSP_RMA_TAB_BITS);
}

/* Start (MPI_Init, after gwin was created over the real world) and finish
 * (MPI_Finalize, after the ghost was told: collective with the ghosts). */
int csp_rma_start(MPI_Win gwin);
int csp_rma_finish(void);

/* The redirected window of handle w, or NULL. One load while there is
 * none. Under MPI_THREAD_MULTIPLE the table is read under csp_u.lock
 * (other threads may make or free other windows meanwhile). */
static inline struct csp_rma_win *csp_rma_find(MPI_Win w)
{
    if (__builtin_expect(csp_rma.nwins == 0, 1))
        return 0;
    CSP_LOCK();
    struct csp_rma_win *x = csp_rma.tab[csp_rma_bucket(w)];
    while (x && x->win != w)
        x = x->next;
    CSP_UNLOCK();
    return x;
}

/* MPI_Win_allocate: *done = 0 when the window is not redirected (the
 * caller makes it with MPICH; nothing happened, no collective call was
 * made unless the members agreed not to redirect). */
int csp_rma_allocate(MPI_Aint size, MPI_Aint disp_unit, int large, MPI_Info info, MPI_Comm comm,
                     void *baseptr, MPI_Win *win, int *done);
/* MPI_Win_free of a window of MPI_Win_allocate: csp_rma_unlist, W freed,
 * csp_rma_freed. */
int csp_rma_free(struct csp_rma_win *w, MPI_Win *win);

/* MPI_Win_allocate_shared, after the window win was registered (its
 * memory is the ghost's to map: base, size bytes at this process; or it
 * has no memory anywhere): collective over comm, it makes win redirected
 * unless a member cannot (no heap block for its header: CSP_VERBOSE=1
 * says so; a bad hint: returned, for the caller to raise on win), then
 * win stays as it is. */
int csp_rma_share(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                  MPI_Win win);
/* A window's record leaves the table before W is freed (under
 * MPI_THREAD_MULTIPLE a window made meanwhile may get W's handle), once the
 * lock words this origin gave back without waiting are complete (an error
 * there is raised on W, and the window stays listed), and afterwards is
 * released (ok: the header goes back to the heap; a shared
 * window's memory is the registration's to release) or put back (the free
 * failed: it is still a window). */
int csp_rma_unlist(struct csp_rma_win *w);
void csp_rma_freed(struct csp_rma_win *w, int ok);

/* All the window hints of info: MPI_SUCCESS, or MPI_ERR_INFO_VALUE with
 * the one-line reason in why (rmahint.c). */
int csp_rma_hints(MPI_Info info, struct csp_rma_hints *h, char *why, size_t n);
/* epochs (CSP_RMA_EP_*) as epoch_type spells them, "lockall|lock|...";
 * the length written. */
int csp_rma_epochs_string(int epochs, char *s, size_t n);

/* Whether an operation of w to rank goes to MPICH as is (the generated
 * operations, zz_wrappers.c); on an auto window it is counted for the
 * members' agreement (rmaauto.c). */
static inline int csp_rma_direct(struct csp_rma_win *w, int rank)
{
    if (__builtin_expect(w->auto_, 0) && (unsigned)rank < (unsigned)w->size)
        __atomic_fetch_add(&w->acc[rank], 1, __ATOMIC_RELAXED);
    return w->direct;
}

/* ---- the automatic choice (rmaauto.c) ---- */

/* After a passive-target synchronization call of w begun at t0
 * (csp_prof_begin): its time counts toward the cost of w's path. */
static inline void csp_rma_psync_end(struct csp_rma_win *w, uint64_t t0)
{
    if (t0 && w && w->auto_)
        __atomic_fetch_add(&w->psync_t, csp_prof_now() - t0, __ATOMIC_RELAXED);
}

/* The process's profile now; the profile starts the first time. */
void csp_rma_prof_read(struct csp_rma_prof *p);
/* Make w auto (collective over the window's members: it may make their
 * communicator, a duplicate of comm or, given MPI_COMM_NULL, one of the
 * window's group). */
int csp_rma_auto_start(struct csp_rma_win *w, MPI_Comm comm);
/* Make the members' communicator, if not yet (collective). */
int csp_rma_comm(struct csp_rma_win *w, MPI_Comm comm);
/* The safe points where the members agree (csp_rma_agree). */
enum csp_rma_point {
    CSP_RMA_AT_FENCE,     /* MPI_Win_fence: no epoch can be open        */
    CSP_RMA_AT_SYMMETRIC, /* MPI_Win_set_info with symmetric=true       */
    CSP_RMA_AT_COLL,      /* a blocking collective on the window's
                             communicator (csp_rma_coll)                 */
};
/* The members' agreement at a safe point (collective): at a collective or
 * a symmetric MPI_Win_set_info, whether every member is quiet (no epoch
 * open), and there the pending change of MPI_Win_set_info taken if so;
 * on an auto window, whether it should be direct, taken where every
 * member is quiet. where names the call for CSP_VERBOSE. */
int csp_rma_agree(struct csp_rma_win *w, enum csp_rma_point at, const char *where);
/* A blocking collective on comm begins (interpose.h: csp_ip_coll, while
 * csp_u.nrma_coll is set): the auto windows made on comm agree there when
 * due. Collective over comm. An error was raised on its window. */
int csp_rma_coll(MPI_Comm comm);
/* comm is being freed: no window agrees at its collectives any more (its
 * handle may come back as another communicator's). */
void csp_rma_comm_forget(MPI_Comm comm);
/* w, made on comm, joins the list of the windows that agree at comm's
 * collectives, at its end: the order of creation, the same at every
 * member for the windows of one communicator, so the members' agreements
 * come in the same order. Not under MPI_THREAD_MULTIPLE. */
void csp_rma_coll_list(struct csp_rma_win *w, MPI_Comm comm);
/* After w was switched (its direct flipped) while this origin holds
 * MPI_Win_lock_all: the epoch goes on on the new path (W's own lock_all
 * and the lock words retaken as that path takes them). Every origin
 * completed its operations of the old path before (rmaauto.c). */
int csp_rma_lockall_carry(struct csp_rma_win *w);
/* w leaves that list (freed; or its communicator freed). */
void csp_rma_coll_unlist(struct csp_rma_win *w);
/* The automatic choice from the members' sums v (csp_rma_agree's layout):
 * 1 direct, 0 redirected, -1 no evidence (keep); the access-weighted
 * share of the targets' time in MPI in *cr. Pure: every member decides
 * alike. */
int csp_rma_auto_choose(int n, const int64_t *v, int direct, double low, double high, double min_stretch_us,
                        double *cr);
/* The origins' wait per operation in v (csp_rma_agree's layout: the sum of
 * their passive-target synchronization microseconds after the operation
 * counts) over the operations; 0 when there were none. Pure. */
double csp_rma_auto_cost(int n, const int64_t *v);
/* The safe points (collectives or fences) to the next agreement of an
 * auto window of n members, one of k that agree at the same safe points
 * each on its own cadence: gap, or more where the k windows' agreements
 * cost at least CSP_RMA_AGREE_DEAR_US each and would otherwise take over
 * 1/CSP_RMA_AGREE_SHARE of the members' time, at most CSP_RMA_GAP_CAP.
 * since: the safe points since the window's last one; tail: the members'
 * sums of the microseconds since it and of what an agreement costs them
 * (rmaauto.c: agree_fill). Pure. */
int csp_rma_agree_gap(int n, int k, uint32_t gap, uint32_t since, const int64_t *tail);
/* What the measured costs of the two paths (cost[0] redirected, cost[1]
 * direct, 0 unknown) make of the share's choice d (csp_rma_auto_choose)
 * on a window now direct or not, held (after a regret) or not: the
 * choice, and in *regret whether it takes a direct window back to the
 * ghosts because that path measured slower. Pure. */
int csp_rma_auto_regret(int d, int direct, const double cost[2], int held, int *regret);
/* At MPI_Win_allocate: this member's profile fields for the Allgather
 * (CSP_RMA_PROF_N: wall, in-MPI microseconds and calls since the last
 * allocation that decided, and what that one chose), *now the reading
 * they end at; then the auto window's start chosen from every member's
 * (prof[stride * i]), its communicator a duplicate of comm (collective). */
enum { CSP_RMA_CHOSE_ON = 1, CSP_RMA_CHOSE_OFF = 2, CSP_RMA_PROF_N = 4 };
void csp_rma_alloc_profile(int64_t out[CSP_RMA_PROF_N], struct csp_rma_prof *now);
int csp_rma_alloc_choose(struct csp_rma_win *w, MPI_Comm comm, const int64_t *prof, int stride,
                         const struct csp_rma_prof *now);
/* w chooses itself from now on (async_config=auto taken; its state made
 * by csp_rma_auto_start). */
void csp_rma_auto_begin(struct csp_rma_win *w);
/* The ghost watches w's lock word exactly while w is redirected: it polls
 * MPI for windows only while it watches one (internal/ghost/rmaserve.go).
 * Called after every change of w->direct. */
void csp_rma_watch(struct csp_rma_win *w);
/* Complete this origin's operations at every ghost (rma.c). */
int csp_rma_flush_ghosts(void);
/* Take the change MPI_Win_set_info asked for (a safe point). */
void csp_rma_take_pending(struct csp_rma_win *w, const char *where);
/* Raise cls on W with the one-line msg: under a fatal handler the line is
 * printed; under one that returns, the code's MPI_Error_string is msg. */
int csp_rma_raise_msg(struct csp_rma_win *w, int cls, const char *msg);
/* MPI_Win_set_info: a change of async_config takes effect at the next
 * fence (at once with symmetric=true); MPI_Win_get_info reports it (on a
 * shared window only once the application gave the key: MPICH's info
 * of a shared window is otherwise reported as is). */
int csp_rma_set_info(struct csp_rma_win *w, MPI_Info info);
int csp_rma_get_info(struct csp_rma_win *w, MPI_Info *info);

/* The target of an operation: checks the rank, the epoch and that
 * count elements of dt at disp fit in the target's window, then gives the
 * window the operation goes to (*gw), the target's rank there and the
 * displacement: gwin, the ghost's rank and address; on a node-local
 * window the member's self window, 0 and the address here.
 * Returns MPI_SUCCESS, 1 for MPI_PROC_NULL (nothing to do), or an error
 * already raised on W. */
int csp_rma_target_of(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint disp,
                      MPI_Count count, MPI_Datatype dt, int *ghost, MPI_Aint *gdisp, MPI_Win *gw);


/* A second target datatype of the same operation (the result of a
 * get-accumulate is at the origin: none). Raise rc (from PMPI on gwin) on W. */
int csp_rma_raise_rc(struct csp_rma_win *w, const char *fn, int rc);

/* ---- node-local windows (rmalocal.c) ----
 *
 * A window whose members all share one node (they have the same node's
 * ghosts: one host, or one virtual node) needs no ghost: every member's
 * memory is in a heap segment the others can map (/proc/<pid>/fd, as the
 * ghost maps it), so an origin applies its operations itself, at once,
 * and a target that computes never delays it, as MPICH's shared-memory
 * path does for loads and stores (but MPICH's locks and accumulates wait
 * for the target's progress). Put and get through a window over the
 * mapped segment on MPI_COMM_SELF; accumulates, get-accumulates,
 * fetch-and-op and compare-and-swap the same way under the member's
 * mutex (struct csp_rma_hdr), so they are atomic per element against
 * every other origin; locks with the CPU's atomics on the member's lock
 * word. Every operation is complete when its call returns, so flushes and
 * fences have nothing of it to wait for. All members of a window take
 * this path or none: an origin on another node could only reach the
 * memory through a ghost, whose atomics MPICH applies with plain loads
 * and stores. The same holds for a shared window (MPI_Win_allocate_shared):
 * its header is a heap block, its memory the registered memory (a memfd
 * under MPICH's segment, or a stand-in's heap block), each a heap segment
 * of the member that the others map; a member of no bytes has nothing to
 * map. A shared window's memory mappings go when the window does.
 *
 * At creation, after the members' Allgather (every member with the
 * same votes): whether w may be node-local (all on this node, not
 * disabled), then each member's segments mapped and the members agreed
 * (one Allreduce over comm). */
enum { CSP_RMA_SEG_PID, CSP_RMA_SEG_FD, CSP_RMA_SEG_IDX, CSP_RMA_SEG_GEN, CSP_RMA_SEG_SIZE, CSP_RMA_SEG_OFF,
       CSP_RMA_SEG_N };
/* This member's fields for n bytes at p in its heap (n 0: all zero, pid
 * 0, nothing to map); 0 if they are not in its heap. */
int csp_rma_local_mine(const void *p, size_t n, int64_t out[CSP_RMA_SEG_N]);
/* hdr[i*stride...] and mem[i*stride...]: member i's header and memory. */
int csp_rma_local_setup(struct csp_rma_win *w, MPI_Comm comm, const int64_t *hdr, const int64_t *mem,
                        int stride);
/* Drop w's references to the mappings (at free). */
void csp_rma_local_free(struct csp_rma_win *w);
/* Release every mapping and self window (MPI_Finalize). */
void csp_rma_local_finish(void);

/* Around an operation on a node-local window's self window gw: enter
 * takes the target's mutex for an atomic one; leave completes the
 * operation on gw (if rc is MPI_SUCCESS), gives the mutex back and
 * raises an error on W. On gwin both are nothing. */
void csp_rma_local_lock(struct csp_rma_win *w, int rank);
int csp_rma_local_done(struct csp_rma_win *w, const char *fn, int rank, int atomic, int rc);
/* The accumulates on a node-local window where MPICH's call is not
 * needed: a predefined op, and types of one basic type, the same on every
 * side (the result's too) with as many elements: predefined, or derived
 * from it (packed and unpacked around the reduction). Applied here under
 * the target's mutex with MPI_Reduce_local (*done set), or left to the
 * caller (*done 0): what
 * MPICH's path on the self window costs an 8-byte accumulate, about 25
 * us cold, and a 1 MiB one, 2.7 ms, is mostly its active-message
 * machinery for a target that is itself. addr is the target's address
 * here (csp_rma_target_of's displacement). result NULL: MPI_Accumulate. */
int csp_rma_local_acc(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint addr, const void *origin,
                      int ocount, MPI_Datatype otype, void *result, int rcount, MPI_Datatype rtype, int tcount,
                      MPI_Datatype ttype, MPI_Op op, int *done);
/* MPI_Compare_and_swap of an integer or byte type, the same way. */
int csp_rma_local_cas(struct csp_rma_win *w, int rank, MPI_Aint addr, const void *origin, const void *compare,
                      void *result, MPI_Datatype dt, int *done);
static inline void csp_rma_local_enter(struct csp_rma_win *w, int rank, int atomic, MPI_Win gw)
{
    if (atomic && gw != csp_rma.gwin)
        csp_rma_local_lock(w, rank);
}
static inline int csp_rma_local_leave(struct csp_rma_win *w, const char *fn, int rank, int atomic, MPI_Win gw,
                                      int rc)
{
    if (gw == csp_rma.gwin)
        return csp_rma_raise_rc(w, fn, rc);
    return csp_rma_local_done(w, fn, rank, atomic, rc);
}

int csp_rma_lock(struct csp_rma_win *w, int type, int rank, int assert_);
int csp_rma_unlock(struct csp_rma_win *w, int rank);
int csp_rma_lock_all(struct csp_rma_win *w, int assert_);
int csp_rma_unlock_all(struct csp_rma_win *w);
int csp_rma_flush(struct csp_rma_win *w, int rank, int local);
int csp_rma_flush_all(struct csp_rma_win *w, int local);
int csp_rma_sync(struct csp_rma_win *w);
int csp_rma_fence(struct csp_rma_win *w, int assert_);
int csp_rma_post(struct csp_rma_win *w, MPI_Group g, int assert_);
int csp_rma_start_epoch(struct csp_rma_win *w, MPI_Group g, int assert_);
int csp_rma_complete(struct csp_rma_win *w);
int csp_rma_wait(struct csp_rma_win *w);
int csp_rma_test(struct csp_rma_win *w, int *flag);

#endif /* CASPERII_RMA_H */
