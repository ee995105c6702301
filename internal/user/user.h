/*
 * user.h: the user side of CasperII, the per-call fast path, as the
 * interposer (internal/interpose) and Go (this package) see it: the
 * process's state, the communicator table, and the entry points of each
 * file, in sections named after the file that defines them. What only the
 * user side's own files share has a header per file (submit.h,
 * complete.h, pump.h, block.h, control.h, post.h, persist.h, route.h,
 * dtype.h, liveness.h); none of them is included here.
 *
 * Everything an application's MPI_Isend / MPI_Irecv / MPI_Wait... touches on
 * an offloaded communicator is here, in C, because a call from C into Go
 * costs more than MPI's own post. Go (user.go, comm.go) builds the state at
 * MPI_Init and the communicator entries at communicator creation; C reads
 * them.
 *
 * Threading: the application may call MPI from several threads only under
 * MPI_THREAD_MULTIPLE; then every entry point takes csp_u.lock (see
 * CSP_LOCK). Waits drop the lock while they back off.
 */
#ifndef CASPERII_USER_H
#define CASPERII_USER_H

#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "channel.h"
#include "greq.h"
#include "heap.h"
#include "postcell.h"
#include "spsc.h"
#include "tagenc.h"

struct csp_op;  /* an offloaded operation (op.h) */
struct csp_trk; /* a tracked direct receive (route.h) */

/* Algorithms, the values of info.Algorithm. */
enum csp_algo {
    CSP_ALGO_OFF = 0,
    CSP_ALGO_TAG = 1,    /* tag encoding, native matching            */
    CSP_ALGO_DUP = 2,    /* duplication per (src, dst) offset pair    */
    CSP_ALGO_DUPSRC = 3, /* duplication per dst offset, ghost matches */
    CSP_ALGO_MATCH = 4   /* tag encoding, ghost matches               */
};

/* Backlog classes: a full class holds its posts in order without blocking
 * the other, so receives waiting for a peer never starve sends. */
enum { CSP_CLASS_SEND = 0, CSP_CLASS_RECV = 1, CSP_NCLASS = 2 };
#define CSP_CTRL_CELLS 4u /* cells kept back for cancel/segment/finalize */

/* (ghost world rank, offset) -> communicator rank, sorted by key. */
struct csp_rev {
    int64_t key;
    int32_t rank;
    int32_t pad;
};

/* One user communicator. Built by Go (comm.go), read by C. */
/* A family's count of the blocking collectives on its watched
 * communicators (internal/core/family.go): a collective calls the runtime
 * only once ncoll reaches next, when an evaluation is due. Go owns it. */
struct csp_fam {
    uint32_t ncoll, next;
};

struct csp_comm {
    MPI_Comm comm;
    int refs;         /* the table's reference + one per pending operation */
    uint8_t algo;     /* enum csp_algo                                     */
    uint8_t mode;     /* CSP_MATCH_NATIVE or CSP_MATCH_GHOST               */
    uint8_t regist;   /* shmbuf_regist hint                                */
    uint8_t pad;
    int size, rank;
    int my_off;       /* this process's offset in the communicator         */
    int K;            /* most members per ghost                             */
    int ctx;          /* tag context (tag encoding, ghost matching)        */
    int nslots;
    int32_t *slots;   /* internal communicators, as pool indices           */
    int32_t *ghost;   /* [size] serving ghost's world rank                 */
    int32_t *off;     /* [size] offset                                     */
    struct csp_rev *rev;
    int nrev;
    /* Route counters since this entry was installed (route.c states the
     * invariant a switch of route relies on). */
    int64_t sent;      /* messages sent, not to MPI_PROC_NULL             */
    int64_t matched;   /* receives completed with a message              */
    int64_t pend_recv; /* receives and blocking probes not finished yet  */
    uint8_t stuck;     /* something uncountable happened: never quiescent */
    uint8_t watch;     /* the runtime looks at collectives on it (switch.go) */
    struct csp_fam *fam; /* while watched: its family's count (switch.c) */
    struct csp_comm *next; /* the entry that replaced this one (referenced) */
    /* Profile of the automatic route choice (prof.c), while csp_u.prof:
     * messages and bytes sent since the runtime last read them. */
    uint64_t ep_msgs, ep_bytes;
};

/* Error codes registered at MPI_Init, each with its one-line explanation. */
enum csp_errmsg {
    CSP_E_TAG_BOUND = 0,
    CSP_E_TAG_NEG,
    CSP_E_RANK,
    CSP_E_COUNT,
    CSP_E_ANYSRC_NONE,
    CSP_E_ANYTAG_NONE,
    CSP_E_ANYSRC_DUP,
    CSP_E_NOMEM,
    CSP_E_OVERFLOW,
    CSP_E_GHOST_GONE,
    CSP_E_ACTIVE,
    CSP_E_BAD_REQUEST,
    CSP_E_MAX
};

struct csp_user {
    /* The first cache line: what every call on the direct route reads
     * (post.c: direct_fast; wait.c: theirs_slow; route.h), together.
     * The pump's work (csp_pump) comes first, then multiple, so that
     * csp_direct_slow tests them all with two loads. */
    uint32_t nheld;          /* posts held for lack of cells              */
    uint32_t nfreed_pending; /* freed operations not finished yet         */
    uint8_t pump_deferred;   /* freed deferred operations to poll         */
    uint8_t pump_unmap;      /* segment unmap notices to send             */
    uint8_t pad_[2];         /* zero                                      */
    int multiple;             /* MPI_THREAD_MULTIPLE: take lock             */
    /* The entry the last lookup found, or NULL: a program that talks on
     * one communicator at a time finds it with one compare. Reset
     * whenever an entry enters or leaves the table (comm.c), so it never
     * points to an entry the table no longer holds. */
    struct csp_comm *ctab_last;
    int on;                   /* this process is a user served by a ghost   */
    int lend;                 /* the ghost runs at a lowered priority on our
                                 core: lend it while waiting on MPICH with
                                 offloaded operations in flight (coop.c)  */
    int prof;                 /* the self-profile is on (prof.c, below)    */
    int prof_tsc;             /* its clock is the TSC (else nanoseconds)   */
    /* direct receives followed to their completion (route.c) */
    struct csp_trk *trk;      /* the table (route.h), NULL before the first */
    uint32_t trk_mask;        /* its capacity - 1, or 0                      */
    uint32_t trk_shift;       /* 32 - log2(capacity) (csp_trk_slot2)         */
    uint32_t ntrack;          /* tracked requests (table and overflow)     */
    uint32_t ntrack_cancel;   /* of them, cancelled by the application     */

