/*
 * bigxfer.c: the throughput of one large message, six times in a row
 * through the same registered buffers (MPI_Alloc_mem with
 * shmbuf_regist=true), user 0 MPI_Send_c to user 1 MPI_Recv_c: what the
 * ghosts' back-off does to a transfer that completes nothing for longer
 * than CSP_GHOST_YIELD_US (internal/ghost/ghost.go: transferWindow).
 *
 *   mpicc -O2 -o bigxfer bigxfer.c
 *   mpiexec -n 2 ./bigxfer 536870912
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_NG 1 \
 *           -genv LD_PRELOAD $PWD/lib/libcasperii.so ./bigxfer 536870912
 *
 * Measured here (2 users + 2 ghosts on 2 cores, MPICH 4.0.2): 512 MiB at
 * 2.2-2.6 GB/s under plain MPICH; 1.35-1.48 GB/s through ghosts that
 * napped between polls (2.4-2.5 with CSP_GHOST_YIELD_US=100000000);
 * 2.9-3.4 GB/s with the transfer window. 2 GiB + 8 bytes (a count beyond
 * an int): plain 3.0-3.5 GB/s, napping ghosts 1.3-1.6, now 2.8-3.6. The
 * first transfer through fresh buffers stays at 1.1-1.3 GB/s under the
 * library: the ghosts fault the pages in (MADV_POPULATE_WRITE on the
 * range before posting did not help).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Count bytes = argc > 1 ? atoll(argv[1]) : 536870912;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    char *b;
    MPI_Alloc_mem((MPI_Aint)bytes, info, &b);
    MPI_Info_free(&info);
    memset(b, rank + 1, (size_t)bytes);
    for (int k = 0; k < 6; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0)
            MPI_Send_c(b, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv_c(b, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t = MPI_Wtime() - t0;
        if (rank == 1)
            printf("bytes %lld: %.3f s, %.2f GB/s\n", (long long)bytes, t, (double)bytes / t / 1e9);
    }
    MPI_Free_mem(b);
    MPI_Finalize();
    return 0;
}
