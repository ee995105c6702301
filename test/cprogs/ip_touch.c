/*
 * ip_touch: the overlap loop as applications run it. Users pair up (user
 * i with user i + n/2); every iteration each one writes its whole send
 * buffer, posts MPI_Irecv + MPI_Isend, computes, waits with MPI_Waitall
 * and reads every word of what arrived, checking it against what the peer
 * wrote for that iteration.
 *
 *   ip_touch <iters> <compute us> <busy|sleep> <alloc|malloc> <hint> <bytes>...
 *
 * Buffers come from MPI_Alloc_mem with shmbuf_regist=true ("alloc": the
 * ghost reads and writes them in place) or from malloc ("malloc": bounce
 * copies through the shared heap). The communicator is a duplicate of the
 * world with wildcard_used=<hint> ("-": no hint).
 *
 * Output, per size: "result rank=<r> test=touch bytes=<n> iters=<n>
 * ok=<0|1> bad=<iterations with a wrong word> first_bad=<word index or -1>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void compute(double us, int busy)
{
    if (busy) {
        double end = now() + us * 1e-6;
        while (now() < end)
            ;
        return;
    }
    struct timespec ts = {0, (long)(us * 1e3)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The word a sender writes at index i of iteration it. */
static inline uint64_t word(int sender, long it, long i)
{
    return ((uint64_t)sender << 48) ^ ((uint64_t)it << 24) ^ (uint64_t)i * 0x9e3779b97f4a7c15ull;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 7) {
        fprintf(stderr, "usage: ip_touch <iters> <compute us> <busy|sleep> <alloc|malloc> <hint> <bytes>...\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long iters = atol(argv[1]);
    double comp_us = atof(argv[2]);
    int busy = strcmp(argv[3], "busy") == 0;
    int alloc = strcmp(argv[4], "alloc") == 0;
    const char *hint = argv[5];
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(hint, "-") != 0)
        MPI_Info_set(info, "wildcard_used", hint);
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_set(info, "shmbuf_regist", "true");
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int peer = (rank + size / 2) % size;
    for (int a = 6; a < argc; a++) {
        long bytes = atol(argv[a]);
        long n = bytes / (long)sizeof(uint64_t);
        uint64_t *sbuf, *rbuf;
        if (alloc) {
            MPI_Alloc_mem(bytes, info, &sbuf);
            MPI_Alloc_mem(bytes, info, &rbuf);
        } else {
            sbuf = malloc((size_t)bytes);
            rbuf = malloc((size_t)bytes);
        }
        long bad = 0, first_bad = -1;
        for (long it = 0; it < iters; it++) {
            for (long i = 0; i < n; i++) /* the application writes its message */
                sbuf[i] = word(rank, it, i);
            MPI_Request r[2];
            MPI_Irecv(rbuf, (int)n, MPI_UINT64_T, peer, 7, comm, &r[0]);
            MPI_Isend(sbuf, (int)n, MPI_UINT64_T, peer, 7, comm, &r[1]);
            compute(comp_us, busy);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            long wrong = -1;
            for (long i = 0; i < n; i++) /* and reads all it received */
                if (rbuf[i] != word(peer, it, i) && wrong < 0)
                    wrong = i;
            if (wrong >= 0) {
                bad++;
                if (first_bad < 0)
                    first_bad = wrong;
            }
        }
        printf("result rank=%d test=touch bytes=%ld iters=%ld ok=%d bad=%ld first_bad=%ld\n", rank,
               bytes, iters, bad == 0, bad, first_bad);
        fflush(stdout);
        if (alloc) {
            MPI_Free_mem(sbuf);
            MPI_Free_mem(rbuf);
        } else {
            free(sbuf);
            free(rbuf);
        }
    }
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
