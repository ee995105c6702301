/*
 * idup.c: MPI_Comm_idup and MPI_Comm_idup_with_info stay nonblocking.
 *
 * Planning a communicator takes one Allreduce(BAND) over it. The duplicate
 * has the parent's members in the parent's order, so the reduction can run
 * over the parent, started at the call next to PMPI_Comm_idup (both are
 * nonblocking collectives on the parent, issued in the same order on every
 * member). The application gets a generalized request whose record polls
 * the two inner requests (a deferred operation, greq.h); when both are
 * done, the runtime decides the plan from the reduced words and installs
 * it, and only then does the request complete: the new communicator is
 * never used before its plan is in place.
 */
#include "interpose.h"

#include <stdlib.h>

struct idup {
    MPI_Request req[2]; /* PMPI_Comm_idup, PMPI_Iallreduce */
    MPI_Comm newcomm;
    uintptr_t plan;     /* the runtime's pending plan (a cgo handle) */
    int nwords;
    uint64_t *words;    /* [2 * nwords]: this member's proposal, then the reduction */
};

/* Called by the Wait/Test family with csp_u.lock held. */
static int idup_poll(struct csp_req *op)
{
    struct idup *d = op->ctx;
    for (int i = 0; i < 2; i++) {
        if (d->req[i] == MPI_REQUEST_NULL)
            continue;
        int flag = 0;
        int rc = PMPI_Test(&d->req[i], &flag, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && !flag)
            return 0;
        if (rc != MPI_SUCCESS && op->st_error == MPI_SUCCESS)
            op->st_error = rc;
        d->req[i] = MPI_REQUEST_NULL;
    }
    int code = csp_go_idup_decide(d->plan, op->st_error == MPI_SUCCESS ? (int)d->newcomm
                                                                        : (int)MPI_COMM_NULL,
                                  d->words ? d->words + d->nwords : NULL);
    if (code != MPI_SUCCESS && op->st_error == MPI_SUCCESS)
        op->st_error = csp_ip_raise(d->newcomm, code);
    op->st_source = MPI_ANY_SOURCE;
    op->st_tag = MPI_ANY_TAG;
    free(d->words);
    free(d);
    op->ctx = NULL;
    return 1;
}

static int idup(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request,
                int with_info)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_user)
        return with_info ? PMPI_Comm_idup_with_info(c, info, newcomm, request)
                         : PMPI_Comm_idup(c, newcomm, request);
    struct idup *d = calloc(1, sizeof(*d));
    if (!d)
        return csp_ip_raise(c, MPI_ERR_NO_MEM);
    d->req[0] = d->req[1] = MPI_REQUEST_NULL;
    int rc = csp_go_idup_propose((int)c, (int)info, &d->plan, &d->words, &d->nwords);
    if (rc != MPI_SUCCESS) {
        free(d);
        return csp_ip_raise(c, rc);
    }
    rc = with_info ? PMPI_Comm_idup_with_info(c, info, newcomm, &d->req[0])
                   : PMPI_Comm_idup(c, newcomm, &d->req[0]);
    if (rc == MPI_SUCCESS && d->nwords > 0)
        rc = PMPI_Iallreduce(d->words, d->words + d->nwords, d->nwords, MPI_UINT64_T, MPI_BAND, c,
                             &d->req[1]);
    if (rc == MPI_SUCCESS) {
        d->newcomm = *newcomm;
        /* a deferred operation: polled until done */
        if ((rc = csp_start_deferred(idup_poll, d, 1, request)) == MPI_SUCCESS) /* MPICH's alone */
            return MPI_SUCCESS;
    }
    /* Could not start: finish what was started, give the plan back. */
    for (int i = 0; i < 2; i++)
        if (d->req[i] != MPI_REQUEST_NULL)
            PMPI_Wait(&d->req[i], MPI_STATUS_IGNORE);
    csp_go_idup_decide(d->plan, (int)MPI_COMM_NULL, NULL);
    free(d->words);
    free(d);
    return csp_ip_raise(c, rc);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup(comm, MPI_INFO_NULL, newcomm, request, 0);
}

int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request)
{
    return idup(comm, info, newcomm, request, 1);
}
