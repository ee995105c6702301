/*
 * persist.c: persistent requests on the communicators the runtime knows
 * (MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Recv_init,
 * MPI_Start, MPI_Startall).
 *
 * The application holds a request handle of ours, CSP_PREQ_KIND | index,
 * which stays the same across MPI_Start and completion, as MPI requires
 * of persistent requests. Each MPI_Start posts one operation on the route
 * the communicator takes at that moment (route.c: a communicator may
 * switch between starts): through the ghost, a record of greq.h; straight
 * to MPICH, a deferred record that polls MPICH's request. Completing it
 * makes the request inactive again. The Wait/Test family recognizes these
 * handles by their kind and keeps them away from MPICH.
 */
#include "user.h"
#include "persist.h"
#include "block.h"
#include "complete.h"
#include "dtype.h"
#include "post.h"
#include "pump.h"
#include "route.h"
#include "submit.h"

#include <stdlib.h>

struct csp_preq {
    int used;
    int freed;              /* MPI_Request_free while active            */
    uint8_t kind;           /* CSP_OP_SEND, CSP_OP_SSEND or CSP_OP_RECV */
    uint8_t buffered;       /* MPI_Bsend_init: each start copies        */
    uint8_t dt_ref;         /* dt is the runtime's (csp_type_ref)       */
    void *buf;
    MPI_Count count;        /* beyond an int: the _c calls             */
    MPI_Datatype dt;
    int peer, tag;
    struct csp_comm *comm;  /* referenced                               */
    struct csp_op *op;      /* the started operation; NULL: inactive    */
};

static struct csp_preq *preqs;
static uint32_t npreqs, cappreqs;

static int preq_alloc(void)
{
    for (uint32_t i = 0; i < npreqs; i++)
        if (!preqs[i].used)
            return (int)i;
    if (npreqs == cappreqs) {
        uint32_t cap = cappreqs ? cappreqs * 2 : 64;
        if (cap > CSP_MSG_MAX)
            return -1;
        struct csp_preq *p = realloc(preqs, cap * sizeof(*p));
        if (!p)
            return -1;
        preqs = p;
        cappreqs = cap;
    }
    preqs[npreqs].used = 0;
    return (int)npreqs++;
}

struct csp_preq *csp_preq_of(MPI_Request r)
{
    if (!csp_is_preq(r))
        return NULL;
    uint32_t i = (uint32_t)r & ~CSP_HANDLE_KIND_MASK;
    return i < npreqs && preqs[i].used ? &preqs[i] : NULL;
}

static int init_request(uint8_t kind, void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                        struct csp_comm *c, MPI_Request *req)
{
    int i = preq_alloc();
    if (i < 0)
        return csp_error(c->comm, CSP_E_NOMEM);
    struct csp_preq *p = &preqs[i];
    /* every start reads the type: it must live as long as the request */
    int rc = csp_type_ref(dt, &dt, &p->dt_ref);
    if (rc != MPI_SUCCESS)
        return PMPI_Comm_call_errhandler(c->comm, rc), rc;
    p->used = 1;
    p->freed = 0;
    p->kind = kind;
    p->buf = buf;
    p->count = count;
    p->dt = dt;
    p->peer = peer;
    p->tag = tag;
    p->comm = c;
    p->op = NULL;
    p->buffered = 0;
    c->refs++;
    *req = (MPI_Request)(CSP_PREQ_KIND | (uint32_t)i);
    return MPI_SUCCESS;
}

int csp_send_init(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *req, int sync)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    if (!c || dest == MPI_PROC_NULL) {
        CSP_UNLOCK();
        return sync == 1                   ? CSP_PMPI_COUNTED(Ssend_init, buf, count, dt, dest, tag, comm, req)
               : sync == CSP_SEND_BUFFERED ? CSP_PMPI_COUNTED(Bsend_init, buf, count, dt, dest, tag, comm, req)
               : sync == CSP_SEND_READY    ? CSP_PMPI_COUNTED(Rsend_init, buf, count, dt, dest, tag, comm, req)
                                           : CSP_PMPI_COUNTED(Send_init, buf, count, dt, dest, tag, comm, req);
    }
    int rc = init_request(sync == 1 ? CSP_OP_SSEND : CSP_OP_SEND, (void *)buf, count, dt, dest, tag, c, req);
    if (rc == MPI_SUCCESS)
        csp_preq_of(*req)->buffered = sync == CSP_SEND_BUFFERED;
    CSP_UNLOCK();
    return rc;
}

