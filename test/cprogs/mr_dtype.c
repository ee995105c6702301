/*
 * mr_dtype: datatypes live as long as MPI says (see mr_common.c for the
 * command line and output). MPI lets the application free a datatype as
 * soon as the call that uses it returns: the operations, persistent
 * requests and matched messages that use it keep working until they
 * complete. Every section posts with a fresh type and frees it right after
 * the call, then completes; it checks every byte of every receive buffer
 * (the data where the type puts it, the bytes between untouched), the
 * status (source, tag, MPI_Get_count and MPI_Get_elements with an
 * identical type kept alive, the byte count) and every return code.
 *
 * Rank 0 pairs with every other rank p in turn (p sends, rank 0 receives,
 * unless said otherwise) and reports one line per section and peer
 * (peer=<p>); p passes its own verdict to rank 0 on the plain
 * communicator.
 *
 * Every section runs over the same cases: six types, each in memory from
 * malloc (bounced) and from MPI_Alloc_mem with shmbuf_regist=true
 * (registered: contiguous data travels in place; data that is not
 * contiguous is packed through the heap all the same):
 *   dup     MPI_Type_dup(MPI_INT), count 8 (contiguous)
 *   contig  MPI_Type_contiguous(4, MPI_INT), count 3 (contiguous)
 *   lb      struct of 2 ints at byte 8, count 1 (contiguous, lower bound 8)
 *   vector  MPI_Type_vector(3, 1, 2, MPI_INT), count 4
 *   index   MPI_Type_create_indexed_block(3, 2, {0, 3, 7}, MPI_INT),
 *           count 3 (MPICH's dtype_send)
 *   pair    MPI_DOUBLE_INT, count 3 (predefined, never freed: the runtime
 *           needs no reference to it, and must work without one)
 *
 * Sections (every mode):
 *   nb         MPI_Isend, MPI_Issend, MPI_Irsend, MPI_Ibsend (by case) and
 *              MPI_Irecv, all posted (the receives first), types freed,
 *              then MPI_Waitall.
 *   persist    MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init,
 *              MPI_Rsend_init (by case) and MPI_Recv_init, types freed
 *              right after; started three times (MPI_Startall), new data
 *              each time, completed with MPI_Waitall; MPI_Request_free.
 *   probe      MPI_Mprobe + MPI_Imrecv, MPI_Improbe + MPI_Imrecv (types
 *              freed after MPI_Imrecv), MPI_Mprobe + MPI_Mrecv (by case);
 *              the probe's status too; the Imrecv's completed at the end
 *              with MPI_Waitall.
 *   sendrecv   MPI_Isendrecv and MPI_Isendrecv_replace between rank 0 and
 *              p, both directions, types freed after posting, MPI_Waitall.
 *   activefree MPI_Recv_init, MPI_Start, MPI_Type_free, MPI_Request_free
 *              of the active request; p sends afterwards: the data still
 *              lands (polled, bounded).
 *   partial    a message that ends inside an element: 9 ints into 2
 *              elements of the index type, 6 ints into 3 of the contig
 *              type (types freed after MPI_Irecv): MPI_Get_count is
 *              MPI_UNDEFINED, MPI_Get_elements counts the ints, and the
 *              ints of the partial element land where the type puts them.
 *   attrs      the type of an MPI_Irecv and an MPI_Recv_init (started)
 *              carries an attribute whose copy and delete callbacks count
 *              their calls; freed after posting: the runtime's reference
 *              never copies it, and it is deleted once.
 */
#include "mr_common.c"

#include <stdint.h>

enum { T_DUP, T_CONTIG, T_LB, T_VECTOR, T_INDEX, T_PAIR, NTYPES };
static const char *type_name[] = {"dup", "contig", "lb", "vector", "index", "pair"};
static const int type_count[] = {8, 3, 1, 4, 3, 3};
static const int type_basic[] = {1, 4, 2, 3, 6, 2}; /* basic elements per element */
static const int type_contig[] = {1, 1, 1, 0, 0, 0}; /* count elements contiguous  */

#define NCASES (2 * NTYPES)
#define ROUNDS 3
#define GAP 0xEE /* bytes the data must not reach */

