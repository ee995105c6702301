/*
 * channel.h: the shared memory between one user process and its ghost.
 *
 * A user's channel is one memfd segment created by the user:
 *
 *   offset 0             struct csp_chan_hdr (identity, geometry, wake words)
 *   CSP_CHAN_SEGTAB_OFF  struct csp_seg_entry[CSP_MAX_SEGS]: the segment table
 *   ring_off             the SPSC ring of cell indices (spsc.h), user -> ghost
 *   cells_off            struct csp_cell[ncells] (postcell.h)
 *
 * A ghost's control segment is one memfd segment created by the ghost,
 * mapped by each of its users: struct csp_ghost_hdr.
 *
 * This header is the one definition of both layouts: the Go package
 * internal/channel is generated from it (layout_gen.go, by cmd/layoutgen
 * from layout_defs.go; TestLayoutGenerated fails when it is stale).
 *
 * Writers: every field is written by exactly one side, named in its comment.
 * The ghost validates everything it reads here (see internal/ghost).
 */
#ifndef CASPERII_CHANNEL_H
#define CASPERII_CHANNEL_H

#include <stdint.h>

#define CSP_CHAN_MAGIC 0x43535043u  /* "CSPC" */
#define CSP_GHOST_MAGIC 0x43535047u /* "CSPG" */
#define CSP_CHAN_VERSION 5u
/* wait_cell: no particular cell; wait_also: no second cell */
#define CSP_WAIT_ANY 0xffffffffu
/* wait_cell: the user sleeps only to leave its core to the ghost (they
 * share it): any completion wakes it, and so does the ghost once a round
 * of its loop finds nothing to do */
#define CSP_WAIT_GIVE 0xfffffffeu

#define CSP_MAX_SEGS 256u
#define CSP_CHAN_SEGTAB_OFF 4096u
#define CSP_CHAN_HDR_BYTES (CSP_CHAN_SEGTAB_OFF + CSP_MAX_SEGS * 16u) /* ring starts here */

/* User states (csp_chan_hdr.user_state). */
#define CSP_USER_RUNNING 1u
#define CSP_USER_FINALIZED 2u

/* Ghost states (csp_ghost_hdr.state). */
#define CSP_GHOST_RUNNING 1u
#define CSP_GHOST_EXITED 2u

/* One registered segment of the user (written by the user). */
struct csp_seg_entry {
    uint64_t size; /* bytes; 0: entry unused                          */
    int32_t fd;    /* descriptor in the user process (/proc/pid/fd/N)  */
    uint32_t gen;  /* bumped each time the entry changes               */
};

struct csp_chan_hdr {
    /* line 0: immutable after creation (user) */
    uint32_t magic;
    uint32_t version;
    uint32_t ncells;    /* cells in the cell array                  */
    uint32_t ring_cap;  /* ring capacity (power of two >= ncells)   */
    uint64_t ring_off;  /* byte offset of the ring                  */
    uint64_t cells_off; /* byte offset of the cell array            */
    uint64_t size;      /* bytes of the whole channel segment       */
    int32_t user_wrank; /* the user's world rank                    */
    int32_t user_pid;
    uint32_t pad0[4];
    /* line 1: written by the user */
    uint32_t user_state;    /* CSP_USER_*                               */
    uint32_t user_sleeping; /* nonzero while the user sleeps on wake    */
    uint32_t wait_cell;     /* the cell whose completion it waits for,
                               CSP_WAIT_ANY: any completion wakes it,
                               CSP_WAIT_GIVE: see above                */
    uint32_t wait_also;     /* with wait_cell: a cell that must be done
                               too (MPI_Waitall), or CSP_WAIT_ANY         */
    uint32_t give_seq;      /* bumped before each sleep with wait_cell
                               CSP_WAIT_GIVE: the ghost wakes each such
                               sleep once                                */
    uint32_t in_mpi;        /* nonzero while the user waits in a blocking
                               MPI call (its core computes nothing): a
                               hint for the ghost's window polls          */
    uint32_t pad1[10];
    /* line 2: written by the ghost */
    uint32_t wake;          /* event count the user sleeps on           */
    uint32_t pad2[15];
};

