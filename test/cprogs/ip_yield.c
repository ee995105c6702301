/*
 * ip_yield: every way a user waits on MPICH, on the direct route, where
 * the users outnumber the cores (internal/user/coop.c: yield_until). The
 * users form a ring; in each iteration one side computes on the CPU
 * before it sends, so the other waits while the peer it waits for may
 * need its core. Each section runs <iters> times with messages of <words>
 * 64-bit words, checking every word and every status field:
 *
 *   waitall   MPI_Irecv from both neighbours, compute, MPI_Isend to both,
 *             MPI_Waitall with statuses
 *   wait      the same completed by MPI_Wait, one request at a time
 *   waitany   the same completed by MPI_Waitany until MPI_UNDEFINED
 *   waitsome  the same completed by MPI_Waitsome until MPI_UNDEFINED
 *   blocking  MPI_Send to the right, MPI_Recv from the left (even ranks
 *             send first: an even number of users)
 *   sendrecv  MPI_Sendrecv to the right, from the left
 *   probe     MPI_Probe for the left's message, MPI_Get_count, MPI_Recv
 *
 * then the errors: a receive of half the words sent (truncation) waited
 * for by MPI_Waitall (MPI_ERR_IN_STATUS, the request's status
 * MPI_ERR_TRUNCATE), MPI_Wait and MPI_Waitany, on MPI_ERRORS_RETURN.
 *
 *   ip_yield <iters> <words> <compute_us> [<window>]
 *
 * <window>: none (the default); create, an MPI_Win_create window alive
 * through every section (MPICH serves its RMA, and the waits still yield:
 * coop.c, "Waits that yield beside windows MPICH serves"); freed, that
 * window made and freed before the sections; redirected, an
 * MPI_Win_allocate window with async_config=on alive through them (the
 * ghosts serve it).
 *
 * Output: "result rank=<r> test=<section> ok=<0|1> iters=<n>" and
 * "err rank=<r> test=<how> rc=<class> st=<class>" (error classes).
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size, left, right;
static long n;
static uint64_t *sbuf, *rl, *rr; /* sent; received from the left, the right */

static inline uint64_t word(int from, long it, long i)
{
    return ((uint64_t)from << 56) ^ ((uint64_t)it << 32) ^ (uint64_t)i * 2654435761u;
}

static void fill(long it)
{
    for (long i = 0; i < n; i++)
        sbuf[i] = word(rank, it, i);
}

static int check(const uint64_t *b, int from, long it)
{
    for (long i = 0; i < n; i++)
        if (b[i] != word(from, it, i))
            return 0;
    return 1;
}

static void spin(double us)
{
    double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

/* The peers of odd ranks wait for them: odd ranks compute first. */
static void compute(double us, long it)
{
    if ((rank + it) % 2)
        spin(us);
}

static int status_ok(const MPI_Status *st, int src, int tag)
{
    int count = -1;
    MPI_Get_count(st, MPI_UINT64_T, &count);
    return st->MPI_SOURCE == src && st->MPI_TAG == tag && count == n;
}

static void report(const char *test, int ok, long iters)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    printf("result rank=%d test=%s ok=%d iters=%ld\n", rank, test, ok && all, iters);
    fflush(stdout);
}

enum { WAITALL, WAIT, WAITANY, WAITSOME };

