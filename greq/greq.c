/* greq.c: the records' chunks, their return, and statuses (greq.h). */
#include "greq.h"

#include <stdlib.h>

struct csp_greq csp_greq;

int csp_req_grow(size_t size)
{
    if (csp_greq.size && csp_greq.size != size)
        return -1;
    uint32_t n = csp_greq.nchunks;
    if ((uint64_t)(n + 1) * CSP_OPS_PER_CHUNK > CSP_REQ_MAX)
        return -1;
    char **chunks = realloc(csp_greq.chunk, sizeof(*chunks) * (n + 1));
    if (!chunks)
        return -1;
    csp_greq.chunk = chunks;
    char *c = calloc(CSP_OPS_PER_CHUNK, size);
    if (!c)
        return -1;
    chunks[n] = c;
    csp_greq.nchunks = n + 1;
    csp_greq.size = size;
    for (int i = (int)CSP_OPS_PER_CHUNK - 1; i >= 0; i--) {
        struct csp_req *r = (struct csp_req *)(c + (size_t)i * size);
        r->index = n * CSP_OPS_PER_CHUNK + (uint32_t)i;
        r->req = MPI_REQUEST_NULL;
        r->next = csp_greq.free;
        csp_greq.free = r;
    }
    csp_greq.allocated += CSP_OPS_PER_CHUNK;
    return 0;
}

void csp_req_release(struct csp_req *r)
{
    if (r->req != MPI_REQUEST_NULL)
        csp_greq.handles--;
    r->req = MPI_REQUEST_NULL;
    r->state = CSP_OPS_FREE;
    r->next = csp_greq.free;
    csp_greq.free = r;
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

void csp_req_fill_status(const struct csp_req *r, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    PMPI_Status_set_cancelled(status, r->st_cancelled);
    if (r->send)
        return;
    PMPI_Status_set_elements_x(status, MPI_BYTE, r->st_bytes);
    status->MPI_SOURCE = r->st_source;
    status->MPI_TAG = r->st_tag;
}

int csp_req_result(struct csp_req *r, MPI_Request *req, MPI_Status *st)
{
    csp_req_fill_status(r, st);
    *req = MPI_REQUEST_NULL;
    return r->st_error;
}
