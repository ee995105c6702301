/*
 * ip_auto: the automatic route choice (async_config=auto,
 * internal/core/auto.go) through phases whose best route differs.
 *
 *   ip_auto <hint|env> <iters> [alternate]
 *
 * Two users exchange on a duplicate of MPI_COMM_WORLD (wildcard_used=none,
 * plus async_config=auto with "hint"; with "env" the job sets
 * CSP_ASYNC_CONFIG=auto), with an MPI_Barrier on MPI_COMM_WORLD after
 * every iteration (the family's collectives: family.go). Phases:
 *
 *   pingpong  8-byte exchanges, nothing between post and wait: offload can
 *             only cost (two wake-ups each): off
 *   sleep     4 MiB exchanges with 3 ms of nanosleep between post and
 *             wait: the ghosts move the data while the users sleep: on
 *   pingpong  again: off again
 *   busy      4 MiB exchanges with 3 ms of compute on the CPU between post
 *             and wait: on 2 cores shared with the ghosts nothing
 *             overlaps: off
 *
 * Every message is checked. Output per phase and rank: "route rank=<r>
 * at=<phase> algo=<n> ok=<0|1>" (algo: csp_test_comm_algo, 0 off, -1
 * without the library).
 *
 * With "alternate", phases that alternate at every collective instead
 * (internal/core/autosite.go): <iters> rounds of an MPI_Barrier, 8-byte
 * ping-pongs (20 exchanges, no collective), another MPI_Barrier (a call
 * site of its own), 2 exchanges of 4 MiB each overlapped with 3 ms of
 * nanosleep. Output per round and rank, at the end of each phase:
 * "alt rank=<r> round=<i> at=<pingpong|sleep> algo=<n> ok=<0|1>".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, peer;
static MPI_Comm comm;
static int (*algo_hook)(MPI_Comm);

static void compute(int busy, long us)
{
    if (!busy) {
        struct timespec ts = {0, us * 1000};
        nanosleep(&ts, NULL);
        return;
    }
    double end = MPI_Wtime() + us * 1e-6;
    volatile double x = 1;
    while (MPI_Wtime() < end)
        x = x * 1.0000001 + 1e-9;
}

/* exchange runs one exchange of n words with the peer, iteration it,
 * kind of compute between post and wait as phase's; returns whether every
 * word arrived right. */
static int exchange(uint64_t *s, uint64_t *r, long n, int it, int kind)
{
    for (long i = 0; i < n; i++)
        s[i] = (uint64_t)it << 40 ^ (uint64_t)rank << 32 ^ (uint64_t)i;
    MPI_Request q[2];
    MPI_Irecv(r, (int)n, MPI_UINT64_T, peer, 5, comm, &q[0]);
    MPI_Isend(s, (int)n, MPI_UINT64_T, peer, 5, comm, &q[1]);
    if (kind)
        compute(kind == 2, 3000);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok &= r[i] == ((uint64_t)it << 40 ^ (uint64_t)peer << 32 ^ (uint64_t)i);
    return ok;
}

static int phase(const char *name, int iters, long n, int kind /* 0 none, 1 sleep, 2 busy */)
{
    uint64_t *s = malloc(n * sizeof(uint64_t)), *r = malloc(n * sizeof(uint64_t));
    int ok = 1;
    for (int it = 0; it < iters; it++) {
        ok &= exchange(s, r, n, it, kind);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("route rank=%d at=%s algo=%d ok=%d\n", rank, name, algo_hook ? algo_hook(comm) : -1, ok);
    fflush(stdout);
    free(s);
    free(r);
    return ok;
}

static int alternate(int rounds)
{
    long n = 512 * 1024;
    uint64_t *s = malloc(n * sizeof(uint64_t)), *r = malloc(n * sizeof(uint64_t));
    int all = 1;
    for (int k = 0; k < rounds; k++) {
        int ok = 1;
        MPI_Barrier(MPI_COMM_WORLD); /* opens the ping-pongs */
        for (int it = 0; it < 20; it++)
            ok &= exchange(s, r, 1, k * 100 + it, 0);
        printf("alt rank=%d round=%d at=pingpong algo=%d ok=%d\n", rank, k, algo_hook ? algo_hook(comm) : -1, ok);
        all &= ok;
        ok = 1;
        MPI_Barrier(MPI_COMM_WORLD); /* opens the overlapped exchanges */
        for (int it = 0; it < 2; it++)
            ok &= exchange(s, r, n, k * 100 + 50 + it, 1);
        printf("alt rank=%d round=%d at=sleep algo=%d ok=%d\n", rank, k, algo_hook ? algo_hook(comm) : -1, ok);
        fflush(stdout);
        all &= ok;
    }
    free(s);
    free(r);
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: ip_auto <hint|env> <iters>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int iters = atoi(argv[2]);
    algo_hook = (int (*)(MPI_Comm))dlsym(RTLD_DEFAULT, "csp_test_comm_algo");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = rank ^ 1;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    if (strcmp(argv[1], "hint") == 0)
        MPI_Info_set(info, "async_config", "auto");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    if (argc > 3 && strcmp(argv[3], "alternate") == 0) {
        alternate(iters);
        MPI_Comm_free(&comm);
        MPI_Finalize();
        return 0;
    }
    phase("pingpong1", 20 * iters, 1, 0);
    phase("sleep", iters, 512 * 1024, 1);
    phase("pingpong2", 20 * iters, 1, 0);
    phase("busy", iters, 512 * 1024, 2);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