static MPI_Datatype make_type(int kind)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (kind) {
    case T_DUP:
        MPI_Type_dup(MPI_INT, &t);
        break;
    case T_CONTIG:
        MPI_Type_contiguous(4, MPI_INT, &t);
        break;
    case T_LB: {
        int bl = 2;
        MPI_Aint d = 8;
        MPI_Datatype ty = MPI_INT;
        MPI_Type_create_struct(1, &bl, &d, &ty, &t);
        break;
    }
    case T_VECTOR:
        MPI_Type_vector(3, 1, 2, MPI_INT, &t);
        break;
    case T_INDEX: {
        int displs[3] = {0, 3, 7};
        MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t);
        break;
    }
    case T_PAIR:
        return MPI_DOUBLE_INT;
    }
    MPI_Type_commit(&t);
    return t;
}

/* The application is done with its type (a predefined one stays). */
static void drop_type(MPI_Datatype *t)
{
    if (*t != MPI_DOUBLE_INT)
        MPI_Type_free(t);
}

/* One message of a case: its buffer, the bytes a receive must leave in
 * it, and a type identical to the one posted, kept for the checks. */
struct msg {
    int kind, count, regist;
    MPI_Datatype twin;
    size_t len, nbytes;
    unsigned char *buf, *want;
};

static void *alloc_buf(size_t len, int regist)
{
    if (!regist)
        return malloc(len);
    void *p;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Alloc_mem((MPI_Aint)len, info, &p);
    MPI_Info_free(&info);
    return p;
}

static void msg_open(struct msg *m, int c)
{
    m->kind = c % NTYPES;
    m->regist = c / NTYPES;
    m->count = type_count[m->kind];
    m->twin = make_type(m->kind);
    MPI_Aint lb, ext;
    int size;
    MPI_Type_get_extent(m->twin, &lb, &ext);
    MPI_Type_size(m->twin, &size);
    m->len = (size_t)(lb + ext * m->count) + 64;
    m->nbytes = (size_t)size * (size_t)m->count;
    m->buf = alloc_buf(m->len, m->regist);
    m->want = malloc(m->len);
    memset(m->buf, GAP, m->len);
}

static void msg_close(struct msg *m)
{
    drop_type(&m->twin);
    if (m->regist)
        MPI_Free_mem(m->buf);
    else
        free(m->buf);
    free(m->want);
}

/* Byte k of the packed message (src, tag, round): never GAP. */
static unsigned char pay(int src, int tag, int round, size_t k)
{
    return (unsigned char)((size_t)(src * 37 + tag * 11 + round * 101) + k * 7 + 1) % GAP;
}

/* dst (len bytes) as the message (src, tag, round) of m lays it out:
 * GAP everywhere the type does not reach. */
static void lay_out(const struct msg *m, unsigned char *dst, int src, int tag, int round)
{
    unsigned char *packed = malloc(m->nbytes);
    for (size_t k = 0; k < m->nbytes; k++)
        packed[k] = pay(src, tag, round, k);
    memset(dst, GAP, m->len);
    int pos = 0;
    MPI_Unpack(packed, (int)m->nbytes, &pos, dst, m->count, m->twin, MPI_COMM_SELF);
    free(packed);
}

/* Count one post on comm for the offload check: its data is contiguous or
 * not, in registered memory or not, in buffered mode (always copied) or
 * not. */
static void count_raw(int send, int contig, int regist, int buffered)
{
    if (send)
        POST_S(comm);
    else
        POST_R(comm);
    if (buffered || !contig || !regist)
        BOUNCED(comm);
    else
        REGISTERED(comm);
}

static void count_post(const struct msg *m, int send, int buffered)
{
    count_raw(send, type_contig[m->kind], m->regist, buffered);
}

/* Did the receive of m from src with tag land right? On failure, says
 * what was wrong in bad (appended). */
