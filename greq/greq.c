#include "greq.h"

#include <stdlib.h>
#include <string.h>

struct csp_greq csp_greq;

#define CHUNK 256

struct csp_op *csp_op_alloc(void)
{
    struct csp_op *op = csp_greq.free;
    if (!op) {
        struct csp_op *chunk = calloc(CHUNK, sizeof(*chunk));
        if (!chunk)
            return NULL;
        for (int i = CHUNK - 1; i > 0; i--) {
            chunk[i].next = csp_greq.free;
            csp_greq.free = &chunk[i];
        }
        csp_greq.allocated += CHUNK;
        op = &chunk[0];
    } else {
        csp_greq.free = op->next;
    }
    memset(op, 0, sizeof(*op));
    op->req = MPI_REQUEST_NULL;
    csp_greq.live++;
    return op;
}

void csp_op_release(struct csp_op *op)
{
    op->state = CSP_OPS_FREE;
    op->next = csp_greq.free;
    csp_greq.free = op;
    csp_greq.live--;
}

static int grow(void)
{
    size_t cap = csp_greq.mask ? (csp_greq.mask + 1) * 2 : 1024;
    MPI_Request *keys = calloc(cap, sizeof(*keys));
    struct csp_op **vals = calloc(cap, sizeof(*vals));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    MPI_Request *ok = csp_greq.keys;
    struct csp_op **ov = csp_greq.vals;
    size_t ocap = csp_greq.mask ? csp_greq.mask + 1 : 0;
    csp_greq.keys = keys;
    csp_greq.vals = vals;
    csp_greq.mask = cap - 1;
    for (size_t i = 0; i < ocap; i++) {
        if (!ov[i])
            continue;
        size_t j = csp_greq_hash(ok[i]) & csp_greq.mask;
        while (vals[j])
            j = (j + 1) & csp_greq.mask;
        keys[j] = ok[i];
        vals[j] = ov[i];
    }
    free(ok);
    free(ov);
    return 0;
}

int csp_greq_put(MPI_Request r, struct csp_op *op)
{
    if ((csp_greq.used + 1) * 2 > (csp_greq.mask ? csp_greq.mask + 1 : 0) && grow() != 0)
        return -1;
    size_t i = csp_greq_hash(r) & csp_greq.mask;
    while (csp_greq.vals[i] && csp_greq.keys[i] != r)
        i = (i + 1) & csp_greq.mask;
    if (!csp_greq.vals[i])
        csp_greq.used++;
    csp_greq.keys[i] = r;
    csp_greq.vals[i] = op;
    return 0;
}

void csp_greq_forget(MPI_Request r)
{
    if (csp_greq.used == 0)
        return;
    size_t m = csp_greq.mask;
    size_t i = csp_greq_hash(r) & m;
    while (csp_greq.vals[i] && csp_greq.keys[i] != r)
        i = (i + 1) & m;
    if (!csp_greq.vals[i])
        return;
    /* backward-shift deletion keeps every probe chain unbroken */
    size_t j = i;
    for (;;) {
        csp_greq.vals[i] = NULL;
        for (;;) {
            j = (j + 1) & m;
            if (!csp_greq.vals[j]) {
                csp_greq.used--;
                return;
            }
            size_t home = csp_greq_hash(csp_greq.keys[j]) & m;
            /* move j back to i unless its home lies cyclically in (i, j] */
            if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
                break;
        }
        csp_greq.keys[i] = csp_greq.keys[j];
        csp_greq.vals[i] = csp_greq.vals[j];
        i = j;
    }
}

int csp_greq_start(struct csp_op *op, MPI_Request *req)
{
    int rc = PMPI_Grequest_start(csp_greq_query, csp_greq_free, csp_greq_cancel, op, req);
    if (rc != MPI_SUCCESS)
        return rc;
    op->req = *req;
    if (csp_greq_put(*req, op) != 0) {
        op->req = MPI_REQUEST_NULL;
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void csp_greq_fill_status(const struct csp_op *op, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    PMPI_Status_set_elements_x(status, MPI_BYTE, op->st_bytes);
    PMPI_Status_set_cancelled(status, op->st_cancelled);
    status->MPI_SOURCE = op->st_source;
    status->MPI_TAG = op->st_tag;
    status->MPI_ERROR = op->st_error;
}

int csp_greq_query(void *extra_state, MPI_Status *status)
{
    struct csp_op *op = extra_state;
    csp_greq_fill_status(op, status);
    return op->st_error;
}

int csp_greq_free(void *extra_state)
{
    struct csp_op *op = extra_state;
    if (op->freed && op->state != CSP_OPS_DONE) {
        /* MPI_Request_free of an unfinished operation: MPICH frees the
         * request (and calls us) at once, but the operation is still
         * running. The engine returns the record when it finishes. */
        op->req = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (!op->freed) /* MPI_Request_free already dropped the entry: the handle may be reused */
        csp_greq_forget(op->req);
    op->req = MPI_REQUEST_NULL;
    if (csp_greq.on_release)
        csp_greq.on_release(op);
    if (!op->persistent)
        csp_op_release(op);
    return MPI_SUCCESS;
}

int csp_greq_cancel(void *extra_state, int complete)
{
    /* The interposed MPI_Cancel forwards the cancellation to the ghost
     * before calling PMPI_Cancel; nothing is left to do here. */
    (void)extra_state;
    (void)complete;
    return MPI_SUCCESS;
}