int csp_recv_init(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    CSP_LOCK();
    struct csp_comm *c = csp_comm_get(comm);
    if (!c) {
        CSP_UNLOCK();
        return CSP_PMPI_COUNTED(Recv_init, buf, count, dt, src, tag, comm, req);
    }
    /* From MPI_PROC_NULL too: each start completes at once (start()). */
    int rc = init_request(CSP_OP_RECV, buf, count, dt, src, tag, c, req);
    CSP_UNLOCK();
    return rc;
}

/* The entry p's communicator has now: a switch of route replaces the
 * entry, and the old one points to its successor (comm.c). */
static struct csp_comm *current(struct csp_preq *p)
{
    struct csp_comm *c = p->comm;
    while (c->next)
        c = c->next;
    if (c != p->comm) {
        c->refs++;
        csp_comm_unref(p->comm);
        p->comm = c;
    }
    return c;
}

/* The MPICH request a direct start's record polls. */
static inline MPI_Request *inner(struct csp_op *op) { return (MPI_Request *)&op->target; }

/* A direct start's MPICH request finished with code rc and status st:
 * the record takes MPICH's result, as a plain persistent request would
 * report it. */
static void direct_done(struct csp_op *op, int rc, MPI_Status *st)
{
    MPI_Count bytes = 0;
    int cancelled = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &bytes);
    PMPI_Test_cancelled(st, &cancelled);
    op->r.st_source = st->MPI_SOURCE;
    op->r.st_tag = st->MPI_TAG;
    op->r.st_bytes = bytes;
    op->r.st_cancelled = cancelled;
    op->r.st_error = rc;
    op->r.state = CSP_OPS_DONE;
    csp_u.ndirect_ops--;
    if (op->target_gen) /* a counted receive (route.c) */
        csp_route_recv_end(op->comm, rc == MPI_SUCCESS && !cancelled);
    op->target_gen = 0;
}

static int direct_poll(struct csp_req *r)
{
    struct csp_op *op = csp_op_of(r);
    int flag = 0;
    MPI_Status st;
    int rc = PMPI_Test(inner(op), &flag, &st);
    if (flag || rc != MPI_SUCCESS)
        direct_done(op, rc, &st);
    return flag || rc != MPI_SUCCESS;
}

/* Start p on c's direct route: MPICH's nonblocking call, polled by a
 * deferred record (ready mode is a standard send, as on the ghost route). */
static int start_direct(struct csp_preq *p, struct csp_comm *c, struct csp_op **opp)
{
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return csp_error(c->comm, CSP_E_NOMEM);
    int recv = p->kind == CSP_OP_RECV;
    if (recv)
        csp_route_recv_begin(c); /* peer is not MPI_PROC_NULL here */
    else if (p->peer != MPI_PROC_NULL) {
        c->sent++;
        csp_prof_sent(c, p->count, p->dt);
    }
    MPI_Request r = MPI_REQUEST_NULL;
    CSP_UNLOCK();
    int rc = recv           ? CSP_PMPI_COUNTED(Irecv, p->buf, p->count, p->dt, p->peer, p->tag, c->comm, &r)
             : p->buffered  ? CSP_PMPI_COUNTED(Ibsend, p->buf, p->count, p->dt, p->peer, p->tag, c->comm, &r)
             : p->kind == CSP_OP_SSEND ? CSP_PMPI_COUNTED(Issend, p->buf, p->count, p->dt, p->peer, p->tag, c->comm, &r)
                                       : CSP_PMPI_COUNTED(Isend, p->buf, p->count, p->dt, p->peer, p->tag, c->comm, &r);
    CSP_LOCK();
    if (rc != MPI_SUCCESS) {
        if (recv)
            csp_route_recv_end(c, 0);
        csp_op_release(op);
        return rc;
    }
    csp_op_set_kind(op, p->kind, p->kind != CSP_OP_RECV);
    op->r.state = CSP_OPS_POSTED;
    op->r.poll = direct_poll;
    op->flags |= CSP_OPF_DIRECT;
    *inner(op) = r;
    op->target_gen = (uint32_t)recv;
    op->comm = c;
    c->refs++;
    csp_u.ndirect_ops++;
    csp_u.n_direct++;
    *opp = op;
    return MPI_SUCCESS;
}

int csp_direct_op_wait(struct csp_op *op)
{
    if (op->r.state == CSP_OPS_DONE)
        return MPI_SUCCESS;
    MPI_Request r = *inner(op);
    MPI_Status st;
    CSP_UNLOCK();
    int rc = csp_coop_wait(&r, &st);
    CSP_LOCK();
    *inner(op) = r;
    direct_done(op, rc, &st);
    return MPI_SUCCESS;
}

