/*
 * persist.h: persistent requests, as the Wait/Test family and the waits
 * see them (persist.c).
 */
#ifndef CASPERII_USER_PERSIST_H
#define CASPERII_USER_PERSIST_H

#include "user.h"
#include "op.h"

/* A record of a persistent request started on the direct route
 * (persist.c): deferred, polling MPICH's request. */
#define CSP_OPF_DIRECT 0x8000u /* in csp_op.flags; never in a cell */
int csp_direct_op_wait(struct csp_op *op);
int csp_direct_op_cancel(struct csp_op *op);

/* Persistent requests, for the Wait/Test family (persist.c). */
struct csp_preq;
struct csp_preq *csp_preq_of(MPI_Request r);
/* 1 if p has nothing pending (inactive, or its operation is done). */
int csp_preq_poll(struct csp_preq *p);
/* Wait for p's operation (if active). */
int csp_preq_wait(struct csp_preq *p);
/* Consume p's finished operation: fill st, make p inactive (free it if the
 * application freed it: then *req becomes MPI_REQUEST_NULL). Returns the
 * operation's error. */
int csp_preq_finish(struct csp_preq *p, MPI_Request *req, MPI_Status *st);
/* 1 if p has an operation started (active). */
int csp_preq_active(const struct csp_preq *p);

/* MPI_Request_free of p: *req becomes MPI_REQUEST_NULL. */
int csp_preq_free(struct csp_preq *p, MPI_Request *req);
/* p's operation record while active, else NULL. */
struct csp_op *csp_preq_op(struct csp_preq *p);

#endif /* CASPERII_USER_PERSIST_H */
