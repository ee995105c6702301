/*
 * ip_doorbell: every post may find its ghost parked. Users pair up (user i
 * with user i + n/2) and run <iters> exchanges of 8 bytes; before each, a
 * user sleeps a pseudo-random 0..<max sleep us> microseconds, so with
 * CSP_GHOST_PARK_US=0 the ghost parks between most exchanges and every
 * post races the ghost's last look at the rings. A doorbell that is not
 * rung leaves the exchange waiting for the ghost's park timeout; the
 * ghost counts those (the test reads its counters). The slowest exchange
 * is reported, not judged: on a shared machine a stall can also be the
 * host's.
 *
 *   ip_doorbell <iters> <max sleep us>
 *
 * Output: "result rank=<r> test=doorbell ok=<0|1> iters=<n> max_ms=<slowest
 * exchange> slow=<exchanges over 100 ms>".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 2000;
    long maxsleep = argc > 2 ? atol(argv[2]) : 300;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int peer = (rank + size / 2) % size;
    long *sbuf, *rbuf;
    MPI_Alloc_mem(sizeof(long), info, &sbuf);
    MPI_Alloc_mem(sizeof(long), info, &rbuf);
    unsigned seed = 12345u + (unsigned)rank;
    double worst = 0;
    long slow = 0, bad = 0;
    for (long i = 0; i < iters; i++) {
        struct timespec ts = {0, (long)(rand_r(&seed) % (maxsleep + 1)) * 1000};
        nanosleep(&ts, NULL);
        *sbuf = i * 1000 + rank;
        *rbuf = -1;
        MPI_Request r[2];
        double t0 = MPI_Wtime();
        MPI_Isend(sbuf, 1, MPI_LONG, peer, 3, comm, &r[0]);
        MPI_Irecv(rbuf, 1, MPI_LONG, peer, 3, comm, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        double dt = MPI_Wtime() - t0;
        if (dt > worst)
            worst = dt;
        if (dt > 0.1)
            slow++;
        if (*rbuf != i * 1000 + peer)
            bad++;
    }
    printf("result rank=%d test=doorbell ok=%d iters=%ld max_ms=%.3f slow=%ld bad=%ld\n", rank,
           bad == 0, iters, worst * 1e3, slow, bad);
    MPI_Free_mem(sbuf);
    MPI_Free_mem(rbuf);
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
