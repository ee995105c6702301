/*
 * isendrecv.c: MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0).
 *
 * On an offloaded communicator both halves must travel through the ghost
 * like every other message of that communicator (a half sent by PMPI would
 * never meet a receive posted through the ghost). The application gets one
 * generalized request whose record polls the two inner requests (a
 * deferred operation, greq.h): it completes when both have, with the
 * receive's status.
 */
#include "interpose.h"

#include <limits.h>
#include <stdlib.h>

#define FITS(n) ((n) >= INT_MIN && (n) <= INT_MAX)

struct pair {
    MPI_Request req[2]; /* receive, send */
    MPI_Status st[2];
    int err[2];
    void *tmp; /* packed copy sent by Isendrecv_replace, in the shared heap */
};

/* Called by the Wait/Test family with csp_u.lock held. */
static int pair_poll(struct csp_req *op)
{
    struct pair *p = op->ctx;
    for (int i = 0; i < 2; i++) {
        if (p->req[i] == MPI_REQUEST_NULL)
            continue;
        int flag = 0;
        p->err[i] = csp_test_inner(&p->req[i], &flag, &p->st[i]);
        if (!flag && p->err[i] == MPI_SUCCESS)
            return 0;
        p->req[i] = MPI_REQUEST_NULL;
    }
    MPI_Count bytes = 0;
    int canc = 0;
    PMPI_Get_elements_x(&p->st[0], MPI_BYTE, &bytes);
    PMPI_Test_cancelled(&p->st[0], &canc);
    op->st_source = p->st[0].MPI_SOURCE;
    op->st_tag = p->st[0].MPI_TAG;
    op->st_bytes = bytes;
    op->st_cancelled = canc;
    op->st_error = p->err[0] != MPI_SUCCESS ? p->err[0] : p->err[1];
    csp_shared_free_locked(p->tmp);
    free(p);
    op->ctx = NULL;
    return 1;
}

/* Post both halves on the offloaded communicator c and bind them to one
 * request. tmp (may be NULL) is freed when the pair completes or fails. */
static int post_pair(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm c,
                     MPI_Request *req, void *tmp)
{
    struct pair *p = calloc(1, sizeof(*p));
    if (!p) {
        csp_ip_free_tmp(tmp);
        return csp_error(c, CSP_E_NOMEM);
    }
    p->tmp = tmp;
    p->req[0] = p->req[1] = MPI_REQUEST_NULL;
    int rc = csp_irecv_n(rbuf, rcount, rtype, src, rtag, c, &p->req[0]);
    if (rc == MPI_SUCCESS)
        rc = csp_isend_n(sbuf, scount, stype, dest, stag, c, &p->req[1], 0);
    if (rc == MPI_SUCCESS) {
        /* A deferred operation: no cell; the Wait/Test family polls it
         * (MPI_Cancel has nothing to forward to the ghost for it). */
        if (csp_start_deferred(pair_poll, p, 0, req) == MPI_SUCCESS) /* halves the ghost rings for */
            return MPI_SUCCESS;
        rc = csp_error(c, CSP_E_NOMEM);
    }
    if (p->req[0] != MPI_REQUEST_NULL) {
        csp_cancel(&p->req[0]);
        csp_wait(&p->req[0], MPI_STATUS_IGNORE);
    }
    if (p->req[1] != MPI_REQUEST_NULL)
        csp_wait(&p->req[1], MPI_STATUS_IGNORE);
    csp_ip_free_tmp(p->tmp);
    free(p);
    return rc;
}

static int isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                     void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm c,
                     MPI_Request *req)
{
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, scount, stype);
        struct csp_comm *d = csp_direct_recv(c, src);
        int rc = PMPI_Isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, c,
                                req);
        csp_direct_recv_posted(d, rc, *req);
        return rc;
    }
    return post_pair(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, c, req,
                     NULL);
}

static int isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag, int src,
                             int rtag, MPI_Comm c, MPI_Request *req)
{
    if (!csp_ip_offloaded(c)) {
        csp_direct_send(c, dest, count, dt);
        struct csp_comm *d = csp_direct_recv(c, src);
        int rc = FITS(count) ? PMPI_Isendrecv_replace(buf, (int)count, dt, dest, stag, src, rtag, c, req)
                             : PMPI_Isendrecv_replace_c(buf, count, dt, dest, stag, src, rtag, c, req);
        csp_direct_recv_posted(d, rc, *req);
        return rc;
    }
    void *tmp;
    MPI_Count bytes;
    int rc = csp_ip_pack_tmp(buf, count, dt, c, &tmp, &bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    return post_pair(tmp, bytes, MPI_PACKED, dest, stag, buf, count, dt, src, rtag, c, req, tmp);
}

int MPI_Isendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                  MPI_Request *req)
{
    return isendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag,
                     csp_ip_map(comm), req);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int stag, int src,
                          int rtag, MPI_Comm comm, MPI_Request *req)
{
    return isendrecv_replace(buf, count, dt, dest, stag, src, rtag, csp_ip_map(comm), req);
}

int MPI_Isendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest, int stag,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int src, int rtag,
                    MPI_Comm comm, MPI_Request *req)
{
    MPI_Comm c = csp_ip_map(comm);
    if (FITS(scount) && FITS(rcount))
        return isendrecv(sbuf, (int)scount, stype, dest, stag, rbuf, (int)rcount, rtype, src,
                         rtag, c, req);
    if (csp_ip_offloaded(c))
        return post_pair(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, c, req, NULL);
    csp_direct_send(c, dest, scount, stype);
    struct csp_comm *d = csp_direct_recv(c, src);
    int rc = PMPI_Isendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, c,
                              req);
    csp_direct_recv_posted(d, rc, *req);
    return rc;
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                            int src, int rtag, MPI_Comm comm, MPI_Request *req)
{
    return isendrecv_replace(buf, count, dt, dest, stag, src, rtag, csp_ip_map(comm), req);
}
