/*
 * nochecklock.c: MPICH 4.0.2 keeps MPI_MODE_NOCHECK in the state an
 * origin caches per target (ch4's MPIDIG_mpi_win_lock ORs it in, and
 * nothing clears it before MPI_Win_free), so every later MPI_Win_unlock to
 * that target skips its unlock message, NOCHECK or not: the target holds
 * the lock forever, and the next exclusive lock on it, or any lock after
 * an exclusive one, waits for good. MPI allows mixing the two (NOCHECK
 * only asserts that no conflicting lock is held meanwhile). A redirected
 * window takes its locks on the application's window with NOCHECK (the
 * lock words exclude), so a window moved to MPICH's path (the automatic
 * choice, MPI_Win_set_info) hung at its first exclusive lock.
 * MPIR_CVAR_CH4_RMA_MEM_EFFICIENT=1 releases that state at every epoch's
 * end; the library sets it before MPI_Init (internal/core/rma.go).
 *
 * Each rank, 20 times per phase: a shared lock on its right neighbour, an
 * accumulate, unlock; an exclusive lock on itself, unlock; a barrier.
 * Phase 0 takes the neighbour's lock with NOCHECK when <remote> is 1, its
 * own with NOCHECK when <self> is 1; phase 1 takes them all without.
 *
 *   mpicc -O2 -o nochecklock nochecklock.c
 *   mpiexec -n 2 ./nochecklock 0 1     # phase 1 never ends
 *   mpiexec -n 2 -genv MPIR_CVAR_CH4_RMA_MEM_EFFICIENT 1 ./nochecklock 0 1
 *
 * Development machine, 2026-11-28, plain MPICH 4.0.2: "0 0" ends; "0 1",
 * "1 0" and "1 1" hang in phase 1's first locks; with the variable set
 * all four end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int self_nc = argc > 1 && atoi(argv[1]), remote_nc = argc > 2 && atoi(argv[2]);
    long *base, one = 1;
    MPI_Win win;
    MPI_Alloc_mem(4096, MPI_INFO_NULL, &base);
    MPI_Win_create(base, 4096, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    base[0] = base[1] = 0;
    int peer = (rank + 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int phase = 0; phase < 2; phase++) {
        for (int i = 0; i < 20; i++) {
            MPI_Win_lock(MPI_LOCK_SHARED, peer, phase == 0 && remote_nc ? MPI_MODE_NOCHECK : 0, win);
            MPI_Accumulate(&one, 1, MPI_LONG, peer, 0, 1, MPI_LONG, MPI_SUM, win);
            MPI_Win_unlock(peer, win);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, phase == 0 && self_nc ? MPI_MODE_NOCHECK : 0, win);
            base[1]++;
            MPI_Win_unlock(rank, win);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (rank == 0)
            printf("phase %d done\n", phase);
        fflush(stdout);
    }
    MPI_Win_free(&win);
    MPI_Free_mem(base);
    MPI_Finalize();
    return 0;
}
