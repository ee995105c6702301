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
#define CSP_CHAN_VERSION 4u
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
    uint32_t pad1[11];
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

#endif /* CASPERII_CHANNEL_H */
