/*
 * idupwait.c: an MPI_Comm_idup waited for at once, then an MPI_Allreduce
 * on the new communicator (checked) and MPI_Comm_free, N times. The
 * library's idup is a deferred operation that only MPICH's progress in
 * the waiting process ends (internal/interpose/idup.c): its wait polls
 * where users have cores enough and naps 200 us where they outnumber
 * them (internal/user/block.c). Rank 0 prints the time per iteration.
 *
 *   mpicc -O2 -o idupwait idupwait.c
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD lib/libcasperii.so ./idupwait 500
 *   mpiexec -n 8 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD lib/libcasperii.so ./idupwait 300
 *   mpiexec -n 2 ./idupwait 500
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 500, rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Request r;
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        int v = i, sum = 0;
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
        bad += sum != i * size;
        MPI_Comm_free(&c);
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("idupwait %d: %.3f s, %.1f us each, bad=%d\n", n, t, t / n * 1e6, bad);
    MPI_Finalize();
    return 0;
}