    int fence_free;           /* the ghost's membarrier stands in for the
                                 post's fence (channel.h: membarrier)       */
    pthread_mutex_t lock;
    MPI_Comm world;           /* COMM_USER_WORLD                            */
    int wrank;                /* rank in the real MPI_COMM_WORLD            */
    int ghost_wrank;
    int node_id;              /* the world rank of this node's first process:
                                 the same for every process of the node   */
    int errcode[CSP_E_MAX];   /* registered error codes                     */

    /* channel to the ghost */
    struct csp_chan_hdr *chan;
    struct csp_cell *cells;
    uint32_t ncells;
    struct spsc_ring ring;
    struct spsc_producer prod;
    struct csp_ghost_hdr *ghost;
    struct csp_cell_pool pool;
    struct csp_op **cell_op;  /* [ncells] operation carried by each cell */
    uint32_t *gen;            /* [ncells] last generation used per cell */

    /* backpressure */
    uint32_t inflight[CSP_NCLASS];
    uint32_t cap[CSP_NCLASS];
    struct csp_op *held_head[CSP_NCLASS], *held_tail[CSP_NCLASS];

    struct csp_heap *heap;
    struct csp_tags tags;
    /* Lines the last post read (its communicator and route tables),
     * prefetched for the next post by csp_warm_posts. Never dereferenced:
     * a stale pointer costs nothing (a prefetch does not fault). */
    const void *warm[4];

    /* communicator table: open addressing on the handle */
    MPI_Comm *ctab_keys;
    struct csp_comm **ctab_vals;
    size_t ctab_mask, ctab_used;

    MPI_Comm progress_comm;   /* private communicator to poke progress on */

    /* wait policy */
    uint32_t spin_iters;      /* busy polls before yielding                */
    uint32_t yield_iters;     /* yields before sleeping                    */
    uint32_t sleep_us;        /* futex sleep timeout                       */
    int nbcoll;               /* some user of the job lends its core: every
                                 user runs blocking collectives as their
                                 nonblocking twins (zz_wrappers.c), so they
                                 still match each other                   */
    int yield_direct;         /* waits on MPICH poll and yield the core
                                 between polls, not spin in MPICH: more
                                 users than cores here (coop.c)           */

    /* direct receives followed to their completion (route.c) */
    struct csp_trk *trk_over; /* the overflow array of the table (route.c)  */
    uint32_t trk_nover, trk_over_cap;
    uint32_t nwatch;          /* entries with watch set: collectives look  */
    uint32_t ndirect_ops;     /* live records of direct persistent starts  */
    uint32_t nrma_coll;       /* auto windows that agree at collectives on
                                 their communicator: collectives look too
                                 (rmaauto.c)                              */

    /* self-profiling for the automatic route choice (prof.c): while
     * prof is set, cumulative over the process; times in ticks of the
     * profile's clock (csp_prof_now), which Go converts (route.go) */
    uint64_t prof_mpi_t;      /* inside MPI calls that wait or block       */
    uint64_t prof_sleep_t;    /* of which asleep on the wake word          */
    uint64_t prof_waits;      /* such calls                                */
    uint64_t prof_coll_t;     /* inside blocking collectives               */
    uint64_t prof_rma_t;      /* inside RMA synchronization calls          */
    uint64_t prof_calls;      /* collectives and RMA synchronization calls */
    uint64_t prof_bytes;      /* bytes sent on every communicator         */
    /* The application's time between its first post since a waiting call
     * and the next waiting call (the compute a message in flight can
     * overlap: a ping-pong's buffer writes and reads are outside it), and
     * when the open window began (0: none open). */
    uint64_t prof_win_t;
    uint64_t prof_post_t;
    /* Sampled windows (csp_prof_posted): of the windows at least
     * prof_samp_min ticks long (set by route.go; 0: none sampled), every
     * CSP_PROF_SAMPLE_EVERY-th has the thread's CPU clock read at its
     * ends: their summed length in ticks and CPU time in nanoseconds,
     * whose difference is the time the application left its core while
     * its messages were in flight. prof_post_cpu: the CPU clock when the
     * open window began, if it is sampled (0: not sampled). */
    uint64_t prof_samp_win_t;
    uint64_t prof_samp_cpu_ns;
    uint64_t prof_post_cpu;
    uint64_t prof_end_cpu; /* the CPU clock at the waiting call's entry */
    uint64_t prof_samp_min;
    uint64_t prof_last_win;  /* the last window's length in ticks        */
    uint32_t prof_samp_skip; /* long windows until the next sampled one */
    /* Light waits: after a timed waiting call and a window both shorter
     * than prof_short_t ticks (route.go sets 5 us; 0 under
     * MPI_THREAD_MULTIPLE: never), the next CSP_PROF_LIGHT_EVERY - 1
     * waiting calls are counted but not timed, and their windows are
     * opened and closed without a clock. prof_waits_timed: of prof_waits,
     * those timed; the readers scale the times by the ratio
     * (csp_prof_scale). */
    uint64_t prof_waits_timed;
    uint64_t prof_short_t;
    uint32_t prof_light; /* light waiting calls left before a timed one; 0 at collectives */
    int prof_win_polled; /* the open window was reopened by a poll      */
    uint64_t prof_tick0, prof_ns0; /* the clocks read together at MPI_Init  */

