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
