/*
 * block.h: polite waiting (block.c).
 */
#ifndef CASPERII_USER_BLOCK_H
#define CASPERII_USER_BLOCK_H

#include "user.h"
#include "op.h"

static inline void csp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Sleep while *addr == val, at most timeout_us (FUTEX_WAIT). Returns 1
 * if the sleep ran out its timeout, else 0. */
int csp_futex_wait(uint32_t *addr, uint32_t val, long timeout_us);

/* The state of one polite wait (zero it to start). */
struct csp_backoff {
    uint32_t n;
    struct csp_op *op;   /* the operation waited for; NULL: anything      */
    struct csp_op *also; /* with op: one that must be done too to wake us */
    uint8_t timed_out;   /* the last sleep of this wait ran out its timeout */
};
/* One step of a polite wait: 1 if the re-check before a sleep found the
 * caller ready (ready is not to be called again), 0 to go on waiting, -1
 * if the ghost is gone. */
int csp_backoff(struct csp_backoff *b, int (*ready)(void *), void *arg);

/* Wait until ready(arg), politely; ready is called until it first
 * returns 1 and never after, so it may consume what it finds. Returns an
 * MPI error code (the ghost is gone). */
int csp_block_until(int (*ready)(void *), void *arg);
/* Make sure op is DONE, backing off politely. Returns an MPI error code. */
int csp_wait_op(struct csp_op *op);
/* csp_wait_op; if it sleeps, the ghost wakes it only once also is done
 * too (MPI_Waitall waits for both anyway). */
int csp_wait_op_also(struct csp_op *op, struct csp_op *also);
/* Wait until every operation has finished (MPI_Finalize). */
void csp_drain_all(void);

#endif /* CASPERII_USER_BLOCK_H */
