/*
 * post.c: posting point-to-point operations on offloaded communicators.
 *
 * Every entry point first looks the communicator up: not offloaded means
 * straight to PMPI. Offloaded: check the arguments, route (translate the
 * peer to its ghost, pick the internal communicator, encode the tag), place
 * the buffer (registered memory as is; anything else through a bounce
 * block), and submit a cell. Blocking calls take the same path and wait, so
 * a blocking and a nonblocking operation never take different routes.
 */
#include "user.h"
#include "post.h"
#include "block.h"
#include "dtype.h"
#include "pump.h"
#include "route.h"
#include "submit.h"

#include <limits.h>
#include <string.h>

/* Decide where the ghost finds op's bytes. For sends, a bounce block gets
 * a copy now; for receives the copy out happens when the op finishes. */
static int place(struct csp_op *op, const void *buf, MPI_Count count, MPI_Datatype dt, int send,
                 struct csp_comm *c)
{
    int contig = 1, rc;
    MPI_Count size = 0;
    MPI_Aint lb = 0;
    /* A zero count reads no type: MPICH takes MPI_DATATYPE_NULL with it
     * (MPICH's part/nonblocking_pready sends one). */
    if (count != 0) {
        if ((rc = csp_type_info(dt, count, &size, &lb, &contig)) != MPI_SUCCESS)
            return PMPI_Comm_call_errhandler(c->comm, rc), rc;
        /* A message of 2 GiB or more is posted by the ghost with MPI's
         * large-count calls; only one that no MPI_Count holds is refused. */
        if (size < 0 || (size > 0 && count > INT64_MAX / size))
            return csp_error(c->comm, CSP_E_OVERFLOW);
    }
    uint64_t nbytes = (uint64_t)count * (uint64_t)size;
    op->ubuf = (void *)buf;
    op->utype = dt;
    op->ulb = lb;
    op->usize = size;
    op->contig = (uint8_t)contig;
    op->nbytes = nbytes;
    op->seg = CSP_SEG_NONE;
    op->off = 0;
    if (nbytes == 0)
        return MPI_SUCCESS;
    uint32_t seg;
    uint64_t off;
    const char *start = (const char *)buf + lb;
    int force = op->flags & CSP_CELL_F_BOUNCE; /* buffered mode: always copy */
    if (contig && !force && csp_heap_find(csp_u.heap, start, nbytes, &seg, &off)) {
        op->seg = seg;
        op->off = off;
        return MPI_SUCCESS;
    }
    void *b = csp_heap_alloc(csp_u.heap, nbytes);
    if (!b)
        return csp_error(c->comm, CSP_E_NOMEM);
    if (!send && !contig && (rc = csp_type_ref(dt, &op->utype, &op->utype_ref)) != MPI_SUCCESS) {
        /* unpacked when the receive finishes: the type must live until then */
        csp_heap_free(csp_u.heap, b);
        return PMPI_Comm_call_errhandler(c->comm, rc), rc;
    }
    if (send) {
        if (contig) {
            memcpy(b, start, nbytes);
        } else {
            MPI_Count pos = 0;
            rc = csp_pack(buf, count, dt, b, (MPI_Count)nbytes, &pos);
            if (rc != MPI_SUCCESS) {
                csp_heap_free(csp_u.heap, b);
                return PMPI_Comm_call_errhandler(c->comm, rc), rc;
            }
        }
    }
    csp_heap_find(csp_u.heap, b, nbytes, &seg, &off);
    op->bounce = b;
    op->flags |= CSP_CELL_F_BOUNCE;
    op->seg = seg;
    op->off = off;
    csp_u.n_bounce++;
    return MPI_SUCCESS;
}

/* Remember what routing to peer on c read, for csp_warm_posts. */
static inline void note_route(const struct csp_comm *c, int peer)
{
    csp_u.warm[0] = c;
    csp_u.warm[1] = c->ghost + peer;
    csp_u.warm[2] = c->off + peer;
    csp_u.warm[3] = c->slots;
}

