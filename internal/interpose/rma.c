/*
 * rma.c: the RMA calls of the application, on redirected windows
 * (internal/user/rma.h) or straight to MPICH.
 *
 * A window not made by our MPI_Win_allocate (MPI_Win_create, dynamic
 * windows, shared windows, or any window while redirection is off) is not
 * in the table: one load (csp_rma.nwins) and the call goes to PMPI as is.
 * Fortran's bindings call MPICH's internals, not these symbols: a Fortran
 * program's windows are MPICH's own, consistently.
 */
#include "interpose.h"
#include "rma.h"

#include <stdio.h>

/* An operation with one target datatype: translate, then call PMPI on the
 * ghost's window. ARGS_BEFORE/ARGS_AFTER surround the target rank and
 * displacement in the PMPI call. */
#define CSP_RMA_OP(fn, proto, tcount, ttype, pmpi_direct, pmpi_ghost)                             \
    int fn proto                                                                                   \
    {                                                                                              \
        struct csp_rma_win *w_ = csp_rma_find(win);                                                \
        if (!w_ || w_->direct)                                                                     \
            return pmpi_direct;                                                                    \
        int g_;                                                                                    \
        MPI_Aint gd_;                                                                              \
        int rc_ = csp_rma_target_of(w_, #fn, target_rank, target_disp, tcount, ttype, &g_, &gd_);  \
        if (rc_ == 1)                                                                              \
            return null_target(request_of_##fn);                                                   \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return rc_;                                                                            \
        return csp_rma_raise_rc(w_, #fn, pmpi_ghost);                                              \
    }

/* MPI_PROC_NULL as target: nothing to do; a request-based call gets a
 * request that is complete (MPICH's answer too). */
static int null_target(MPI_Request *req)
{
    if (req)
        *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
#define request_of_MPI_Put NULL
#define request_of_MPI_Get NULL
#define request_of_MPI_Accumulate NULL
#define request_of_MPI_Get_accumulate NULL
#define request_of_MPI_Fetch_and_op NULL
#define request_of_MPI_Compare_and_swap NULL
#define request_of_MPI_Put_c NULL
#define request_of_MPI_Get_c NULL
#define request_of_MPI_Accumulate_c NULL
#define request_of_MPI_Get_accumulate_c NULL
#define request_of_MPI_Rput request
#define request_of_MPI_Rget request
#define request_of_MPI_Raccumulate request
#define request_of_MPI_Rget_accumulate request
#define request_of_MPI_Rput_c request
#define request_of_MPI_Rget_c request
#define request_of_MPI_Raccumulate_c request
#define request_of_MPI_Rget_accumulate_c request

#define G csp_rma.gwin

CSP_RMA_OP(MPI_Put,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win),
           target_count, target_datatype,
           PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win),
           PMPI_Put(origin_addr, origin_count, origin_datatype, g_, gd_, target_count, target_datatype, G))

CSP_RMA_OP(MPI_Get,
           (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win),
           target_count, target_datatype,
           PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                    target_datatype, win),
           PMPI_Get(origin_addr, origin_count, origin_datatype, g_, gd_, target_count, target_datatype, G))

CSP_RMA_OP(MPI_Accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
            MPI_Win win),
           target_count, target_datatype,
           PMPI_Accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, op, win),
           PMPI_Accumulate(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                           target_datatype, op, G))

CSP_RMA_OP(MPI_Get_accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
            int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),
           target_count, target_datatype,
           PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                               result_datatype, target_rank, target_disp, target_count,
                               target_datatype, op, win),
           PMPI_Get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                               result_datatype, g_, gd_, target_count, target_datatype, op, G))

CSP_RMA_OP(MPI_Fetch_and_op,
           (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
            MPI_Aint target_disp, MPI_Op op, MPI_Win win),
           1, datatype,
           PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win),
           PMPI_Fetch_and_op(origin_addr, result_addr, datatype, g_, gd_, op, G))

CSP_RMA_OP(MPI_Compare_and_swap,
           (const void *origin_addr, const void *compare_addr, void *result_addr,
            MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win),
           1, datatype,
           PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                                 target_disp, win),
           PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype, g_, gd_, G))

CSP_RMA_OP(MPI_Rput,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rput(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request),
           PMPI_Rput(origin_addr, origin_count, origin_datatype, g_, gd_, target_count, target_datatype,
                     G, request))

CSP_RMA_OP(MPI_Rget,
           (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rget(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                     target_datatype, win, request),
           PMPI_Rget(origin_addr, origin_count, origin_datatype, g_, gd_, target_count, target_datatype,
                     G, request))

CSP_RMA_OP(MPI_Raccumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
            MPI_Win win, MPI_Request *request),
           target_count, target_datatype,
           PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                            target_count, target_datatype, op, win, request),
           PMPI_Raccumulate(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                            target_datatype, op, G, request))

