/*
 * complete.c: completion of offloaded operations. The ghost completes a
 * cell (postcell.h); the user copies the result into the operation's
 * record, copies bounce data out to the application's buffer, translates
 * the status, and recycles the cell (csp_finish). csp_poll_op (complete.h)
 * is the check the Wait/Test family makes; csp_reclaim finishes every
 * cell that is done, for the posts that need cells (submit.c).
 */
#include "complete.h"
#include "dtype.h"
#include "route.h"

#include <stdlib.h>
#include <string.h>

static inline int is_recv_like(uint8_t kind)
{
    return kind == CSP_OP_RECV || kind == CSP_OP_MRECV || kind == CSP_OP_IPROBE ||
           kind == CSP_OP_PROBE || kind == CSP_OP_IMPROBE || kind == CSP_OP_MPROBE;
}

/* Unpack the first op->r.st_bytes bytes of a receive's bounce block into
 * the application's buffer (op->utype is not contiguous). A message may
 * end inside an element: MPI then fills the element's first bytes and
 * leaves the rest, so that element is completed with what the buffer holds
 * there now (packed first) and unpacked whole. */
static void unpack_bounce(struct csp_op *op)
{
    if (op->usize <= 0)
        return;
    MPI_Count whole = op->r.st_bytes / op->usize, part = op->r.st_bytes % op->usize;
    MPI_Count n = whole;
    /* From MPI_BOTTOM an element is only reachable as one of the first
     * whole + 1 (absolute addresses): pack them all, take the last. */
    int bottom = op->ubuf == MPI_BOTTOM;
    MPI_Count k = bottom ? whole + 1 : 1;
    char *tmp = part ? malloc((size_t)op->usize * (size_t)k) : NULL;
    MPI_Aint lb, ext;
    if (tmp && PMPI_Type_get_extent(op->utype, &lb, &ext) == MPI_SUCCESS) {
        MPI_Count pos = 0;
        const char *at = bottom ? MPI_BOTTOM : (char *)op->ubuf + (MPI_Aint)whole * ext;
        /* the part that did not arrive, as the element is in memory now */
        if (csp_pack(at, k, op->utype, tmp, op->usize * k, &pos) == MPI_SUCCESS) {
            memcpy((char *)op->bounce + op->r.st_bytes, tmp + (size_t)op->usize * (size_t)(k - 1) + part,
                   (size_t)(op->usize - part));
            n++; /* the bounce block holds ucount elements: room for it */
        }
    }
    free(tmp);
    MPI_Count pos = 0;
    csp_unpack(op->bounce, n * op->usize, &pos, op->ubuf, n, op->utype);
}

/* ends_in_element: do nbytes of op's noncontiguous type end inside one
 * of its basic elements (the whole elements in nbytes and in nbytes - 1
 * the same)? MPICH's unpack then fails the receive with MPI_ERR_TRUNCATE
 * and count 0 where the bounce block's unpack would take the bytes (an
 * erroneous program: three MPI_CHARs received as MPI_INTs of an indexed
 * type, MPICH's errors/pt2pt/truncmsg2). Its contiguous types take the
 * bytes, as op->contig's memcpy does. */
static int ends_in_element(const struct csp_op *op, MPI_Count nbytes)
{
    MPI_Status st;
    MPI_Count whole = 0, less = 0;
    if (PMPI_Status_set_elements_x(&st, MPI_BYTE, nbytes) != MPI_SUCCESS ||
        PMPI_Get_elements_x(&st, op->utype, &whole) != MPI_SUCCESS || whole == MPI_UNDEFINED)
        return 0;
    if (PMPI_Status_set_elements_x(&st, MPI_BYTE, nbytes - 1) != MPI_SUCCESS ||
        PMPI_Get_elements_x(&st, op->utype, &less) != MPI_SUCCESS)
        return 0;
    return whole == less;
}