/* Route a send to dest: peer ghost, internal communicator, encoded tag. */
static void route_send(struct csp_op *op, struct csp_comm *c, int dest, int tag, uint32_t flags)
{
    const struct csp_tags *t = &csp_u.tags;
    uint32_t soff = (uint32_t)c->my_off, doff = (uint32_t)c->off[dest];
    op->peer = c->ghost[dest];
    op->mode = c->mode;
    switch (c->algo) {
    case CSP_ALGO_DUP:
        op->slot = c->slots[soff * (uint32_t)c->K + doff];
        op->itag = tag;
        break;
    case CSP_ALGO_DUPSRC:
        op->slot = c->slots[doff];
        op->itag = csp_tag_encode(t, flags, 0, soff, 0, (uint32_t)tag);
        break;
    default: /* TAG, MATCH */
        op->slot = c->slots[0];
        op->itag = csp_tag_encode(t, flags, (uint32_t)c->ctx, soff, doff, (uint32_t)tag);
        break;
    }
}

/* Route a receive or probe from src (or MPI_ANY_SOURCE) with tag (or
 * MPI_ANY_TAG). Returns an error class when the communicator's hint rules
 * the wildcard out. */
static int route_recv(struct csp_op *op, struct csp_comm *c, int src, int tag)
{
    const struct csp_tags *t = &csp_u.tags;
    int anysrc = src == MPI_ANY_SOURCE, anytag = tag == MPI_ANY_TAG;
    uint32_t soff = anysrc ? 0 : (uint32_t)c->off[src], doff = (uint32_t)c->my_off;
    op->peer = anysrc ? MPI_ANY_SOURCE : c->ghost[src];
    op->mode = c->mode;
    op->tag_mask = 0;
    switch (c->algo) {
    case CSP_ALGO_TAG:
        if (anysrc)
            return CSP_E_ANYSRC_NONE;
        if (anytag)
            return CSP_E_ANYTAG_NONE;
        op->slot = c->slots[0];
        op->itag = csp_tag_encode(t, 0, (uint32_t)c->ctx, soff, doff, (uint32_t)tag);
        break;
    case CSP_ALGO_DUP:
        if (anysrc)
            return CSP_E_ANYSRC_DUP;
        op->slot = c->slots[soff * (uint32_t)c->K + doff];
        op->itag = tag;
        break;
    case CSP_ALGO_DUPSRC:
        op->slot = c->slots[doff];
        op->itag = csp_tag_encode(t, 0, 0, soff, 0, anytag ? 0 : (uint32_t)tag);
        op->tag_mask = (anysrc ? 0 : t->off_mask << t->src_shift) | (anytag ? 0 : t->user_mask);
        break;
    default: /* MATCH */
        op->slot = c->slots[0];
        op->itag = csp_tag_encode(t, 0, (uint32_t)c->ctx, soff, doff, anytag ? 0 : (uint32_t)tag);
        op->tag_mask = t->ctx_mask << t->ctx_shift | t->off_mask << t->dst_shift |
                       (anysrc ? 0 : t->off_mask << t->src_shift) | (anytag ? 0 : t->user_mask);
        break;
    }
    return -1;
}

static int check_peer(struct csp_comm *c, int peer, int wildcard_ok)
{
    if (peer >= 0 && peer < c->size)
        return -1;
    if (wildcard_ok && peer == MPI_ANY_SOURCE)
        return -1;
    return CSP_E_RANK;
}

static int check_tag(int tag, int wildcard_ok)
{
    if (tag >= 0 && tag <= csp_u.tags.exposed_ub)
        return -1;
    if (wildcard_ok && tag == MPI_ANY_TAG)
        return -1;
    return tag < 0 ? CSP_E_TAG_NEG : CSP_E_TAG_BOUND;
}

