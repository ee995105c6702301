/*
 * switch.c: what the runtime's switch of route (internal/core/switch.go,
 * through route.go) reads and does on the user side: the route counters
 * of an entry (route.c), their sum over the communicator, the watch on
 * its collectives (counted per family, so that only a collective at which
 * an evaluation is due calls the runtime), and the self-profile's traffic
 * per entry (prof.c).
 */
#include "user.h"
#include "route.h"


/* The counts of comm's current entry (route.c), under the caller's lock. */
int csp_route_counts(MPI_Comm comm, int64_t out[3])
{
    struct csp_comm *c = csp_comm_get(comm);
    if (!c)
        return -1;
    csp_pprobe_settle(c); /* a polled probe is not the application's: pprobe.c */
    out[0] = c->sent - c->matched;
    out[1] = c->pend_recv;
    out[2] = c->stuck;
    return 0;
}

/* Look at (or stop looking at) the collectives on comm's entry, counting
 * them in its family's count fam. */
void csp_route_watch(MPI_Comm comm, int on, struct csp_fam *fam)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    if (c) {
        c->fam = on ? fam : NULL;
        if ((c->watch != 0) != (on != 0)) {
            c->watch = (uint8_t)(on != 0);
            if (on)
                csp_u.nwatch++;
            else
                csp_u.nwatch--;
        }
    }
    CSP_UNLOCK();
}

/* Messages and bytes sent on comm's entry since the last call (prof.c). */
void csp_route_take_sent(MPI_Comm comm, uint64_t *msgs, uint64_t *bytes)
{
    struct csp_comm *c = csp_comm_get(comm);
    *msgs = c ? c->ep_msgs : 0;
    *bytes = c ? c->ep_bytes : 0;
    if (c)
        c->ep_msgs = c->ep_bytes = 0;
}

/* Sum n int64 over comm. Under MPI_THREAD_MULTIPLE the caller holds the
 * lock (no post may slip in): a blocking Allreduce. Otherwise agree.c's
 * point-to-point sum, waited for as MPICH's other requests are (coop.c:
 * lending the core to a ghost that has work). */
int csp_route_sum(MPI_Comm comm, int64_t *in, int64_t *out, int n)
{
    if (csp_u.multiple)
        return PMPI_Allreduce(in, out, n, MPI_INT64_T, MPI_SUM, comm);
    return csp_agree_sum(comm, in, out, n);
}

/* This member's counts of comm's entry into in[at..at+2] (unmatched,
 * pending, stuck; stuck where it has none), then in[0..n) summed over comm
 * into out: MPI_Comm_set_info's agreement (internal/core/switch.go) in one
 * call from Go. Under the caller's lock, as csp_route_sum. */
int csp_route_count_sum(MPI_Comm comm, int64_t *in, int64_t *out, int n, int at)
{
    if (csp_route_counts(comm, in + at) != 0) {
        in[at] = in[at + 1] = 0;
        in[at + 2] = 1;
    }
    return csp_route_sum(comm, in, out, n);
}
