/*
 * ip_threads: MPI_THREAD_MULTIPLE under the library. User 2k talks to
 * user 2k+1; each user runs T threads at once, thread t on its own
 * duplicate of MPI_COMM_WORLD (wildcard_used=none, made by the main
 * thread), which it:
 *
 *   1. duplicates `dups` times, each duplicate used for one exchange
 *      (MPI_Sendrecv of thread and round) and freed: communicators planned
 *      by several threads at once (MPICH's threads/comm dup_leak_test);
 *   2. floods with `n` MPI_Isends (even user) matched by `n` MPI_Irecvs
 *      (odd user), tag t, then MPI_Waitall: each value and status is
 *      checked (MPICH's threads/pt2pt mt_isendirecv).
 *
 *   ip_threads <threads> <dups> <n>
 *
 * Output, per user:
 *   result rank=<r> test=threads ok=<0|1> errors=<n> bad=<n>
 *          dups=<n> dups_offloaded=<n> parent_algo=<a>
 * dups_offloaded: duplicates whose traffic went through the ghosts (test
 * hook csp_test_comm_algo; -1 without the library).
 */
#include "rel_hooks.h"

#include <pthread.h>
#include <string.h>

static int rank, peer, nthreads, ndups, nmsg;
static MPI_Comm parent[64];
static long errs[64], bad[64], offl[64];

static void *run(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = parent[t];
    for (int d = 0; d < ndups; d++) {
        MPI_Comm dup;
        if (MPI_Comm_dup(c, &dup) != MPI_SUCCESS) {
            errs[t]++;
            continue;
        }
        if (rel_comm_algo(dup) > 0)
            offl[t]++;
        int out = t * 100000 + d, in = -1;
        MPI_Status st;
        if (MPI_Sendrecv(&out, 1, MPI_INT, peer, d, &in, 1, MPI_INT, peer, d, dup, &st) != MPI_SUCCESS)
            errs[t]++;
        else if (in != out || st.MPI_SOURCE != peer || st.MPI_TAG != d)
            bad[t]++;
        MPI_Comm_free(&dup);
    }
    int *buf = malloc(sizeof(int) * (size_t)nmsg);
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)nmsg);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)nmsg);
    int send = rank % 2 == 0;
    for (int i = 0; i < nmsg; i++) {
        buf[i] = send ? t * 1000000 + i : -1;
        int rc = send ? MPI_Isend(&buf[i], 1, MPI_INT, peer, t, c, &req[i])
                      : MPI_Irecv(&buf[i], 1, MPI_INT, peer, t, c, &req[i]);
        if (rc != MPI_SUCCESS)
            errs[t]++;
    }
    if (MPI_Waitall(nmsg, req, st) != MPI_SUCCESS)
        errs[t]++;
    for (int i = 0; !send && i < nmsg; i++)
        if (buf[i] != t * 1000000 + i || st[i].MPI_SOURCE != peer || st[i].MPI_TAG != t)
            bad[t]++;
    free(st);
    free(req);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ip_threads <threads> <dups> <n>\n");
        return 2;
    }
    nthreads = atoi(argv[1]);
    ndups = atoi(argv[2]);
    nmsg = atoi(argv[3]);
    if (nthreads < 1 || nthreads > 64)
        return 2;
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    peer = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (provided != MPI_THREAD_MULTIPLE || peer >= size) {
        printf("result rank=%d test=threads ok=0 provided=%d size=%d\n", rank, provided, size);
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < nthreads; t++)
        parent[t] = rel_dup_hint(MPI_COMM_WORLD, "wildcard_used", "none");
    int parent_algo = rel_comm_algo(parent[0]);
    pthread_t th[64];
    for (int t = 1; t < nthreads; t++)
        pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
    run((void *)0);
    for (int t = 1; t < nthreads; t++)
        pthread_join(th[t], NULL);
    long e = 0, b = 0, o = 0;
    for (int t = 0; t < nthreads; t++) {
        e += errs[t];
        b += bad[t];
        o += offl[t];
        MPI_Comm_free(&parent[t]);
    }
    printf("result rank=%d test=threads ok=%d errors=%ld bad=%ld dups=%d dups_offloaded=%ld parent_algo=%d\n",
           rank, e == 0 && b == 0, e, b, nthreads * ndups, parent_algo < 0 ? -1 : o, parent_algo);
    MPI_Finalize();
    return 0;
}