/* Copy the result of op's finished cell into op, recycle the cell. */
void csp_finish(struct csp_op *op)
{
    const struct csp_cell *cell = &csp_u.cells[op->cell];
    struct csp_comm *c = op->comm;
    op->r.st_error = cell->st_error;
    op->r.st_cancelled = (cell->st_flags & CSP_ST_CANCELLED) != 0;
    op->st_found = (cell->st_flags & CSP_ST_FOUND) != 0;
    op->st_msg = cell->st_msg;
    op->r.st_bytes = (MPI_Count)cell->st_bytes;
    op->r.st_source = MPI_ANY_SOURCE;
    op->r.st_tag = MPI_ANY_TAG;
    int takes_data = op->kind == CSP_OP_RECV || op->kind == CSP_OP_MRECV;
    if (takes_data && op->r.st_bytes > (MPI_Count)op->nbytes)
        op->r.st_bytes = (MPI_Count)op->nbytes; /* the cell is shared memory: never trusted */
    /* A truncated receive took the part that fits: like MPICH's, it names
     * its message, and the buffer holds that part. */
    int matched = op->r.st_error == MPI_SUCCESS || (takes_data && op->r.st_error == MPI_ERR_TRUNCATE);
    if (is_recv_like(op->kind) && matched && !op->r.st_cancelled &&
        (op->kind != CSP_OP_IPROBE && op->kind != CSP_OP_IMPROBE ? 1 : op->st_found) && c) {
        const struct csp_tags *t = &csp_u.tags;
        int itag = cell->st_tag;
        op->r.st_tag = op->tag != MPI_ANY_TAG ? op->tag
                     : c->algo == CSP_ALGO_DUP ? itag
                                               : (int)((uint32_t)itag & t->user_mask);
        if (op->src != MPI_ANY_SOURCE) {
            op->r.st_source = op->src;
        } else {
            int soff = (int)(((uint32_t)itag >> t->src_shift) & t->off_mask);
            op->r.st_source = csp_comm_rank_of(c, cell->st_source, soff);
        }
        /* a message that fills the buffer ends at an element's end */
        if (op->bounce && takes_data && op->r.st_bytes > 0 && !op->contig &&
            op->r.st_bytes != (MPI_Count)op->nbytes && op->r.st_error == MPI_SUCCESS &&
            ends_in_element(op, op->r.st_bytes)) {
            op->r.st_error = MPI_ERR_TRUNCATE;
            op->r.st_bytes = 0;
        }
        if (op->bounce && takes_data && op->r.st_bytes > 0) {
            if (op->contig)
                memcpy((char *)op->ubuf + op->ulb, op->bounce, (size_t)op->r.st_bytes);
            else
                unpack_bounce(op);
        }
    }
    if (op->kind == CSP_OP_SEND || op->kind == CSP_OP_SSEND)
        op->r.st_bytes = 0; /* a send's status carries no count */
    if (op->bounce) {
        csp_heap_free(csp_u.heap, op->bounce);
        op->bounce = NULL;
    }
    csp_release_cell(op->cell, op->kind <= CSP_OP_MRECV ? csp_op_class(op->kind) : -1);
    op->r.state = CSP_OPS_DONE;
    if (c) {
        csp_route_op_done(op);
        op->comm = NULL;
        csp_comm_unref(c);
    }
    if (op->r.freed) { /* nobody will complete its handle */
        csp_u.nfreed_pending--;
        csp_op_release(op);
    }
}

/* Finish every operation whose cell is done (cells at or above the pool's
 * high-water mark never carried one). */
void csp_reclaim(void)
{
    for (uint32_t i = 0; i < csp_u.pool.fresh; i++) {
        struct csp_op *op = csp_u.cell_op[i];
        if (op && csp_cell_done(&csp_u.cells[i]) &&
            (op->kind <= CSP_OP_MRECV || op->kind == CSP_OP_SEGMENT))
            csp_finish(op);
    }
}

void csp_op_release(struct csp_op *op)
{
    if (op->utype_ref) {
        PMPI_Type_free(&op->utype);
        op->utype_ref = 0;
    }
    if (op->comm) {
        csp_comm_unref(op->comm);
        op->comm = NULL;
    }
    if (op->bounce) {
        csp_heap_free(csp_u.heap, op->bounce);
        op->bounce = NULL;
    }
    csp_req_release(&op->r);
}
