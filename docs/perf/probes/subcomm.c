/*
 * subcomm.c: what MPICH itself charges a latency-bound exchange for the
 * communicator it runs on and for ranks that only idle, the two things
 * the library changes for an application even with offload off: its
 * MPI_COMM_WORLD becomes the users' world, a communicator split from a
 * world that also holds the ghosts.
 *
 * Ranks 0 and 1 of the communicator chosen by <comm> run osubench's rate
 * window (64 MPI_Isend of 1 byte, MPI_Waitall, a 1-byte ack) and then an
 * 8-byte ping-pong; any other rank of the world idles outside MPI
 * (nanosleep 1 ms, then MPI_Test on a receive the active ranks complete
 * at the end). <comm>: world (MPI_COMM_WORLD), dup (its duplicate, as
 * osubench's programs use), split (ranks 0 and 1 split off), odd (the odd
 * ranks split off: the users' world of CSP_NODE_SIZE=2 with one ghost per
 * node, ranks 1 and 3), odddup (its duplicate). Prints the median and
 * best of 7 blocks of <windows> windows, and of the ping-pongs, in us.
 *
 *   mpicc -O2 -o subcomm subcomm.c
 *   mpiexec -n 2 ./subcomm world; mpiexec -n 2 ./subcomm dup
 *   mpiexec -n 4 ./subcomm dup;   mpiexec -n 4 ./subcomm odddup
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv CSP_ASYNC_CONFIG off \
 *     -genv LD_PRELOAD lib/libcasperii.so ./subcomm dup
 *
 * Development machine, 2026-11-28, interleaved rounds, rate window (fast
 * regime): 2 processes world 2.47-2.63 us, dup 2.56-2.77; 4 processes
 * dup 2.70-2.77, split 2.66-2.86, odddup 2.92-3.01; the library, offload
 * off (CSP_ASYNC_CONFIG=off): world 3.24-3.42, dup 3.50-3.70. Ping-pong
 * half round trip: 0.121-0.123 us (2 processes, dup), 0.126-0.129
 * (odddup; the library). docs/design.md section 6 ("The direct route").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int odd;

/* Does world rank i run the exchanges? */
static int is_active(int i) { return odd ? i % 2 == 1 && i < 4 : i < 2; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *how = argc > 1 ? argv[1] : "world";
    int windows = argc > 2 ? atoi(argv[2]) : 3000;
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    odd = strncmp(how, "odd", 3) == 0;
    int active = is_active(wrank);
    int first = odd ? 1 : 0; /* world rank of the active rank 0 */
    MPI_Comm c = MPI_COMM_WORLD, split;
    if (strcmp(how, "world") != 0 && strcmp(how, "dup") != 0) {
        MPI_Comm_split(MPI_COMM_WORLD, active ? 0 : MPI_UNDEFINED, wrank, &split);
        c = split;
    }
    if (active && (strcmp(how, "dup") == 0 || strcmp(how, "odddup") == 0))
        MPI_Comm_dup(c, &c);
    char a = 0, buf[64], msg[8] = {0};
    if (!active) {
        MPI_Request rq;
        int done = 0;
        MPI_Irecv(&a, 1, MPI_CHAR, first, 99, MPI_COMM_WORLD, &rq);
        while (!done) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        }
        MPI_Finalize();
        return 0;
    }
    int r;
    MPI_Comm_rank(c, &r);
    MPI_Request q[64];
    double win[7], pp[7];
    for (int b = 0; b < 7; b++) {
        double t0 = MPI_Wtime();
        for (int w = 0; w < windows; w++) {
            for (int i = 0; i < 64; i++) {
                if (r == 0)
                    MPI_Isend(buf + i, 1, MPI_CHAR, 1, 1, c, &q[i]);
                else
                    MPI_Irecv(buf + i, 1, MPI_CHAR, 0, 1, c, &q[i]);
            }
            MPI_Waitall(64, q, MPI_STATUSES_IGNORE);
            if (r == 0)
                MPI_Recv(&a, 1, MPI_CHAR, 1, 2, c, MPI_STATUS_IGNORE);
            else
                MPI_Send(&a, 1, MPI_CHAR, 0, 2, c);
        }
        double t1 = MPI_Wtime();
        for (int i = 0; i < 20 * windows; i++) {
            if (r == 0) {
                MPI_Send(msg, 8, MPI_CHAR, 1, 3, c);
                MPI_Recv(msg, 8, MPI_CHAR, 1, 3, c, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(msg, 8, MPI_CHAR, 0, 3, c, MPI_STATUS_IGNORE);
                MPI_Send(msg, 8, MPI_CHAR, 0, 3, c);
            }
        }
        win[b] = (t1 - t0) / windows * 1e6;
        pp[b] = (MPI_Wtime() - t1) / (20 * windows) / 2 * 1e6;
    }
    qsort(win, 7, sizeof(double), cmp);
    qsort(pp, 7, sizeof(double), cmp);
    if (r == 0) {
        printf("subcomm comm=%s procs=%d window_us=%.3f best=%.3f pingpong_half_us=%.3f best=%.3f\n", how,
               wsize, win[3], win[0], pp[3], pp[0]);
        for (int i = 0; i < wsize; i++)
            if (!is_active(i))
                MPI_Send(&a, 1, MPI_CHAR, i, 99, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
