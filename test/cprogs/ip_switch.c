/*
 * ip_switch: MPI_Comm_set_info(async_config=on|off) at any time, with
 * messages in flight in every direction (internal/core/switch.go). Every
 * message must arrive, in MPI's order, with its status right, whatever
 * route it took and whenever the route changed.
 *
 *   ip_switch <wildcard_used> <rounds> <bytes>
 *
 * On a communicator duplicated from MPI_COMM_WORLD with the given
 * wildcard_used hint (none, any_tag_same_tag, any_src|any_tag_same_tag,
 * any_src), all users run:
 *
 *   repro      issue 15's reproduction: rank 0 posts MPI_Isend(tag 7), all
 *              switch offload off, rank 1 receives with MPI_Recv; then a
 *              barrier (the switch can take effect there), then on again
 *              with nothing in flight (at once)
 *   inflight   per round: everyone sends 4 messages to everyone (two tags,
 *              small and <bytes>), posts the receives of the first half,
 *              flips async_config, posts the rest (MPI_ANY_TAG where the
 *              hint allows it), waits; order checked per source and tag
 *   wild       MPI_ANY_SOURCE receives (where the hint allows them) posted
 *              before a flip, matched by sends made after it
 *   persist    persistent sends and receives initialized once, started in
 *              every round across flips
 *   probe      a message sent before a flip, matched after it by
 *              MPI_Improbe/MPI_Mprobe + MPI_Mrecv, and by MPI_Iprobe +
 *              MPI_Recv
 *   symmetric  after a barrier with nothing in flight, a flip with
 *              symmetric=true takes effect in the call
 *   hints      after a barrier, two flips: each time MPI_Comm_get_info
 *              reports the value asked, and a duplicate of the
 *              communicator takes the same route and carries a message
 *              (where the library takes a flip without its runtime,
 *              internal/user/toggle.c, the runtime still knows it)
 *   badvalue   async_config=sometimes and symmetric=maybe are refused with
 *              MPI_ERR_INFO_VALUE under MPI_ERRORS_RETURN, and change nothing
 *
 * Output: "result rank=<r> test=switch section=<s> ok=<0|1> ..." and, for
 * the route checks, "route rank=<r> at=<point> algo=<n>" where n is the
 * algorithm carrying the communicator (csp_test_comm_algo: 0 not
 * offloaded), -1 without the library.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, anysrc, anytag;
static long nbig;
static MPI_Comm comm;
static int on = 1; /* the async_config value last asked for */

static int (*algo_hook)(MPI_Comm);

static void route(const char *at)
{
    printf("route rank=%d at=%s algo=%d asked=%s\n", rank, at, algo_hook ? algo_hook(comm) : -1,
           on ? "on" : "off");
    fflush(stdout);
}

static void report(const char *section, int ok, const char *why)
{
    printf("result rank=%d test=switch section=%s ok=%d%s%s\n", rank, section, ok, ok ? "" : " why=",
           ok ? "" : why);
    fflush(stdout);
}

/* Ask for async_config=v (and symmetric=true when sym). */
static int set_async(int v, int sym)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", v ? "on" : "off");
    if (sym)
        MPI_Info_set(info, "symmetric", "true");
    int rc = MPI_Comm_set_info(comm, info);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS)
        on = v;
    return rc;
}

static int flip(void) { return set_async(!on, 0); }

/* Message word i of the message (src, dst, seq). */
static inline int32_t word(int src, int dst, int seq, long i)
{
    return (int32_t)((src * 7919 + dst * 104729 + seq * 1299709) ^ (int32_t)(i * 2654435761u));
}

static void fill(int32_t *b, long n, int src, int dst, int seq)
{
    for (long i = 0; i < n; i++)
        b[i] = word(src, dst, seq, i);
}

/* The seq a message carries, or -1 if its words are not one message's. */
static int seq_of(const int32_t *b, long n, int src, int dst, int maxseq)
{
    for (int seq = 0; seq < maxseq; seq++) {
        if (b[0] != word(src, dst, seq, 0))
            continue;
        for (long i = 1; i < n; i++)
            if (b[i] != word(src, dst, seq, i))
                return -1;
        return seq;
    }
    return -1;
}

