/*
 * post.h: the posting building blocks shared with message.c, persist.c and
 * sendrecv.c (post.c).
 */
#ifndef CASPERII_USER_POST_H
#define CASPERII_USER_POST_H

#include "user.h"
#include "op.h"

/* Posting building blocks shared with message.c and persist.c (post.c).
 * csp_post_send's sync: 0 standard, 1 synchronous, CSP_SEND_BUFFERED. */
int csp_post_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                   struct csp_comm *c, struct csp_op **done);
int csp_post_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  struct csp_comm *c, int sync, struct csp_op **opp);
int csp_post_recv(uint8_t kind, void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                  struct csp_comm *c, struct csp_op **opp);
int csp_start_request(struct csp_op *op, MPI_Request *req);
/* A finished receive from MPI_PROC_NULL (MPI's empty status). */
int csp_post_null_recv(MPI_Comm comm, struct csp_op **done);

#endif /* CASPERII_USER_POST_H */
