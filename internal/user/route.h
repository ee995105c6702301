/*
 * route.h: the route counters the fast path keeps (route.c states the
 * invariant a switch of route relies on), and what Go reads of them.
 */
#ifndef CASPERII_USER_ROUTE_H
#define CASPERII_USER_ROUTE_H

#include "user.h"
#include "op.h"

/* Counting, with csp_u.lock held (route.c states the invariant). */
struct csp_comm *csp_route_of(MPI_Comm comm); /* comm's entry if its route is direct */
void csp_route_recv_begin(struct csp_comm *c); /* pend_recv++, takes a reference */
void csp_route_recv_end(struct csp_comm *c, int matched); /* drops it */
void csp_route_track(struct csp_comm *c, MPI_Request r);  /* follow r to its end */
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

/* Count a send straight to MPICH on c's direct route (prof.c too), lock
 * held; c may be NULL or not direct: then nothing. Inline: every direct
 * post counts. */
static inline void csp_route_sent_on(struct csp_comm *c, int dest, int count, MPI_Datatype dt)
{
    if (c && c->algo == CSP_ALGO_OFF && dest != MPI_PROC_NULL) {
        c->sent++;
        csp_prof_sent(c, count, dt);
    }
}

/* A receive or blocking probe straight to MPICH on c's direct route:
 * counted as pending (route.c) until csp_direct_recv_posted/_end. */
static inline struct csp_comm *csp_route_recv_on(struct csp_comm *c, int src)
{
    if (!c || c->algo != CSP_ALGO_OFF || src == MPI_PROC_NULL)
        return NULL;
    csp_route_recv_begin(c);
    return c;
}

#endif /* CASPERII_USER_ROUTE_H */