struct csp_ghost_hdr {
    /* line 0: immutable after creation (ghost) */
    uint32_t magic;
    uint32_t version;
    int32_t ghost_wrank;
    int32_t ghost_pid;
    uint32_t membarrier; /* 1: before its last look at the rings the ghost
                            issues membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED),
                            so users registered for it need no fence between
                            publishing a cell and reading `parked`         */
    uint32_t pad0[11];
    /* line 1: written by users */
    uint32_t doorbell; /* event count the ghost sleeps on when parked */
    uint32_t pad1[15];
    /* line 2: written by the ghost */
    uint32_t parked;   /* nonzero while the ghost sleeps on doorbell  */
    uint32_t state;    /* CSP_GHOST_*                                 */
    uint32_t busy;     /* operations the ghost has outstanding in MPI
                          (all its users'), updated each round: users
                          lend it their core while it is nonzero      */
    uint32_t pad2[13];
};

_Static_assert(sizeof(struct csp_seg_entry) == 16, "segment entry is 16 bytes");
_Static_assert(sizeof(struct csp_chan_hdr) == 192, "channel header is three lines");
_Static_assert(sizeof(struct csp_ghost_hdr) == 192, "ghost header is three lines");

/*
 * The handshakes across the two sides. Each is a named pair: the C half
 * below (the user's side: user processes are C), the Go half in handshake.go
 * (the ghost's side), with the invariant stated here once. Only these
 * helpers touch the words involved; futex calls stay with the callers.
 */

/*
 * Doorbell / park (struct csp_ghost_hdr: parked, doorbell).
 * Invariant: a cell published while the ghost parks is never left unseen.
 * The ghost stores parked = 1 and then takes a last look at the rings
 * before it sleeps on doorbell (Go: GhostHdr.Park, then GhostHdr.Unpark
 * when it is up again); a user stores its ring's tail and then loads parked
 * (csp_ghost_unpark). A full barrier sits between the store and the load
 * on each side, so at least one of them sees the other's store. When the
 * ghost issues a global membarrier instead (membarrier == 1), that barrier
 * orders both sides and the user needs only a compiler barrier. The first
 * user to see parked takes it down and rings; later posts, until the ghost
 * parks again, see it down and make no system call.
 * One bounded exception: a ghost polling redirected windows parks for at
 * most its poll interval (internal/ghost/rmaserve.go) and skips the
 * membarrier there, so a cell published in the race may wait for the end
 * of that sleep (at most CSP_RMA_POLL_US) instead of a ring.
 */

/* csp_ghost_unpark is the user's half, called after publishing on its
 * ring. It returns 1 if the caller took the parked flag down and bumped
 * doorbell: it must then wake the futex on g->doorbell. fence_free: the
 * ghost's header says membarrier == 1. */
static inline int csp_ghost_unpark(struct csp_ghost_hdr *g, int fence_free)
{
    uint32_t one = 1;
    if (fence_free)
        __asm__ __volatile__("" ::: "memory");
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g->parked, __ATOMIC_RELAXED) &&
        __atomic_compare_exchange_n(&g->parked, &one, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        __atomic_add_fetch(&g->doorbell, 1, __ATOMIC_SEQ_CST);
        return 1;
    }
    return 0;
}

/*
 * Wake word (struct csp_chan_hdr: wait_cell, wait_also, give_seq,
 * user_sleeping, wake).
 * Invariant: a user asleep on wake is woken once what it waits for has
 * happened. The user stores what it waits for, then user_sleeping = 1,
 * then loads wake, all sequentially consistent (csp_user_sleep_begin or
 * csp_user_lend_begin); it re-checks its condition and sleeps only while
 * wake still holds the value it loaded, and clears user_sleeping when it
 * is up (csp_user_sleep_end). The ghost completes cells (postcell.h), then
 * loads user_sleeping and what the user waits for (Go: ChanHdr.Sleeping,
 * WaitsFor, Lending) and, to wake it, bumps wake and wakes the futex
 * (ChanHdr.WakeUser). Either the user's re-check sees the completion or
 * the ghost sees user_sleeping and its bump changes wake under the sleep.
 * A lend (wait_cell CSP_WAIT_GIVE) is answered once per give_seq.
 */

