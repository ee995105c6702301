/*
 * sharedorigin.c: what an origin sharing its core with a computing
 * process pays for a passive-target epoch, whoever serves the target.
 *
 * Plain MPICH, 3 processes. Rank 0 is the origin, rank 1 the target, idle
 * in MPI (it waits in the closing MPI_Barrier, so it answers at once),
 * rank 2 a process that computes: it spins 20 ms on its CPU without
 * calling MPI. Each iteration: MPI_Barrier; rank 0 times MPI_Win_lock
 * (SHARED, 1) + MPI_Accumulate (n doubles) + MPI_Win_flush +
 * MPI_Win_unlock; rank 2 computes; MPI_Barrier. This is the layout of
 * osubench's rma ghost-cores series (the target's ghost alone on CPU 1,
 * the origin on CPU 0 beside the computing target), with the ghost's part
 * played by an idle MPI process: bound 0,1,0 it shows what the origin's
 * share of its core costs by itself; bound 0,1,1 (the origin alone) the
 * epoch without it. Prints the mean and median epoch and lock (us).
 *
 *   mpicc.mpich -O2 -o sharedorigin sharedorigin.c
 *   mpiexec.mpich -n 3 -bind-to user:0,1,0 ./sharedorigin 100 8192
 *   mpiexec.mpich -n 3 -bind-to user:0,1,1 ./sharedorigin 100 8192
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
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
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    long n = (argc > 2 ? atol(argv[2]) : 8192) / 8;
    double *base, *obuf = calloc(n, 8), *E = calloc(iters, 8), *L = calloc(iters, 8);
    MPI_Win win;
    MPI_Win_allocate(n * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < iters; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = now();
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t1 = now();
            MPI_Accumulate(obuf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(1, win);
            MPI_Win_unlock(1, win);
            E[i] = now() - t0, L[i] = t1 - t0;
        } else if (rank == 2) {
            for (double end = now() + 20000; now() < end;)
                ;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        double sum = 0, lsum = 0;
        for (int i = 0; i < iters; i++)
            sum += E[i], lsum += L[i];
        qsort(E, iters, 8, cmp);
        qsort(L, iters, 8, cmp);
        printf("epoch mean %.1f median %.1f | lock mean %.1f median %.1f (us, %d iterations)\n", sum / iters,
               E[iters / 2], lsum / iters, L[iters / 2], iters);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
