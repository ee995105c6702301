/*
 * memory.c: memory the ghost can map.
 *
 * MPI_Alloc_mem with shmbuf_regist=true in its info returns a block of the
 * shared heap; offloaded operations on it need no bounce copy.
 * MPI_Free_mem gives heap blocks back to the heap and anything else to MPI.
 *
 * MPI_Win_allocate_shared lets MPI allocate the window, then, when the
 * window's info or its communicator's hints say shmbuf_regist=true, the
 * runtime (window.go) puts a memfd under the window's memory and registers
 * it with the heap; MPI_Win_free unregisters it before MPI unmaps.
 */
#include "interpose.h"

int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (csp_ip_user && info != MPI_INFO_NULL && size > 0) {
        int regist = 0;
        int rc = csp_go_alloc_regist((int)info, &regist);
        if (rc != MPI_SUCCESS)
            return csp_ip_raise(csp_ip_world, rc);
        if (regist) {
            CSP_LOCK();
            void *p = csp_heap_alloc(csp_u.heap, (size_t)size);
            CSP_UNLOCK();
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
    if (base && csp_u.heap) {
        CSP_LOCK();
        int mine = csp_heap_block_size(csp_u.heap, base) > 0 && csp_heap_free(csp_u.heap, base) == 0;
        CSP_UNLOCK();
        if (mine)
            return MPI_SUCCESS;
    }
    return PMPI_Free_mem(base);
}

/* After PMPI created *win over the mapped communicator c. */
static int win_allocated(int rc, MPI_Comm c, MPI_Info info, MPI_Win *win)
{
    if (rc != MPI_SUCCESS || !csp_ip_user)
        return rc;
    int code = csp_go_win_allocated((int)*win, (int)c, (int)info);
    if (code != MPI_SUCCESS)
        PMPI_Win_call_errhandler(*win, code);
    return code;
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    MPI_Comm c = csp_ip_map(comm);
    return win_allocated(PMPI_Win_allocate_shared(size, disp_unit, info, c, baseptr, win), c,
                         info, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win)
{
    MPI_Comm c = csp_ip_map(comm);
    return win_allocated(PMPI_Win_allocate_shared_c(size, disp_unit, info, c, baseptr, win), c,
                         info, win);
}

int MPI_Win_free(MPI_Win *win)
{
    if (csp_ip_nwins > 0 && win) {
        int code = csp_go_win_freeing((int)*win);
        if (code != MPI_SUCCESS) {
            PMPI_Win_call_errhandler(*win, code);
            return code;
        }
    }
    return PMPI_Win_free(win);
}

CSP_IP_HIDDEN int csp_ip_heap_add_external(int fd, void *base, uint64_t size)
{
    CSP_LOCK();
    int rc = csp_heap_add_external(csp_u.heap, fd, base, size);
    CSP_UNLOCK();
    return rc;
}

CSP_IP_HIDDEN int csp_ip_heap_remove_external(uint32_t seg)
{
    CSP_LOCK();
    int rc = csp_heap_remove_external(csp_u.heap, seg);
    if (rc == 0 && csp_u.on)
        csp_control(CSP_OP_SEGMENT, seg, 0); /* the ghost unmaps it now */
    CSP_UNLOCK();
    return rc;
}
