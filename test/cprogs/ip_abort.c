/*
 * ip_abort: rank 0 calls MPI_Abort(MPI_COMM_WORLD, 3) while the other
 * users wait in a receive that never completes. The whole job, ghosts
 * included, must end.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("result rank=%d test=abort-ready ok=1\n", rank);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        /* mpiexec stops forwarding output once a process aborts */
        nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
