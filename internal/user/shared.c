/*
 * shared.c: the shared heap (internal/heap) as the interposer and Go use
 * it, under the fast path's lock: blocks for MPI_Alloc_mem and shared
 * windows, packed copies, and external segments, whose removal the ghost
 * hears of at once (a control cell, control.c).
 */
#include "user.h"
#include "control.h"

void *csp_shared_alloc(size_t n)
{
    if (!csp_u.heap || n == 0)
        return NULL;
    CSP_LOCK();
    void *p = csp_heap_alloc(csp_u.heap, n);
    CSP_UNLOCK();
    return p;
}

int csp_shared_free_locked(void *p)
{
    if (!p || !csp_u.heap)
        return 0;
    return csp_heap_block_size(csp_u.heap, p) > 0 && csp_heap_free(csp_u.heap, p) == 0;
}

int csp_shared_free(void *p)
{
    if (!p || !csp_u.heap)
        return 0;
    CSP_LOCK();
    int mine = csp_shared_free_locked(p);
    CSP_UNLOCK();
    return mine;
}

int csp_shared_add_external(int fd, void *base, uint64_t size)
{
    CSP_LOCK();
    int rc = csp_heap_add_external(csp_u.heap, fd, base, size);
    CSP_UNLOCK();
    return rc;
}

int csp_shared_remove_external(uint32_t seg)
{
    CSP_LOCK();
    int rc = csp_heap_remove_external(csp_u.heap, seg);
    if (rc == 0 && csp_u.on)
        csp_control(CSP_OP_SEGMENT, seg, 0); /* the ghost unmaps it now */
    CSP_UNLOCK();
    return rc;
}

int csp_shared_hide_external(uint32_t seg, int hide)
{
    CSP_LOCK();
    int rc = csp_heap_hide_external(csp_u.heap, seg, hide);
    CSP_UNLOCK();
    return rc;
}