static int check_recv(const struct msg *m, const MPI_Status *st, int src, int tag, char *bad,
                      size_t badlen)
{
    int n = -1, e = -1, b = -1;
    MPI_Get_count(st, m->twin, &n);
    MPI_Get_elements(st, m->twin, &e);
    MPI_Get_count(st, MPI_BYTE, &b);
    size_t first = m->len;
    for (size_t k = 0; k < m->len; k++)
        if (m->buf[k] != m->want[k]) {
            first = k;
            break;
        }
    int ok = first == m->len && st->MPI_SOURCE == src && st->MPI_TAG == tag && n == m->count &&
             e == m->count * type_basic[m->kind] && b == (int)m->nbytes;
    if (!ok && !bad[0])
        snprintf(bad, badlen, " case=%s/%s got=%d:%d count=%d elements=%d bytes=%d first_bad_byte=%zd",
                 type_name[m->kind], m->regist ? "regist" : "malloc", st->MPI_SOURCE, st->MPI_TAG,
                 n, e, b, first == m->len ? (ssize_t)-1 : (ssize_t)first);
    return ok;
}

static int tag_of(int section, int c) { return 100 * section + c; }

/* Space for nmsg buffered sends of the cases' messages. */
static void *attach(int nmsg)
{
    int size = 0;
    for (int c = 0; c < NCASES; c++) {
        int s;
        MPI_Datatype t = make_type(c % NTYPES);
        MPI_Pack_size(type_count[c % NTYPES], t, plain, &s);
        drop_type(&t);
        size += s + MPI_BSEND_OVERHEAD;
    }
    size *= nmsg;
    void *b = malloc((size_t)size);
    MPI_Buffer_attach(b, size);
    return b;
}

static void detach(void *b)
{
    int size;
    void *d;
    MPI_Buffer_detach(&d, &size);
    free(b);
}

static void report_peer(const char *test, int p, int ok, const char *bad)
{
    int theirs = signal_from(p);
    report(test, ok && theirs, "peer=%d sender_ok=%d%s", p, theirs, bad);
}

/* ---- nb ---- */

static void nb(int p)
{
    struct msg m[NCASES];
    MPI_Request q[NCASES];
    MPI_Status sts[NCASES];
    char bad[256] = "";
    int ok = 1;
    for (int c = 0; c < NCASES; c++)
        msg_open(&m[c], c);
    if (rank == 0) {
        for (int c = 0; c < NCASES; c++) {
            lay_out(&m[c], m[c].want, p, tag_of(1, c), 0);
            MPI_Datatype t = make_type(m[c].kind);
            ok &= MPI_Irecv(m[c].buf, m[c].count, t, p, tag_of(1, c), comm, &q[c]) == MPI_SUCCESS;
            drop_type(&t);
            count_post(&m[c], 0, 0);
        }
        signal_to(p, 0);
        ok &= MPI_Waitall(NCASES, q, sts) == MPI_SUCCESS;
        for (int c = 0; c < NCASES; c++)
            ok &= check_recv(&m[c], &sts[c], p, tag_of(1, c), bad, sizeof(bad));
        report_peer("nb", p, ok, bad);
    } else if (rank == p) {
        void *att = attach(1);
        for (int c = 0; c < NCASES; c++)
            lay_out(&m[c], m[c].buf, p, tag_of(1, c), 0);
        signal_from(0); /* every receive is posted: ready mode is legal */
        for (int c = 0; c < NCASES; c++) {
            MPI_Datatype t = make_type(m[c].kind);
            int (*post)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) =
                c % 4 == 0 ? MPI_Isend : c % 4 == 1 ? MPI_Issend : c % 4 == 2 ? MPI_Irsend : MPI_Ibsend;
            ok &= post(m[c].buf, m[c].count, t, 0, tag_of(1, c), comm, &q[c]) == MPI_SUCCESS;
            drop_type(&t);
            count_post(&m[c], 1, c % 4 == 3);
        }
        ok &= MPI_Waitall(NCASES, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
        detach(att);
        signal_to(0, ok);
    }
    for (int c = 0; c < NCASES; c++)
        msg_close(&m[c]);
}

/* ---- persist ---- */