    /* Windows of this process whose lock word its ghost watches
     * (rma.c: csp_rma_watch). While there are any, every wait goes
     * through coop.c, which sets the in-MPI word (channel.h) so the
     * ghost polls those windows often while this user computes nothing. */
    uint32_t nwatched;
    /* Windows of this process alive, of every flavor made through the
     * interposer (internal/interpose: creation and MPI_Win_free). More
     * than nwatched: MPICH serves RMA on some of them (MPI_Win_create,
     * dynamic, not redirected or turned direct), which progresses only
     * when this process calls MPI, so a blocked wait must not sleep long
     * (block.c). */
    uint32_t nwins_live;
    /* Receives on direct routes posted and not finished (route.h, under
     * the lock; uncounted under MPI_THREAD_MULTIPLE). A message's
     * rendezvous progresses only in this process's MPI calls, so a
     * blocked wait must not sleep long while there are any (block.c). */
    uint32_t ndirect_recv;

    /* The probe of a polling MPI_Iprobe still with the ghost, or its
     * answer not yet taken (pprobe.c states the invariant). */
    struct csp_pprobe {
        struct csp_op *op; /* NULL: none                                      */
        struct csp_comm *entry; /* the entry it was posted on (no reference) */
        int src, tag;
        int stale; /* a receive was posted on entry since: the answer may
                      name a message that is no longer there              */
        uint64_t t0; /* CLOCK_MONOTONIC ns when left (where csp_u.lend)   */
    } pprobe;

    /* statistics (CSP_STATS) */
    uint64_t n_isend, n_irecv, n_direct, n_bounce, n_held, n_yields, n_sleeps, n_probe, n_lends;
    uint64_t n_yields_direct; /* yields of a wait on MPICH (coop.c: yield_until) */
    uint64_t n_setinfo_c;     /* MPI_Comm_set_info taken without MPICH's call (interpose/comm.c) */
    uint64_t n_probe_polled; /* MPI_Iprobe calls answered without waiting for the ghost */
};

_Static_assert(__builtin_offsetof(struct csp_user, pump_deferred) == 8 &&
                   __builtin_offsetof(struct csp_user, multiple) == 12 &&
                   __builtin_offsetof(struct csp_user, ntrack_cancel) == 60,
               "struct csp_user: the direct route's line");

/* ---- the process's state (state.c) ----
 * Hidden: nothing outside the library refers to it, so the compiler
 * addresses it relative to the code, not through the GOT, and needs no
 * register for its address (the direct route's leaf functions then keep
 * no stack frame). */
extern struct csp_user csp_u __attribute__((visibility("hidden")));

/* Is anything but the direct route's common case to be done (the pump's
 * work, or several threads)? Two loads: the first 16 bytes of csp_u. */
static inline int csp_direct_slow(void)
{
    uint64_t w0, w1;
    __builtin_memcpy(&w0, &csp_u.nheld, 8);
    __builtin_memcpy(&w1, &csp_u.pump_deferred, 8);
    return (w0 | w1) != 0;
}

#define CSP_LOCK()                                                                                 \
    do {                                                                                           \
        if (csp_u.multiple)                                                                        \
            pthread_mutex_lock(&csp_u.lock);                                                       \
    } while (0)
#define CSP_UNLOCK()                                                                               \
    do {                                                                                           \
        if (csp_u.multiple)                                                                        \
            pthread_mutex_unlock(&csp_u.lock);                                                     \
    } while (0)

/* Set up at MPI_Init (user.go): the lock, the
 * submission ring in mem (len bytes), and whether posts may skip their
 * fence (channel.h: membarrier). */
void csp_user_init_globals(void);
int csp_user_attach_ring(void *mem, size_t len);
void csp_user_setup_fence(void);
/* Start registering for global membarriers on a thread of its own, so
 * that the registration's grace period overlaps MPICH's initialization
 * (called before PMPI_Init by the runtime's Init; state.c). */
void csp_fence_register_start(void);
/* Give the MPI progress engine a turn (ordinary requests keep moving). */
void csp_poke_progress(void);
/* Lend the core to this process's ghost, where it shares it (csp_u.lend),
 * until the ghost's next round with nothing to do: before a flush of RMA
 * operations the ghost serves, which MPICH waits for spinning (coop.c). */
void csp_coop_lend_rma(void);

/* ---- communicator table (comm.c) ---- */
int csp_comm_put(struct csp_comm *c);          /* 0 or -1 */
struct csp_comm *csp_comm_take(MPI_Comm comm); /* remove from table; caller drops ref */
/* Drop a reference to c: the last one frees it (csp_comm_destroy). */
void csp_comm_destroy(struct csp_comm *c);
static inline void csp_comm_unref(struct csp_comm *c)
{
    if (__builtin_expect(--c->refs <= 0, 0))
        csp_comm_destroy(c);
}
int csp_comm_rank_of(const struct csp_comm *c, int ghost, int off); /* rank or -1 */
/* The same under the lock (MPI_THREAD_MULTIPLE), for Go (comm.go):
 * remove comm's entry, drop a reference, read an entry's references. */
struct csp_comm *csp_comm_detach(MPI_Comm comm);
void csp_comm_release(struct csp_comm *c);
int csp_comm_refs(MPI_Comm comm);
/* Install a copy of an entry Go built and kept (a switch back to its plan). */
int csp_comm_install_copy(const struct csp_comm *t, int regist);

static inline size_t csp_comm_hash(MPI_Comm c)
{
    uint32_t x = (uint32_t)c;
    x ^= x >> 15;
    x *= 0x2c1b3c6dU;
    x ^= x >> 12;
    return x;
}

/* comm's entry, or NULL: the table, read by every fast-path call (with
 * csp_u.lock held under MPI_THREAD_MULTIPLE). The entry of the previous
 * lookup is checked first (csp_u.ctab_last). */
