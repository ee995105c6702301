/*
 * message.c: matched probes (MPI_Improbe, MPI_Mprobe) and the matched
 * receives that consume them (MPI_Mrecv, MPI_Imrecv) on offloaded
 * communicators.
 *
 * The ghost takes the matched message out of MPI and keeps it under an id;
 * the application gets an MPI_Message handle of ours, CSP_MSG_KIND | index,
 * a handle kind MPICH never issues, so the interposed Mrecv/Imrecv can tell
 * it apart. MPI_MESSAGE_NO_PROC and messages of other communicators are
 * MPICH's own and pass through.
 */
#include "user.h"
#include "block.h"
#include "post.h"
#include "pump.h"
#include "route.h"
#include "submit.h"

#include <stdlib.h>

struct csp_msg {
    uint32_t ghost_id;      /* the ghost's id of the matched message */
    int used;
    struct csp_comm *comm;  /* referenced                             */
    int src, tag;           /* communicator rank, user tag            */
    MPI_Count bytes;
};

static struct csp_msg *msgs;
static uint32_t nmsgs, capmsgs;

static int msg_alloc(void)
{
    for (uint32_t i = 0; i < nmsgs; i++)
        if (!msgs[i].used)
            return (int)i;
    if (nmsgs == capmsgs) {
        uint32_t cap = capmsgs ? capmsgs * 2 : 64;
        if (cap > CSP_MSG_MAX)
            return -1;
        struct csp_msg *m = realloc(msgs, cap * sizeof(*m));
        if (!m)
            return -1;
        msgs = m;
        capmsgs = cap;
    }
    msgs[nmsgs].used = 0;
    return (int)nmsgs++;
}

static struct csp_msg *msg_of(MPI_Message h)
{
    if (!csp_is_msg(h))
        return NULL;
    uint32_t i = (uint32_t)h & ~CSP_HANDLE_KIND_MASK;
    return i < nmsgs && msgs[i].used ? &msgs[i] : NULL;
}

/* Post a matched probe and turn a found message into a handle. */
static int matched_probe(uint8_t kind, int src, int tag, struct csp_comm *c, int *flag,
                         MPI_Message *msg, MPI_Status *st)
{
    struct csp_op *op;
    int rc = csp_post_recv(kind, NULL, 0, MPI_BYTE, src, tag, c, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    csp_u.n_probe++;
    csp_submit(op);
    rc = csp_wait_op(op);
    if (rc == MPI_SUCCESS)
        rc = op->r.st_error;
    *flag = 0;
    if (rc == MPI_SUCCESS && op->st_found) {
        int i = msg_alloc();
        if (i < 0) {
            rc = csp_error(c->comm, CSP_E_NOMEM);
        } else {
            struct csp_msg *m = &msgs[i];
            m->used = 1;
            m->ghost_id = op->st_msg;
            m->comm = c;
            c->refs++;
            m->src = op->r.st_source;
            m->tag = op->r.st_tag;
            m->bytes = op->r.st_bytes;
            *msg = (MPI_Message)(CSP_MSG_KIND | (uint32_t)i);
            *flag = 1;
            csp_req_fill_status(&op->r, st);
        }
    } else if (rc == MPI_SUCCESS) {
        csp_poke_progress();
    }
    csp_op_release(op);
    return rc;
}

int csp_improbe(int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    int rc;
    if (!c || c->algo == CSP_ALGO_OFF || src == MPI_PROC_NULL) {
        /* route.c: a found message is taken out of matching here */
        struct csp_comm *d = c && src != MPI_PROC_NULL ? csp_route_of(comm) : NULL;
        if (d)
            csp_route_recv_begin(d);
        CSP_UNLOCK();
        rc = PMPI_Improbe(src, tag, comm, flag, msg, st);
        csp_direct_recv_end(d, rc, *flag);
        return rc;
    }
    if (csp_pprobe_nothing(c, src, tag, &rc)) { /* a polling loop (pprobe.c) */
        *flag = 0;
        CSP_UNLOCK();
        return rc;
    }
    rc = matched_probe(CSP_OP_IMPROBE, src, tag, c, flag, msg, st);
    if (rc == MPI_SUCCESS && !*flag) /* the next call of a polling loop need not wait */
        csp_pprobe_post(c, src, tag);
    CSP_UNLOCK();
    return rc;
}

int csp_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (!c || c->algo == CSP_ALGO_OFF || src == MPI_PROC_NULL) {
        struct csp_comm *d = c && src != MPI_PROC_NULL ? csp_route_of(comm) : NULL;
        if (d)
            csp_route_recv_begin(d);
        CSP_UNLOCK();
        int rc = src == MPI_PROC_NULL ? PMPI_Mprobe(src, tag, comm, msg, st)
                                      : csp_coop_mprobe(src, tag, comm, msg, st);
        csp_direct_recv_end(d, rc, 1);
        return rc;
    }
    int flag;
    int rc = matched_probe(CSP_OP_MPROBE, src, tag, c, &flag, msg, st);
    CSP_UNLOCK();
    return rc;
}

