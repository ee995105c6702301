/*
 * isoepoch.c: isolated passive-target epochs on a target that computes,
 * one epoch per compute period, as osubench's rma does, with the
 * distribution osubench's means hide.
 *
 * Rank 0 is the origin, rank 1 the target (of an MPI_Win_allocate
 * window). Each iteration: MPI_Barrier; the origin times MPI_Win_lock
 * (SHARED, 1) + MPI_Accumulate (bytes of doubles, MPI_SUM) +
 * MPI_Win_flush + MPI_Win_unlock while the target spins us microseconds
 * without calling MPI (busy) or goes straight on (idle: it waits in the
 * closing barrier); MPI_Barrier. Prints the mean, median, 90th percentile
 * and maximum epoch (us), then every epoch over 3 medians with its lock,
 * accumulate and flush (the first one is the origin's first contact with
 * the target's ghost).
 *
 * Under the library, 1 node of 1 ghost + 2 users with the ghost alone on
 * CPU 1 (osubench's rma ghost-cores layout on 2 CPUs), served by the
 * ghost, not by the origin:
 *
 *   mpicc.mpich -O2 -o isoepoch isoepoch.c
 *   mpiexec.mpich -n 3 -bind-to user:1,0,0 -genv CSP_NODE_SIZE 3 \
 *       -genv CSP_RMA_LOCAL 0 -genv LD_PRELOAD lib/libcasperii.so \
 *       ./isoepoch 100 20000 8192 busy
 *
 * sharedorigin.c measures the same epoch under plain MPICH with the origin
 * beside a computing process and an idle target on a CPU of its own.
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double us = argc > 2 ? atof(argv[2]) : 20000;
    int bytes = argc > 3 ? atoi(argv[3]) : 8192;
    int busy = argc > 4 ? strcmp(argv[4], "idle") != 0 : 1;
    if (n < 1 || bytes < 8) {
        fprintf(stderr, "usage: isoepoch iterations compute_us bytes busy|idle\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int count = bytes / 8;
    double *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)count * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    double *ob = calloc((size_t)count, 8);
    double *t = calloc((size_t)n * 4, sizeof(double)); /* epoch, lock, acc, flush */
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = now();
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t1 = now();
            MPI_Accumulate(ob, count, MPI_DOUBLE, 1, 0, count, MPI_DOUBLE, MPI_SUM, win);
            double t2 = now();
            MPI_Win_flush(1, win);
            double t3 = now();
            MPI_Win_unlock(1, win);
            double t4 = now();
            t[4 * i] = t4 - t0, t[4 * i + 1] = t1 - t0, t[4 * i + 2] = t2 - t1, t[4 * i + 3] = t3 - t2;
        } else if (rank == 1 && busy) {
            double t0 = now();
            while (now() - t0 < us)
                ;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        double sum = 0, *s = malloc((size_t)n * sizeof(double));
        for (int i = 0; i < n; i++)
            sum += s[i] = t[4 * i];
        qsort(s, (size_t)n, sizeof(double), cmp);
        double med = s[n / 2];
        printf("isoepoch %s n=%d bytes=%d mean=%.1f p50=%.1f p90=%.1f max=%.1f us |", busy ? "busy" : "idle", n,
               bytes, sum / n, med, s[n * 9 / 10], s[n - 1]);
        for (int i = 0; i < n; i++)
            if (t[4 * i] > 3 * med)
                printf(" [%d: %.0f = lock %.0f acc %.0f flush %.0f]", i, t[4 * i], t[4 * i + 1], t[4 * i + 2],
                       t[4 * i + 3]);
        printf("\n");
        free(s);
    }
    free(t);
    free(ob);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