struct csp_comm *csp_comm_find(MPI_Comm comm); /* the table itself (comm.c) */
static inline struct csp_comm *csp_comm_get(MPI_Comm comm)
{
    struct csp_comm *v = csp_u.ctab_last;
    if (__builtin_expect(v != NULL && v->comm == comm, 1))
        return v;
    return csp_comm_find(comm);
}

/* ---- errors (errors.c) ---- */
/* Report the fast path's error e through comm's error handler; returns
 * the code. */
int csp_error(MPI_Comm comm, enum csp_errmsg e);
/* Raise the runtime's error code on comm's handler; msg is its one-line
 * message (under a fatal handler, printed, and MPICH gets the
 * bare class). Returns code. */
int csp_raise(MPI_Comm comm, int code, const char *msg);
/* Raise code, a finished operation's error (or MPI_ERR_IN_STATUS for a
 * call whose request failed with cause), on comm's handler, after the
 * call's lock is released. Returns code. */
int csp_raise_op(MPI_Comm comm, int code, int cause);

/* Does error handler eh abort (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT)?
 * Frees eh (a handle from PMPI_*_get_errhandler). */
int csp_errhandler_fatal(MPI_Errhandler eh);
/* Print the runtime's one-line message of an error, before a fatal
 * handler aborts: "casperii: rank R: msg" on stderr. */
void csp_error_line(const char *msg);

/* Record the one-line message of error e (Go, at MPI_Init). */
void csp_set_errtext(int e, const char *msg);

/* ---- per-communicator records beside the entry (commtab.c) ---- */
/* n records of size bytes, each starting with its MPI_Comm; a record
 * moves at the next _add or _del. Declare one as
 * `static struct csp_commtab t = {.size = sizeof(struct mine)}`. */
struct csp_commtab {
    char *v;
    int n, cap;
    size_t size;
};
/* comm's record, or NULL. */
void *csp_commtab_find(const struct csp_commtab *t, MPI_Comm comm);
/* A new zeroed record for comm (not already in t), or NULL: no memory. */
void *csp_commtab_add(struct csp_commtab *t, MPI_Comm comm);
/* Delete rec (from _find or _add). */
void csp_commtab_del(struct csp_commtab *t, void *rec);

/* ---- sums over a communicator's members (agree.c) ---- */
/* Sum n int64 of every member's in into out (collective over comm; not
 * under MPI_THREAD_MULTIPLE without the lock). */
int csp_agree_sum(MPI_Comm comm, const int64_t *in, int64_t *out, int n);
/* comm is being freed: free what csp_agree_sum made for it. */
void csp_agree_forget(MPI_Comm comm);

/* ---- reading an info value (rmahint.c) ---- */
/* Read key of info into v (size n; MPI_MAX_INFO_VAL + 1 holds any value),
 * trimmed of spaces and tabs; 0 when absent. */
int csp_info_value(MPI_Info info, const char *key, char *v, int n);

/* ---- MPI_Comm_set_info's agreement, and its switches made in C (toggle.c) ---- */
/* One member's record in MPI_Comm_set_info's agreement (summed over the
 * communicator; internal/core/switch.go builds it in Go, toggle.c in C). */
enum csp_agree_field {
    CSP_AG_INVALID,   /* 1 where this member's hints did not parse       */
    CSP_AG_CHOICE,    /* what its hints choose (core: choiceOf)          */
    CSP_AG_CHOICE2,   /* its square: all chose alike iff n x sum(c^2) == sum(c)^2 */
    CSP_AG_UNMATCHED, /* its route counts (route.c)                      */
    CSP_AG_PENDING,
    CSP_AG_STUCK,
    CSP_AG_N
};
/* A communicator whose MPI_Comm_set_info may switch it between the direct
 * route and the offloaded plan it keeps reserved without calling the
 * runtime. The runtime publishes it (core/toggle.go) while nothing else
 * can change at such a call, and reads back what the switches did. */
struct csp_toggle {
    MPI_Comm comm;
    const struct csp_comm *tmpl[2]; /* the entries to install copies of:
                                       [0] direct, [1] offloaded (Go's) */
    int64_t choice[2];  /* CSP_AG_CHOICE of async_config=off, =on       */
    int size;           /* the communicator's members                   */
    uint8_t regist;     /* the shmbuf_regist both entries are built with */
    uint8_t cur;        /* the route in use: 0 direct, 1 offloaded      */
    int8_t set;         /* async_config a call took here: -1 none, 0 off, 1 on */
    uint32_t switches;  /* switches taken here since the runtime read them */
    int64_t since_ns;   /* csp_mono_ns() at the last change of route    */
    int64_t route_ns[2]; /* time direct, offloaded, before since_ns,
                            since the runtime read them                 */
};
/* Publish t (replacing comm's), or withdraw comm's into *out (returns 1
 * if there was one). The runtime's, under its lock. */
int csp_toggle_publish(const struct csp_toggle *t);
int csp_toggle_withdraw(MPI_Comm comm, struct csp_toggle *out);
/* Toggles with something the runtime has not read (a switch or a hint). */
extern uint32_t csp_toggle_unread;
/* Copy comm's toggle into *out and mark it read (returns 1 if there was one). */
int csp_toggle_read(MPI_Comm comm, struct csp_toggle *out);
enum csp_setinfo { CSP_SETINFO_RUNTIME, CSP_SETINFO_DONE, CSP_SETINFO_AGREED, CSP_SETINFO_FAILED };
/* MPI_Comm_set_info(comm, info) after MPICH's (or instead, for an info
 * MPICH checked before: csp_toggle_checked): DONE if it is finished
 * here; AGREED if the agreement is summed into sum but the runtime must
 * decide (csp_go_comm_set_info_agreed); RUNTIME if the runtime must do
 * everything (the agreement included); FAILED if the agreement failed
 * with MPI error *rc. Collective over comm. */
enum csp_setinfo csp_toggle_set_info(MPI_Comm comm, MPI_Info info, int64_t sum[CSP_AG_N], int *rc);
/* Has MPICH checked info in an MPI_Comm_set_info the toggle then took
 * (csp_toggle_check records it)? */