/* Build a send op (not yet submitted); *opp receives it. */
int csp_post_send(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                  struct csp_comm *c, int sync, struct csp_op **opp)
{
    int e;
    if ((e = check_peer(c, dest, 0)) >= 0 || (e = check_tag(tag, 0)) >= 0)
        return csp_error(c->comm, e);
    if (count < 0)
        return csp_error(c->comm, CSP_E_COUNT);
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return csp_error(c->comm, CSP_E_NOMEM);
    csp_op_set_kind(op, sync == 1 ? CSP_OP_SSEND : CSP_OP_SEND, 1);
    if (sync == CSP_SEND_BUFFERED)
        op->flags |= CSP_CELL_F_BOUNCE;
    op->src = dest;
    op->tag = tag;
    int rc = place(op, buf, count, dt, 1, c);
    if (rc != MPI_SUCCESS) {
        csp_op_release(op);
        return rc;
    }
    route_send(op, c, dest, tag, 0);
    note_route(c, dest);
    op->comm = c;
    c->refs++;
    c->sent++; /* route.c */
    csp_prof_sent(c, count, dt);
    *opp = op;
    return MPI_SUCCESS;
}

int csp_post_recv(uint8_t kind, void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag,
                     struct csp_comm *c, struct csp_op **opp)
{
    int e;
    if ((e = check_peer(c, src, 1)) >= 0 || (e = check_tag(tag, 1)) >= 0)
        return csp_error(c->comm, e);
    if (count < 0)
        return csp_error(c->comm, CSP_E_COUNT);
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return csp_error(c->comm, CSP_E_NOMEM);
    op->kind = kind;
    op->src = src;
    op->tag = tag;
    if ((e = route_recv(op, c, src, tag)) >= 0) {
        csp_op_release(op);
        return csp_error(c->comm, e);
    }
    note_route(c, src == MPI_ANY_SOURCE ? 0 : src);
    int takes_data = kind == CSP_OP_RECV || kind == CSP_OP_MRECV;
    int rc = takes_data ? place(op, buf, count, dt, 0, c) : MPI_SUCCESS;
    if (!takes_data)
        op->seg = CSP_SEG_NONE;
    if (rc != MPI_SUCCESS) {
        csp_op_release(op);
        return rc;
    }
    op->comm = c;
    c->refs++;
    if (kind != CSP_OP_MRECV) /* route.c; a matched receive was counted at its probe */
        c->pend_recv++;
    if (kind != CSP_OP_IPROBE && kind != CSP_OP_PROBE) /* it may take a message: pprobe.c */
        csp_pprobe_note_recv(c);
    *opp = op;
    return MPI_SUCCESS;
}

