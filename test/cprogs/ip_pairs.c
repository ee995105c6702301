/*
 * ip_pairs: users pair up (user i with user i + n/2) and run <iters>
 * exchanges (MPI_Isend + MPI_Irecv + MPI_Waitall) of <bytes> from
 * registered buffers, checking the data of every exchange. Before each,
 * a user sleeps a pseudo-random 0..<max sleep us> microseconds.
 *
 *   ip_pairs <iters> <max sleep us> <bytes> [persistent]
 *
 * With "persistent" the exchange is MPI_Send_init/MPI_Recv_init once,
 * then MPI_Startall + MPI_Waitall each time.
 *
 * Two tests use it (test/park_test.go):
 *   - the doorbell race: 8 bytes with sleeps, so that with
 *     CSP_GHOST_PARK_US=0 the ghost parks between most exchanges and every
 *     post races the ghost's last look at the rings (the ghost counts posts
 *     nobody rang for);
 *   - one wake per MPI_Waitall: 256 KiB without sleeps, whose send
 *     finishes just after its receive (CSP_STATS counts the sleeps).
 * The slowest exchange is reported, not judged: on a shared machine a
 * stall can also be the host's.
 *
 * Output: "result rank=<r> test=pairs ok=<0|1> iters=<n> max_ms=<slowest
 * exchange> slow=<exchanges over 100 ms> bad=<exchanges with wrong data>".
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
    long bytes = argc > 3 ? atol(argv[3]) : (long)sizeof(long);
    long n = bytes < (long)sizeof(long) ? 1 : bytes / (long)sizeof(long); /* longs per message */
    int persistent = argc > 4 && strcmp(argv[4], "persistent") == 0;
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
    MPI_Alloc_mem(n * (long)sizeof(long), info, &sbuf);
    MPI_Alloc_mem(n * (long)sizeof(long), info, &rbuf);
    MPI_Request r[2];
    if (persistent) {
        MPI_Send_init(sbuf, (int)n, MPI_LONG, peer, 3, comm, &r[0]);
        MPI_Recv_init(rbuf, (int)n, MPI_LONG, peer, 3, comm, &r[1]);
    }
    unsigned seed = 12345u + (unsigned)rank;
    double worst = 0;
    long slow = 0, bad = 0;
    for (long i = 0; i < iters; i++) {
        if (maxsleep > 0) {
            struct timespec ts = {0, (long)(rand_r(&seed) % (maxsleep + 1)) * 1000};
            nanosleep(&ts, NULL);
        }
        /* The first and last words carry the exchange and the sender. */
        sbuf[n - 1] = i * 3000 + rank;
        sbuf[0] = i * 1000 + rank;
        rbuf[0] = rbuf[n - 1] = -1;
        double t0 = MPI_Wtime();
        if (persistent) {
            MPI_Startall(2, r);
        } else {
            MPI_Isend(sbuf, (int)n, MPI_LONG, peer, 3, comm, &r[0]);
            MPI_Irecv(rbuf, (int)n, MPI_LONG, peer, 3, comm, &r[1]);
        }
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        double dt = MPI_Wtime() - t0;
        if (dt > worst)
            worst = dt;
        if (dt > 0.1)
            slow++;
        bad += rbuf[0] != i * 1000 + peer || (n > 1 && rbuf[n - 1] != i * 3000 + peer);
    }
    printf("result rank=%d test=pairs ok=%d iters=%ld max_ms=%.3f slow=%ld bad=%ld\n", rank, bad == 0, iters,
           worst * 1e3, slow, bad);
    if (persistent) {
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
    MPI_Free_mem(sbuf);
    MPI_Free_mem(rbuf);
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
