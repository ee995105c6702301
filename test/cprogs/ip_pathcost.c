/*
 * ip_pathcost: the per-message work of the direct route (a communicator
 * with offload off, or auto while it stays direct), for counting
 * instructions under callgrind rather than timing: each pattern runs
 * inside a function of its own, so that
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=pc_rate ...
 *
 * counts only that pattern's loop (test/pathcost_bench_test.go does this
 * and sums the instructions of the library's own C per message). Two
 * users, a communicator duplicated from MPI_COMM_WORLD:
 *
 *   pc_rate     osub-rate's window: rank 0 posts W MPI_Isend, rank 1 W
 *               MPI_Irecv, both MPI_Waitall, then a 4-byte ack
 *               (MPI_Recv / MPI_Send)
 *   pc_latency  osub-latency's exchange: MPI_Irecv + MPI_Isend +
 *               MPI_Waitall(2) on both ranks
 *   pc_blocking MPI_Send / MPI_Recv ping-pong
 *
 *   ip_pathcost <iterations> <window> <bytes>
 *
 * Prints "pathcost pattern=<p> iters=<n> msgs=<m>" per pattern, from rank
 * 0: m is the messages each rank posts in the counted run (rate: the
 * window's, not the acks; latency and blocking: one send and one
 * receive per iteration).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static MPI_Comm comm;
static int rank, peer;
static char *buf, ack[4];
static MPI_Request *req;

static __attribute__((noinline)) void rate(long iters, int w, int bytes)
{
    for (long i = 0; i < iters; i++) {
        for (int j = 0; j < w; j++) {
            if (rank == 0)
                MPI_Isend(buf, bytes, MPI_BYTE, peer, 100, comm, &req[j]);
            else
                MPI_Irecv(buf, bytes, MPI_BYTE, peer, 100, comm, &req[j]);
        }
        MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
        if (rank == 0)
            MPI_Recv(ack, 4, MPI_BYTE, peer, 101, comm, MPI_STATUS_IGNORE);
        else
            MPI_Send(ack, 4, MPI_BYTE, peer, 101, comm);
    }
}

static __attribute__((noinline)) void latency(long iters, int bytes)
{
    for (long i = 0; i < iters; i++) {
        MPI_Irecv(buf + bytes, bytes, MPI_BYTE, peer, 7, comm, &req[0]);
        MPI_Isend(buf, bytes, MPI_BYTE, peer, 7, comm, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

static __attribute__((noinline)) void blocking(long iters, int bytes)
{
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, peer, 9, comm);
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 9, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, peer, 9, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, peer, 9, comm);
        }
    }
}

/* The measured runs: callgrind counts from entry to return of these. */
__attribute__((noinline)) void pc_rate(long iters, int w, int bytes) { rate(iters, w, bytes); }
__attribute__((noinline)) void pc_latency(long iters, int bytes) { latency(iters, bytes); }
__attribute__((noinline)) void pc_blocking(long iters, int bytes) { blocking(iters, bytes); }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 1000;
    int w = argc > 2 ? atoi(argv[2]) : 64;
    int bytes = argc > 3 ? atoi(argv[3]) : 8;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "ip_pathcost: needs 2 processes (users), got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = 1 - rank;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    buf = calloc(2, (size_t)bytes + 1);
    req = malloc(sizeof(MPI_Request) * (size_t)(w > 2 ? w : 2));
    /* warm up (not counted): first calls fill tables and MPICH's pools */
    rate(2, w, bytes);
    latency(2, bytes);
    blocking(2, bytes);
    MPI_Barrier(comm);
    pc_rate(iters, w, bytes);
    MPI_Barrier(comm);
    pc_latency(iters, bytes);
    MPI_Barrier(comm);
    pc_blocking(iters, bytes);
    MPI_Barrier(comm);
    if (rank == 0) {
        printf("pathcost pattern=rate iters=%ld msgs=%ld\n", iters, iters * w);
        printf("pathcost pattern=latency iters=%ld msgs=%ld\n", iters, iters * 2);
        printf("pathcost pattern=blocking iters=%ld msgs=%ld\n", iters, iters * 2);
    }
    free(buf);
    free(req);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