static void repro(void)
{
    int ok = 1, x = 4242, got = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Isend(&x, 1, MPI_INT, 1, 7, comm, &r);
    set_async(0, 0);
    route("repro-asked-off");
    if (rank == 1) {
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, 0, 7, comm, &st);
        ok = got == x && st.MPI_SOURCE == 0 && st.MPI_TAG == 7;
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(comm);
    route("repro-after-barrier");
    set_async(1, 0);
    route("repro-on-quiet");
    report("repro", ok, "MPI_Recv after the switch request got the wrong message");
}

/* Two tags, each carrying a small and a big message from every rank to
 * every other, in the order small(tag 1), big(tag 2), small(tag 2),
 * big(tag 1): seq 0..3. */
#define NMSG 4
static const int msg_tag[NMSG] = {1, 2, 2, 1};
static long msg_len(int k) { return k == 0 || k == 2 ? 4 : nbig; }

static void inflight(int rounds)
{
    int ok = 1;
    char why[160] = "";
    int npeer = size - 1;
    int32_t **sbuf = calloc((size_t)npeer * NMSG, sizeof(*sbuf));
    int32_t **rbuf = calloc((size_t)npeer * NMSG, sizeof(*rbuf));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)npeer * NMSG * 2);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)npeer * NMSG * 2);
    for (int i = 0; i < npeer * NMSG; i++) {
        sbuf[i] = malloc(sizeof(int32_t) * (size_t)nbig);
        rbuf[i] = malloc(sizeof(int32_t) * (size_t)nbig);
    }
    for (int round = 0; round < rounds && ok; round++) {
        int nr = 0;
        /* sends, in seq order per destination */
        for (int k = 0; k < NMSG; k++)
            for (int p = 0, j = 0; p < size; p++) {
                if (p == rank)
                    continue;
                int32_t *b = sbuf[j * NMSG + k];
                fill(b, msg_len(k), rank, p, round * NMSG + k);
                MPI_Isend(b, (int)msg_len(k), MPI_INT32_T, p, msg_tag[k], comm, &req[nr++]);
                j++;
            }
        int nsend = nr;
        /* receives of seq 0 and 1 (tags 1 and 2) before the flip */
        for (int p = 0, j = 0; p < size; p++) {
            if (p == rank)
                continue;
            for (int k = 0; k < 2; k++)
                MPI_Irecv(rbuf[j * NMSG + k], (int)nbig, MPI_INT32_T, p, msg_tag[k], comm, &req[nr++]);
            j++;
        }
        flip();
        /* the rest after it: seq 2 (tag 2) then seq 3 (tag 1), or two
         * MPI_ANY_TAG receives, which take them in the order sent */
        for (int p = 0, j = 0; p < size; p++) {
            if (p == rank)
                continue;
            for (int k = 2; k < NMSG; k++)
                MPI_Irecv(rbuf[j * NMSG + k], (int)nbig, MPI_INT32_T, p,
                          anytag ? MPI_ANY_TAG : msg_tag[k], comm, &req[nr++]);
            j++;
        }
        MPI_Waitall(nr, req, sts);
        for (int p = 0, j = 0; p < size && ok; p++) {
            if (p == rank)
                continue;
            for (int k = 0; k < NMSG && ok; k++) {
                /* the receives were posted in two passes over the peers:
                 * k = 0, 1 before the flip, k = 2, 3 after it */
                int i = nsend + (k < 2 ? 0 : 2 * npeer) + 2 * j + k % 2;
                int want = round * NMSG + k, count = -1;
                MPI_Get_count(&sts[i], MPI_INT32_T, &count);
                int seq = seq_of(rbuf[j * NMSG + k], msg_len(k), p, rank, (round + 1) * NMSG);
                if (seq != want || sts[i].MPI_SOURCE != p || sts[i].MPI_TAG != msg_tag[k] ||
                    count != (int)msg_len(k)) {
                    snprintf(why, sizeof(why), "round=%d from=%d k=%d seq=%d source=%d tag=%d count=%d",
                             round, p, k, seq, sts[i].MPI_SOURCE, sts[i].MPI_TAG, count);
                    ok = 0;
                }
            }
            j++;
        }
        if (round % 2 == 1)
            MPI_Barrier(comm); /* a pending switch may be taken here */
        MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, comm);
    }
    MPI_Barrier(comm);
    route("inflight-end");
    report("inflight", ok, why);
    for (int i = 0; i < npeer * NMSG; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(sbuf);
    free(rbuf);
    free(req);
    free(sts);
}

