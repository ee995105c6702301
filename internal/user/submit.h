/*
 * submit.h: publishing posts to the ghost, with back-pressure (submit.c).
 */
#ifndef CASPERII_USER_SUBMIT_H
#define CASPERII_USER_SUBMIT_H

#include "user.h"
#include "op.h"

/* Enter op into its class: a cell now, or the backlog. */
void csp_submit(struct csp_op *op);
/* Remove a held op from its backlog (cancellation). Returns 1 if found. */
int csp_unhold(struct csp_op *op);
/* Push held posts, oldest first, while their class has cells. */
void csp_push_held(void);
/* A free cell for class cls (cls < 0: control, may use the reserve);
 * returns 0 when there is none. */
int csp_take_cell(int cls, uint32_t *idx);
/* Load op's request line into cell idx (from csp_take_cell), publish it
 * and ring the ghost if it is parked. */
void csp_publish(struct csp_op *op, uint32_t idx);
/* Ring the ghost's doorbell if it is parked (coop.c: a lend). */
int csp_ring_doorbell(void);
/* Prefetch, for writing, what the next two posts store to. */
void csp_warm_posts(void);

#endif /* CASPERII_USER_SUBMIT_H */
