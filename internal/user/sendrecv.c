/*
 * sendrecv.c: MPI_Sendrecv on any communicator. Direct: MPICH's (or two
 * requests waited for while lending the core or yielding it, coop.c). Offloaded: the
 * receive and the send posted through the ghost (post.c) and waited for
 * as MPI_Waitall does (wait.c). Counts are MPI_Counts (MPI_Sendrecv_c,
 * and MPI_Sendrecv_replace's packed copy of 2 GiB or more): beyond an int,
 * MPICH's _c calls and the runtime's (post.c).
 */
#include "user.h"
#include "route.h"

int csp_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    struct csp_comm *c, *d = NULL;
    CSP_LOCK();
    c = csp_comm_get(comm);
    if (!c || c->algo == CSP_ALGO_OFF) {
        csp_route_sent_on(c, dest, scount, stype);
        d = csp_route_recv_on(c, src);
    }
    CSP_UNLOCK();
    if (!c || c->algo == CSP_ALGO_OFF) {
        int rc;
        if (src != MPI_PROC_NULL && csp_coop_direct()) { /* coop.c; csp_recv: MPI_PROC_NULL */
            /* Two requests, not MPICH 4.0.2's MPI_Isendrecv: that one
             * completes with an empty status (conformance/progs/isendrecv). */
            MPI_Request r[2];
            MPI_Status sts[2];
            rc = CSP_PMPI_COUNTED(Irecv, rbuf, rcount, rtype, src, rtag, comm, &r[0]);
            if (rc == MPI_SUCCESS &&
                (rc = CSP_PMPI_COUNTED(Isend, sbuf, scount, stype, dest, stag, comm, &r[1])) != MPI_SUCCESS) {
                PMPI_Cancel(&r[0]);
                PMPI_Wait(&r[0], MPI_STATUS_IGNORE);
            } else if (rc == MPI_SUCCESS) {
                rc = csp_coop_waitall(2, r, sts);
                if (rc == MPI_ERR_IN_STATUS)
                    rc = sts[0].MPI_ERROR != MPI_SUCCESS ? sts[0].MPI_ERROR : sts[1].MPI_ERROR;
                if (st != MPI_STATUS_IGNORE) { /* the receive's; MPI_ERROR is the caller's */
                    int keep = st->MPI_ERROR;
                    *st = sts[0];
                    st->MPI_ERROR = keep;
                }
            }
        } else {
            rc = CSP_FITS_INT(scount) && CSP_FITS_INT(rcount)
                     ? PMPI_Sendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, src,
                                     rtag, comm, st)
                     : PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                                       comm, st);
        }
        csp_direct_recv_end(d, rc, 1);
        return rc;
    }
    MPI_Request r[2];
    int rc = csp_irecv_n(rbuf, rcount, rtype, src, rtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = csp_isend_n(sbuf, scount, stype, dest, stag, comm, &r[1], 0);
    if (rc != MPI_SUCCESS) {
        csp_cancel(&r[0]);
        csp_wait(&r[0], MPI_STATUS_IGNORE);
        return rc;
    }
    MPI_Status sts[2];
    int cause;
    rc = csp_waitall_unraised(2, r, sts, &cause);
    if (st != MPI_STATUS_IGNORE) { /* the receive's status; MPI_ERROR is the caller's */
        int keep = st->MPI_ERROR;
        *st = sts[0];
        st->MPI_ERROR = keep;
    }
    if (rc == MPI_ERR_IN_STATUS)
        rc = sts[0].MPI_ERROR != MPI_SUCCESS ? sts[0].MPI_ERROR : sts[1].MPI_ERROR;
    /* the failed half's error, on the communicator's handler as MPICH's */
    return cause != MPI_SUCCESS ? csp_raise_op(comm, rc, cause) : rc;
}
