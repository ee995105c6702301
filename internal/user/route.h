/*
 * route.h: the route counters the fast path keeps (route.c states the
 * invariant a switch of route relies on), and what Go reads of them.
 *
 * What every direct message and receive costs is inline here: a counter
 * or two on the entry, and for a direct receive one insert into the table
 * of tracked receives (route.c), whose completion removes it.
 */
#ifndef CASPERII_USER_ROUTE_H
#define CASPERII_USER_ROUTE_H

#include "user.h"
#include "dtype.h"
#include "op.h"

/* ---- counting, with csp_u.lock held (route.c states the invariant) ---- */

struct csp_comm *csp_route_of(MPI_Comm comm); /* comm's entry if its route is direct */

/* A receive or blocking probe begins on c: pend_recv++ (and the
 * process's count of direct receives, which waits read: block.c), and a
 * reference for as long as it is counted. */
static inline void csp_route_recv_begin(struct csp_comm *c)
{
    c->pend_recv++;
    csp_u.ndirect_recv++;
    c->refs++;
}

/* It ended, with a message taken or not: drops the reference. */
static inline void csp_route_recv_end(struct csp_comm *c, int matched)
{
    c->pend_recv--;
    csp_u.ndirect_recv--;
    c->matched += matched != 0;
    csp_comm_unref(c);
}

/* A finished operation record of the ghost route (engine.c finish, a
 * cancelled held op) settles its counts. */
void csp_route_op_done(struct csp_op *op);

/* For Go (route.go; switch.c), under the caller's lock: the counts of comm's
 * current entry (out: unmatched, pending, stuck; -1 if none), the
 * messages and bytes sent on it since the last call, and n int64 summed
 * over comm. csp_route_watch takes the lock itself. */
int csp_route_counts(MPI_Comm comm, int64_t out[3]);
void csp_route_take_sent(MPI_Comm comm, uint64_t *msgs, uint64_t *bytes);
int csp_route_sum(MPI_Comm comm, int64_t *in, int64_t *out, int n);
/* The counts into in[at..at+2], then the sum: one call. */
int csp_route_count_sum(MPI_Comm comm, int64_t *in, int64_t *out, int n, int at);
/* Look at (or stop looking at) the collectives on comm's entry, counted
 * in its family's fam. */
void csp_route_watch(MPI_Comm comm, int on, struct csp_fam *fam);

/* ---- the self-profile's traffic (prof.c), lock held ---- */

/* The size of dt, an MPI call (derived types); 0 if MPI fails. */
int csp_prof_type_size(MPI_Datatype dt);
/* A message of count elements of size bytes each was sent on c, prof
 * set: count it and open the window in flight. */
static inline void csp_prof_sent_bytes(struct csp_comm *c, MPI_Count count, int size)
{
    uint64_t bytes = (uint64_t)(count > 0 ? count : 0) * (uint64_t)size;
    c->ep_msgs++;
    c->ep_bytes += bytes;
    csp_u.prof_bytes += bytes;
    csp_prof_posted();
}
/* A message of count elements of dt was sent on c. Inline: while an auto
 * communicator exists, every direct send counts. */
static inline void csp_prof_sent(struct csp_comm *c, MPI_Count count, MPI_Datatype dt)
{
    if (__builtin_expect(csp_u.prof != 0, 0) && c) {
        int size = csp_builtin_size(dt);
        if (size == 0)
            size = csp_prof_type_size(dt);
        csp_prof_sent_bytes(c, count, size);
    }
}

/* Count a send straight to MPICH on c's direct route (prof.c too), lock
 * held; c may be NULL or not direct: then nothing. Inline: every direct
 * post counts. */
static inline void csp_route_sent_on(struct csp_comm *c, int dest, MPI_Count count, MPI_Datatype dt)
{
    if (c && c->algo == CSP_ALGO_OFF && dest != MPI_PROC_NULL) {
        c->sent++;
        csp_prof_sent(c, count, dt);
    }
}

/* A receive or blocking probe from src straight to MPICH on c: its
 * counted entry (c, counted as pending until csp_route_recv_posted or
 * csp_route_recv_end), or NULL when nothing is counted: c is NULL or
 * not direct, src is MPI_PROC_NULL, or routes never change in this
 * process (MPI_THREAD_MULTIPLE, internal/core/switch.go), where nobody
 * reads the counts. */
