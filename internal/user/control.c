/*
 * control.c: control cells (cancel, segment, finalize, the RMA window's
 * attach and watch). A control cell
 * may use the cells kept back from the two classes (CSP_CTRL_CELLS), so a
 * cancel or an unmap goes out even when the backlogs are full; the caller
 * waits for the ghost's answer.
 */
#define _GNU_SOURCE
#include "control.h"
#include "block.h"
#include "complete.h"
#include "submit.h"

/* For control cells: keep backing off until csp_take_cell succeeds (the
 * re-check must not take the cell itself, so it only recycles). */
static int no_cell_yet(void *arg)
{
    (void)arg;
    csp_reclaim();
    return 0;
}

/* Has the ghost answered control cell *arg? */
static int cell_answered(void *arg) { return csp_cell_done(&csp_u.cells[*(const uint32_t *)arg]); }

static int control(uint8_t kind, uint32_t target, uint32_t target_gen, uint32_t seg, uint64_t off,
                   uint64_t nbytes, uint64_t *result)
{
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return MPI_ERR_NO_MEM;
    op->kind = kind;
    op->mode = CSP_MATCH_NATIVE;
    op->seg = seg;
    op->off = off;
    op->nbytes = nbytes;
    op->target = target;
    op->target_gen = target_gen;
    uint32_t idx;
    struct csp_backoff b = {0};
    while (!csp_take_cell(-1, &idx)) {
        if (csp_backoff(&b, no_cell_yet, NULL) < 0) {
            csp_op_release(op);
            return MPI_ERR_OTHER;
        }
    }
    csp_publish(op, idx);
    /* Wait as every offloaded wait does (block.c): where the ghost shares
     * the core at the lowest priority it runs only while this process
     * leaves it, so a wait that polls and yields (as this one did) lets it
     * run in the scheduler's scraps: the finalize cell's answer took 0-52
     * ms that way (an empty program, 2 users + 1 ghost on 2 cores), and so
     * could a cancel or an MPI_Free_mem's unmap. The ghost rings after
     * every cell it takes (dispatch.go), a control cell's included, and a
     * ghost that answered and then exited (it does after the last user's
     * MPI_Finalize) is told apart from a dead one by a last look at the
     * cell (csp_backoff's re-check). */
    b = (struct csp_backoff){0};
    int rc = MPI_SUCCESS;
    while (!cell_answered(&idx)) {
        int r = csp_backoff(&b, cell_answered, &idx);
        if (r > 0)
            break;
        if (r < 0) {
            rc = MPI_ERR_OTHER;
            break;
        }
    }
    if (rc == MPI_SUCCESS)
        rc = csp_u.cells[idx].st_error;
    if (rc == MPI_SUCCESS && result)
        *result = csp_u.cells[idx].st_bytes;
    csp_release_cell(idx, -1);
    csp_op_release(op);
    return rc;
}

int csp_control(uint8_t kind, uint32_t target, uint32_t target_gen)
{
    return csp_control_result(kind, target, target_gen, NULL);
}

int csp_control_result(uint8_t kind, uint32_t target, uint32_t target_gen, uint64_t *result)
{
    return control(kind, target, target_gen, CSP_SEG_NONE, 0, 0, result);
}

int csp_control_buf(uint8_t kind, uint32_t seg, uint64_t off, uint64_t nbytes)
{
    return control(kind, 0, 0, seg, off, nbytes, NULL);
}
