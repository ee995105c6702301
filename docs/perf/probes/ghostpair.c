/*
 * ghostpair.c: the best a pair of ghosts can do on this machine, without
 * CasperII. Four plain MPI processes in the virtual-node layout: ranks 0
 * and 1 on CPU 0, ranks 2 and 3 on CPU 1. Ranks 0 and 2 play the ghosts:
 * they exchange <bytes> (MPI_Isend + MPI_Irecv, then MPI_Testsome and
 * sched_yield until both are done, as the ghost engine does). Ranks 1 and
 * 3 play the users: they sleep <us> at a time (nanosleep, 1 ns timer
 * slack, like osubench's sleep compute), or do nothing with us = 0.
 * Prints the mean exchange time. Compare with `./cowake`: each wake-up of
 * a neighbour takes the core from its ghost for about as long as a 64 KiB
 * exchange.
 *
 *   mpicc -O2 -o ghostpair ghostpair.c
 *   for us in 0 10 100 1000; do mpiexec -n 4 ./ghostpair 65536 $us; done
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4 || argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 4 %s <bytes> <neighbour sleep us>\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[1]), us = atol(argv[2]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(rank / 2, &set);
    sched_setaffinity(0, sizeof set, &set);
    const double seconds = 3.0; /* how long the users sleep-loop: longer than the exchanges */

    if (rank % 2 == 1) { /* a user: sleep compute, or nothing */
        prctl(PR_SET_TIMERSLACK, 1UL);
        MPI_Barrier(MPI_COMM_WORLD);
        double end = MPI_Wtime() + seconds;
        struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
        while (MPI_Wtime() < end) {
            if (us > 0)
                nanosleep(&ts, NULL);
            else
                usleep(100000);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }

    char *sbuf = malloc(bytes > 0 ? bytes : 1), *rbuf = malloc(bytes > 0 ? bytes : 1);
    memset(sbuf, 1, bytes > 0 ? bytes : 1);
    int peer = 2 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    const long iters = 20000;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        MPI_Request req[2];
        MPI_Isend(sbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[1]);
        for (int left = 2; left > 0;) {
            int n, idx[2];
            MPI_Status st[2];
            MPI_Testsome(2, req, &n, idx, st);
            if (n != MPI_UNDEFINED)
                left -= n;
            if (left > 0)
                sched_yield();
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("%ld B exchange, neighbours sleeping %ld us at a time: %.1f us per exchange%s\n",
               bytes, us, t / iters * 1e6, t > seconds ? " (ran longer than the neighbours slept)" : "");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    free(sbuf);
    free(rbuf);
    return 0;
}