int csp_toggle_checked(MPI_Info info);
void csp_toggle_check(MPI_Info info);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t csp_mono_ns(void);

/* ---- routes (route.c; the counting the fast path shares: route.h) ---- */
/* The same for calls made straight to MPICH, taking the lock: count a
 * send before posting it; before a receive or a blocking probe, take its
 * counted entry (NULL: nothing counted), then report the posted request
 * (nonblocking) or the end (blocking). */
void csp_direct_send(MPI_Comm comm, int dest, MPI_Count count, MPI_Datatype dt);
struct csp_comm *csp_direct_recv(MPI_Comm comm, int src);
void csp_direct_recv_posted(struct csp_comm *c, int rc, MPI_Request r);
void csp_direct_recv_end(struct csp_comm *c, int rc, int matched);
/* A persistent request of MPICH's is bound to comm's direct route: the
 * route can never be proved quiescent again (it is stuck there). */
void csp_direct_pin(MPI_Comm comm);
/* A blocking collective is called on comm: nonzero if the runtime watches
 * its entry (switch.go) and its family's evaluation is due (the family's
 * count of such calls), else 0. Takes the lock. */
int csp_route_coll(MPI_Comm comm);
/* Count a collective of family f: its count if an evaluation is due. */
static inline int csp_fam_count(struct csp_fam *f)
{
    if (!f)
        return 1; /* watched without a count: always look */
    uint32_t n = ++f->ncoll;
    return (int32_t)(n - f->next) >= 0; /* n >= next, modulo 2^32 */
}
/* Completion calls on MPICH's requests: PMPI's, plus the end of tracked
 * receives. The _locked forms are for callers holding csp_u.lock. The
 * common ones are PMPI's own call while nothing is tracked (inline: no
 * stack frame on the way), else the _tracked form. */
int csp_mpich_wait_tracked(MPI_Request *req, MPI_Status *st);
int csp_mpich_test_tracked(MPI_Request *req, int *flag, MPI_Status *st);
int csp_mpich_waitall_tracked(int n, MPI_Request *reqs, MPI_Status *sts);
int csp_mpich_testall_tracked(int n, MPI_Request *reqs, int *flag, MPI_Status *sts);
static inline int csp_mpich_wait(MPI_Request *req, MPI_Status *st)
{
    return csp_u.ntrack ? csp_mpich_wait_tracked(req, st) : PMPI_Wait(req, st);
}
static inline int csp_mpich_test(MPI_Request *req, int *flag, MPI_Status *st)
{
    return csp_u.ntrack ? csp_mpich_test_tracked(req, flag, st) : PMPI_Test(req, flag, st);
}
int csp_mpich_waitall_pair(int n, MPI_Request *reqs, MPI_Status *sts); /* n <= 2, one thread, no cancel */
static inline int csp_mpich_waitall(int n, MPI_Request *reqs, MPI_Status *sts)
{
    if (!csp_u.ntrack)
        return PMPI_Waitall(n, reqs, sts);
    if (n <= 2 && (csp_u.ntrack_cancel | (uint32_t)csp_u.multiple) == 0)
        return csp_mpich_waitall_pair(n, reqs, sts);
    return csp_mpich_waitall_tracked(n, reqs, sts);
}
static inline int csp_mpich_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *sts)
{
    return csp_u.ntrack ? csp_mpich_testall_tracked(n, reqs, flag, sts) : PMPI_Testall(n, reqs, flag, sts);
}
int csp_mpich_test_locked(MPI_Request *req, int *flag, MPI_Status *st);
int csp_mpich_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st);
int csp_mpich_testany(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st);
int csp_mpich_testany_locked(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st);
int csp_mpich_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
int csp_mpich_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
int csp_mpich_testsome_locked(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
int csp_mpich_request_free(MPI_Request *req);
int csp_mpich_cancel(MPI_Request *req);
/* ---- self-profiling (prof.c) ---- */
/* The profile's clock, in ticks: the TSC where the kernel keeps its own
 * clock on it (csp_u.prof_tsc, set at MPI_Init by route.go), read with
 * rdtsc (about 10 ns here, against 24 for clock_gettime); else
 * CLOCK_MONOTONIC in nanoseconds (csp_prof_now_ns). Never 0. */
uint64_t csp_prof_now_ns(void);
/* Start the profile's clock (at MPI_Init): the TSC if tsc, else
 * nanoseconds; reads the pair csp_prof_ns_per_tick measures from. */
void csp_prof_clock_start(int tsc);
/* Nanoseconds per tick of csp_prof_now: the rate from the pair read at
 * csp_prof_clock_start to a pair read now (1 without the TSC). The one
 * conversion of the profile's ticks, for rmaauto.c and route.go. */
double csp_prof_ns_per_tick(void);
static inline uint64_t csp_prof_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(csp_u.prof_tsc != 0, 1))
        return __builtin_ia32_rdtsc();
#endif
    return csp_prof_now_ns();
}
/* Add v to a profile counter: plain where one thread calls MPI; calls of
 * several threads (MPI_THREAD_MULTIPLE) add atomically. */
static inline void csp_prof_add(uint64_t *ctr, uint64_t v)
{
    if (__builtin_expect(csp_u.multiple != 0, 0))
        __atomic_fetch_add(ctr, v, __ATOMIC_RELAXED);
    else
        *ctr += v;
}
/* Sampling the CPU time of windows (prof.c): at the open of a window
 * that follows a long one, and at the close of a sampled one. */
void csp_prof_sample_open(void);
void csp_prof_sample_end(void);
void csp_prof_sampled(uint64_t win);
#define CSP_PROF_SAMPLE_EVERY 4
#define CSP_PROF_LIGHT_EVERY 8
/* prof_post_t of a window opened by a light iteration: open, no clock. */
#define CSP_PROF_OPEN 1
/* The clock at the entry of a point-to-point call that may wait (the
 * interposer's CSP_IP_TIMED brackets), prof set: the call closes the open
 * window, and a sampled window's CPU time ends here. */
