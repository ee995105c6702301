/*
 * pump.h: the user side's background work (pump.c).
 */
#ifndef CASPERII_USER_PUMP_H
#define CASPERII_USER_PUMP_H

#include "user.h"
#include "op.h"

/* Recycle every finished cell and push held posts; see csp_pump. */
void csp_pump_slow(void);
/* Do the pending background work; one test when there is none. */
static inline void csp_pump(void)
{
    if (__builtin_expect((csp_u.nheld | csp_u.nfreed_pending | csp_u.pump_deferred |
                          csp_u.pump_unmap) != 0, 0))
        csp_pump_slow();
}
/* csp_pump for a caller that does not hold the lock, taken only when
 * posts are held or freed operations pending (one test otherwise): the
 * waits on MPICH (wait.c, coop.c) run without it. */
static inline void csp_pump_unlocked(void)
{
    if (__atomic_load_n(&csp_u.nheld, __ATOMIC_RELAXED) | csp_u.nfreed_pending) {
        CSP_LOCK();
        csp_pump();
        CSP_UNLOCK();
    }
}
/* Track a deferred operation whose request the application freed. */
void csp_defer_freed(struct csp_op *op);
/* Poll the freed deferred operations; returns how many are not done. */
int csp_poll_deferred(void);
/* Heap hook: a segment left the heap; the ghost will be told to unmap it. */
void csp_segment_removed(void *arg, uint32_t seg);
/* Has every operation finished (MPI_Finalize's drain)? Pushes held
 * posts, reclaims cells and polls deferred operations first. */
int csp_all_finished(void);

#endif /* CASPERII_USER_PUMP_H */
