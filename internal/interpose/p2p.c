/*
 * p2p.c: point-to-point calls, on any communicator.
 *
 * Each maps MPI_COMM_WORLD and hands the call to the fast path (csp_*,
 * internal/user), which sends communicators that are not offloaded straight
 * to PMPI. Buffered and ready modes keep their own PMPI call on
 * communicators that are not offloaded. On offloaded ones, buffered mode
 * copies the message into the shared heap and completes locally (csp_bsend,
 * csp_ibsend), as buffered mode promises; ready mode travels as a standard
 * send, which satisfies every correct ready-mode program.
 *
 * Calls made straight to MPICH on a communicator the runtime knows keep
 * the direct route's counts (csp_direct_*, internal/user/route.c), which a
 * later change of route relies on.
 *
 * Large-count variants (_c) take the int path when the count fits an int.
 * A larger count on an offloaded communicator is posted by the ghost with
 * MPI's large-count calls (csp_*_c, internal/user/post.c; csp_sendrecv
 * takes MPI_Counts); on any other communicator it goes to PMPI.
 */
#include "interpose.h"

#include <limits.h>

#define FITS(n) ((n) >= INT_MIN && (n) <= INT_MAX)

/* ---- nonblocking ---- */

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    return csp_isend(buf, count, dt, dest, tag, csp_ip_map(comm), req, 0);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    return csp_isend(buf, count, dt, dest, tag, csp_ip_map(comm), req, 1);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    return csp_ibsend(buf, count, dt, dest, tag, csp_ip_map(comm), req);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (csp_ip_offloaded(c))
        return csp_isend(buf, count, dt, dest, tag, c, req, 0);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Irsend(buf, count, dt, dest, tag, c, req);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    return csp_irecv(buf, count, dt, src, tag, csp_ip_map(comm), req);
}

/* ---- blocking ---- */

CSP_IP_TIMED_FN(send_timed, (const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm c, int sync),
                csp_send(buf, count, dt, dest, tag, c, sync))

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    return CSP_IP_UNTIMED(csp_send(buf, count, dt, dest, tag, c, 0), send_timed(buf, count, dt, dest, tag, c, 0));
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    return CSP_IP_UNTIMED(csp_send(buf, count, dt, dest, tag, c, 1), send_timed(buf, count, dt, dest, tag, c, 1));
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return csp_bsend(buf, count, dt, dest, tag, csp_ip_map(comm));
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    if (csp_ip_offloaded(c))
        return csp_send(buf, count, dt, dest, tag, c, 0);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Rsend(buf, count, dt, dest, tag, c);
}

CSP_IP_TIMED_FN(recv_timed, (void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm c, MPI_Status *st),
                csp_recv(buf, count, dt, src, tag, c, st))

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    MPI_Comm c = csp_ip_map(comm);
    return CSP_IP_UNTIMED(csp_recv(buf, count, dt, src, tag, c, st), recv_timed(buf, count, dt, src, tag, c, st));
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    CSP_IP_TIMED(csp_sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                        csp_ip_map(comm), st));
}

/* Pack count elements of buf into a block of the shared heap (so the send
 * half needs no bounce copy). *tmp is NULL when there is nothing to send. */
CSP_IP_HIDDEN int csp_ip_pack_tmp(const void *buf, MPI_Count count, MPI_Datatype dt, MPI_Comm c,
                                  void **tmp, MPI_Count *bytes)
{
    MPI_Count size = 0;
    int rc;
    *tmp = NULL;
    *bytes = 0;
    if ((rc = PMPI_Pack_size_c(count, dt, MPI_COMM_SELF, &size)) != MPI_SUCCESS)
        return csp_ip_raise(c, rc);
    if (size == 0)
        return MPI_SUCCESS;
    *tmp = csp_shared_alloc((size_t)size);
    if (!*tmp)
        return csp_error(c, CSP_E_NOMEM);
    MPI_Count pos = 0;
    if ((rc = csp_pack(buf, count, dt, *tmp, size, &pos)) != MPI_SUCCESS) {
        csp_ip_free_tmp(*tmp);
        *tmp = NULL;
        return csp_ip_raise(c, rc);
    }
    *bytes = pos;
    return MPI_SUCCESS;
}

CSP_IP_HIDDEN void csp_ip_free_tmp(void *tmp) { csp_shared_free(tmp); }

/* Sendrecv_replace on the mapped communicator c. Offloaded: the send half
 * leaves from a packed copy, so the receive may land in buf at once. */