static void persist(int p)
{
    struct msg m[NCASES];
    MPI_Request q[NCASES], keep[NCASES];
    MPI_Status sts[NCASES];
    char bad[256] = "";
    int ok = 1;
    for (int c = 0; c < NCASES; c++)
        msg_open(&m[c], c);
    if (rank == 0) {
        for (int c = 0; c < NCASES; c++) {
            MPI_Datatype t = make_type(m[c].kind);
            ok &= MPI_Recv_init(m[c].buf, m[c].count, t, p, tag_of(2, c), comm, &q[c]) == MPI_SUCCESS;
            drop_type(&t);
        }
        memcpy(keep, q, sizeof(q));
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < NCASES; c++) {
                memset(m[c].buf, GAP, m[c].len);
                lay_out(&m[c], m[c].want, p, tag_of(2, c), round);
                count_post(&m[c], 0, 0);
            }
            ok &= MPI_Startall(NCASES, q) == MPI_SUCCESS;
            signal_to(p, round);
            ok &= MPI_Waitall(NCASES, q, sts) == MPI_SUCCESS;
            ok &= memcmp(keep, q, sizeof(q)) == 0; /* inactive, not freed */
            for (int c = 0; c < NCASES; c++)
                ok &= check_recv(&m[c], &sts[c], p, tag_of(2, c), bad, sizeof(bad));
        }
        for (int c = 0; c < NCASES; c++) {
            MPI_Request_free(&q[c]);
            ok &= q[c] == MPI_REQUEST_NULL;
        }
        report_peer("persist", p, ok, bad);
    } else if (rank == p) {
        void *att = attach(ROUNDS);
        for (int c = 0; c < NCASES; c++) {
            MPI_Datatype t = make_type(m[c].kind);
            int (*init)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) =
                c % 4 == 0   ? MPI_Send_init
                : c % 4 == 1 ? MPI_Ssend_init
                : c % 4 == 2 ? MPI_Bsend_init
                             : MPI_Rsend_init;
            ok &= init(m[c].buf, m[c].count, t, 0, tag_of(2, c), comm, &q[c]) == MPI_SUCCESS;
            drop_type(&t);
        }
        for (int round = 0; round < ROUNDS; round++) {
            for (int c = 0; c < NCASES; c++) {
                lay_out(&m[c], m[c].buf, p, tag_of(2, c), round);
                count_post(&m[c], 1, c % 4 == 2);
            }
            signal_from(0); /* the receives are started: ready mode is legal */
            ok &= MPI_Startall(NCASES, q) == MPI_SUCCESS;
            ok &= MPI_Waitall(NCASES, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
        }
        for (int c = 0; c < NCASES; c++) {
            MPI_Request_free(&q[c]);
            ok &= q[c] == MPI_REQUEST_NULL;
        }
        detach(att);
        signal_to(0, ok);
    }
    for (int c = 0; c < NCASES; c++)
        msg_close(&m[c]);
}

/* ---- probe ---- */

