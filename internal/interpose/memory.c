/*
 * memory.c: memory the ghost can map.
 *
 * MPI_Alloc_mem with shmbuf_regist=true in its info returns a block of the
 * shared heap; offloaded operations on it need no bounce copy.
 * MPI_Free_mem gives heap blocks back to the heap and anything else to MPI.
 *
 * MPI_Win_allocate_shared goes to the runtime (window.go) in a user: when
 * the window's info or its communicator's hints say shmbuf_regist=true,
 * the window's memory becomes memory the ghost can map, either MPI's shared
 * segment with a memfd put under it, or, where MPI would have used private
 * memory, heap memory under a window of MPI_Win_create that stands in for
 * MPI's (MPI_Win_get_attr reports it as MPI_WIN_FLAVOR_SHARED, and
 * MPI_Win_shared_query answers for it as MPICH for private memory).
 * Where the ghosts serve RMA windows (CSP_ASYNC_MODE rma), every shared
 * window is registered so, and then redirected (internal/user/rma.h).
 * MPI_Win_free hides the memfd from this process's lookups before MPI
 * unmaps it, and has the ghost unmap it and gives heap memory back once
 * MPI has freed the window.
 */
#include "interpose.h"
#include "rma.h"

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (csp_ip_user && info != MPI_INFO_NULL && size > 0) {
        int regist = 0;
        int rc = csp_go_alloc_regist((int)info, &regist);
        if (rc != MPI_SUCCESS)
            return csp_ip_raise(csp_ip_world, rc);
        if (regist) {
            void *p = csp_shared_alloc((size_t)size);
            if (!p)
                return csp_error(csp_ip_world, CSP_E_NOMEM);
            *(void **)baseptr = p;
            return MPI_SUCCESS;
        }
    }
    return PMPI_Alloc_mem(size, info, baseptr);
}

int MPI_Free_mem(void *base)
{
    if (csp_shared_free(base))
        return MPI_SUCCESS;
    return PMPI_Free_mem(base);
}

CSP_IP_HIDDEN int csp_ip_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, int large,
                                             MPI_Info info, MPI_Comm comm, void *baseptr,
                                             MPI_Win *win)
{
    if (large)
        return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
    return PMPI_Win_allocate_shared(size, (int)disp_unit, info, comm, baseptr, win);
}

/* The window's info is the caller's plus alloc_shm=true unless the caller
 * set that key: MPICH reports alloc_shm=true for the windows it allocates
 * and false for created ones, and MPI_Win_get_info must answer as for the
 * window it stands in for. (MPICH uses the key for nothing else.) */
CSP_IP_HIDDEN int csp_ip_win_create_shared(void *base, MPI_Aint size, MPI_Aint disp_unit, int large,
                                           MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    MPI_Info inf;
    int rc = info == MPI_INFO_NULL ? PMPI_Info_create(&inf) : PMPI_Info_dup(info, &inf);
    if (rc != MPI_SUCCESS)
        return rc;
    int len, set = 0;
    rc = PMPI_Info_get_valuelen(inf, "alloc_shm", &len, &set);
    if (rc == MPI_SUCCESS && !set)
        rc = PMPI_Info_set(inf, "alloc_shm", "true");
    if (rc == MPI_SUCCESS)
        rc = large ? PMPI_Win_create_c(base, size, disp_unit, inf, comm, win)
                   : PMPI_Win_create(base, size, (int)disp_unit, inf, comm, win);
    PMPI_Info_free(&inf);
    return rc;
}

static int win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, int large, MPI_Info info,
                               MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    MPI_Comm c = csp_ip_map(comm);
    if (!csp_ip_user)
        return csp_ip_win_made(
            csp_ip_win_allocate_shared(size, disp_unit, large, info, c, baseptr, win));
    /* Where the ghosts serve RMA windows, every shared window is registered
     * (not only with shmbuf_regist=true), so that it can be redirected
     * (rma.h), also one made with async_config=off, which MPI_Win_set_info
     * may switch on later. */
    int raise = 0, mappable = 0;
    int code = csp_go_win_allocate_shared(size, disp_unit, large, (int)info, (int)c, csp_rma.on,
                                          baseptr, (int *)win, &raise, &mappable);
    if (code == MPI_SUCCESS || raise)
        csp_ip_win_live(1); /* raise: the window exists, a hint failed */
    if (code == MPI_SUCCESS && mappable) {
        code = csp_rma_share(*(void **)baseptr, size, disp_unit, info, c, *win);
        raise = code != MPI_SUCCESS;
    }
    if (raise)
        PMPI_Win_call_errhandler(*win, code);
    return code;
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    return win_allocate_shared(size, disp_unit, 0, info, comm, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win)
{
    return win_allocate_shared(size, disp_unit, 1, info, comm, baseptr, win);
}