static inline uint64_t csp_prof_enter(void)
{
    if (__builtin_expect(csp_u.prof_post_cpu != 0, 0))
        csp_prof_sample_end();
    return csp_prof_now();
}
/* Around an MPI call that may wait: t = csp_prof_begin(); ...;
 * csp_prof_end(t). One test while profiling is off. (Collectives, and
 * waits inside the interposer's brackets: no window ends at them.) */
static inline uint64_t csp_prof_begin(void) { return csp_u.prof ? csp_prof_now() : 0; }
static inline void csp_prof_end(uint64_t t0)
{
    if (t0) {
        uint64_t t1 = csp_prof_now(), win = 0;
        int known = 1; /* the window before it measured, or none */
        csp_prof_add(&csp_u.prof_mpi_t, t1 - t0);
        csp_prof_add(&csp_u.prof_waits, 1);
        csp_prof_add(&csp_u.prof_waits_timed, 1);
        /* Close the window a post opened before this call (one the call
         * opened itself, a blocking send's, has nothing in it). Relaxed
         * loads and stores, no locked exchange on this path: with several
         * threads the window is approximate. */
        uint64_t p = __atomic_load_n(&csp_u.prof_post_t, __ATOMIC_RELAXED);
        if (p) {
            __atomic_store_n(&csp_u.prof_post_t, 0, __ATOMIC_RELAXED);
            /* A window a poll reopened is the tail of one: whether the
             * exchange is latency-bound it does not say. */
            known = p != CSP_PROF_OPEN && !csp_u.prof_win_polled;
            if (p > CSP_PROF_OPEN && p < t0) {
                win = t0 - p;
                csp_prof_add(&csp_u.prof_win_t, win);
                csp_u.prof_last_win = win;
                if (__builtin_expect(csp_u.prof_post_cpu != 0, 0))
                    csp_prof_sampled(win);
            }
        }
        /* A latency-bound exchange: the next waits go light. (A window a
         * light iteration opened has no length: the next is timed.) */
        if (t1 - t0 < csp_u.prof_short_t && known && win < csp_u.prof_short_t)
            csp_u.prof_light = CSP_PROF_LIGHT_EVERY - 1;
    }
}
/* A light waiting call (prof_light set) returned: counted, not timed; a
 * wait closes the window without measuring it, a poll leaves it open. */
static inline void csp_prof_light_wait(void)
{
    csp_u.prof_light--;
    csp_prof_add(&csp_u.prof_waits, 1);
    __atomic_store_n(&csp_u.prof_post_t, 0, __ATOMIC_RELAXED);
}
static inline void csp_prof_light_poll(void)
{
    csp_u.prof_light--;
    csp_prof_add(&csp_u.prof_waits, 1);
}
/* The factor a reader applies to the timed sums (waiting time, windows):
 * all waiting calls over the timed ones. */
static inline double csp_prof_scale(uint64_t waits, uint64_t timed)
{
    return timed > 0 && waits > timed ? (double)waits / (double)timed : 1.0;
}
/* The same for a call that polls (the Test family, MPI_Iprobe and
 * MPI_Improbe): the window goes on after it, since what was posted may
 * still be in flight while the application computes between polls. */
static inline void csp_prof_end_poll(uint64_t t0)
{
    if (t0) {
        int open = __atomic_load_n(&csp_u.prof_post_t, __ATOMIC_RELAXED) != 0;
        csp_prof_end(t0);
        if (open) {
            __atomic_store_n(&csp_u.prof_post_t, csp_prof_now(), __ATOMIC_RELAXED);
            csp_u.prof_win_polled = 1;
        }
    }
}
/* A message was posted (sent or receive), prof set: open the window if
 * none is open. */
static inline void csp_prof_posted(void)
{
    if (__atomic_load_n(&csp_u.prof_post_t, __ATOMIC_RELAXED) == 0) {
        csp_u.prof_win_polled = 0;
        if (csp_u.prof_light) { /* a light iteration: no clock */
            __atomic_store_n(&csp_u.prof_post_t, CSP_PROF_OPEN, __ATOMIC_RELAXED);
            return;
        }
        __atomic_store_n(&csp_u.prof_post_t, csp_prof_now(), __ATOMIC_RELAXED);
        if (__builtin_expect(csp_u.prof_last_win >= csp_u.prof_samp_min && csp_u.prof_samp_min, 0))
            csp_prof_sample_open();
    }
}
static inline void csp_prof_end_coll(uint64_t t0)
{
    if (t0) {
        csp_prof_add(&csp_u.prof_coll_t, csp_prof_now() - t0);
        csp_prof_add(&csp_u.prof_calls, 1);
        /* An epoch of the automatic choice ends at a collective: the
         * next begins timed (two light waits of a phase of two would
         * leave it without a time). */
        csp_u.prof_light = 0;
    }
}
/* Around an RMA synchronization call (the windows' automatic choice,
 * internal/user/rmaauto.c). */
static inline void csp_prof_end_rma(uint64_t t0)
{
    if (t0) {
        csp_prof_add(&csp_u.prof_rma_t, csp_prof_now() - t0);
        csp_prof_add(&csp_u.prof_calls, 1);
    }
}
/* The same for a sleep on the wake word inside such a call. */
static inline void csp_prof_end_sleep(uint64_t t0)
{
    if (t0)
        csp_prof_add(&csp_u.prof_sleep_t, csp_prof_now() - t0);
}

/* ---- posting (post.c) ---- */

/* Counts are MPI_Counts off the fast path (the MPI-4 _c calls, and a
 * message of 2 GiB or more); MPICH gets the int call where the count fits
 * an int and its _c call beyond. */