/* Every rank receives one message from each other rank with MPI_ANY_SOURCE
 * receives posted before the flip; the sends come after it. */
static void wild(void)
{
    if (!anysrc) {
        report("wild", 1, "");
        return;
    }
    int ok = 1;
    char why[120] = "";
    int npeer = size - 1;
    int32_t *in = calloc((size_t)npeer, sizeof(int32_t)), out = rank * 1000 + 5;
    int *seen = calloc((size_t)size, sizeof(int));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)npeer * 2);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)npeer * 2);
    for (int i = 0; i < npeer; i++)
        MPI_Irecv(&in[i], 1, MPI_INT32_T, MPI_ANY_SOURCE, anytag ? MPI_ANY_TAG : 3, comm, &req[i]);
    flip();
    for (int p = 0, n = npeer; p < size; p++)
        if (p != rank)
            MPI_Isend(&out, 1, MPI_INT32_T, p, 3, comm, &req[n++]);
    MPI_Waitall(2 * npeer, req, sts);
    for (int i = 0; i < npeer; i++) {
        int src = sts[i].MPI_SOURCE;
        if (src < 0 || src >= size || src == rank || seen[src]++ || in[i] != src * 1000 + 5 ||
            sts[i].MPI_TAG != 3) {
            snprintf(why, sizeof(why), "i=%d source=%d tag=%d value=%d", i, src, sts[i].MPI_TAG, in[i]);
            ok = 0;
        }
    }
    MPI_Barrier(comm);
    route("wild-end");
    report("wild", ok, why);
    free(in);
    free(seen);
    free(req);
    free(sts);
}

/* A ring: each rank sends to rank+1 and receives from rank-1 with
 * persistent requests made once and started every round, across flips. */