int csp_start_deferred(int (*poll)(struct csp_req *r), void *ctx, int unrung, MPI_Request *req)
{
    CSP_LOCK();
    struct csp_op *op = csp_op_alloc();
    if (op) {
        op->r.poll = poll;
        op->r.ctx = ctx;
        op->r.unrung = (uint8_t)(unrung != 0);
        op->r.st_error = MPI_SUCCESS; /* poll may keep the first error it sees */
        op->r.state = CSP_OPS_POSTED; /* polled until done; no cell, nothing to cancel */
        csp_req_start(&op->r, req);
    }
    CSP_UNLOCK();
    return op ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Hand a fresh op to the application as a request, and submit it. */
int csp_start_request(struct csp_op *op, MPI_Request *req)
{
    csp_req_start(&op->r, req);
    csp_submit(op);
    return MPI_SUCCESS;
}

/* Wait for a blocking op, take its result and return the record. */
static int finish_blocking(struct csp_op *op, MPI_Status *st, int *failed)
{
    int rc = csp_wait_op(op);
    if (rc == MPI_SUCCESS) {
        csp_req_fill_status(&op->r, st);
        rc = op->r.st_error;
        *failed = rc != MPI_SUCCESS;
    }
    csp_op_release(op);
    return rc;
}

/* The code of a blocking call on c whose operation failed: raised on the
 * communicator's handler, as MPICH raises it (csp_raise_op). Unlocked. */
static int blocking_raised(struct csp_comm *c, int rc, int failed)
{
    return failed ? csp_raise_op(c->comm, rc, rc) : rc;
}

/*
 * The direct route's cost. The entry points below first try the direct
 * route's common case (direct_fast: one thread, nothing for the pump, the
 * communicator of the previous lookup, builtin types while profiling),
 * which counts the message and calls MPICH without calling anything
 * else: csp_isend and csp_send then need no stack frame and end in a
 * tail call. Everything else takes the general path (*_any, never
 * inlined), which hands an offloaded communicator to its *_ghost half.
 */

/* c if comm's traffic takes the direct route's common case (see above),
 * else NULL: the caller takes its general path. */
static inline struct csp_comm *direct_fast(MPI_Comm comm)
{
    if (csp_direct_slow())
        return NULL;
    struct csp_comm *c = csp_u.ctab_last;
    return c && c->comm == comm && c->algo == CSP_ALGO_OFF ? c : NULL;
}

/* Which way a send to dest on comm goes: DIRECT_FAST_GENERAL, the general
 * path (not the direct route's common case); DIRECT_FAST_PROFILED, the
 * common case while the self-profile is on (auto), to be counted by
 * direct_prof_sent; DIRECT_FAST_COUNTED, the common case, counted here
 * (as csp_route_sent_on counts), MPICH's call next. The profile reads the
 * clock (csp_prof_posted): a call inlined into csp_isend made it save
 * registers and build a frame on every send, profiled or not (8
 * instructions a message, BenchmarkDirectPathInstructions), so csp_isend
 * hands a profiled send to isend_prof, which takes its parameters, by a
 * tail call. */
enum { DIRECT_FAST_GENERAL, DIRECT_FAST_PROFILED, DIRECT_FAST_COUNTED };
static inline int direct_fast_send(MPI_Comm comm, int dest)
{
    struct csp_comm *c = direct_fast(comm);
    if (!c)
        return DIRECT_FAST_GENERAL;
    if (dest == MPI_PROC_NULL)
        return DIRECT_FAST_COUNTED;
    if (__builtin_expect(csp_u.prof != 0, 0))
        return DIRECT_FAST_PROFILED;
    c->sent++;
    return DIRECT_FAST_COUNTED;
}

/* Count a DIRECT_FAST_PROFILED send of count elements of dt (on
 * direct_fast's entry): 0 if dt needs an MPI call for the profile (the
 * general path makes it). */
static inline int direct_prof_sent(int count, MPI_Datatype dt)
{
    struct csp_comm *c = csp_u.ctab_last;
    int size = csp_builtin_size(dt);
    if (size == 0)
        return 0;
    csp_prof_sent_bytes(c, count, size);
    c->sent++;
    return 1;
}

/* The offloaded half of csp_isend; the lock is held and released here. */
static __attribute__((noinline)) int isend_ghost(const void *buf, MPI_Count count, MPI_Datatype dt,
                                                 int dest, int tag, struct csp_comm *c,
                                                 MPI_Request *req, int sync)
{
    struct csp_op *op;
    int rc;
    if ((rc = csp_post_send(buf, count, dt, dest, tag, c, sync, &op)) == MPI_SUCCESS &&
        (rc = csp_start_request(op, req)) == MPI_SUCCESS)
        csp_u.n_isend++;
    CSP_UNLOCK();
    return rc;
}

/* The general path of csp_isend, and csp_isend_c's (a count beyond an
 * int, MPI_Isend_c). */
static __attribute__((noinline)) int isend_any(const void *buf, MPI_Count count, MPI_Datatype dt,
                                               int dest, int tag, MPI_Comm comm, MPI_Request *req,
                                               int sync)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (c && c->algo != CSP_ALGO_OFF && dest != MPI_PROC_NULL)
        return isend_ghost(buf, count, dt, dest, tag, c, req, sync);
    csp_u.n_direct++;
    csp_route_sent_on(c, dest, count, dt);
    CSP_UNLOCK();
    return sync ? CSP_PMPI_COUNTED(Issend, buf, count, dt, dest, tag, comm, req)
                : CSP_PMPI_COUNTED(Isend, buf, count, dt, dest, tag, comm, req);
}