CSP_RMA_OP(MPI_Rget_accumulate,
           (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr,
            int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
            MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                result_datatype, target_rank, target_disp, target_count,
                                target_datatype, op, win, request),
           PMPI_Rget_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                result_datatype, g_, gd_, target_count, target_datatype, op, G,
                                request))

/* The large-count twins. */

CSP_RMA_OP(MPI_Put_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Win win),
           target_count, target_datatype,
           PMPI_Put_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win),
           PMPI_Put_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                      target_datatype, G))

CSP_RMA_OP(MPI_Get_c,
           (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win),
           target_count, target_datatype,
           PMPI_Get_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, win),
           PMPI_Get_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                      target_datatype, G))

CSP_RMA_OP(MPI_Accumulate_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),
           target_count, target_datatype,
           PMPI_Accumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win),
           PMPI_Accumulate_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                             target_datatype, op, G))

CSP_RMA_OP(MPI_Get_accumulate_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win),
           target_count, target_datatype,
           PMPI_Get_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                 result_datatype, target_rank, target_disp, target_count,
                                 target_datatype, op, win),
           PMPI_Get_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                 result_datatype, g_, gd_, target_count, target_datatype, op, G))

CSP_RMA_OP(MPI_Rput_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rput_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, request),
           PMPI_Rput_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                       target_datatype, G, request))

CSP_RMA_OP(MPI_Rget_c,
           (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
            MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rget_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, request),
           PMPI_Rget_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                       target_datatype, G, request))

CSP_RMA_OP(MPI_Raccumulate_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request),
           target_count, target_datatype,
           PMPI_Raccumulate_c(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                              target_count, target_datatype, op, win, request),
           PMPI_Raccumulate_c(origin_addr, origin_count, origin_datatype, g_, gd_, target_count,
                              target_datatype, op, G, request))

CSP_RMA_OP(MPI_Rget_accumulate_c,
           (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
            void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
            MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request),
           target_count, target_datatype,
           PMPI_Rget_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr,
                                  result_count, result_datatype, target_rank, target_disp,
                                  target_count, target_datatype, op, win, request),
           PMPI_Rget_accumulate_c(origin_addr, origin_count, origin_datatype, result_addr,
                                  result_count, result_datatype, g_, gd_, target_count,
                                  target_datatype, op, G, request))

/* ---- synchronization ---- */

#define CSP_RMA_SYNC(fn, proto, direct, redirected)                                                \
    int fn proto                                                                                   \
    {                                                                                              \
        struct csp_rma_win *w_ = csp_rma_find(win);                                                \
        if (!w_)                                                                                   \
            return direct;                                                                         \
        return redirected;                                                                         \
    }

CSP_RMA_SYNC(MPI_Win_lock, (int lock_type, int rank, int assert, MPI_Win win),
             PMPI_Win_lock(lock_type, rank, assert, win), csp_rma_lock(w_, lock_type, rank, assert))
CSP_RMA_SYNC(MPI_Win_unlock, (int rank, MPI_Win win), PMPI_Win_unlock(rank, win), csp_rma_unlock(w_, rank))
CSP_RMA_SYNC(MPI_Win_lock_all, (int assert, MPI_Win win), PMPI_Win_lock_all(assert, win),
             csp_rma_lock_all(w_, assert))
CSP_RMA_SYNC(MPI_Win_unlock_all, (MPI_Win win), PMPI_Win_unlock_all(win), csp_rma_unlock_all(w_))
CSP_RMA_SYNC(MPI_Win_flush, (int rank, MPI_Win win), PMPI_Win_flush(rank, win), csp_rma_flush(w_, rank, 0))
CSP_RMA_SYNC(MPI_Win_flush_local, (int rank, MPI_Win win), PMPI_Win_flush_local(rank, win),
             csp_rma_flush(w_, rank, 1))
CSP_RMA_SYNC(MPI_Win_flush_all, (MPI_Win win), PMPI_Win_flush_all(win), csp_rma_flush_all(w_, 0))
CSP_RMA_SYNC(MPI_Win_flush_local_all, (MPI_Win win), PMPI_Win_flush_local_all(win),
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
        return rc;
    if (rc != MPI_SUCCESS)
        return csp_ip_raise(comm, rc);
    if (large)
        return PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr, win);
    return PMPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr, win);
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
            "MPI_Win_allocate): RMA on them progresses when the target calls MPI\n",
            rank, fn);
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    not_redirected("MPI_Win_create");
    return PMPI_Win_create(base, size, disp_unit, info, CSP_IP_MAP(comm), win);
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win)
{
    not_redirected("MPI_Win_create");
    return PMPI_Win_create_c(base, size, disp_unit, info, CSP_IP_MAP(comm), win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    not_redirected("MPI_Win_create_dynamic");
    return PMPI_Win_create_dynamic(info, CSP_IP_MAP(comm), win);
}