/* One exchange with both neighbours, completed the way how says. */
static int exchange(int how, long it, double us)
{
    MPI_Request r[4];
    MPI_Status st[4];
    int ok = 1, seen[4] = {0, 0, 0, 0};
    fill(it);
    MPI_Irecv(rl, (int)n, MPI_UINT64_T, left, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(rr, (int)n, MPI_UINT64_T, right, 2, MPI_COMM_WORLD, &r[1]);
    compute(us, it);
    MPI_Isend(sbuf, (int)n, MPI_UINT64_T, right, 1, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(sbuf, (int)n, MPI_UINT64_T, left, 2, MPI_COMM_WORLD, &r[3]);
    switch (how) {
    case WAITALL:
        ok &= MPI_Waitall(4, r, st) == MPI_SUCCESS;
        seen[0] = seen[1] = seen[2] = seen[3] = 1;
        break;
    case WAIT:
        for (int i = 0; i < 4; i++) {
            ok &= MPI_Wait(&r[i], &st[i]) == MPI_SUCCESS;
            seen[i]++;
        }
        break;
    case WAITANY:
        for (;;) {
            int idx;
            MPI_Status s;
            ok &= MPI_Waitany(4, r, &idx, &s) == MPI_SUCCESS;
            if (idx == MPI_UNDEFINED)
                break;
            st[idx] = s;
            seen[idx]++;
        }
        break;
    case WAITSOME:
        for (;;) {
            int cnt, idx[4];
            MPI_Status s[4];
            ok &= MPI_Waitsome(4, r, &cnt, idx, s) == MPI_SUCCESS;
            if (cnt == MPI_UNDEFINED)
                break;
            ok &= cnt > 0;
            for (int k = 0; k < cnt; k++) {
                st[idx[k]] = s[k];
                seen[idx[k]]++;
            }
        }
        break;
    }
    for (int i = 0; i < 4; i++)
        ok &= seen[i] == 1 && r[i] == MPI_REQUEST_NULL;
    return ok && status_ok(&st[0], left, 1) && status_ok(&st[1], right, 2) &&
           check(rl, left, it) && check(rr, right, it);
}

static int blocking(long it, double us)
{
    MPI_Status st;
    fill(it);
    int ok = 1;
    for (int phase = 0; phase < 2; phase++) {
        if ((rank % 2) == phase) {
            compute(us, it);
            ok &= MPI_Send(sbuf, (int)n, MPI_UINT64_T, right, 3, MPI_COMM_WORLD) == MPI_SUCCESS;
        } else {
            ok &= MPI_Recv(rl, (int)n, MPI_UINT64_T, left, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS;
            ok &= status_ok(&st, left, 3);
        }
    }
    return ok && check(rl, left, it);
}

static int sendrecv(long it, double us)
{
    MPI_Status st;
    fill(it);
    compute(us, it);
    int ok = MPI_Sendrecv(sbuf, (int)n, MPI_UINT64_T, right, 4, rl, (int)n, MPI_UINT64_T, left, 4,
                          MPI_COMM_WORLD, &st) == MPI_SUCCESS;
    return ok && status_ok(&st, left, 4) && check(rl, left, it);
}

static int probe(long it, double us)
{
    MPI_Status st;
    MPI_Request r;
    fill(it);
    MPI_Isend(sbuf, (int)n, MPI_UINT64_T, right, 5, MPI_COMM_WORLD, &r);
    compute(us, it);
    int ok = MPI_Probe(left, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS && status_ok(&st, left, 5);
    ok &= MPI_Recv(rl, (int)n, MPI_UINT64_T, left, 5, MPI_COMM_WORLD, &st) == MPI_SUCCESS;
    ok &= MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    return ok && status_ok(&st, left, 5) && check(rl, left, it);
}

static int eclass(int code)
{
    int c = code;
    MPI_Error_class(code, &c);
    return c;
}

/* A receive of half the words sent, completed the way how says. */
static void truncated(int how, const char *name, double us)
{
    MPI_Request r[2];
    MPI_Status st[2];
    st[0].MPI_ERROR = st[1].MPI_ERROR = MPI_SUCCESS;
    fill(0);
    MPI_Irecv(rl, (int)(n / 2), MPI_UINT64_T, left, 6, MPI_COMM_WORLD, &r[0]);
    compute(us, 1);
    MPI_Isend(sbuf, (int)n, MPI_UINT64_T, right, 6, MPI_COMM_WORLD, &r[1]);
    int rc = MPI_SUCCESS, st_err = MPI_SUCCESS, idx = -1;
    switch (how) {
    case WAITALL:
        rc = MPI_Waitall(2, r, st);
        st_err = st[0].MPI_ERROR;
        break;
    case WAIT:
        rc = MPI_Wait(&r[0], &st[0]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        break;
    case WAITANY:
        /* the receive alone: which of two completes first is no part of
         * the answer */
        rc = MPI_Waitany(1, r, &idx, &st[0]);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        break;
    }
    printf("err rank=%d test=%s rc=%d st=%d\n", rank, name, eclass(rc), eclass(st_err));
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long iters = argc > 1 ? atol(argv[1]) : 20;
    n = argc > 2 ? atol(argv[2]) : 1024;
    double us = argc > 3 ? atof(argv[3]) : 300;
    left = (rank + size - 1) % size, right = (rank + 1) % size;
    sbuf = malloc(sizeof(uint64_t) * (size_t)n);
    rl = malloc(sizeof(uint64_t) * (size_t)n);
    rr = malloc(sizeof(uint64_t) * (size_t)n);
    if (!sbuf || !rl || !rr)
        MPI_Abort(MPI_COMM_WORLD, 1);
    const char *wkind = argc > 4 ? argv[4] : "none";
    MPI_Win win = MPI_WIN_NULL;
    static uint64_t wmem[64];
    if (!strcmp(wkind, "create") || !strcmp(wkind, "freed")) {
        MPI_Win_create(wmem, sizeof wmem, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        if (!strcmp(wkind, "freed"))
            MPI_Win_free(&win);
    } else if (!strcmp(wkind, "redirected")) {
        MPI_Info info;
        void *base;
        MPI_Info_create(&info);
        MPI_Info_set(info, "async_config", "on");
        MPI_Win_allocate(sizeof wmem, 8, info, MPI_COMM_WORLD, &base, &win);
        MPI_Info_free(&info);
    } else if (strcmp(wkind, "none")) {
        fprintf(stderr, "ip_yield: window %s: none, create, freed or redirected\n", wkind);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const char *names[] = {"waitall", "wait", "waitany", "waitsome"};
    for (int how = WAITALL; how <= WAITSOME; how++) {
        int ok = 1;
        for (long it = 0; it < iters; it++)
            ok &= exchange(how, it, us);
        report(names[how], ok, iters);
    }
    int ok = 1;
    for (long it = 0; it < iters; it++)
        ok &= blocking(it, us);
    report("blocking", ok, iters);
    ok = 1;
    for (long it = 0; it < iters; it++)
        ok &= sendrecv(it, us);
    report("sendrecv", ok, iters);
    ok = 1;
    for (long it = 0; it < iters; it++)
        ok &= probe(it, us);
    report("probe", ok, iters);
    truncated(WAITALL, "trunc_waitall", us);
    truncated(WAIT, "trunc_wait", us);
    truncated(WAITANY, "trunc_waitany", us);
    if (win != MPI_WIN_NULL)
        MPI_Win_free(&win);
    free(sbuf), free(rl), free(rr);
    MPI_Finalize();
    return 0;
}