/* csp_isend's common case, counted. */
static inline int isend_direct(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                               MPI_Comm comm, MPI_Request *req, int sync)
{
    csp_u.n_direct++;
    return sync ? PMPI_Issend(buf, count, dt, dest, tag, comm, req)
                : PMPI_Isend(buf, count, dt, dest, tag, comm, req);
}

/* csp_isend's common case while the profile is on (direct_fast_send). */
static __attribute__((noinline)) int isend_prof(const void *buf, int count, MPI_Datatype dt, int dest,
                                                int tag, MPI_Comm comm, MPI_Request *req, int sync)
{
    if (!direct_prof_sent(count, dt))
        return isend_any(buf, count, dt, dest, tag, comm, req, sync);
    return isend_direct(buf, count, dt, dest, tag, comm, req, sync);
}

int csp_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *req, int sync)
{
    switch (direct_fast_send(comm, dest)) {
    case DIRECT_FAST_COUNTED:
        return isend_direct(buf, count, dt, dest, tag, comm, req, sync);
    case DIRECT_FAST_PROFILED:
        return isend_prof(buf, count, dt, dest, tag, comm, req, sync);
    default:
        return isend_any(buf, count, dt, dest, tag, comm, req, sync);
    }
}

/* csp_post_null_recv returns a finished receive from MPI_PROC_NULL with
 * MPI's status for it: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
 * (MPICH 4.0.2 completes its own such requests with source 0 and tag 0,
 * pmodels/mpich#6805, fixed after 4.0.2.) */
/* A record of kind that is complete already, with an empty status whose
 * source is source (nobody waits on a cell for it). */
static int done_record(MPI_Comm comm, uint8_t kind, int source, struct csp_op **done)
{
    struct csp_op *op = csp_op_alloc();
    if (!op)
        return csp_error(comm, CSP_E_NOMEM);
    op->kind = kind;
    op->r.state = CSP_OPS_DONE;
    op->r.st_source = source;
    op->r.st_tag = MPI_ANY_TAG;
    op->r.st_error = MPI_SUCCESS;
    op->r.st_bytes = 0;
    op->r.st_cancelled = 0;
    *done = op;
    return MPI_SUCCESS;
}

int csp_post_null_recv(MPI_Comm comm, struct csp_op **done)
{
    return done_record(comm, CSP_OP_RECV, MPI_PROC_NULL, done);
}

/* The offloaded half of csp_irecv; the lock is held and released here. */
static __attribute__((noinline)) int irecv_ghost(void *buf, MPI_Count count, MPI_Datatype dt, int src,
                                                 int tag, struct csp_comm *c, MPI_Request *req)
{
    MPI_Comm comm = c->comm;
    int rc;
    struct csp_op *op;
    if (src == MPI_PROC_NULL) {
        csp_u.n_direct++;
        if ((rc = csp_post_null_recv(comm, &op)) == MPI_SUCCESS)
            csp_req_start(&op->r, req);
        CSP_UNLOCK();
        return rc;
    }
    if ((rc = csp_post_recv(CSP_OP_RECV, buf, count, dt, src, tag, c, &op)) == MPI_SUCCESS &&
        (rc = csp_start_request(op, req)) == MPI_SUCCESS)
        csp_u.n_irecv++;
    CSP_UNLOCK();
    return rc;
}

/* The general path of csp_irecv, and csp_irecv_c's. */
static __attribute__((noinline)) int irecv_any(void *buf, MPI_Count count, MPI_Datatype dt, int src,
                                               int tag, MPI_Comm comm, MPI_Request *req)
{
    if (__builtin_expect(csp_u.prof != 0, 0))
        csp_prof_posted(); /* the post opens the time in flight (auto) */
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (c && c->algo != CSP_ALGO_OFF)
        return irecv_ghost(buf, count, dt, src, tag, c, req);
    csp_u.n_direct++;
    struct csp_comm *d = csp_route_recv_on(c, src);
    CSP_UNLOCK();
    int rc = CSP_PMPI_COUNTED(Irecv, buf, count, dt, src, tag, comm, req);
    csp_route_recv_posted(d, rc, *req);
    return rc;
}