static void probe(int p)
{
    struct msg m[NCASES];
    MPI_Request q[NCASES];
    MPI_Status sts[NCASES], pst;
    char bad[256] = "";
    int ok = 1;
    for (int c = 0; c < NCASES; c++)
        msg_open(&m[c], c);
    if (rank == 0) {
        signal_to(p, 0);
        for (int c = 0; c < NCASES; c++) {
            int tag = tag_of(3, c), flag = 0;
            MPI_Message h = MPI_MESSAGE_NULL;
            lay_out(&m[c], m[c].want, p, tag, 0);
            if (c % 3 == 1) {
                double t0 = MPI_Wtime();
                while (!flag && MPI_Wtime() - t0 < HANG_S)
                    MPI_Improbe(p, tag, comm, &flag, &h, &pst);
                ok &= flag;
            } else {
                ok &= MPI_Mprobe(p, tag, comm, &h, &pst) == MPI_SUCCESS;
            }
            int n = -1;
            MPI_Get_count(&pst, m[c].twin, &n);
            if (pst.MPI_SOURCE != p || pst.MPI_TAG != tag || n != m[c].count) {
                ok = 0;
                if (!bad[0])
                    snprintf(bad, sizeof(bad), " probe case=%d got=%d:%d:%d", c, pst.MPI_SOURCE,
                             pst.MPI_TAG, n);
            }
            MPI_Datatype t = make_type(m[c].kind);
            count_post(&m[c], 0, 0);
            if (c % 3 == 2) {
                ok &= MPI_Mrecv(m[c].buf, m[c].count, t, &h, &sts[c]) == MPI_SUCCESS;
                q[c] = MPI_REQUEST_NULL;
            } else {
                ok &= MPI_Imrecv(m[c].buf, m[c].count, t, &h, &q[c]) == MPI_SUCCESS;
            }
            drop_type(&t);
            ok &= h == MPI_MESSAGE_NULL;
        }
        MPI_Status w[NCASES];
        ok &= MPI_Waitall(NCASES, q, w) == MPI_SUCCESS;
        for (int c = 0; c < NCASES; c++) {
            if (c % 3 != 2)
                sts[c] = w[c];
            ok &= check_recv(&m[c], &sts[c], p, tag_of(3, c), bad, sizeof(bad));
        }
        report_peer("probe", p, ok, bad);
    } else if (rank == p) {
        signal_from(0);
        for (int c = 0; c < NCASES; c++) {
            lay_out(&m[c], m[c].buf, p, tag_of(3, c), 0);
            MPI_Datatype t = make_type(m[c].kind);
            ok &= MPI_Isend(m[c].buf, m[c].count, t, 0, tag_of(3, c), comm, &q[c]) == MPI_SUCCESS;
            drop_type(&t);
            count_post(&m[c], 1, 0);
        }
        ok &= MPI_Waitall(NCASES, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
        signal_to(0, ok);
    }
    for (int c = 0; c < NCASES; c++)
        msg_close(&m[c]);
}

/* ---- sendrecv ---- */

static void sendrecv(int p)
{
    if (rank != 0 && rank != p)
        return;
    int peer = rank == 0 ? p : 0;
    struct msg s[NCASES], r[NCASES], x[NCASES];
    MPI_Request q[2 * NCASES];
    MPI_Status sts[2 * NCASES];
    char bad[256] = "";
    int ok = 1;
    for (int c = 0; c < NCASES; c++) {
        msg_open(&s[c], c);
        msg_open(&r[c], c);
        msg_open(&x[c], c);
        lay_out(&s[c], s[c].buf, rank, tag_of(4, c), 0);
        lay_out(&r[c], r[c].want, peer, tag_of(4, c), 0);
        lay_out(&x[c], x[c].buf, rank, tag_of(5, c), 0);
        lay_out(&x[c], x[c].want, peer, tag_of(5, c), 0);
    }
    for (int c = 0; c < NCASES; c++) {
        MPI_Datatype t = make_type(s[c].kind);
        ok &= MPI_Isendrecv(s[c].buf, s[c].count, t, peer, tag_of(4, c), r[c].buf, r[c].count, t,
                            peer, tag_of(4, c), comm, &q[c]) == MPI_SUCCESS;
        drop_type(&t);
        count_post(&s[c], 1, 0);
        count_post(&r[c], 0, 0);
        t = make_type(x[c].kind);
        ok &= MPI_Isendrecv_replace(x[c].buf, x[c].count, t, peer, tag_of(5, c), peer, tag_of(5, c),
                                    comm, &q[NCASES + c]) == MPI_SUCCESS;
        drop_type(&t);
        POST_S(comm); /* packed into the heap by the runtime: neither bounced nor in place */
        count_post(&x[c], 0, 0);
    }
    ok &= MPI_Waitall(2 * NCASES, q, sts) == MPI_SUCCESS;
    for (int c = 0; c < NCASES; c++) {
        ok &= check_recv(&r[c], &sts[c], peer, tag_of(4, c), bad, sizeof(bad));
        ok &= check_recv(&x[c], &sts[NCASES + c], peer, tag_of(5, c), bad, sizeof(bad));
    }
    if (rank == 0)
        report_peer("sendrecv", p, ok, bad);
    else
        signal_to(0, ok);
    for (int c = 0; c < NCASES; c++) {
        msg_close(&s[c]);
        msg_close(&r[c]);
        msg_close(&x[c]);
    }
}

/* ---- activefree ---- */

static const int active_cases[] = {T_INDEX, NTYPES + T_DUP, NTYPES + T_VECTOR};
#define NACTIVE 3

static void activefree(int p)
{
    struct msg m[NACTIVE];
    char bad[256] = "";
    int ok = 1;
    for (int i = 0; i < NACTIVE; i++)
        msg_open(&m[i], active_cases[i]);
    if (rank == 0) {
        for (int i = 0; i < NACTIVE; i++) {
            MPI_Request q;
            lay_out(&m[i], m[i].want, p, tag_of(6, i), 0);
            MPI_Datatype t = make_type(m[i].kind);
            ok &= MPI_Recv_init(m[i].buf, m[i].count, t, p, tag_of(6, i), comm, &q) == MPI_SUCCESS;
            ok &= MPI_Start(&q) == MPI_SUCCESS;
            count_post(&m[i], 0, 0);
            drop_type(&t);
            ok &= MPI_Request_free(&q) == MPI_SUCCESS && q == MPI_REQUEST_NULL;
        }
        signal_to(p, 0);
        double t0 = MPI_Wtime();
        int landed = 0;
        while (!landed && MPI_Wtime() - t0 < HANG_S) {
            landed = 1;
            for (int i = 0; i < NACTIVE; i++)
                landed &= memcmp(m[i].buf, m[i].want, m[i].len) == 0;
            if (!landed) {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, plain, &flag, MPI_STATUS_IGNORE);
                sleep_ms(1);
            }
        }
        if (!landed)
            snprintf(bad, sizeof(bad), " data did not land");
        report_peer("activefree", p, ok && landed, bad);
    } else if (rank == p) {
        signal_from(0);
        for (int i = 0; i < NACTIVE; i++) {
            lay_out(&m[i], m[i].buf, p, tag_of(6, i), 0);
            ok &= MPI_Send(m[i].buf, m[i].count, m[i].twin, 0, tag_of(6, i), comm) == MPI_SUCCESS;
            count_post(&m[i], 1, 0);
        }
        signal_to(0, ok);
    }
    MPI_Barrier(plain); /* the receives are done: their buffers may go */
    for (int i = 0; i < NACTIVE; i++)
        msg_close(&m[i]);
}