#define CSP_FITS_INT(n) ((n) >= INT_MIN && (n) <= INT_MAX)
#define CSP_PMPI_COUNTED(fn, buf, count, ...)                                                 \
    (CSP_FITS_INT(count) ? PMPI_##fn(buf, (int)(count), __VA_ARGS__)                          \
                         : PMPI_##fn##_c(buf, count, __VA_ARGS__))

int csp_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req, int sync);
int csp_irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req);
int csp_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int sync);
int csp_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st);
int csp_iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st);
/* The polled probe (pprobe.c). settle: the probe posted on entry c, if
 * any, is finished and gone (the route counters then hold none); drop:
 * none is left (MPI_Finalize); forget: entry c is being destroyed;
 * note_recv: a receive, which may take the message an answer names, is
 * posted on c. All under the lock. */
void csp_pprobe_settle(struct csp_comm *c);
void csp_pprobe_drop(void);
/* MPI_Iprobe(src, tag) on c's offloaded entry from the polled probe: 1
 * if it answered (*flag, *st, *rc set), 0 if the caller is to probe and
 * wait (then, finding nothing, csp_pprobe_post leaves a probe). */
int csp_pprobe_answer(struct csp_comm *c, int src, int tag, int *flag, MPI_Status *st, int *rc);
/* MPI_Improbe(src, tag) on c's offloaded entry: 1 if the polled probe
 * says nothing is there (or *rc is an error), 0 if the caller is to
 * probe, match and wait (then, finding nothing, csp_pprobe_post). */
int csp_pprobe_nothing(struct csp_comm *c, int src, int tag, int *rc);
void csp_pprobe_post(struct csp_comm *c, int src, int tag);
static inline void csp_pprobe_forget(struct csp_comm *c)
{
    if (__builtin_expect(csp_u.pprobe.entry == c, 0)) {
        /* c no longer holds the probe (it is DONE): its record goes at the next call */
        csp_u.pprobe.entry = NULL;
        csp_u.pprobe.stale = 1;
    }
}
static inline void csp_pprobe_note_recv(struct csp_comm *c)
{
    if (__builtin_expect(csp_u.pprobe.entry == c, 0))
        csp_u.pprobe.stale = 1;
}
int csp_probe(int src, int tag, MPI_Comm comm, MPI_Status *st);

/* Buffered mode on offloaded communicators: copied now, completes locally. */
int csp_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int csp_ibsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req);

/* The _c calls whose count does not fit an int, on a communicator found
 * offloaded: offloaded still, the ghost posts them with MPI's large-count
 * calls; else MPICH's _c call (post.c). Buffered mode takes MPI_Counts in
 * csp_bsend and csp_ibsend. */
int csp_isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *req, int sync);
int csp_irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                MPI_Request *req);
int csp_send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, int sync);
int csp_recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Status *st);
/* csp_isend or csp_isend_c, csp_irecv or csp_irecv_c, by the count. */
static inline int csp_isend_n(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                              MPI_Comm comm, MPI_Request *req, int sync)
{
    return CSP_FITS_INT(count) ? csp_isend(buf, (int)count, dt, dest, tag, comm, req, sync)
                               : csp_isend_c(buf, count, dt, dest, tag, comm, req, sync);
}
static inline int csp_irecv_n(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                              MPI_Comm comm, MPI_Request *req)
{
    return CSP_FITS_INT(count) ? csp_irecv(buf, (int)count, dt, src, tag, comm, req)
                               : csp_irecv_c(buf, count, dt, src, tag, comm, req);
}


/* A deferred operation (no cell): a record the Wait/Test family polls
 * with poll(r) (lock held; r->ctx is ctx) until it returns 1, then completes;
 * poll fills the record's result. Gives the application its handle in
 * *req. Takes the lock. Returns MPI_SUCCESS or MPI_ERR_NO_MEM (not
 * raised). */
int csp_start_deferred(int (*poll)(struct csp_req *r), void *ctx, int unrung, MPI_Request *req);

/* ---- send and receive in one call (sendrecv.c) ---- */
int csp_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st);

/* ---- matched probes (message.c) and persistent requests (persist.c) ---- */

/* Handles we issue ourselves use handle kinds MPICH never issues (MPICH's
 * kind lives in the top two bits; 00 is "invalid" there). Operation
 * handles: CSP_REQ_KIND (greq.h). */
#define CSP_MSG_KIND 0x18000000u  /* our MPI_Message handles           */
#define CSP_PREQ_KIND 0x14000000u /* our persistent MPI_Request handles */
#define CSP_MSG_MAX 0x03ffffffu

static inline int csp_is_msg(MPI_Message m)
{
    return ((uint32_t)m & CSP_HANDLE_KIND_MASK) == CSP_MSG_KIND;
}
static inline int csp_is_preq(MPI_Request r)
{
    return ((uint32_t)r & CSP_HANDLE_KIND_MASK) == CSP_PREQ_KIND;
}

int csp_improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st);
int csp_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st);
int csp_mrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st);
int csp_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req);

/* sync: 0 standard, 1 synchronous, CSP_SEND_BUFFERED buffered,
 * CSP_SEND_READY ready (MPI_Rsend_init: a standard send once started). */
#define CSP_SEND_BUFFERED 2
#define CSP_SEND_READY 3
int csp_send_init(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req, int sync);
int csp_recv_init(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                  MPI_Request *req);
int csp_start(MPI_Request *req);
int csp_startall(int n, MPI_Request *reqs);

/* ---- completion (wait.c) ---- */
int csp_wait(MPI_Request *req, MPI_Status *st);
int csp_test(MPI_Request *req, int *flag, MPI_Status *st);
int csp_waitall(int n, MPI_Request *reqs, MPI_Status *sts);
/* csp_waitall that leaves the error of one of our requests unraised:
 * *cause is it (MPI_SUCCESS: none), for the caller to raise on its
 * communicator (csp_raise_op), as MPI_Sendrecv does. */
int csp_waitall_unraised(int n, MPI_Request *reqs, MPI_Status *sts, int *cause);
/* csp_waitall with MPI_STATUSES_IGNORE, which is (MPI_Status *)1 and so
 * stays in C (api.go). */