int csp_irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    struct csp_comm *c = direct_fast(comm);
    if (!c)
        return irecv_any(buf, count, dt, src, tag, comm, req);
    csp_u.n_direct++;
    if (src == MPI_PROC_NULL)
        return PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    csp_route_recv_begin(c); /* csp_route_recv_on: one thread here */
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    /* The profile's stamp (auto) after MPICH's call, not before: a call
     * there, with every parameter still live, cost each receive a larger
     * frame, profiled or not (BenchmarkDirectPathInstructions). */
    if (__builtin_expect(csp_u.prof != 0, 0))
        csp_prof_posted();
    if (__builtin_expect(rc == MPI_SUCCESS && *req != MPI_REQUEST_NULL, 1))
        csp_route_track(c, *req);
    else
        csp_route_recv_end(c, 0);
    return rc;
}

/* The offloaded half of csp_send; the lock is held and released here. */
static __attribute__((noinline)) int send_ghost(const void *buf, MPI_Count count, MPI_Datatype dt,
                                                int dest, int tag, struct csp_comm *c, int sync)
{
    struct csp_op *op;
    int rc, failed = 0;
    if ((rc = csp_post_send(buf, count, dt, dest, tag, c, sync, &op)) == MPI_SUCCESS) {
        csp_u.n_isend++;
        csp_submit(op);
        rc = finish_blocking(op, MPI_STATUS_IGNORE, &failed);
    }
    CSP_UNLOCK();
    return blocking_raised(c, rc, failed);
}

/* A direct blocking send while the ghost needs our core, or where waits
 * yield it (coop.c: MPICH must not spin on it). */
static __attribute__((noinline)) int send_lending(const void *buf, MPI_Count count, MPI_Datatype dt,
                                                  int dest, int tag, MPI_Comm comm, int sync)
{
    MPI_Request r;
    int rc = sync ? CSP_PMPI_COUNTED(Issend, buf, count, dt, dest, tag, comm, &r)
                  : CSP_PMPI_COUNTED(Isend, buf, count, dt, dest, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : csp_coop_wait(&r, MPI_STATUS_IGNORE);
}

/* The general path of csp_send, and csp_send_c's. */
static __attribute__((noinline)) int send_any(const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                                              int tag, MPI_Comm comm, int sync)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (c && c->algo != CSP_ALGO_OFF && dest != MPI_PROC_NULL)
        return send_ghost(buf, count, dt, dest, tag, c, sync);
    csp_u.n_direct++;
    csp_route_sent_on(c, dest, count, dt);
    CSP_UNLOCK();
    if (csp_coop_direct())
        return send_lending(buf, count, dt, dest, tag, comm, sync);
    return sync ? CSP_PMPI_COUNTED(Ssend, buf, count, dt, dest, tag, comm)
                : CSP_PMPI_COUNTED(Send, buf, count, dt, dest, tag, comm);
}

/* csp_send's common case, counted. */
static inline int send_direct(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                              MPI_Comm comm, int sync)
{
    csp_u.n_direct++;
    if (csp_coop_direct())
        return send_lending(buf, count, dt, dest, tag, comm, sync);
    return sync ? PMPI_Ssend(buf, count, dt, dest, tag, comm)
                : PMPI_Send(buf, count, dt, dest, tag, comm);
}

/* Unlike csp_isend, csp_send keeps a frame whatever it does (the lending
 * check, csp_coop_direct, holds calls: the lock under
 * MPI_THREAD_MULTIPLE): the profile is counted in line, where a twin
 * would only add a jump. */
int csp_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int sync)
{
    switch (direct_fast_send(comm, dest)) {
    case DIRECT_FAST_PROFILED:
        if (!direct_prof_sent(count, dt))
            return send_any(buf, count, dt, dest, tag, comm, sync);
        return send_direct(buf, count, dt, dest, tag, comm, sync);
    case DIRECT_FAST_COUNTED:
        return send_direct(buf, count, dt, dest, tag, comm, sync);
    default:
        return send_any(buf, count, dt, dest, tag, comm, sync);
    }
}

