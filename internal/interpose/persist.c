/*
 * persist.c: persistent requests and matched probes.
 *
 * On offloaded communicators both hand the application handles of ours
 * (persistent MPI_Request, MPI_Message), so MPI_Start, MPI_Startall,
 * MPI_Mrecv and MPI_Imrecv, which take no communicator, are wrapped too:
 * the fast path recognizes its handles and passes MPICH's own to PMPI.
 * Ready mode is a standard send on offloaded communicators (as in p2p.c);
 * large counts that do not fit an int cannot be offloaded. Persistent
 * requests are ours on every communicator the runtime knows, so that each
 * start takes the route of the moment (internal/user/persist.c); one too
 * large for ours is MPICH's, bound to the direct route, and keeps its
 * communicator there (csp_direct_pin).
 */
#include "interpose.h"

#include <limits.h>

#define FITS(n) ((n) >= INT_MIN && (n) <= INT_MAX)

int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    return csp_send_init(buf, count, dt, dest, tag, csp_ip_map(comm), req, 0);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *req)
{
    return csp_send_init(buf, count, dt, dest, tag, csp_ip_map(comm), req, 1);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *req)
{
    return csp_send_init(buf, count, dt, dest, tag, csp_ip_map(comm), req, CSP_SEND_BUFFERED);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *req)
{
    return csp_send_init(buf, count, dt, dest, tag, csp_ip_map(comm), req, CSP_SEND_READY);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    return csp_recv_init(buf, count, dt, src, tag, csp_ip_map(comm), req);
}

int MPI_Start(MPI_Request *req) { return csp_start(req); }

int MPI_Startall(int n, MPI_Request reqs[]) { return csp_startall(n, reqs); }

int MPI_Mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    CSP_IP_TIMED(csp_mprobe(src, tag, csp_ip_map(comm), msg, st));
}

int MPI_Improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st)
{
    CSP_IP_POLLED(csp_improbe(src, tag, csp_ip_map(comm), flag, msg, st));
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st)
{
    CSP_IP_TIMED(csp_mrecv(buf, count, dt, msg, st));
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    return csp_imrecv(buf, count, dt, msg, req);
}

/* ---- large-count variants ---- */

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c) && !FITS(count)) {
        csp_direct_pin(c);
        return PMPI_Send_init_c(buf, count, dt, dest, tag, c, req);
    }
    return csp_send_init(buf, count, dt, dest, tag, c, req, 0);
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c) && !FITS(count)) {
        csp_direct_pin(c);
        return PMPI_Ssend_init_c(buf, count, dt, dest, tag, c, req);
    }
    return csp_send_init(buf, count, dt, dest, tag, c, req, 1);
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c) && !FITS(count)) {
        csp_direct_pin(c);
        return PMPI_Bsend_init_c(buf, count, dt, dest, tag, c, req);
    }
    return csp_send_init(buf, count, dt, dest, tag, c, req, CSP_SEND_BUFFERED);
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c) && !FITS(count)) {
        csp_direct_pin(c);
        return PMPI_Rsend_init_c(buf, count, dt, dest, tag, c, req);
    }
    return csp_send_init(buf, count, dt, dest, tag, c, req, 0);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                    MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_offloaded(c) && !FITS(count)) {
        csp_direct_pin(c);
        return PMPI_Recv_init_c(buf, count, dt, src, tag, c, req);
    }
    return csp_recv_init(buf, count, dt, src, tag, c, req);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st)
{
    if (!csp_is_msg(*msg))
        return PMPI_Mrecv_c(buf, count, dt, msg, st);
    return csp_mrecv(buf, count, dt, msg, st);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    if (!csp_is_msg(*msg))
        return PMPI_Imrecv_c(buf, count, dt, msg, req);
    return csp_imrecv(buf, count, dt, msg, req);
}