static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag, int src,
                            int rtag, MPI_Comm c, MPI_Status *st)
{
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        struct csp_comm *d = csp_direct_recv(c, src);
        int rc = FITS(count) ? PMPI_Sendrecv_replace(buf, (int)count, dt, dest, stag, src, rtag, c, st)
                             : PMPI_Sendrecv_replace_c(buf, count, dt, dest, stag, src, rtag, c, st);
        csp_direct_recv_end(d, rc, 1);
        return rc;
    }
    void *tmp;
    MPI_Count bytes;
    int rc;
    if ((rc = csp_ip_pack_tmp(buf, count, dt, c, &tmp, &bytes)) != MPI_SUCCESS)
        return rc;
    rc = csp_sendrecv(tmp, bytes, MPI_PACKED, dest, stag, buf, count, dt, src, rtag, c, st);
    csp_ip_free_tmp(tmp);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *st)
{
    CSP_IP_TIMED(sendrecv_replace(buf, count, dt, dest, stag, src, rtag, csp_ip_map(comm), st));
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    CSP_IP_TIMED(csp_probe(src, tag, csp_ip_map(comm), st));
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
    CSP_IP_POLLED(csp_iprobe(src, tag, csp_ip_map(comm), flag, st));
}

/* ---- large counts ---- */

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_isend(buf, (int)count, dt, dest, tag, c, req, 0);
    if (csp_ip_offloaded(c))
        return csp_isend_c(buf, count, dt, dest, tag, c, req, 0);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Isend_c(buf, count, dt, dest, tag, c, req);
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_isend(buf, (int)count, dt, dest, tag, c, req, 1);
    if (csp_ip_offloaded(c))
        return csp_isend_c(buf, count, dt, dest, tag, c, req, 1);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Issend_c(buf, count, dt, dest, tag, c, req);
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        return PMPI_Ibsend_c(buf, count, dt, dest, tag, c, req);
    }
    return csp_ibsend(buf, count, dt, dest, tag, c, req);
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        return PMPI_Irsend_c(buf, count, dt, dest, tag, c, req);
    }
    return FITS(count) ? csp_isend(buf, (int)count, dt, dest, tag, c, req, 0)
                       : csp_isend_c(buf, count, dt, dest, tag, c, req, 0);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_irecv(buf, (int)count, dt, src, tag, c, req);
    if (csp_ip_offloaded(c))
        return csp_irecv_c(buf, count, dt, src, tag, c, req);
    struct csp_comm *d = csp_direct_recv(c, src);
    int rc = PMPI_Irecv_c(buf, count, dt, src, tag, c, req);
    csp_direct_recv_posted(d, rc, *req);
    return rc;
}

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_send(buf, (int)count, dt, dest, tag, c, 0);
    if (csp_ip_offloaded(c))
        return csp_send_c(buf, count, dt, dest, tag, c, 0);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Send_c(buf, count, dt, dest, tag, c);
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_send(buf, (int)count, dt, dest, tag, c, 1);
    if (csp_ip_offloaded(c))
        return csp_send_c(buf, count, dt, dest, tag, c, 1);
    csp_direct_send(c, dest, count, dt);
    return PMPI_Ssend_c(buf, count, dt, dest, tag, c);
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        return PMPI_Bsend_c(buf, count, dt, dest, tag, c);
    }
    return csp_bsend(buf, count, dt, dest, tag, c);
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        return PMPI_Rsend_c(buf, count, dt, dest, tag, c);
    }
    return FITS(count) ? csp_send(buf, (int)count, dt, dest, tag, c, 0)
                       : csp_send_c(buf, count, dt, dest, tag, c, 0);
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Status *st)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(count))
        return csp_recv(buf, (int)count, dt, src, tag, c, st);
    if (csp_ip_offloaded(c))
        return csp_recv_c(buf, count, dt, src, tag, c, st);
    struct csp_comm *d = csp_direct_recv(c, src);
    int rc = PMPI_Recv_c(buf, count, dt, src, tag, c, st);
    csp_direct_recv_end(d, rc, 1);
    return rc;
}

int MPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src, int rtag,
                   MPI_Comm comm, MPI_Status *st)
{
    return csp_sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                        csp_ip_map(comm), st);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                           int src, int rtag, MPI_Comm comm, MPI_Status *st)
{
    return sendrecv_replace(buf, count, dt, dest, stag, src, rtag, csp_ip_map(comm), st);
}