int csp_direct_op_cancel(struct csp_op *op)
{
    return op->r.state == CSP_OPS_DONE ? MPI_SUCCESS : PMPI_Cancel(inner(op));
}

/* Start p: post its operation. Arguments are checked here, as MPI_Start
 * would (a bad tag given to MPI_Send_init surfaces at MPI_Start). */
static int start(struct csp_preq *p)
{
    if (p->op)
        return csp_error(p->comm->comm, CSP_E_ACTIVE);
    struct csp_comm *c = current(p);
    struct csp_op *op;
    if (c->algo == CSP_ALGO_OFF && !(p->kind == CSP_OP_RECV && p->peer == MPI_PROC_NULL)) {
        int rc = start_direct(p, c, &op);
        if (rc != MPI_SUCCESS)
            return rc;
        op->persistent = 1;
        p->op = op;
        return MPI_SUCCESS;
    }
    if (p->buffered) {
        /* Buffered mode completes locally: the send goes out detached and
         * the request is complete at once, as MPI_Ibsend. */
        int rc = csp_post_bsend(p->buf, p->count, p->dt, p->peer, p->tag, p->comm, &op);
        if (rc != MPI_SUCCESS)
            return rc;
        op->persistent = 1;
        p->op = op;
        return MPI_SUCCESS;
    }
    if (p->kind == CSP_OP_RECV && p->peer == MPI_PROC_NULL) {
        int rc = csp_post_null_recv(p->comm->comm, &op);
        if (rc != MPI_SUCCESS)
            return rc;
        op->persistent = 1;
        p->op = op;
        return MPI_SUCCESS;
    }
    int rc = p->kind == CSP_OP_RECV
                 ? csp_post_recv(CSP_OP_RECV, p->buf, p->count, p->dt, p->peer, p->tag, p->comm, &op)
                 : csp_post_send(p->buf, p->count, p->dt, p->peer, p->tag, p->comm,
                                 p->kind == CSP_OP_SSEND, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    op->persistent = 1;
    if (p->kind == CSP_OP_RECV)
        csp_u.n_irecv++;
    else
        csp_u.n_isend++;
    csp_submit(op);
    p->op = op;
    return MPI_SUCCESS;
}

int csp_start(MPI_Request *req)
{
    CSP_LOCK();
    csp_pump();
    struct csp_preq *p = csp_preq_of(*req);
    int rc = p ? start(p) : PMPI_Start(req);
    CSP_UNLOCK();
    return rc;
}

int csp_startall(int n, MPI_Request reqs[])
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = csp_start(&reqs[i]);
    return rc;
}

int csp_preq_active(const struct csp_preq *p) { return p->op != NULL; }

int csp_preq_poll(struct csp_preq *p) { return !p->op || csp_poll_op(p->op); }

int csp_preq_wait(struct csp_preq *p)
{
    if (!p->op)
        return MPI_SUCCESS;
    return p->op->flags & CSP_OPF_DIRECT ? csp_direct_op_wait(p->op) : csp_wait_op(p->op);
}

static void preq_release(struct csp_preq *p)
{
    if (p->dt_ref) {
        PMPI_Type_free(&p->dt);
        p->dt_ref = 0;
    }
    csp_comm_unref(p->comm);
    p->comm = NULL;
    p->used = 0;
}

int csp_preq_finish(struct csp_preq *p, MPI_Request *req, MPI_Status *st)
{
    int rc = MPI_SUCCESS;
    if (p->op) {
        csp_req_fill_status(&p->op->r, st);
        rc = p->op->r.st_error;
        csp_op_release(p->op);
        p->op = NULL;
    } else {
        csp_empty_status(st); /* an inactive request */
    }
    if (p->freed) {
        preq_release(p);
        *req = MPI_REQUEST_NULL;
    }
    return rc;
}

/* MPI_Request_free of a persistent request: at once when inactive; an
 * active one finishes first (its record is released when it does). */
int csp_preq_free(struct csp_preq *p, MPI_Request *req)
{
    if (p->op) {
        p->op->r.freed = 1;
        if (p->op->r.poll)
            csp_defer_freed(p->op);
        else
            csp_u.nfreed_pending++;
        p->op = NULL;
    }
    preq_release(p);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

/* MPI_Cancel of an active persistent request. */
struct csp_op *csp_preq_op(struct csp_preq *p) { return p->op; }
