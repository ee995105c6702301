/*
 * rmaepoch.c: what one passive-target epoch costs when a ghost serves it,
 * and how the ghost's CPUs change it.
 *
 * Rank 0 runs epochs back to back for one second on rank 1's window,
 * MPI_Win_lock(SHARED) + MPI_Accumulate(SUM, n doubles) + MPI_Win_flush +
 * MPI_Win_unlock, timing each part; rank 1 meanwhile sleeps (mode 0),
 * spins on its CPU (mode 1) or waits in MPI_Barrier (mode 2), without
 * any other MPI call, for 1.1 s. Printed by rank 0: the number of epochs,
 * their mean and median, and the median of each part (us). Back-to-back
 * epochs are the best case for the ghost's bursts (one lock word change
 * keeps it polling); osubench run rma times one epoch per 20 ms compute,
 * where every epoch's lock waits for the ghost's next poll.
 *
 *   mpicc.mpich -O2 -o rmaepoch rmaepoch.c
 *   mpiexec.mpich -n 2 ./rmaepoch 100000 8192 2                        # plain MPICH, idle target
 *   mpiexec.mpich -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_ASYNC_MODE 'rma|pt2pt' \
 *       -genv LD_PRELOAD $PWD/lib/libcasperii.so ./rmaepoch 100000 8192 1  # ghosts share the users' cores
 *   mpiexec.mpich -n 3 -bind-to user:1,0,0 -genv CSP_ASYNC_MODE 'rma|pt2pt' \
 *       -genv LD_PRELOAD $PWD/lib/libcasperii.so ./rmaepoch 100000 8192 0  # one ghost alone on CPU 1
 *
 * Arguments: maximum epochs, bytes per accumulate (a multiple of 8), mode,
 * and optionally "shared": the window of MPI_Win_allocate_shared instead
 * of MPI_Win_allocate (MPICH then maps every part in every process of the
 * node; its RMA still waits for the target's progress).
 */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
static double med(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int max = argc > 1 ? atoi(argv[1]) : 100000;
    long n = (argc > 2 ? atol(argv[2]) : 8192) / 8;
    int mode = argc > 3 ? atoi(argv[3]) : 0;
    double *base;
    MPI_Win win;
    if (argc > 4 && strcmp(argv[4], "shared") == 0)
        MPI_Win_allocate_shared(n * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    else
        MPI_Win_allocate(n * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    double *obuf = malloc(n * 8);
    for (long i = 0; i < n; i++)
        obuf[i] = 1;
    double *L = malloc(max * 8), *A = malloc(max * 8), *F = malloc(max * 8), *U = malloc(max * 8),
           *E = malloc(max * 8);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int k = 0;
        for (double end = now() + 1e6; k < max && now() < end; k++) {
            double t0 = now();
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            double t1 = now();
            MPI_Accumulate(obuf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, win);
            double t2 = now();
            MPI_Win_flush(1, win);
            double t3 = now();
            MPI_Win_unlock(1, win);
            double t4 = now();
            L[k] = t1 - t0, A[k] = t2 - t1, F[k] = t3 - t2, U[k] = t4 - t3, E[k] = t4 - t0;
        }
        double sum = 0;
        for (int i = 0; i < k; i++)
            sum += E[i];
        printf("n %d epoch mean %.2f median %.2f | lock %.2f acc %.2f flush %.2f unlock %.2f\n", k, sum / k,
               med(E, k), med(L, k), med(A, k), med(F, k), med(U, k));
    } else if (rank == 1 && mode != 2) {
        double end = now() + 1.1e6;
        if (mode == 1)
            while (now() < end)
                ;
        else
            usleep(1100000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
