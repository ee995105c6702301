/*
 * selfcost.c: what the library adds to each call of a latency-bound
 * exchange, measured where the host's regimes (docs/design.md section 7)
 * cannot reach: one user exchanges 8 bytes with itself (MPI_Irecv,
 * MPI_Isend, MPI_Waitall) on a duplicate of MPI_COMM_WORLD with
 * wildcard_used=none, so nothing crosses a core and no ghost is involved
 * (offload off or auto on the direct route). Prints the best of 7 rounds
 * of <iters> exchanges, in nanoseconds per exchange.
 *
 *   mpicc -O2 -o selfcost selfcost.c
 *   mpiexec -n 1 ./selfcost 300000                             # plain MPICH
 *   for c in off auto; do
 *     mpiexec -n 2 -genv CSP_NODE_SIZE 2 -genv CSP_ASYNC_CONFIG $c \
 *       -genv LD_PRELOAD lib/libcasperii.so ./selfcost 300000
 *   done
 *
 * Development machine, 2026-11-28, three interleaved rounds: plain MPICH
 * 41.6-42.3 ns, off 50.3-51.2, auto 58.5-60.3 with every wait timed and
 * 54.6-54.9 with light waits (internal/user/user.h).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 300000;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    int rank;
    MPI_Comm_rank(c, &rank);
    char s[8] = {0}, r[8];
    MPI_Request q[2];
    MPI_Status st[2];
    double best = 1e30;
    for (int round = 0; round < 7; round++) {
        MPI_Barrier(c);
        double t = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            MPI_Irecv(r, 8, MPI_BYTE, rank, 1, c, &q[0]);
            MPI_Isend(s, 8, MPI_BYTE, rank, 1, c, &q[1]);
            MPI_Waitall(2, q, st);
        }
        t = (MPI_Wtime() - t) / n * 1e9;
        if (t < best)
            best = t;
    }
    if (rank == 0)
        printf("selfcost: %.1f ns per exchange (best of 7 rounds of %d)\n", best, n);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