/* The offloaded half of csp_recv; the lock is held and released here. */
static __attribute__((noinline)) int recv_ghost(void *buf, MPI_Count count, MPI_Datatype dt, int src,
                                                int tag, struct csp_comm *c, MPI_Status *st)
{
    struct csp_op *op;
    int rc, failed = 0;
    if ((rc = csp_post_recv(CSP_OP_RECV, buf, count, dt, src, tag, c, &op)) == MPI_SUCCESS) {
        csp_u.n_irecv++;
        csp_submit(op);
        rc = finish_blocking(op, st, &failed);
    }
    CSP_UNLOCK();
    return blocking_raised(c, rc, failed);
}

/* A direct blocking receive (src is not MPI_PROC_NULL) while the ghost
 * needs our core, or where waits yield it (coop.c). */
static __attribute__((noinline)) int recv_lending(void *buf, MPI_Count count, MPI_Datatype dt, int src,
                                                  int tag, MPI_Comm comm, MPI_Status *st)
{
    MPI_Request r;
    int rc = CSP_PMPI_COUNTED(Irecv, buf, count, dt, src, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : csp_coop_wait(&r, st);
}

/* The general path of csp_recv, and csp_recv_c's. */
static __attribute__((noinline)) int recv_any(void *buf, MPI_Count count, MPI_Datatype dt, int src,
                                              int tag, MPI_Comm comm, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (c && c->algo != CSP_ALGO_OFF && src != MPI_PROC_NULL)
        return recv_ghost(buf, count, dt, src, tag, c, st);
    csp_u.n_direct++;
    struct csp_comm *d = csp_route_recv_on(c, src);
    CSP_UNLOCK();
    /* coop.c; not from MPI_PROC_NULL: MPICH 4.0.2's Irecv then gives
     * source 0 and tag 0 instead of MPI's empty status */
    int rc = src != MPI_PROC_NULL && csp_coop_direct() ? recv_lending(buf, count, dt, src, tag, comm, st)
                                                     : CSP_PMPI_COUNTED(Recv, buf, count, dt, src, tag, comm, st);
    csp_route_recv_done(d, rc, 1);
    return rc;
}

int csp_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    struct csp_comm *c = direct_fast(comm);
    if (!c || src == MPI_PROC_NULL)
        return recv_any(buf, count, dt, src, tag, comm, st);
    csp_u.n_direct++;
    csp_route_recv_begin(c); /* csp_route_recv_on: one thread here */
    int rc = csp_coop_direct() ? recv_lending(buf, count, dt, src, tag, comm, st)
                             : PMPI_Recv(buf, count, dt, src, tag, comm, st);
    csp_route_recv_end(c, rc == MPI_SUCCESS || csp_route_consumed_slow(rc));
    return rc;
}

int csp_iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    int rc;
    if (!c || c->algo == CSP_ALGO_OFF || src == MPI_PROC_NULL) {
        CSP_UNLOCK();
        return PMPI_Iprobe(src, tag, comm, flag, st);
    }
    if (csp_pprobe_answer(c, src, tag, flag, st, &rc)) { /* a polling loop (pprobe.c) */
        CSP_UNLOCK();
        return rc;
    }
    struct csp_op *op;
    if ((rc = csp_post_recv(CSP_OP_IPROBE, NULL, 0, MPI_BYTE, src, tag, c, &op)) == MPI_SUCCESS) {
        csp_u.n_probe++;
        csp_submit(op);
        rc = csp_wait_op(op);
        int none = 0;
        if (rc == MPI_SUCCESS) {
            *flag = op->st_found;
            if (op->st_found)
                csp_req_fill_status(&op->r, st);
            else
                csp_poke_progress();
            rc = op->r.st_error;
            none = rc == MPI_SUCCESS && !op->st_found;
        }
        csp_op_release(op);
        if (none) /* the next call of a polling loop need not wait */
            csp_pprobe_post(c, src, tag);
    }
    CSP_UNLOCK();
    return rc;
}