static inline struct csp_comm *csp_route_recv_on(struct csp_comm *c, int src)
{
    if (!c || c->algo != CSP_ALGO_OFF || src == MPI_PROC_NULL || csp_u.multiple)
        return NULL;
    csp_route_recv_begin(c);
    return c;
}

/* ---- the table of tracked direct receives (route.c) ---- */

#define CSP_TRK_CANCEL 0x1u /* MPI_Cancel was called on it */

/* One tracked receive: MPICH's request and the entry it is counted on
 * (holding the reference csp_route_recv_begin took).
 *
 * The table (csp_u.trk, 2^k slots) gives each handle two slots: the low
 * bits of the handle, which are MPICH's index of the request object, and
 * a Fibonacci hash of the whole handle. MPICH hands the object of a
 * finished request to the next one, so a flow of receives finds its first
 * slot free again; handles whose two slots are both taken wait in a small
 * overflow array (route.c). A slot counts the entries whose first slot it
 * is and which live elsewhere (disp): a handle whose first slot holds
 * another handle and nothing displaced, a send's for one, is found
 * untracked at once. Inserting, finding and removing then cost a few
 * instructions each, with no probing. */
struct csp_trk {
    MPI_Request req; /* MPI_REQUEST_NULL: empty slot */
    uint16_t flags;  /* CSP_TRK_CANCEL */
    uint16_t disp;   /* of the slot: entries with this first slot living elsewhere */
    struct csp_comm *comm;
};

/* r's two slots in the table. */
static inline uint32_t csp_trk_slot1(MPI_Request r) { return (uint32_t)r & csp_u.trk_mask; }
static inline uint32_t csp_trk_slot2(MPI_Request r)
{
    return ((uint32_t)r * 0x9e3779b9u) >> csp_u.trk_shift;
}

/* Make room (grow the table or use the overflow array), then insert (or,
 * out of memory, give up on r: its entry can never prove quiescent
 * again). */
void csp_route_track_slow(struct csp_comm *c, MPI_Request r);

/* Follow direct receive r, counted on c, to its end: a completion call
 * that returns it (csp_mpich_*) settles its counts. */
static inline void csp_route_track(struct csp_comm *c, MPI_Request r)
{
    struct csp_trk *t = csp_u.trk, *e;
    if (__builtin_expect(t == NULL, 0)) {
        csp_route_track_slow(c, r);
        return;
    }
    e = &t[csp_trk_slot1(r)];
    if (__builtin_expect(e->req != MPI_REQUEST_NULL, 0)) {
        struct csp_trk *e2 = &t[csp_trk_slot2(r)];
        if (e2->req != MPI_REQUEST_NULL || (csp_u.ntrack + 1) * 4 > csp_u.trk_mask) {
            csp_route_track_slow(c, r);
            return;
        }
        e->disp++;
        e = e2;
    }
    e->req = r;
    e->flags = 0;
    e->comm = c;
    csp_u.ntrack++;
}

/* Direct receive d (csp_route_recv_on; NULL: not counted) was posted to
 * MPICH with result rc and request r: tracked, or (not posted) ended. */
static inline void csp_route_recv_posted(struct csp_comm *d, int rc, MPI_Request r)
{
    if (!d)
        return;
    CSP_LOCK();
    if (__builtin_expect(rc == MPI_SUCCESS && r != MPI_REQUEST_NULL, 1))
        csp_route_track(d, r);
    else
        csp_route_recv_end(d, 0);
    CSP_UNLOCK();
}

/* Did a receive that ended with code err take its message? Success or
 * truncation (an error class: an MPI call). */
int csp_route_consumed_slow(int err);
static inline int csp_route_consumed(int err)
{
    return err == MPI_SUCCESS || csp_route_consumed_slow(err);
}

/* A blocking direct receive or probe d (csp_route_recv_on; NULL: not
 * counted) returned rc; matched: a message was taken if rc says so. */
static inline void csp_route_recv_done(struct csp_comm *d, int rc, int matched)
{
    if (!d)
        return;
    CSP_LOCK();
    csp_route_recv_end(d, matched && csp_route_consumed(rc));
    CSP_UNLOCK();
}

#endif /* CASPERII_USER_ROUTE_H */
