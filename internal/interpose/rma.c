/*
 * rma.c: the RMA calls of the application, on redirected windows
 * (internal/user/rma.h) or straight to MPICH: synchronization and window
 * creation here; the operations (MPI_Put ... MPI_Rget_accumulate_c) are
 * generated from mpi.h into zz_wrappers.c by cmd/cspgen.
 *
 * A window not made by our MPI_Win_allocate or MPI_Win_allocate_shared
 * (memory.c: MPI_Win_create, dynamic windows, a shared window that could
 * not be registered, or any window while redirection is off) is not in the
 * table: one load (csp_rma.nwins) and the call goes to PMPI as is.
 * Fortran's `use mpi` and mpif.h bindings call these symbols (their
 * windows are redirected too); mpi_f08's call PMPI_* directly: a window
 * made through mpi_f08 is MPICH's own, consistently.
 */
#include "interpose.h"
#include "rma.h"

#include <stdio.h>

/* MPI_PROC_NULL as the target of a generated RMA operation
 * (zz_wrappers.c): nothing to do; a request-based call gets a request
 * that is complete (MPICH's answer too). */
CSP_IP_HIDDEN int csp_ip_rma_null_target(MPI_Request *req)
{
    if (req)
        *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* ---- synchronization ---- */

/* Each one's time counts as time in MPI in the self-profile, when that is
 * on (the windows' automatic choice, internal/user/rmaauto.c), on every
 * window: a target waiting in any of them is answering MPICH's epochs. A
 * passive-target one's time is also what the origin waits on w's path
 * (passive 1): an auto window compares its two paths by it. Fence and
 * PSCW are left out: they wait for the other members on either path. */
#define CSP_RMA_SYNC_TIMED(fn, proto, direct, redirected, passive)                                 \
    int fn proto                                                                                   \
    {                                                                                              \
        uint64_t t_ = csp_prof_begin();                                                            \
        struct csp_rma_win *w_ = csp_rma_find(win);                                                \
        int rc_ = w_ ? (redirected) : (direct);                                                    \
        if (passive)                                                                               \
            csp_rma_psync_end(w_, t_);                                                             \
        csp_prof_end_rma(t_);                                                                      \
        return rc_;                                                                                \
    }
#define CSP_RMA_SYNC(fn, proto, direct, redirected) CSP_RMA_SYNC_TIMED(fn, proto, direct, redirected, 0)
#define CSP_RMA_PSYNC(fn, proto, direct, redirected) CSP_RMA_SYNC_TIMED(fn, proto, direct, redirected, 1)

CSP_RMA_PSYNC(MPI_Win_lock, (int lock_type, int rank, int assert, MPI_Win win),
              PMPI_Win_lock(lock_type, rank, assert, win), csp_rma_lock(w_, lock_type, rank, assert))
CSP_RMA_PSYNC(MPI_Win_unlock, (int rank, MPI_Win win), PMPI_Win_unlock(rank, win), csp_rma_unlock(w_, rank))
CSP_RMA_PSYNC(MPI_Win_lock_all, (int assert, MPI_Win win), PMPI_Win_lock_all(assert, win),
              csp_rma_lock_all(w_, assert))
CSP_RMA_PSYNC(MPI_Win_unlock_all, (MPI_Win win), PMPI_Win_unlock_all(win), csp_rma_unlock_all(w_))
CSP_RMA_PSYNC(MPI_Win_flush, (int rank, MPI_Win win), PMPI_Win_flush(rank, win), csp_rma_flush(w_, rank, 0))
CSP_RMA_PSYNC(MPI_Win_flush_local, (int rank, MPI_Win win), PMPI_Win_flush_local(rank, win),
              csp_rma_flush(w_, rank, 1))
CSP_RMA_PSYNC(MPI_Win_flush_all, (MPI_Win win), PMPI_Win_flush_all(win), csp_rma_flush_all(w_, 0))
CSP_RMA_PSYNC(MPI_Win_flush_local_all, (MPI_Win win), PMPI_Win_flush_local_all(win),
              csp_rma_flush_all(w_, 1))
CSP_RMA_SYNC(MPI_Win_sync, (MPI_Win win), PMPI_Win_sync(win), csp_rma_sync(w_))
CSP_RMA_SYNC(MPI_Win_fence, (int assert, MPI_Win win), PMPI_Win_fence(assert, win),
             csp_rma_fence(w_, assert))
CSP_RMA_SYNC(MPI_Win_post, (MPI_Group group, int assert, MPI_Win win), PMPI_Win_post(group, assert, win),
             csp_rma_post(w_, group, assert))
CSP_RMA_SYNC(MPI_Win_start, (MPI_Group group, int assert, MPI_Win win), PMPI_Win_start(group, assert, win),
             csp_rma_start_epoch(w_, group, assert))
CSP_RMA_SYNC(MPI_Win_complete, (MPI_Win win), PMPI_Win_complete(win), csp_rma_complete(w_))
CSP_RMA_SYNC(MPI_Win_wait, (MPI_Win win), PMPI_Win_wait(win), csp_rma_wait(w_))
CSP_RMA_SYNC(MPI_Win_test, (MPI_Win win, int *flag), PMPI_Win_test(win, flag), csp_rma_test(w_, flag))
CSP_RMA_SYNC(MPI_Win_set_info, (MPI_Win win, MPI_Info info), PMPI_Win_set_info(win, info),
             csp_rma_set_info(w_, info))
CSP_RMA_SYNC(MPI_Win_get_info, (MPI_Win win, MPI_Info *info_used), PMPI_Win_get_info(win, info_used),
             csp_rma_get_info(w_, info_used))

/* ---- creation ---- */

static int win_allocate(MPI_Aint size, MPI_Aint disp_unit, int large, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    comm = CSP_IP_MAP(comm);
    int done = 0;
    int rc = csp_rma_allocate(size, disp_unit, large, info, comm, baseptr, win, &done);
    if (done)
        return csp_ip_win_made(rc);
    /* MPICH's window; then the hint the runtime refused, if any, through
     * comm's handler: the window exists (not redirected), as a
     * communicator with a bad hint does. */
    int rc2 = large ? PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win)
                    : PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
    if (rc2 != MPI_SUCCESS)
        return rc2;
    csp_ip_win_live(1);
    return csp_ip_raise(comm, rc);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    return win_allocate(size, disp_unit, 0, info, comm, baseptr, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win)
{
    return win_allocate(size, disp_unit, 1, info, comm, baseptr, win);
}

/* Windows the ghosts cannot map (memory of the application's, or none)
 * stay MPICH's: said once per process with CSP_VERBOSE=1. */
static void not_redirected(const char *fn)
{
    static int said;
    if (!csp_rma.on || csp_rma.verbose < 1 || said)
        return;
    said = 1;
    int rank = -1;
    PMPI_Comm_rank(csp_ip_world, &rank);
    fprintf(stderr,
            "casperii: rank %d: windows of %s are not redirected (the ghosts map only memory of "
            "MPI_Win_allocate and MPI_Win_allocate_shared): RMA on them progresses when the "
            "target calls MPI\n",
            rank, fn);
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    not_redirected("MPI_Win_create");
    return csp_ip_win_made(PMPI_Win_create(base, size, disp_unit, info, CSP_IP_MAP(comm), win));
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win)
{
    not_redirected("MPI_Win_create");
    return csp_ip_win_made(PMPI_Win_create_c(base, size, disp_unit, info, CSP_IP_MAP(comm), win));
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    not_redirected("MPI_Win_create_dynamic");
    return csp_ip_win_made(PMPI_Win_create_dynamic(info, CSP_IP_MAP(comm), win));
}