/* ---- partial ---- */

/* Where int k of the message lands in elements of the index and contig
 * types (in ints from the buffer's start). */
static int index_slot(int k)
{
    static const int off[6] = {0, 1, 3, 4, 7, 8};
    return k / 6 * 9 + off[k % 6];
}
static int contig_slot(int k) { return k; }

struct partial_case {
    int kind, count, ints, regist;
    int (*slot)(int);
};

static const struct partial_case partials[] = {
    {T_INDEX, 2, 9, 0, index_slot}, {T_INDEX, 2, 9, 1, index_slot},
    {T_CONTIG, 3, 6, 0, contig_slot}, {T_CONTIG, 3, 6, 1, contig_slot}};
#define NPARTIAL 4

static void partial(int p)
{
    int ok = 1;
    char bad[256] = "";
    int *buf[NPARTIAL];
    size_t len = 64 * sizeof(int);
    for (int i = 0; i < NPARTIAL; i++)
        buf[i] = alloc_buf(len, partials[i].regist);
    if (rank == 0) {
        MPI_Request q[NPARTIAL];
        MPI_Status sts[NPARTIAL];
        for (int i = 0; i < NPARTIAL; i++) {
            memset(buf[i], GAP, len);
            MPI_Datatype t = make_type(partials[i].kind);
            ok &= MPI_Irecv(buf[i], partials[i].count, t, p, tag_of(7, i), comm, &q[i]) == MPI_SUCCESS;
            drop_type(&t);
            count_raw(0, type_contig[partials[i].kind], partials[i].regist, 0);
        }
        signal_to(p, 0);
        ok &= MPI_Waitall(NPARTIAL, q, sts) == MPI_SUCCESS;
        for (int i = 0; i < NPARTIAL; i++) {
            const struct partial_case *pc = &partials[i];
            MPI_Datatype twin = make_type(pc->kind);
            int n = -1, e = -1, ni = -1;
            MPI_Get_count(&sts[i], twin, &n);
            MPI_Get_elements(&sts[i], twin, &e);
            MPI_Get_count(&sts[i], MPI_INT, &ni);
            drop_type(&twin);
            int data = 1;
            unsigned char *want = malloc(len);
            memset(want, GAP, len);
            for (int k = 0; k < pc->ints; k++)
                ((int *)want)[pc->slot(k)] = val(p, tag_of(7, i), k);
            data = memcmp(buf[i], want, len) == 0;
            free(want);
            int good = data && n == MPI_UNDEFINED && e == pc->ints && ni == pc->ints &&
                       sts[i].MPI_SOURCE == p && sts[i].MPI_TAG == tag_of(7, i);
            if (!good && !bad[0])
                snprintf(bad, sizeof(bad), " case=%s/%s data=%d count=%d elements=%d ints=%d",
                         type_name[pc->kind], pc->regist ? "regist" : "malloc", data, n, e, ni);
            ok &= good;
        }
        report_peer("partial", p, ok, bad);
    } else if (rank == p) {
        signal_from(0);
        for (int i = 0; i < NPARTIAL; i++) {
            fill(buf[i], partials[i].ints, p, tag_of(7, i));
            ok &= MPI_Send(buf[i], partials[i].ints, MPI_INT, 0, tag_of(7, i), comm) == MPI_SUCCESS;
            count_raw(1, 1, partials[i].regist, 0);
        }
        signal_to(0, ok);
    }
    for (int i = 0; i < NPARTIAL; i++) {
        if (partials[i].regist)
            MPI_Free_mem(buf[i]);
        else
            free(buf[i]);
    }
}

