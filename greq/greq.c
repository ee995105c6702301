#include "greq.h"
#include "postcell.h"

#include <stdlib.h>

struct csp_greq csp_greq;

int csp_op_grow(void)
{
    uint32_t n = csp_greq.nchunks;
    if ((uint64_t)(n + 1) * CSP_OPS_PER_CHUNK > CSP_REQ_MAX)
        return -1;
    struct csp_op **chunks = realloc(csp_greq.chunk, sizeof(*chunks) * (n + 1));
    if (!chunks)
        return -1;
    csp_greq.chunk = chunks;
    struct csp_op *c = calloc(CSP_OPS_PER_CHUNK, sizeof(*c));
    if (!c)
        return -1;
    chunks[n] = c;
    csp_greq.nchunks = n + 1;
    for (int i = (int)CSP_OPS_PER_CHUNK - 1; i >= 0; i--) {
        c[i].index = n * CSP_OPS_PER_CHUNK + (uint32_t)i;
        c[i].req = MPI_REQUEST_NULL;
        c[i].next = csp_greq.free;
        csp_greq.free = &c[i];
    }
    csp_greq.allocated += CSP_OPS_PER_CHUNK;
    return 0;
}

void csp_op_release(struct csp_op *op)
{
    if (csp_greq.on_release)
        csp_greq.on_release(op);
    if (op->req != MPI_REQUEST_NULL)
        csp_greq.handles--;
    op->req = MPI_REQUEST_NULL;
    op->state = CSP_OPS_FREE;
    op->next = csp_greq.free;
    csp_greq.free = op;
    csp_greq.live--;
}

void csp_empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
}

void csp_req_fill_status(const struct csp_op *op, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    PMPI_Status_set_cancelled(status, op->st_cancelled);
    if (op->kind == CSP_OP_SEND || op->kind == CSP_OP_SSEND)
        return;
    PMPI_Status_set_elements_x(status, MPI_BYTE, op->st_bytes);
    status->MPI_SOURCE = op->st_source;
    status->MPI_TAG = op->st_tag;
}

int csp_req_complete(struct csp_op *op, MPI_Request *req, MPI_Status *st)
{
    csp_req_fill_status(op, st);
    int err = op->st_error;
    *req = MPI_REQUEST_NULL;
    csp_op_release(op);
    return err;
}