/* csp_user_sleep_begin announces that the user is about to sleep until
 * cell (and also, if not CSP_WAIT_ANY) is done, and returns the wake count
 * to sleep on after the re-check. */
static inline uint32_t csp_user_sleep_begin(struct csp_chan_hdr *h, uint32_t cell, uint32_t also)
{
    __atomic_store_n(&h->wait_cell, cell, __ATOMIC_RELAXED);
    __atomic_store_n(&h->wait_also, also, __ATOMIC_RELAXED);
    __atomic_store_n(&h->user_sleeping, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&h->wake, __ATOMIC_SEQ_CST);
}

/* csp_user_lend_begin announces a sleep that only lends the core to the
 * ghost (a new give_seq, wait_cell CSP_WAIT_GIVE) and returns the wake
 * count to sleep on. */
static inline uint32_t csp_user_lend_begin(struct csp_chan_hdr *h)
{
    __atomic_store_n(&h->give_seq, h->give_seq + 1, __ATOMIC_RELAXED);
    return csp_user_sleep_begin(h, CSP_WAIT_GIVE, CSP_WAIT_ANY);
}

/* csp_user_sleep_end: the user is up again. */
static inline void csp_user_sleep_end(struct csp_chan_hdr *h)
{
    __atomic_store_n(&h->user_sleeping, 0, __ATOMIC_RELAXED);
}

/*
 * Busy word (struct csp_ghost_hdr: busy).
 * Invariant: busy is nonzero while the ghost has operations outstanding in
 * MPI, so a user about to wait on MPICH alone lends it the core then and
 * only then. The ghost stores its count once a round, only when it changes
 * (Go: GhostHdr.PublishBusy); a user loads it (csp_ghost_busy). Nothing
 * else is published through it, so both halves are relaxed: a stale value
 * costs one lend too many or one round of the ghost late, never a lost
 * message, and the wake handshake above orders whatever the lend waits for.
 *
 * In-MPI word (struct csp_chan_hdr: in_mpi) works the same way the other
 * way round: the user counts its waits in blocking MPI calls
 * (csp_user_in_mpi), the ghost loads it (Go: ChanHdr.InMPI) to poll its
 * windows often while no user of its core computes. Relaxed on both
 * sides: a stale value costs one poll early or late.
 */

/* csp_ghost_busy is the user's half: does the ghost have work in MPI? */
static inline int csp_ghost_busy(const struct csp_ghost_hdr *g)
{
    return __atomic_load_n(&g->busy, __ATOMIC_RELAXED) != 0;
}

/*
 * Segment table (struct csp_seg_entry).
 * Invariant: gen changes after every change of an entry, so the ghost,
 * which remembers the gen of each mapping it made, maps an entry again
 * after any change. The user stores fd and size and then gen + 1 with
 * release semantics (csp_seg_publish, csp_seg_clear); the ghost loads gen
 * with acquire semantics and then size and fd (Go: SegEntry.Load), so it
 * sees at least the stores made before that gen.
 */

/* csp_user_in_mpi marks the start (+1) or end (-1) of a wait of the user
 * in a blocking MPI call (threads may wait at once, hence a count). */
static inline void csp_user_in_mpi(struct csp_chan_hdr *h, int d)
{
    __atomic_add_fetch(&h->in_mpi, (uint32_t)d, __ATOMIC_RELAXED);
}

/* csp_seg_publish points entry e at a segment of size bytes held as fd. */
static inline void csp_seg_publish(struct csp_seg_entry *e, int32_t fd, uint64_t size)
{
    __atomic_store_n(&e->fd, fd, __ATOMIC_RELAXED);
    __atomic_store_n(&e->size, size, __ATOMIC_RELAXED);
    __atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

/* csp_seg_clear marks entry e unused. */
static inline void csp_seg_clear(struct csp_seg_entry *e)
{
    __atomic_store_n(&e->size, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->fd, -1, __ATOMIC_RELAXED);
    __atomic_store_n(&e->gen, e->gen + 1, __ATOMIC_RELEASE);
}

#endif /* CASPERII_CHANNEL_H */
