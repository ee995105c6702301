/*
 * waitsplit.c: where the time of a busy overlapped exchange goes once both
 * users wait. Two users exchange <bytes> on a duplicate of MPI_COMM_WORLD
 * (wildcard_used=none, MPI_Alloc_mem(shmbuf_regist) buffers) as osubench's
 * overlap loop does: write the send buffer, MPI_Irecv + MPI_Isend, compute
 * <us> on the CPU, MPI_Waitall, read every received byte. Each user stamps
 * every iteration (CLOCK_MONOTONIC, the same clock on both); at the end
 * user 0 takes user 1's stamps and prints, per block of 1000 iterations,
 * the medians of
 *   done   from the later user's entry into MPI_Waitall to the later
 *          return from it: the exchange once nobody computes any more;
 *   skew   between the two users' entries into MPI_Waitall;
 *   iter   user 0's whole iteration.
 * Under plain MPICH "done" is the transfer; under the library it adds the
 * hand-offs between each user and its ghost on their shared core (the
 * user falls asleep, the ghost posts and moves the data, wakes the user,
 * the user runs again). Blocks show the host's regimes: the same job's
 * "done" moves between them on a scale of 100 ms.
 *
 *   mpicc -O2 -o waitsplit waitsplit.c
 *   mpiexec -n 2 ./waitsplit 262144 39 20000
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_ASYNC_CONFIG on \
 *           -genv LD_PRELOAD $PWD/lib/libcasperii.so ./waitsplit 262144 39 20000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc < 4 || n != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: waitsplit <bytes> <compute us> <iterations> (2 users)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long sz = atol(argv[1]);
    double us = atof(argv[2]);
    int iters = atoi(argv[3]);
    MPI_Info hint, reg;
    MPI_Info_create(&hint);
    MPI_Info_set(hint, "wildcard_used", "none");
    MPI_Info_create(&reg);
    MPI_Info_set(reg, "shmbuf_regist", "true");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, hint, &c);
    char *sb, *rb;
    MPI_Alloc_mem(sz, reg, &sb);
    MPI_Alloc_mem(sz, reg, &rb);
    /* per iteration: start, entry into the wait, return from it */
    double *ts = malloc(3 * sizeof(double) * iters);
    volatile long sink = 0;
    int peer = 1 - rank;
    MPI_Barrier(c);
    for (int i = 0; i < iters; i++) {
        ts[3 * i] = now();
        memset(sb, i, sz);
        MPI_Request q[2];
        MPI_Irecv(rb, sz, MPI_BYTE, peer, 1, c, &q[0]);
        MPI_Isend(sb, sz, MPI_BYTE, peer, 1, c, &q[1]);
        double end = now() + us;
        while (now() < end)
            ;
        ts[3 * i + 1] = now();
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        ts[3 * i + 2] = now();
        long s = 0;
        for (long k = 0; k + 8 <= sz; k += 8)
            s += *(long *)(rb + k);
        sink += s;
    }
    double *other = rank == 0 ? malloc(3 * sizeof(double) * iters) : NULL;
    if (rank == 0)
        MPI_Recv(other, 3 * iters, MPI_DOUBLE, 1, 9, c, MPI_STATUS_IGNORE);
    else
        MPI_Send(ts, 3 * iters, MPI_DOUBLE, 0, 9, c);
    if (rank == 0) {
        const int blk = 1000;
        double *done = malloc(sizeof(double) * blk), *skew = malloc(sizeof(double) * blk),
               *it = malloc(sizeof(double) * blk);
        printf("# waitsplit %ld B, %.1f us compute, medians per block of %d: done / skew / iter [us]\n", sz, us, blk);
        for (int b = 0; b + blk <= iters - 1; b += blk) {
            for (int k = 0; k < blk; k++) {
                int i = b + k;
                double e0 = ts[3 * i + 1], e1 = other[3 * i + 1];
                double later = e0 > e1 ? e0 : e1, first = e0 > e1 ? e1 : e0;
                double r0 = ts[3 * i + 2], r1 = other[3 * i + 2];
                done[k] = (r0 > r1 ? r0 : r1) - later;
                skew[k] = later - first;
                it[k] = ts[3 * (i + 1)] - ts[3 * i];
            }
            printf("%d-%d %.1f / %.1f / %.1f\n", b, b + blk - 1, median(done, blk), median(skew, blk),
                   median(it, blk));
        }
        free(done);
        free(skew);
        free(it);
        free(other);
    }
    free(ts);
    MPI_Free_mem(sb);
    MPI_Free_mem(rb);
    MPI_Info_free(&hint);
    MPI_Info_free(&reg);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