int csp_waitall_nostatus(int n, MPI_Request *reqs);
int csp_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *sts);
int csp_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st);
int csp_testany(int n, MPI_Request *reqs, int *idx, int *flag, MPI_Status *st);
int csp_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
int csp_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
int csp_request_free(MPI_Request *req);
int csp_cancel(MPI_Request *req);
int csp_request_get_status(MPI_Request req, int *flag, MPI_Status *st);
/* Like PMPI_Test on any request, for composite requests polling their
 * parts; the error is returned, not raised. Call with csp_u.lock held. */
int csp_test_inner(MPI_Request *req, int *flag, MPI_Status *st);

/* ---- the shared heap under the lock (shared.c) ---- */
/* A block of n bytes (NULL: none, or no heap in this process). */
void *csp_shared_alloc(size_t n);
/* Free p if it is a block of the heap: returns 1 then, else 0. The
 * _locked form is for callers holding csp_u.lock. */
int csp_shared_free(void *p);
int csp_shared_free_locked(void *p);
/* Add the caller's mapping of fd (size bytes at base) as an external
 * segment: its index, or -1. Remove it again, and have the ghost unmap
 * it at once: 0, or -1. */
int csp_shared_add_external(int fd, void *base, uint64_t size);
int csp_shared_remove_external(uint32_t seg);
/* Hide an external segment from this process's lookups, or show it again
 * (csp_heap_hide_external); the ghost keeps its mapping. */
int csp_shared_hide_external(uint32_t seg, int hide);

/* ---- datatypes (dtype.c; the rest: dtype.h) ---- */
/* PMPI_Pack_c / PMPI_Unpack_c over MPI_COMM_SELF, from or into MPI_BOTTOM
 * too (which MPICH's refuse as a null buffer) (dtype.c). */
int csp_pack(const void *buf, MPI_Count count, MPI_Datatype dt, void *out, MPI_Count outsize, MPI_Count *pos);
int csp_unpack(const void *in, MPI_Count insize, MPI_Count *pos, void *buf, MPI_Count count, MPI_Datatype dt);

/* ---- lending the core to the ghost (coop.c) ---- */
/* PMPI_Probe / PMPI_Mprobe, the same way. */
int csp_coop_probe(int src, int tag, MPI_Comm comm, MPI_Status *st);
int csp_coop_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st);
/* Does the ghost need the core now (it shares ours and has work: its
 * published busy count, or cells of ours it has not taken from the ring
 * yet)? Takes the lock. One load when lending is off. Inline: every
 * direct wait asks. */
static inline int csp_coop_owed(void)
{
    if (!csp_u.lend || !csp_u.on)
        return 0;
    CSP_LOCK();
    int owed = csp_ghost_busy(csp_u.ghost) || spsc_free(&csp_u.prod) != spsc_capacity(&csp_u.ring);
    CSP_UNLOCK();
    return owed;
}
/* Wait for MPICH's request(s) as PMPI_Wait / PMPI_Waitall would, lending
 * the core to a ghost that shares it while the ghost has work in flight,
 * and marking the wait in the in-MPI word while the ghost watches a window
 * of ours (the _lending forms, coop.c); else straight to MPICH. */
int csp_coop_wait_lending(MPI_Request *req, MPI_Status *st);
int csp_coop_waitall_lending(int n, MPI_Request *reqs, MPI_Status *sts);
/* Must a wait on MPICH not be MPICH's own spin? The ghost needs the core
 * (csp_coop_owed), or waits yield it between polls here (yield_direct), or
 * posts are held for lack of cells (nheld): only this process pushes them,
 * as cells come back, and a peer may wait for them before it answers what
 * this wait waits for (coop.c). */
static inline int csp_coop_direct(void)
{
    return csp_u.yield_direct || __atomic_load_n(&csp_u.nheld, __ATOMIC_RELAXED) || csp_coop_owed();
}
static inline int csp_coop_wait(MPI_Request *req, MPI_Status *st)
{
    return csp_u.nwatched || csp_coop_direct() ? csp_coop_wait_lending(req, st) : csp_mpich_wait(req, st);
}
static inline int csp_coop_waitall(int n, MPI_Request *reqs, MPI_Status *sts)
{
    return csp_u.nwatched || csp_coop_direct() ? csp_coop_waitall_lending(n, reqs, sts)
                                               : csp_mpich_waitall(n, reqs, sts);
}
/* Before a blocking call that waits in MPICH itself (a blocking
 * collective run as PMPI's, csp_u.nbcoll off): push the posts held for
 * lack of cells while the ghost hands cells back, until none is held or
 * none went out for CSP_HELD_STALL_US (their cells wait on what comes
 * after this call). */
void csp_coop_push_held(void);
/* MPI_Waitany / MPI_Waitsome on MPICH's requests the same way. */
int csp_coop_waitany(int n, MPI_Request *reqs, int *idx, MPI_Status *st);
int csp_coop_waitsome(int n, MPI_Request *reqs, int *outcount, int *idx, MPI_Status *sts);
/* A Test-family call found an offloaded request not done: an application
 * polling in a loop lends the core now and then. */
void csp_coop_test_miss(void);
/* ---- lending the core on a timer while MPICH spins (lendtimer.c) ---- */
/* Lend the core on a timer until stopped (this thread only): yield it
 * every half millisecond (yield: MPI_Init), or sleep half of every
 * millisecond (MPI_Finalize). */
void csp_lend_timer_start(int yield);
/* Stop it: *sig is the signal that timed it (0: none ran), *lends how
 * often this thread slept. */
void csp_lend_timer_stop(int *sig, int *lends);
/* How many of the last timer's lends yielded (the rest slept). */
int csp_lend_timer_yields(void);
/* Does the launcher say this host runs more processes than we may use
 * CPUs (known before MPI_Init)? */
int csp_init_oversubscribed(void);
/* Free the internal RMA window (*rma_rc, rma.h) and PMPI_Finalize,
 * lending the core to a ghost that shares it. */
int csp_finalize_lending(int *sig, int *lends, int *rma_rc);

#endif /* CASPERII_USER_H */