/* Build the receive op of matched message m into buf (the handle is used up). */
static int msg_recv_op(struct csp_msg *m, void *buf, MPI_Count count, MPI_Datatype dt,
                       struct csp_op **opp)
{
    struct csp_comm *c = m->comm;
    struct csp_op *op;
    int rc = csp_post_recv(CSP_OP_MRECV, buf, count, dt, m->src, m->tag, c, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    op->target = m->ghost_id;
    op->mode = CSP_MATCH_NATIVE;
    m->used = 0;
    m->comm = NULL;
    csp_comm_unref(c); /* op holds its own reference */
    *opp = op;
    return MPI_SUCCESS;
}

int csp_mrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Status *st)
{
    CSP_LOCK();
    struct csp_msg *m = msg_of(*msg);
    if (!m) {
        CSP_UNLOCK();
        return CSP_PMPI_COUNTED(Mrecv, buf, count, dt, msg, st);
    }
    struct csp_op *op;
    int rc = msg_recv_op(m, buf, count, dt, &op), failed = 0;
    if (rc == MPI_SUCCESS) {
        *msg = MPI_MESSAGE_NULL;
        csp_u.n_irecv++;
        csp_submit(op);
        rc = csp_wait_op(op);
        if (rc == MPI_SUCCESS) {
            csp_req_fill_status(&op->r, st);
            rc = op->r.st_error;
            failed = rc != MPI_SUCCESS;
        }
        csp_op_release(op);
    }
    CSP_UNLOCK();
    /* MPI_Mrecv names no communicator: the world's handler, as MPICH's */
    return failed ? csp_raise_op(csp_u.world, rc, rc) : rc;
}

int csp_imrecv(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *msg, MPI_Request *req)
{
    CSP_LOCK();
    struct csp_msg *m = msg_of(*msg);
    struct csp_op *op;
    if (!m && *msg == MPI_MESSAGE_NO_PROC && csp_u.on) {
        /* MPI's empty status (csp_post_null_recv) */
        int rc = csp_post_null_recv(csp_u.world, &op);
        if (rc == MPI_SUCCESS) {
            *msg = MPI_MESSAGE_NULL;
            csp_req_start(&op->r, req);
        }
        CSP_UNLOCK();
        return rc;
    }
    if (!m) {
        CSP_UNLOCK();
        return CSP_PMPI_COUNTED(Imrecv, buf, count, dt, msg, req);
    }
    int rc = msg_recv_op(m, buf, count, dt, &op);
    if (rc == MPI_SUCCESS) {
        *msg = MPI_MESSAGE_NULL;
        rc = csp_start_request(op, req);
        if (rc == MPI_SUCCESS)
            csp_u.n_irecv++;
    }
    CSP_UNLOCK();
    return rc;
}
