/*
 * rel_backlog: posts beyond the cells of a user (held posts) while the
 * process waits somewhere else than on them. User 2k talks to user 2k+1.
 *
 *   rel_backlog barrier <n>
 *     The sender posts n 8-byte sends it never waits for (MPI_Isend then
 *     MPI_Request_free), then calls MPI_Barrier; the receiver receives
 *     them one by one with MPI_Recv, then calls MPI_Barrier. With fewer
 *     cells than n, the sends beyond the cells are held when the sender
 *     enters the barrier, and the receiver waits for them before it
 *     enters its own: they must go out while the sender waits in the
 *     barrier (internal/user/coop.c).
 *
 *   rel_backlog crossed <n>
 *     The sender posts n synchronous sends (MPI_Issend), tag n-1 first;
 *     the receiver posts n receives, tag 0 first; both then wait for all.
 *     A synchronous send finishes only once matched, so with fewer cells
 *     than n on both sides the sends that have cells wait for receives
 *     that do not: the default cell count must carry n this large.
 *
 * Every message carries its sequence number (barrier: its order; crossed:
 * its tag), checked with the status. The communicator is a duplicate of
 * MPI_COMM_WORLD with wildcard_used=none.
 *
 * Output, per user:
 *   result rank=<r> test=backlog mode=<m> role=send|recv ok=<0|1> bad=<n>
 *          errors=<n> cells=<n> ops=<n> heap=<n> held=<n>
 * cells/ops/heap/held: what the fast path holds once every operation is
 * done (test hook csp_test_usage; -1 and ok=0 without it).
 */
#include "rel_hooks.h"

#include <string.h>

static int rank;
static long bad, errs;

static void check(int rc, const char *what, long i)
{
    if (rc != MPI_SUCCESS && errs++ == 0)
        fprintf(stderr, "rel_backlog rank %d: %s %ld failed: error %d\n", rank, what, i, rc);
}

static void barrier_send(MPI_Comm c, int peer, long n)
{
    long *buf = malloc(sizeof(long) * (size_t)n);
    for (long i = 0; i < n; i++) {
        MPI_Request r;
        buf[i] = i;
        int rc = MPI_Isend(&buf[i], 1, MPI_LONG, peer, 7, c, &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Request_free(&r);
        check(rc, "send", i);
    }
    check(MPI_Barrier(c), "barrier", n);
    free(buf); /* the receiver had every message before the barrier ended */
}

static void barrier_recv(MPI_Comm c, int peer, long n)
{
    for (long i = 0; i < n; i++) {
        long v = -1;
        MPI_Status st;
        int rc = MPI_Recv(&v, 1, MPI_LONG, peer, 7, c, &st);
        check(rc, "receive", i);
        if (rc == MPI_SUCCESS && (v != i || st.MPI_SOURCE != peer || st.MPI_TAG != 7) && bad++ == 0)
            fprintf(stderr, "rel_backlog rank %d: receive %ld got %ld from %d tag %d\n", rank, i, v,
                    st.MPI_SOURCE, st.MPI_TAG);
    }
    check(MPI_Barrier(c), "barrier", n);
}

static void crossed(MPI_Comm c, int peer, long n, int send)
{
    long *buf = malloc(sizeof(long) * (size_t)n);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)n);
    for (long k = 0; k < n; k++) {
        long i = send ? n - 1 - k : k;
        buf[i] = send ? i * 3 + 1 : -1;
        int rc = send ? MPI_Issend(&buf[i], 1, MPI_LONG, peer, (int)i, c, &req[k])
                      : MPI_Irecv(&buf[i], 1, MPI_LONG, peer, (int)i, c, &req[k]);
        check(rc, send ? "issend" : "irecv", i);
    }
    check(MPI_Waitall((int)n, req, st), "waitall", n);
    for (long k = 0; !send && k < n; k++)
        if ((buf[k] != k * 3 + 1 || st[k].MPI_TAG != (int)k || st[k].MPI_SOURCE != peer) && bad++ == 0)
            fprintf(stderr, "rel_backlog rank %d: receive of tag %ld got %ld (tag %d)\n", rank, k, buf[k],
                    st[k].MPI_TAG);
    free(st);
    free(req);
    free(buf);
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "barrier") && strcmp(argv[1], "crossed"))) {
        fprintf(stderr, "usage: rel_backlog barrier|crossed <n>\n");
        return 2;
    }
    long n = atol(argv[2]);
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c = rel_dup_hint(MPI_COMM_WORLD, "wildcard_used", "none");
    int send = rank % 2 == 0, peer = send ? rank + 1 : rank - 1;
    if (peer < size) {
        if (strcmp(argv[1], "barrier") == 0) {
            if (send)
                barrier_send(c, peer, n);
            else
                barrier_recv(c, peer, n);
        } else {
            crossed(c, peer, n, send);
        }
    } else if (strcmp(argv[1], "barrier") == 0) {
        MPI_Barrier(c); /* an odd user out still joins the barriers */
    }
    uint32_t cells = 0, held = 0;
    uint64_t ops = 0, heap = 0;
    int hooks = rel_usage(1, &cells, &ops, &heap, &held); /* drains first */
    printf("result rank=%d test=backlog mode=%s role=%s ok=%d bad=%ld errors=%ld cells=%d ops=%lld heap=%lld "
           "held=%d\n",
           rank, argv[1], send ? "send" : "recv", bad == 0 && errs == 0 && hooks == 0, bad, errs,
           hooks ? -1 : (int)cells, hooks ? -1LL : (long long)ops, hooks ? -1LL : (long long)heap,
           hooks ? -1 : (int)held);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