int csp_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    int rc;
    if (!c || c->algo == CSP_ALGO_OFF || src == MPI_PROC_NULL) {
        struct csp_comm *d = csp_route_recv_on(c, src); /* blocking: pending until it returns */
        CSP_UNLOCK();
        rc = src == MPI_PROC_NULL ? PMPI_Probe(src, tag, comm, st) : csp_coop_probe(src, tag, comm, st);
        csp_route_recv_done(d, rc, 0);
        return rc;
    }
    struct csp_op *op;
    int failed = 0;
    if ((rc = csp_post_recv(CSP_OP_PROBE, NULL, 0, MPI_BYTE, src, tag, c, &op)) == MPI_SUCCESS) {
        csp_u.n_probe++;
        csp_submit(op);
        rc = finish_blocking(op, st, &failed);
    }
    CSP_UNLOCK();
    return blocking_raised(c, rc, failed);
}

/* Buffered mode (MPI_Bsend, MPI_Ibsend) on an offloaded communicator: the
 * message is copied into the shared heap at once and sent detached, so the
 * call completes locally as buffered mode promises, whatever the receiver
 * does. The heap plays the attached buffer's part (it grows as needed). */
static int bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 struct csp_comm *c)
{
    struct csp_op *op;
    int rc = csp_post_send(buf, count, dt, dest, tag, c, CSP_SEND_BUFFERED, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    op->r.freed = 1; /* nobody waits: finish() returns the record */
    csp_u.nfreed_pending++;
    csp_u.n_isend++;
    csp_submit(op);
    return MPI_SUCCESS;
}

int csp_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (!c || c->algo == CSP_ALGO_OFF || dest == MPI_PROC_NULL) {
        csp_route_sent_on(c, dest, count, dt);
        CSP_UNLOCK();
        return CSP_PMPI_COUNTED(Bsend, buf, count, dt, dest, tag, comm);
    }
    int rc = bsend(buf, count, dt, dest, tag, c);
    CSP_UNLOCK();
    return rc;
}

/* csp_post_bsend posts a buffered send detached from any request and
 * returns in *done a record that is complete already: buffered mode
 * completes locally once the data is copied (MPI_Ibsend, and each
 * MPI_Start of an MPI_Bsend_init request). */
int csp_post_bsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                   struct csp_comm *c, struct csp_op **done)
{
    int rc = bsend(buf, count, dt, dest, tag, c);
    if (rc != MPI_SUCCESS)
        return rc;
    return done_record(c->comm, CSP_OP_SEND, MPI_ANY_SOURCE, done);
}

int csp_ibsend(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    CSP_LOCK();
    csp_pump();
    struct csp_comm *c = csp_comm_get(comm);
    if (!c || c->algo == CSP_ALGO_OFF || dest == MPI_PROC_NULL) {
        csp_route_sent_on(c, dest, count, dt);
        CSP_UNLOCK();
        return CSP_PMPI_COUNTED(Ibsend, buf, count, dt, dest, tag, comm, req);
    }
    struct csp_op *done;
    int rc = csp_post_bsend(buf, count, dt, dest, tag, c, &done);
    if (rc == MPI_SUCCESS)
        csp_req_start(&done->r, req);
    CSP_UNLOCK();
    return rc;
}

/*
 * Large counts: the _c calls whose count does not fit an int, which the
 * interposer found on an offloaded communicator (internal/interpose/p2p.c).
 * The general paths post them: the offloaded halves to the ghost, which
 * hands MPICH counts beyond an int through its large-count calls, and a
 * communicator that took the direct route meanwhile (a switch) to MPICH's
 * own _c call.
 */

int csp_isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *req, int sync)
{
    return isend_any(buf, count, dt, dest, tag, comm, req, sync);
}

int csp_irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                MPI_Request *req)
{
    return irecv_any(buf, count, dt, src, tag, comm, req);
}

int csp_send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, int sync)
{
    return send_any(buf, count, dt, dest, tag, comm, sync);
}

int csp_recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
               MPI_Status *st)
{
    return recv_any(buf, count, dt, src, tag, comm, st);
}
