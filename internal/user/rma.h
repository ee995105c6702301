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
 */
#ifndef CASPERII_RMA_H
#define CASPERII_RMA_H

#include <mpi.h>
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
 * read and written only with atomics on gwin. An MPI_Win_allocate window
 * keeps it in front of the member's memory, in the same heap block; the
 * parts of an MPI_Win_allocate_shared window are contiguous (MPICH's
 * layout, which loads and stores rely on), so there it is a heap block of
 * its own. Either way every member learns its ghost's address (glock). */
struct csp_rma_hdr {
    int64_t lock; /* the lock word */
    char pad[CSP_RMA_HDR - sizeof(int64_t)];
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

/* The async_config hint of a window's info (csp_rma_hint). */
enum { CSP_RMA_HINT_UNSET = -1, CSP_RMA_HINT_ON = 0, CSP_RMA_HINT_OFF = 1, CSP_RMA_HINT_BAD = 2 };

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
    int direct;        /* async_config=off now: every call goes to W as is */
    int released;      /* a lock word was given back without waiting: flush
                          gwin before the memory goes (rma.c: release)     */
    int pending;       /* a switch asked by MPI_Win_set_info (CSP_RMA_HINT_ON
                          or _OFF), taken at the next fence; -1: none     */
    struct csp_rma_win *next; /* hash chain                              */
};

struct csp_rma {
    int on;            /* windows may be redirected (CSP_ASYNC_MODE rma) */
    int verbose;       /* CSP_VERBOSE                                    */
    int default_off;   /* CSP_ASYNC_CONFIG=off: windows without the hint
                          start on MPICH's path                           */
    MPI_Win gwin;      /* internal dynamic window over the real world     */
    int nwins;         /* redirected windows alive                        */
    struct csp_rma_win *tab[1u << CSP_RMA_TAB_BITS]; /* by csp_rma_bucket */
    uint64_t n_ops;    /* operations redirected (CSP_STATS rma_redirected) */
    uint64_t n_wins;   /* windows redirected                             */
    uint64_t n_lock_retries;
    uint64_t n_switches; /* windows switched by MPI_Win_set_info          */
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
 * unless a member cannot (no heap block for its header, a bad
 * async_config; CSP_VERBOSE=1 says so), then win stays as it is. */
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

/* The async_config hint of info (CSP_RMA_HINT_*), and symmetric=true. */
int csp_rma_hint(MPI_Info info, int *symmetric);
/* MPI_Win_set_info: a change of async_config takes effect at the next
 * fence (at once with symmetric=true); MPI_Win_get_info reports it (on a
 * shared window only once the application gave the key: MPICH's info
 * of a shared window is otherwise reported as is). */
int csp_rma_set_info(struct csp_rma_win *w, MPI_Info info);
int csp_rma_get_info(struct csp_rma_win *w, MPI_Info *info);

/* The target of an operation: checks the rank, the epoch and that
 * count elements of dt at disp fit in the target's window, then gives the
 * ghost's rank and displacement on gwin. Returns MPI_SUCCESS, 1 for
 * MPI_PROC_NULL (nothing to do), or an error already raised on W. */
int csp_rma_target_of(struct csp_rma_win *w, const char *fn, int rank, MPI_Aint disp,
                      MPI_Count count, MPI_Datatype dt, int *ghost, MPI_Aint *gdisp);
/* A second target datatype of the same operation (the result of a
 * get-accumulate is at the origin: none). Raise rc (from PMPI on gwin) on W. */
int csp_rma_raise_rc(struct csp_rma_win *w, const char *fn, int rc);

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