static void persist(int rounds)
{
    int ok = 1;
    char why[120] = "";
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int32_t *s = malloc(sizeof(int32_t) * (size_t)nbig), *r = malloc(sizeof(int32_t) * (size_t)nbig);
    MPI_Request req[2];
    MPI_Send_init(s, (int)nbig, MPI_INT32_T, next, 9, comm, &req[0]);
    MPI_Recv_init(r, (int)nbig, MPI_INT32_T, prev, 9, comm, &req[1]);
    for (int round = 0; round < rounds && ok; round++) {
        fill(s, nbig, rank, next, round);
        MPI_Startall(2, req);
        if (round % 2 == 0)
            flip(); /* requests active on the old route */
        MPI_Status sts[2];
        MPI_Waitall(2, req, sts);
        int count = -1;
        MPI_Get_count(&sts[1], MPI_INT32_T, &count);
        if (seq_of(r, nbig, prev, rank, round + 1) != round || sts[1].MPI_SOURCE != prev ||
            sts[1].MPI_TAG != 9 || count != (int)nbig) {
            snprintf(why, sizeof(why), "round=%d source=%d tag=%d count=%d", round, sts[1].MPI_SOURCE,
                     sts[1].MPI_TAG, count);
            ok = 0;
        }
        if (round % 2 == 1)
            flip(); /* inactive requests: the next start takes the new route */
        if (round % 3 == 2)
            MPI_Barrier(comm);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Barrier(comm);
    route("persist-end");
    report("persist", ok, why);
    free(s);
    free(r);
}

/* Rank 0 sends four messages to rank 1 before a flip; rank 1 takes them
 * after it with every kind of probe. */
static void probe(void)
{
    int ok = 1;
    char why[120] = "";
    int32_t v[4] = {11, 22, 33, 44}, got = 0;
    MPI_Request r[4];
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            MPI_Isend(&v[i], 1, MPI_INT32_T, 1, 20 + i, comm, &r[i]);
    flip();
    if (rank == 1) {
        MPI_Message m;
        MPI_Status st;
        int flag = 0;
        while (!flag)
            MPI_Improbe(0, 20, comm, &flag, &m, &st);
        MPI_Mrecv(&got, 1, MPI_INT32_T, &m, &st);
        ok &= got == 11 && st.MPI_SOURCE == 0 && st.MPI_TAG == 20;
        MPI_Mprobe(0, 21, comm, &m, &st);
        MPI_Mrecv(&got, 1, MPI_INT32_T, &m, &st);
        ok &= got == 22 && st.MPI_TAG == 21;
        flag = 0;
        while (!flag)
            MPI_Iprobe(0, 22, comm, &flag, &st);
        MPI_Recv(&got, 1, MPI_INT32_T, 0, 22, comm, &st);
        ok &= got == 33 && st.MPI_TAG == 22;
        MPI_Probe(0, 23, comm, &st);
        MPI_Recv(&got, 1, MPI_INT32_T, 0, 23, comm, &st);
        ok &= got == 44 && st.MPI_TAG == 23;
        if (!ok)
            snprintf(why, sizeof(why), "last got=%d tag=%d", got, st.MPI_TAG);
    }
    if (rank == 0)
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    MPI_Barrier(comm);
    route("probe-end");
    report("probe", ok, why);
}

static void symmetric(void)
{
    MPI_Barrier(comm);
    route("symmetric-before");
    set_async(!on, 1);
    route("symmetric-after");
    set_async(!on, 1);
    route("symmetric-back");
    report("symmetric", 1, "");
}

static void hints(void)
{
    int ok = 1;
    char why[160] = "";
    for (int i = 0; i < 2 && ok; i++) {
        MPI_Barrier(comm);
        set_async(!on, 0);
        route("hints-end");
        MPI_Info got;
        char v[16] = "";
        int flag = 0;
        MPI_Comm_get_info(comm, &got);
        MPI_Info_get(got, "async_config", (int)sizeof v - 1, v, &flag);
        MPI_Info_free(&got);
        if (algo_hook && (!flag || strcmp(v, on ? "on" : "off") != 0)) {
            snprintf(why, sizeof(why), "flip=%d get_info async_config=%s (set %d), asked %s", i, v, flag,
                     on ? "on" : "off");
            ok = 0;
        }
        MPI_Comm dup;
        MPI_Comm_dup(comm, &dup);
        int a = algo_hook ? algo_hook(dup) : -1, b = algo_hook ? algo_hook(comm) : -1;
        int x = rank, y = -1, prev = (rank + size - 1) % size;
        MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 4, &y, 1, MPI_INT, prev, 4, dup, MPI_STATUS_IGNORE);
        if (ok && (a != b || y != prev)) {
            snprintf(why, sizeof(why), "flip=%d duplicate algo=%d, communicator algo=%d, got %d from %d", i, a,
                     b, y, prev);
            ok = 0;
        }
        MPI_Comm_free(&dup);
    }
    report("hints", ok, why);
}

static void badvalue(void)
{
    int ok = 1;
    char why[120] = "";
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const char *kv[][2] = {{"async_config", "sometimes"}, {"symmetric", "maybe"}};
    for (int i = 0; i < 2; i++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, kv[i][0], kv[i][1]);
        int rc = MPI_Comm_set_info(comm, info), cls = -1;
        MPI_Info_free(&info);
        MPI_Error_class(rc, &cls);
        /* without the library these are keys MPI ignores */
        if (cls != (algo_hook ? MPI_ERR_INFO_VALUE : MPI_SUCCESS)) {
            snprintf(why, sizeof(why), "%s=%s class=%d", kv[i][0], kv[i][1], cls);
            ok = 0;
        }
    }
    /* the communicator still works, on its old route */
    int x = rank, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % size, 1, &y, 1, MPI_INT, (rank + size - 1) % size, 1,
                 comm, MPI_STATUS_IGNORE);
    ok &= y == (rank + size - 1) % size;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    route("badvalue-end");
    report("badvalue", ok, why);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4) {
        fprintf(stderr, "usage: ip_switch <wildcard_used> <rounds> <bytes>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *hint = argv[1];
    int rounds = atoi(argv[2]);
    nbig = atol(argv[3]) / (long)sizeof(int32_t);
    if (nbig < 4)
        nbig = 4;
    anysrc = strstr(hint, "any_src") != NULL;
    anytag = strstr(hint, "any_tag") != NULL;
    algo_hook = (int (*)(MPI_Comm))dlsym(RTLD_DEFAULT, "csp_test_comm_algo");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", hint);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    route("start");
    repro();
    inflight(rounds);
    wild();
    persist(rounds);
    probe();
    symmetric();
    hints();
    badvalue();
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