/* A registered window's memory outlives W's synchronization: this
 * process stops taking the range for registered memory first (so no
 * message of another thread can be sent from pages MPICH is about to
 * unmap), MPICH frees W (after which no origin has an operation on it in
 * flight, through a ghost or not), and only then the ghost lets go of it
 * and the heap gets its blocks back. */
int MPI_Win_free(MPI_Win *win)
{
    struct csp_rma_win *rw = win ? csp_rma_find(*win) : NULL;
    if (rw && !rw->shared)
        return csp_ip_win_freed(csp_rma_free(rw, win));
    if (!rw && (csp_ip_nwins == 0 || !win))
        return csp_ip_win_freed(PMPI_Win_free(win));
    /* (A redirected shared window may have no memory, so no registration.)
     * Records of W leave the tables before MPICH frees it, since under
     * MPI_THREAD_MULTIPLE a window made meanwhile may get its handle. */
    MPI_Win w = *win;
    uint64_t token = csp_go_win_freeing((int)w);
    if (rw) {
        int rc0 = csp_rma_unlist(rw);
        if (rc0 != MPI_SUCCESS) {
            csp_go_win_freed(token, 0);
            return rc0;
        }
    }
    int rc = PMPI_Win_free(win);
    csp_go_win_freed(token, rc == MPI_SUCCESS);
    if (rw)
        csp_rma_freed(rw, rc == MPI_SUCCESS);
    return csp_ip_win_freed(rc);
}

/* The creation flavor of a window that stands in for one of
 * MPI_Win_allocate_shared is MPI_WIN_FLAVOR_SHARED. */
static const int csp_flavor_shared = MPI_WIN_FLAVOR_SHARED;
/* A redirected window of MPI_Win_allocate (rma.h) is MPI_Win_allocate's,
 * over memory of ours (a redirected shared window is the registered one). */
static const int csp_flavor_allocate = MPI_WIN_FLAVOR_ALLOCATE;

int MPI_Win_get_attr(MPI_Win win, int keyval, void *val, int *flag)
{
    int rc = PMPI_Win_get_attr(win, keyval, val, flag);
    if (rc == MPI_SUCCESS && keyval == MPI_WIN_CREATE_FLAVOR && csp_ip_nwins > 0 && *flag &&
        csp_go_win_stands_in((int)win))
        *(const int **)val = &csp_flavor_shared;
    struct csp_rma_win *rw;
    if (rc == MPI_SUCCESS && keyval == MPI_WIN_CREATE_FLAVOR && *flag && (rw = csp_rma_find(win)) &&
        !rw->shared)
        *(const int **)val = &csp_flavor_allocate;
    return rc;
}

/* MPI_Win_shared_query of a stand-in: MPICH refuses the query on a window
 * it did not allocate as shared, so the answer is given here, as MPICH
 * gives it for a window of private memory: this process's part, for any
 * valid rank. Arguments are checked as MPICH checks them. */
static int stand_in_query(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                          void *baseptr)
{
    MPI_Group g;
    int n = 0;
    int rc = PMPI_Win_get_group(win, &g);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Group_size(g, &n);
    PMPI_Group_free(&g);
    int code = MPI_SUCCESS;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= n))
        code = MPI_ERR_RANK;
    else if (!size || !disp_unit || !baseptr)
        code = MPI_ERR_ARG;
    if (code != MPI_SUCCESS) {
        PMPI_Win_call_errhandler(win, code);
        return code;
    }
    MPI_Aint *sz;
    int *du, flag;
    void *base;
    PMPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    PMPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    PMPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    *size = *sz;
    *disp_unit = *du;
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    if (csp_ip_nwins == 0 || !csp_go_win_stands_in((int)win))
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    MPI_Aint du = 0;
    int rc = stand_in_query(win, rank, size, disp_unit ? &du : NULL, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)du;
    return rc;
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr)
{
    if (csp_ip_nwins == 0 || !csp_go_win_stands_in((int)win))
        return PMPI_Win_shared_query_c(win, rank, size, disp_unit, baseptr);
    return stand_in_query(win, rank, size, disp_unit, baseptr);
}
