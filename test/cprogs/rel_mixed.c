/*
 * rel_mixed: rounds of the operations the randomized matching test
 * (rmatch.c) does not use, on an offloaded communicator, checking after
 * every round that the fast path holds nothing more than the application
 * does (test hook csp_test_usage, after draining): no cell out of its
 * pool, no operation record, and exactly the registered bytes the program
 * still holds in the shared heap.
 *
 *   rel_mixed <rounds> [wildcard_used]
 *
 * Per round: MPI_Bsend and MPI_Ibsend, MPI_Isendrecv and
 * MPI_Isendrecv_replace, MPI_Sendrecv, persistent MPI_Bsend_init /
 * MPI_Ssend_init / MPI_Recv_init, MPI_Issend, a cancelled receive, a
 * message of 1 MiB from unregistered memory (with CSP_HEAP_ARENA=20 it
 * needs a huge segment of its own, given back afterwards), an
 * MPI_Alloc_mem buffer allocated and freed, MPI_Comm_idup of the
 * communicator, freed.
 *
 * Output: "result rank=<r> test=mixed ok=<0|1> rounds=<n> ..." and, on a
 * failed check, a line saying which.
 */
#define _GNU_SOURCE
#include "rel_hooks.h"

#include <string.h>

#define BIG (1 << 20)

static int rank, size, bad;

static void fail(int round, const char *what)
{
    printf("result rank=%d test=mixed-check ok=0 round=%d what=%s\n", rank, round, what);
    bad++;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    const char *wild = argc > 2 ? argv[2] : "any_src";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", wild);
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *big_s = malloc(BIG), *big_r = malloc(BIG);
    int n = BIG / (int)sizeof(int);
    int bsize = 4 * (BIG + MPI_BSEND_OVERHEAD);
    void *battach = malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);
    uint32_t cells, held;
    uint64_t ops, heap;
    int hooks = rel_usage(1, &cells, &ops, &heap, &held) == 0;

    for (int r = 0; r < rounds; r++) {
        int x[64], y[64], z = rank * 1000 + r, w = -1;
        MPI_Request q[4];
        MPI_Status st;
        for (int i = 0; i < 64; i++)
            x[i] = rank * 100 + r + i;

        /* buffered */
        MPI_Bsend(x, 64, MPI_INT, next, 1, c);
        MPI_Ibsend(&z, 1, MPI_INT, next, 2, c, &q[0]);
        MPI_Recv(y, 64, MPI_INT, prev, 1, c, MPI_STATUS_IGNORE);
        MPI_Recv(&w, 1, MPI_INT, prev, 2, c, MPI_STATUS_IGNORE);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        if (y[5] != prev * 100 + r + 5 || w != prev * 1000 + r)
            fail(r, "bsend");

        /* Isendrecv, Isendrecv_replace, Sendrecv */
        MPI_Isendrecv(x, 64, MPI_INT, next, 3, y, 64, MPI_INT, prev, 3, c, &q[0]);
        MPI_Wait(&q[0], &st);
        if (y[7] != prev * 100 + r + 7 || st.MPI_SOURCE != prev)
            fail(r, "isendrecv");
        memcpy(y, x, sizeof x);
        MPI_Isendrecv_replace(y, 64, MPI_INT, next, 4, prev, 4, c, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        if (y[9] != prev * 100 + r + 9)
            fail(r, "isendrecv_replace");
        MPI_Sendrecv(&z, 1, MPI_INT, next, 5, &w, 1, MPI_INT, prev, 5, c, MPI_STATUS_IGNORE);
        if (w != prev * 1000 + r)
            fail(r, "sendrecv");

        /* persistent: buffered, synchronous, receive; two starts each */
        MPI_Bsend_init(x, 64, MPI_INT, next, 6, c, &q[0]);
        MPI_Ssend_init(&z, 1, MPI_INT, next, 7, c, &q[1]);
        MPI_Recv_init(y, 64, MPI_INT, prev, 6, c, &q[2]);
        MPI_Recv_init(&w, 1, MPI_INT, prev, 7, c, &q[3]);
        for (int k = 0; k < 2; k++) {
            MPI_Startall(4, q);
            MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
            if (y[11] != prev * 100 + r + 11 || w != prev * 1000 + r)
                fail(r, "persistent");
        }
        for (int k = 0; k < 4; k++)
            MPI_Request_free(&q[k]);

        /* synchronous nonblocking; a cancelled receive */
        MPI_Irecv(&w, 1, MPI_INT, prev, 8, c, &q[0]);
        MPI_Issend(&z, 1, MPI_INT, next, 8, c, &q[1]);
        MPI_Irecv(y, 1, MPI_INT, prev, 999, c, &q[2]);
        MPI_Cancel(&q[2]);
        MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
        if (w != prev * 1000 + r)
            fail(r, "issend");

        /* a big message from unregistered memory */
        for (int i = 0; i < n; i += 4096)
            big_s[i] = rank + r + i;
        MPI_Irecv(big_r, n, MPI_INT, prev, 9, c, &q[0]);
        MPI_Isend(big_s, n, MPI_INT, next, 9, c, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i += 4096)
            if (big_r[i] != prev + r + i) {
                fail(r, "big");
                break;
            }

        /* registered memory comes and goes */
        MPI_Info_create(&info);
        MPI_Info_set(info, "shmbuf_regist", "true");
        int *reg;
        MPI_Alloc_mem(64 * 1024, info, &reg);
        MPI_Info_free(&info);
        reg[0] = z;
        MPI_Sendrecv(reg, 16384, MPI_INT, next, 10, big_r, 16384, MPI_INT, prev, 10, c, MPI_STATUS_IGNORE);
        if (big_r[0] != prev * 1000 + r)
            fail(r, "registered");
        MPI_Free_mem(reg);

        /* a nonblocking duplicate, freed */
        MPI_Comm d;
        MPI_Comm_idup(c, &d, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Comm_free(&d);

        if (hooks) {
            rel_usage(1, &cells, &ops, &heap, &held);
            if (cells || ops || heap || held) {
                char what[160];
                snprintf(what, sizeof what, "usage:cells=%u,ops=%llu,heap=%llu,held=%u", cells,
                         (unsigned long long)ops, (unsigned long long)heap, held);
                fail(r, what);
            }
        }
    }
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);
    free(big_s);
    free(big_r);
    printf("result rank=%d test=mixed ok=%d rounds=%d algo=%d hooks=%d\n", rank, bad == 0, rounds, rel_comm_algo(c),
           hooks);
    fflush(stdout);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return bad != 0;
}