/* ---- attrs ---- */

static int attr_copies, attr_deletes;

static int attr_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)key, (void)extra;
    attr_copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int attr_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)val, (void)extra;
    attr_deletes++;
    return MPI_SUCCESS;
}

static void attrs(int p)
{
    struct msg m[2];
    char bad[256] = "";
    int ok = 1;
    msg_open(&m[0], T_INDEX);
    msg_open(&m[1], T_INDEX);
    if (rank == 0) {
        int key;
        MPI_Type_create_keyval(attr_copy, attr_delete, &key, NULL);
        attr_copies = attr_deletes = 0;
        MPI_Datatype t = make_type(T_INDEX);
        MPI_Type_set_attr(t, key, &attr_copies);
        MPI_Request q[2];
        MPI_Status sts[2];
        for (int i = 0; i < 2; i++)
            lay_out(&m[i], m[i].want, p, tag_of(8, i), 0);
        ok &= MPI_Irecv(m[0].buf, m[0].count, t, p, tag_of(8, 0), comm, &q[0]) == MPI_SUCCESS;
        ok &= MPI_Recv_init(m[1].buf, m[1].count, t, p, tag_of(8, 1), comm, &q[1]) == MPI_SUCCESS;
        ok &= MPI_Start(&q[1]) == MPI_SUCCESS;
        count_post(&m[0], 0, 0);
        count_post(&m[1], 0, 0);
        MPI_Type_free(&t);
        signal_to(p, 0);
        ok &= MPI_Waitall(2, q, sts) == MPI_SUCCESS;
        for (int i = 0; i < 2; i++)
            ok &= check_recv(&m[i], &sts[i], p, tag_of(8, i), bad, sizeof(bad));
        MPI_Request_free(&q[1]);
        MPI_Type_free_keyval(&key);
        if (attr_copies != 0 || attr_deletes != 1) {
            ok = 0;
            snprintf(bad, sizeof(bad), " copies=%d deletes=%d", attr_copies, attr_deletes);
        }
        report_peer("attrs", p, ok, bad);
    } else if (rank == p) {
        signal_from(0);
        for (int i = 0; i < 2; i++) {
            lay_out(&m[i], m[i].buf, p, tag_of(8, i), 0);
            ok &= MPI_Send(m[i].buf, m[i].count, m[i].twin, 0, tag_of(8, i), comm) == MPI_SUCCESS;
            count_post(&m[i], 1, 0);
        }
        signal_to(0, ok);
    }
    msg_close(&m[0]);
    msg_close(&m[1]);
}

static void run_mode(void)
{
    static const struct {
        const char *name;
        void (*f)(int);
    } sections[] = {{"nb", nb},
                    {"persist", persist},
                    {"probe", probe},
                    {"sendrecv", sendrecv},
                    {"activefree", activefree},
                    {"partial", partial},
                    {"attrs", attrs}};
    for (size_t k = 0; k < sizeof(sections) / sizeof(sections[0]); k++) {
        if (skipped(sections[k].name))
            continue;
        for (int p = 1; p < size; p++) {
            sections[k].f(p);
            MPI_Barrier(plain);
        }
    }
}
