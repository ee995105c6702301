/*
 * ip_rma.c: one-sided communication on MPI_Win_allocate windows (or, with
 * "shared" after the mode, MPI_Win_allocate_shared windows; "noncontig":
 * the same with alloc_shared_noncontig=true), every
 * operation and synchronization mode, checked against what MPI promises.
 * Each check prints "result name=<check> ok=0|1" (rank 0 gathers); the
 * values each rank sees print as "value ..." lines, which must be the
 * same under plain MPICH and under CasperII.
 *
 *   ip_rma ops     every operation and epoch kind (shared: also loads and
 *                  stores across the node, MPI_Win_shared_query of every
 *                  rank)
 *   ip_rma errors  bad input, under MPI_ERRORS_RETURN: the error class
 *   ip_rma churn   1000 windows created and freed (shared: 300, every
 *                  other one over MPI_COMM_SELF)
 *   ip_rma hintoff a window with async_config=off, and one of MPI_Win_create
 *   ip_rma fatal   a put outside the window under MPI_ERRORS_ARE_FATAL
 *   ip_rma window  one window, made and freed
 *   ip_rma none    no window at all
 *   ip_rma switch  async_config off, then on at a fence, then off at once
 *                  (symmetric=true): exactly 6 operations per rank take
 *                  the ghosts' path
 *   ip_rma serve [flavor [MS]]
 *                  rank 0 runs 200 epochs (shared lock, accumulate,
 *                  flush, unlock) on rank 1, the last 5 of them 5 ms
 *                  apart, while rank 1 computes MS ms (300) without
 *                  calling MPI; then an exclusive epoch and the window's
 *                  free right after its unlock
 *   ip_rma self    (shared only) a window over MPI_COMM_SELF per rank:
 *                  every epoch kind and operation on oneself
 *   ip_rma epochs  epoch_type: bad values (MPI_ERR_INFO_VALUE and its
 *                  line), epochs it excludes (MPI_ERR_RMA_SYNC and its
 *                  line), what MPI_Win_get_info reports (CasperII only)
 *   ip_rma fatalhint, fatalepoch
 *                  a bad epoch_type, an epoch it excludes, under the default
 *                  fatal handlers: the job ends with one line
 *   ip_rma lockall hint|none
 *                  lock_all epochs (put, accumulate, get, flush) on a
 *                  window with epoch_type=lockall or without it; rank 0
 *                  prints the mean lock_all + put + unlock_all time
 *   ip_rma auto    fence epochs in three phases, targets computing 5 ms
 *                  between fences, then idle in MPI, then computing;
 *                  prints what MPI_Win_get_info says is in effect after
 *                  each (run it with CSP_ASYNC_CONFIG=auto)
 *   ip_rma autopassive
 *                  lock epochs only, the window made auto by
 *                  MPI_Win_set_info(async_config=auto, symmetric=true):
 *                  three phases (the odd ranks computing while the even
 *                  ones lock and accumulate into them; every rank idle
 *                  in MPI after a ring of epochs; computing again), each
 *                  ended by a barrier and MPI_Win_set_info(symmetric=true)
 *   ip_rma setinfocoll
 *                  MPI_Win_set_info(async_config=off, then on) without
 *                  symmetric=true on a window of lock epochs only, taken
 *                  at the barriers where no rank has an epoch open
 *   ip_rma autocoll [NWIN]
 *                  lock epochs only, NWIN (1-4) windows auto from their
 *                  allocation, agreeing together
 *                  (run it with CSP_ASYNC_CONFIG=auto), each rank also
 *                  updating its own slot under an exclusive lock on
 *                  itself: three phases (computing, idle in MPI,
 *                  computing) of iterations each ended by a barrier
 *   ip_rma autoburst
 *                  windows made in bursts (run it with CSP_ASYNC_CONFIG=
 *                  auto): computing 20 ms, then two windows back to back;
 *                  idle in MPI 20 ms, then three; computing, then one.
 *                  Prints what each starts with, then accumulates once
 *                  into each peer's window of each
 *   ip_rma autoregret [EPOCHS]
 *                  rank 0 runs EPOCHS (40) epochs (shared lock,
 *                  accumulate, flush, unlock) on rank 1, each followed by
 *                  a barrier, which is where rank 1 waits (run it with
 *                  CSP_ASYNC_CONFIG=auto where origin and target share a
 *                  CPU and the ghost has one of its own: MPICH's epoch on
 *                  the idle target then waits for time slices)
 *   ip_rma autocadence [ITERS]
 *                  (run it with CSP_ASYNC_CONFIG=auto) ITERS (1000)
 *                  iterations of: every rank accumulates 1 into the next
 *                  rank's window under a shared lock, then MPI_Barrier
 *                  (where the window agrees); checks every rank got ITERS
 *   ip_rma autoheld [nocheck]
 *                  (run it with CSP_ASYNC_CONFIG=auto) a window made
 *                  after 20 ms idle in MPI (it starts on MPICH's path),
 *                  every rank holding MPI_Win_lock_all on it from then to
 *                  the end (with MPI_MODE_NOCHECK: nocheck), as
 *                  ARMCI-MPI does: three phases of 40
 *                  iterations, each ended by a barrier, in which the even
 *                  ranks accumulate into the next and flush_all while the
 *                  odd ones compute 2 ms (phases 0 and 2) or wait in MPI
 *                  1 ms (phase 1)
 *   ip_rma blocked [create|allocate] [EPOCHS [KIB]]
 *                  rank 0 waits in MPI_Recv from rank 1 while rank 1
 *                  runs EPOCHS (100) exclusive epochs of a KIB (256) KiB
 *                  put on rank 0's window (MPI_Win_create over malloc'ed
 *                  memory, or MPI_Win_allocate), then sends; rank 0 checks
 *                  the last put's data. Prints the mean epoch time
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
/* "shared": windows of MPI_Win_allocate_shared (1); "noncontig": the
 * same with alloc_shared_noncontig=true (2). */
static int shared_win;

/* A window of the flavor under test. */
static void alloc_win(MPI_Aint bytes, int du, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *w)
{
    if (!shared_win) {
        MPI_Win_allocate(bytes, du, info, comm, base, w);
        return;
    }
    MPI_Info inf = info;
    if (shared_win == 2) {
        if (info == MPI_INFO_NULL)
            MPI_Info_create(&inf);
        else
            MPI_Info_dup(info, &inf);
        MPI_Info_set(inf, "alloc_shared_noncontig", "true");
    }
    MPI_Win_allocate_shared(bytes, du, inf, comm, base, w);
    if (inf != info)
        MPI_Info_free(&inf);
}

static int flavor_ok(MPI_Win w)
{
    int *flavor, flag;
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    return flag && *flavor == (shared_win ? MPI_WIN_FLAVOR_SHARED : MPI_WIN_FLAVOR_ALLOCATE);
}

static void result(const char *name, int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("result name=%s ok=%d\n", name, all);
}

#define SLOTS 64 /* longs per rank's window, beyond the matrix below */
#define MAT 8    /* an 8x8 matrix of ints for the strided (column) type */

static MPI_Win make(long **base)
{
    MPI_Win w;
    MPI_Aint bytes = SLOTS * sizeof(long) + MAT * MAT * sizeof(int);
    alloc_win(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, base, &w);
    memset(*base, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    return w;
}

static void attrs(MPI_Win w, long *base)
{
    int *model, flag;
    void *b;
    MPI_Aint *sz;
    int *du;
    int ok = flavor_ok(w);
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
    ok &= flag && *model == MPI_WIN_UNIFIED;
    MPI_Win_get_attr(w, MPI_WIN_BASE, &b, &flag);
    ok &= flag && b == base;
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &sz, &flag);
    ok &= flag && *sz == (MPI_Aint)(SLOTS * sizeof(long) + MAT * MAT * sizeof(int));
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &flag);
    ok &= flag && *du == (int)sizeof(long);
    MPI_Group g, wg;
    int cmp;
    MPI_Win_get_group(w, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    ok &= cmp == MPI_IDENT;
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    result("attributes", ok);
}

static void fence_put_get(MPI_Win w, long *base)
{
    /* Origin buffers stay untouched until the epoch ends: one per put. */
    long v[64];
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    for (int t = 0; t < size; t++) {
        v[t] = 1000 * rank + t;
        MPI_Put(&v[t], 1, MPI_LONG, t, rank, 1, MPI_LONG, w);
    }
    MPI_Win_fence(0, w);
    int ok = 1;
    for (int s = 0; s < size; s++)
        ok &= base[s] == 1000 * s + rank;
    long got[64];
    int peer = (rank + 1) % size;
    MPI_Get(got, size, MPI_LONG, peer, 0, size, MPI_LONG, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    for (int s = 0; s < size; s++)
        ok &= got[s] == 1000 * s + peer;
    result("fence_put_get", ok);
}

static void passive_accumulate(MPI_Win w, long *base)
{
    /* Every rank adds rank+1 to slot 40 of every target, under shared
     * locks, 50 times: accumulates are atomic per element. */
    long v = rank + 1;
    for (int i = 0; i < 50; i++)
        for (int t = 0; t < size; t++) {
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w);
            MPI_Accumulate(&v, 1, MPI_LONG, t, 40, 1, MPI_LONG, MPI_SUM, w);
            MPI_Win_unlock(t, w);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    long mine = base[40];
    MPI_Win_unlock(rank, w);
    result("passive_accumulate", mine == 50L * size * (size + 1) / 2);
    printf("value rank=%d accumulate=%ld\n", rank, mine);
}

static void exclusive_counter(MPI_Win w, long *base)
{
    /* Get, add one, put under an exclusive lock: no update is lost. */
    for (int i = 0; i < 30; i++) {
        long c;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
        MPI_Get(&c, 1, MPI_LONG, 0, 41, 1, MPI_LONG, w);
        MPI_Win_flush(0, w);
        c++;
        MPI_Put(&c, 1, MPI_LONG, 0, 41, 1, MPI_LONG, w);
        MPI_Win_unlock(0, w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long c = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    MPI_Get(&c, 1, MPI_LONG, 0, 41, 1, MPI_LONG, w);
    MPI_Win_unlock(0, w);
    result("exclusive_counter", c == 30L * size);
    (void)base;
}

static void atomics(MPI_Win w, long *base)
{
    MPI_Win_lock_all(0, w);
    long one = 1, old, sum = 0;
    for (int i = 0; i < 40; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 42, MPI_SUM, w);
        MPI_Win_flush(0, w);
        sum += old >= 0;
    }
    /* Compare-and-swap: exactly one rank wins slot 43 of rank size-1. */
    long mine = rank + 1, zero = 0, prev = -1;
    MPI_Compare_and_swap(&mine, &zero, &prev, MPI_LONG, size - 1, 43, w);
    MPI_Win_flush(size - 1, w);
    MPI_Win_unlock_all(w);
    int won = prev == 0, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    long total = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    MPI_Get(&total, 1, MPI_LONG, 0, 42, 1, MPI_LONG, w);
    MPI_Win_unlock(0, w);
    result("fetch_and_op", total == 40L * size && sum == 40);
    result("compare_and_swap", winners == 1);
    (void)base;
}

static void get_accumulate(MPI_Win w, long *base)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        base[44] = 7;
    MPI_Barrier(MPI_COMM_WORLD);
    long v = 0, got = -1, rep = 100 + rank, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
    MPI_Get_accumulate(&v, 1, MPI_LONG, &got, 1, MPI_LONG, 0, 44, 1, MPI_LONG, MPI_NO_OP, w);
    MPI_Win_flush(0, w);
    MPI_Get_accumulate(&rep, 1, MPI_LONG, &old, 1, MPI_LONG, 0, 45, 1, MPI_LONG, MPI_REPLACE, w);
    MPI_Win_unlock(0, w);
    int ok = got == 7 && (old == 0 || (old >= 100 && old < 100 + size));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        ok &= base[45] >= 100 && base[45] < 100 + size;
    result("get_accumulate", ok);
}

static void request_ops(MPI_Win w, long *base)
{
    int peer = (rank + 1) % size;
    MPI_Win_lock_all(0, w);
    MPI_Request r[3];
    MPI_Status sts[2];
    long v = 500 + rank, acc = 3, got = -1;
    MPI_Rput(&v, 1, MPI_LONG, peer, 46, 1, MPI_LONG, w, &r[0]);
    MPI_Raccumulate(&acc, 1, MPI_LONG, peer, 47, 1, MPI_LONG, MPI_SUM, w, &r[1]);
    MPI_Waitall(2, r, sts);
    MPI_Win_flush(peer, w);
    MPI_Rget(&got, 1, MPI_LONG, peer, 46, 1, MPI_LONG, w, &r[2]);
    MPI_Wait(&r[2], MPI_STATUS_IGNORE);
    long zero = 0, ga = -1;
    MPI_Request q;
    MPI_Rget_accumulate(&zero, 1, MPI_LONG, &ga, 1, MPI_LONG, peer, 47, 1, MPI_LONG, MPI_NO_OP, w, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    int from = (rank + size - 1) % size;
    result("request_ops", got == 500 + rank && ga == 3 && base[46] == 500 + from && base[47] == 3);
}

static void pscw_ring(MPI_Win w, long *base)
{
    /* Rank r exposes to r-1 and accesses r+1. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Group wg, gnext, gprev;
    MPI_Win_get_group(w, &wg);
    MPI_Group_incl(wg, 1, &next, &gnext);
    MPI_Group_incl(wg, 1, &prev, &gprev);
    for (int round = 0; round < 3; round++) {
        MPI_Win_post(gprev, 0, w);
        MPI_Win_start(gnext, 0, w);
        long v = 10 * round + rank;
        MPI_Put(&v, 1, MPI_LONG, next, 48, 1, MPI_LONG, w);
        MPI_Win_complete(w);
        if (round == 2) {
            int flag = 0;
            while (!flag)
                MPI_Win_test(w, &flag);
        } else {
            MPI_Win_wait(w);
        }
        if (base[48] != 10 * round + prev) {
            result("pscw", 0);
            goto out;
        }
    }
    result("pscw", 1);
out:
    MPI_Group_free(&gnext);
    MPI_Group_free(&gprev);
    MPI_Group_free(&wg);
}

static void strided(MPI_Win w, long *base)
{
    /* Put a column of the peer's 8x8 int matrix (a vector type at the
     * target), get it back through the same type. */
    int *mat = (int *)(base + SLOTS);
    MPI_Datatype col;
    MPI_Type_vector(MAT, 1, MAT, MPI_INT, &col);
    MPI_Type_commit(&col);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int v[MAT], back[MAT];
    for (int i = 0; i < MAT; i++)
        v[i] = 100 * rank + i;
    MPI_Aint disp = SLOTS + 0; /* in longs: the matrix starts there */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, w);
    MPI_Put(v, MAT, MPI_INT, peer, disp, 1, col, w);
    MPI_Win_flush(peer, w);
    MPI_Get(back, MAT, MPI_INT, peer, disp, 1, col, w);
    MPI_Win_unlock(peer, w);
    MPI_Type_free(&col); /* freed while the window lives on */
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = memcmp(v, back, sizeof v) == 0;
    for (int i = 0; i < MAT; i++)
        ok &= mat[i * MAT] == 100 * from + i && (i == 0 || mat[i * MAT + 1] == 0);
    result("strided", ok);
    printf("value rank=%d column=%d,%d,%d\n", rank, mat[0], mat[MAT], mat[7 * MAT]);
}

static void strided_acc(MPI_Win w, long *base)
{
    /* Accumulates with derived types, from every rank into every rank at
     * once: a contiguous origin into a column (a vector type at the
     * target), a strided origin into another column, then a
     * get-accumulate (MPI_NO_OP) of a peer's column into a column of a
     * local matrix (derived result and target types). Atomic per element,
     * so the sums are exact. Columns 2 and 4: 8 and 16 bytes into the
     * matrix, whole longs of the displacement unit. */
    int *mat = (int *)(base + SLOTS);
    MPI_Datatype col;
    MPI_Type_vector(MAT, 1, MAT, MPI_INT, &col);
    MPI_Type_commit(&col);
    MPI_Datatype every2;
    MPI_Type_vector(MAT, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    int v[MAT], ov[2 * MAT], local[MAT * MAT];
    for (int i = 0; i < MAT; i++) {
        v[i] = rank + 1 + 10 * i;
        ov[2 * i] = rank + 1;
        ov[2 * i + 1] = 999; /* skipped by the origin type */
    }
    MPI_Win_lock_all(0, w);
    for (int t = 0; t < size; t++) {
        MPI_Accumulate(v, MAT, MPI_INT, t, SLOTS + 1, 1, col, MPI_SUM, w);
        MPI_Accumulate(ov, 1, every2, t, SLOTS + 2, 1, col, MPI_SUM, w);
    }
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size;
    memset(local, 0, sizeof local);
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
    MPI_Get_accumulate(NULL, 0, MPI_INT, local, 1, col, peer, SLOTS + 1, 1, col, MPI_NO_OP, w);
    MPI_Win_unlock(peer, w);
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = 1, tri = size * (size + 1) / 2;
    for (int i = 0; i < MAT; i++) {
        ok &= mat[i * MAT + 2] == tri + 10 * i * size && mat[i * MAT + 4] == tri;
        ok &= local[i * MAT] == tri + 10 * i * size && local[i * MAT + 1] == 0;
    }
    MPI_Type_free(&col);
    MPI_Type_free(&every2);
    result("strided_acc", ok);
    printf("value rank=%d acc_column=%d,%d,%d fetched=%d,%d\n", rank, mat[2], mat[7 * MAT + 2], mat[7 * MAT + 4],
           local[0], local[7 * MAT]);
}

static void flushes(MPI_Win w, long *base)
{
    int peer = (rank + 1) % size;
    long v = 9000 + rank;
    MPI_Win_lock_all(0, w);
    MPI_Put(&v, 1, MPI_LONG, peer, 49, 1, MPI_LONG, w);
    MPI_Win_flush_local(peer, w);
    v = -1; /* the origin buffer is free again */
    MPI_Win_flush_all(w);
    long w50 = 1;
    MPI_Accumulate(&w50, 1, MPI_LONG, peer, 50, 1, MPI_LONG, MPI_SUM, w);
    MPI_Win_flush_local_all(w);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    MPI_Win_sync(w);
    int from = (rank + size - 1) % size;
    int ok = base[49] == 9000 + from && base[50] == 1;
    MPI_Win_unlock(rank, w);
    /* MPI_PROC_NULL targets do nothing, in any epoch. */
    MPI_Win_lock_all(0, w);
    MPI_Put(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, w);
    MPI_Request r;
    MPI_Rget(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, w, &r);
    ok &= r == MPI_REQUEST_NULL || MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    MPI_Win_unlock_all(w);
    result("flushes", ok);
}

static void local_access(MPI_Win w, long *base)
{
    /* Load/store on one's own window memory, then a peer reads it. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w);
    base[51] = 77 + rank;
    MPI_Win_unlock(rank, w);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size;
    long got = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
    MPI_Get(&got, 1, MPI_LONG, peer, 51, 1, MPI_LONG, w);
    MPI_Win_unlock(peer, w);
    result("local_access", got == 77 + peer);
}

/* The part of rank p of a shared window, from MPI_Win_shared_query. */
static long *part_of(MPI_Win w, int p, MPI_Aint *sz, int *du)
{
    long *q = NULL;
    MPI_Win_shared_query(w, p, sz, du, &q);
    return q;
}

static void shared_memory(MPI_Win w, long *base)
{
    /* MPI_Win_shared_query of every rank: size, unit, where (in longs from
     * rank 0's part: the same layout as plain MPICH's). */
    long *first = part_of(w, 0, &(MPI_Aint){0}, &(int){0});
    int ok = 1;
    for (int p = 0; p < size; p++) {
        MPI_Aint sz;
        int du;
        long *q = part_of(w, p, &sz, &du);
        ok &= sz == (MPI_Aint)(SLOTS * sizeof(long) + MAT * MAT * sizeof(int)) && du == (int)sizeof(long);
        ok &= p != rank || q == base;
        printf("value rank=%d query%d=%ld/%d/%ld\n", rank, p, (long)sz, du, (long)(q - first));
    }
    result("shared_query", ok);

    /* Stores to one's own part, seen by every rank's loads after
     * MPI_Win_sync and a barrier (the unified model's rule). */
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Win_lock_all(0, w);
    base[52] = 300 + rank;
    MPI_Win_sync(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(w);
    ok = 1;
    for (int p = 0; p < size; p++)
        ok &= part_of(w, p, &(MPI_Aint){0}, &(int){0})[52] == 300 + p;
    result("shared_stores", ok);

    /* An MPI_Put, loaded by every rank once the origin's epoch is over. */
    long v = 400 + rank;
    MPI_Put(&v, 1, MPI_LONG, peer, 53, 1, MPI_LONG, w);
    MPI_Win_flush(peer, w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(w);
    ok = base[53] == 400 + from;
    for (int p = 0; p < size; p++)
        ok &= part_of(w, p, &(MPI_Aint){0}, &(int){0})[53] == 400 + (p + size - 1) % size;
    result("shared_put_load", ok);
    printf("value rank=%d put_load=%ld\n", rank, base[53]);

    /* A store into the next rank's part, read back with MPI_Get by
     * every rank from every rank. */
    part_of(w, peer, &(MPI_Aint){0}, &(int){0})[54] = 500 + rank;
    MPI_Win_sync(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(w);
    long got[64];
    for (int p = 0; p < size; p++)
        MPI_Get(&got[p], 1, MPI_LONG, p, 54, 1, MPI_LONG, w);
    MPI_Win_flush_all(w);
    MPI_Win_unlock_all(w);
    ok = 1;
    for (int p = 0; p < size; p++)
        ok &= got[p] == 500 + (p + size - 1) % size;
    result("shared_store_get", ok);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A window over MPI_COMM_SELF: this rank is its only target. */
static void self_window(void)
{
    long *base;
    MPI_Win w;
    MPI_Aint bytes = 16 * sizeof(long);
    MPI_Win_allocate_shared(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_SELF, &base, &w);
    memset(base, 0, bytes);
    int ok = flavor_ok(w);
    MPI_Aint sz;
    int du;
    ok &= part_of(w, 0, &sz, &du) == base && sz == bytes && du == (int)sizeof(long);
    long v = 10 + rank, got = -1, one = 1, old = -1, cmp = 0, swap = 7;
    MPI_Win_fence(0, w);
    MPI_Put(&v, 1, MPI_LONG, 0, 1, 1, MPI_LONG, w);
    MPI_Win_fence(0, w);
    MPI_Get(&got, 1, MPI_LONG, 0, 1, 1, MPI_LONG, w);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    ok &= got == 10 + rank && base[1] == 10 + rank;
    for (int i = 0; i < 5; i++) {
        MPI_Win_lock(i % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0, w);
        MPI_Accumulate(&one, 1, MPI_LONG, 0, 2, 1, MPI_LONG, MPI_SUM, w);
        MPI_Win_unlock(0, w);
    }
    MPI_Win_lock_all(0, w);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 2, MPI_SUM, w);
    MPI_Compare_and_swap(&swap, &cmp, &got, MPI_LONG, 0, 3, w);
    MPI_Win_flush(0, w);
    MPI_Win_unlock_all(w);
    ok &= old == 5 && got == 0 && base[2] == 6 && base[3] == 7;
    MPI_Group self, wg;
    MPI_Win_get_group(w, &wg);
    MPI_Comm_group(MPI_COMM_SELF, &self);
    MPI_Win_post(self, 0, w);
    MPI_Win_start(self, 0, w);
    v = 99;
    MPI_Put(&v, 1, MPI_LONG, 0, 4, 1, MPI_LONG, w);
    MPI_Win_complete(w);
    MPI_Win_wait(w);
    ok &= base[4] == 99;
    int cmpg;
    MPI_Group_compare(wg, self, &cmpg);
    ok &= cmpg == MPI_IDENT;
    MPI_Group_free(&self);
    MPI_Group_free(&wg);
    printf("value rank=%d self=%ld,%ld,%ld,%ld,%ld\n", rank, base[1], base[2], base[3], base[4], old);
    MPI_Win_free(&w);
    result("self", ok);
}

static int check_err(const char *name, int rc, int want)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (rank == 0)
        printf("value name=%s class=%d\n", name, cls);
    return cls == want;
}

static void errors(void)
{
    long *base;
    MPI_Win w = make(&base);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    long v = 1;
    int ok = 1;
    ok &= check_err("put_no_epoch", MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, w), MPI_ERR_RMA_SYNC);
    { int rc = MPI_Win_lock(7, 0, 0, w), c = 0; MPI_Error_class(rc, &c); check_err("lock_type", rc, c); ok &= c == MPI_ERR_LOCKTYPE || c == MPI_ERR_ARG; }
    ok &= check_err("unlock_unlocked", MPI_Win_unlock(0, w), MPI_ERR_RMA_SYNC);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    ok &= check_err("put_rank", MPI_Put(&v, 1, MPI_LONG, size + 3, 0, 1, MPI_LONG, w), MPI_ERR_RANK);
    MPI_Win_unlock(0, w);
    result("errors", ok);
    MPI_Win_free(&w);
}

/* Out of the window: MPICH does not check it where the network writes
 * directly; CasperII must (its ghost's window spans more than one
 * window), with MPI_ERR_RMA_RANGE, and the neighbouring memory intact. */
static void range(void)
{
    long *base;
    MPI_Win w = make(&base);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    long v[4] = {5, 5, 5, 5};
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    int rc1 = MPI_Put(v, 4, MPI_LONG, 0, SLOTS + MAT * MAT / 2 - 2, 4, MPI_LONG, w);
    int rc2 = MPI_Put(v, 1, MPI_LONG, 0, -1, 1, MPI_LONG, w);
    MPI_Win_unlock(0, w);
    int c1, c2;
    MPI_Error_class(rc1, &c1);
    MPI_Error_class(rc2, &c2);
    result("range", c1 == MPI_ERR_RMA_RANGE && c2 == MPI_ERR_RMA_RANGE);
    MPI_Win_free(&w);
}

static void churn(void)
{
    int ok = 1, n = shared_win ? 300 : 1000;
    for (int i = 0; i < n; i++) {
        long *base;
        MPI_Win w;
        MPI_Comm c = shared_win && i % 2 ? MPI_COMM_SELF : MPI_COMM_WORLD;
        alloc_win((MPI_Aint)((i % 7) * 1024 + 8), 8, MPI_INFO_NULL, c, &base, &w);
        base[0] = i;
        MPI_Win_fence(0, w);
        long got = -1;
        MPI_Get(&got, 1, MPI_LONG, c == MPI_COMM_SELF ? 0 : (rank + 1) % size, 0, 1, MPI_LONG, w);
        MPI_Win_fence(0, w);
        ok &= got == i;
        MPI_Win_free(&w);
    }
    result("churn", ok);
}

static void hintoff(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    long *base, mem[8] = {0};
    MPI_Win w, c;
    alloc_win(8 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &base, &w);
    MPI_Info_free(&info);
    MPI_Win_create(mem, sizeof mem, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &c);
    int ok = 1;
    MPI_Win wins[2] = {w, c};
    long *bases[2] = {base, mem};
    for (int k = 0; k < 2; k++) {
        bases[k][0] = 10 * k + rank;
        MPI_Win_fence(0, wins[k]);
        long got = -1;
        int peer = (rank + 1) % size;
        MPI_Get(&got, 1, MPI_LONG, peer, 0, 1, MPI_LONG, wins[k]);
        MPI_Win_fence(0, wins[k]);
        ok &= got == 10 * k + peer;
    }
    ok &= flavor_ok(w);
    MPI_Win_free(&w);
    MPI_Win_free(&c);
    result("hintoff", ok);
}

/* The async_config MPI_Win_get_info reports ("-": none, as MPICH). */
static char infos[3][16];
static void info_of(MPI_Win w, int k)
{
    MPI_Info got;
    int flag = 0;
    MPI_Win_get_info(w, &got);
    MPI_Info_get(got, "async_config", sizeof infos[k] - 1, infos[k], &flag);
    MPI_Info_free(&got);
    if (!flag)
        strcpy(infos[k], "-");
}

static void switching(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    long *base;
    MPI_Win w;
    alloc_win(8 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &base, &w);
    memset(base, 0, 8 * sizeof(long));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, ok = 1;
    info_of(w, 0);
    long v = 10 + rank, one = 1;
    /* off: MPICH's path */
    MPI_Win_fence(0, w);
    MPI_Put(&v, 1, MPI_LONG, peer, 0, 1, MPI_LONG, w);
    MPI_Win_set_info(w, (MPI_Info_set(info, "async_config", "on"), info));
    MPI_Win_fence(0, w); /* the switch to on takes effect here */
    ok &= base[0] == 10 + from;
    info_of(w, 1);
    v = 20 + rank;
    MPI_Put(&v, 1, MPI_LONG, peer, 1, 1, MPI_LONG, w); /* 1 redirected */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    ok &= base[1] == 20 + from;
    for (int i = 0; i < 5; i++) { /* 5 redirected */
        MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
        MPI_Accumulate(&one, 1, MPI_LONG, peer, 2, 1, MPI_LONG, MPI_SUM, w);
        MPI_Win_unlock(peer, w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_set(info, "async_config", "off");
    MPI_Info_set(info, "symmetric", "true");
    MPI_Win_set_info(w, info); /* off at once */
    info_of(w, 2);
    printf("infos rank=%d async_config=%s,%s,%s\n", rank, infos[0], infos[1], infos[2]);
    for (int i = 0; i < 5; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
        MPI_Accumulate(&one, 1, MPI_LONG, peer, 2, 1, MPI_LONG, MPI_SUM, w);
        MPI_Win_unlock(peer, w);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    ok &= base[2] == 10;
    MPI_Win_unlock(rank, w);
    MPI_Info_free(&info);
    MPI_Win_free(&w);
    result("switch", ok);
}

/* ---- epoch_type ---- */

/* err_is checks rc's class and that its MPI_Error_string names every
 * word of want (NULL-terminated); prints what it saw when not. */
static int err_is(const char *name, int rc, int cls, const char *const *want)
{
    int c = -1, len = 0, ok;
    char msg[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(rc, &c);
    MPI_Error_string(rc, msg, &len);
    ok = c == cls;
    for (int i = 0; want && want[i]; i++)
        ok &= strstr(msg, want[i]) != NULL;
    if (!ok)
        printf("bad rank=%d name=%s class=%d want=%d msg=%s\n", rank, name, c, cls, msg);
    else if (rank == 0)
        printf("error name=%s class=%d msg=%s\n", name, c, msg);
    return ok;
}

static MPI_Win hinted(const char *key, const char *value, long **base, int *rc)
{
    MPI_Info info;
    MPI_Win w = MPI_WIN_NULL;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    *rc = MPI_Win_allocate(8 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, base, &w);
    MPI_Info_free(&info);
    if (w != MPI_WIN_NULL)
        MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    return w;
}

/* info_is: MPI_Win_get_info says key=want. */
static int info_is(MPI_Win w, const char *key, const char *want)
{
    MPI_Info got;
    char v[64] = "-";
    int flag = 0;
    MPI_Win_get_info(w, &got);
    MPI_Info_get(got, key, sizeof v - 1, v, &flag);
    MPI_Info_free(&got);
    if (!flag || strcmp(v, want) != 0) {
        printf("bad rank=%d info %s=%s want %s\n", rank, key, flag ? v : "(none)", want);
        return 0;
    }
    return 1;
}

static void epochs(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *base;
    int rc, ok = 1;
    MPI_Win w;
    static const char *const accepted[] = {"lockall, lock, pscw, fence", NULL};
    /* Bad values: the window exists (MPICH's), the call says why. */
    const char *const bad1[] = {"epoch_type", "lock,bogus", "unknown part \"bogus\"", "lockall, lock, pscw, fence", NULL};
    w = hinted("epoch_type", "lock,bogus", &base, &rc);
    ok &= err_is("alloc_bogus", rc, MPI_ERR_INFO_VALUE, bad1) && w != MPI_WIN_NULL;
    MPI_Win_free(&w);
    const char *const bad2[] = {"epochs_used", "empty value", "lockall, lock, pscw, fence", NULL};
    w = hinted("epochs_used", " ", &base, &rc);
    ok &= err_is("alloc_empty", rc, MPI_ERR_INFO_VALUE, bad2);
    MPI_Win_free(&w);
    const char *const bad3[] = {"epoch_type", "lockall||fence", "empty part", NULL};
    w = hinted("epoch_type", "lockall||fence", &base, &rc);
    ok &= err_is("alloc_emptypart", rc, MPI_ERR_INFO_VALUE, bad3);
    MPI_Win_free(&w);
    const char *const bad4[] = {"async_config", "maybe", "on, off, auto", NULL};
    w = hinted("async_config", "maybe", &base, &rc);
    ok &= err_is("alloc_async", rc, MPI_ERR_INFO_VALUE, bad4);
    MPI_Win_free(&w);

    /* lockall (Casper's spelling, any case, spaces): lock_all only. */
    w = hinted("epochs_used", " LockAll ", &base, &rc);
    ok &= rc == MPI_SUCCESS && info_is(w, "epoch_type", "lockall") && info_is(w, "epochs_used", "lockall");
    const char *const nolock[] = {"MPI_Win_lock", "epoch_type=lockall", "add lock", NULL};
    ok &= err_is("lock_excluded", MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w), MPI_ERR_RMA_SYNC, nolock);
    const char *const nofence[] = {"MPI_Win_fence", "epoch_type=lockall", "add fence", NULL};
    ok &= err_is("fence_excluded", MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC, nofence);
    MPI_Group g;
    MPI_Win_get_group(w, &g);
    const char *const nopscw[] = {"MPI_Win_start", "add pscw", NULL};
    ok &= err_is("start_excluded", MPI_Win_start(g, 0, w), MPI_ERR_RMA_SYNC, nopscw);
    const char *const nopost[] = {"MPI_Win_post", "add pscw", NULL};
    ok &= err_is("post_excluded", MPI_Win_post(g, 0, w), MPI_ERR_RMA_SYNC, nopost);
    MPI_Group_free(&g);
    long v = rank + 1, got = -1;
    ok &= MPI_Win_lock_all(0, w) == MPI_SUCCESS;
    MPI_Put(&v, 1, MPI_LONG, (rank + 1) % size, 0, 1, MPI_LONG, w);
    ok &= MPI_Win_unlock_all(w) == MPI_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, w);
    MPI_Get(&got, 1, MPI_LONG, rank, 0, 1, MPI_LONG, w);
    MPI_Win_unlock_all(w);
    ok &= got == (rank + size - 1) % size + 1;
    /* A bad value in MPI_Win_set_info changes nothing. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "epoch_type", "lockall|nope");
    const char *const bad5[] = {"MPI_Win_set_info", "epoch_type", "lockall|nope", "unknown part \"nope\"", NULL};
    ok &= err_is("setinfo_bad", MPI_Win_set_info(w, info), MPI_ERR_INFO_VALUE, bad5);
    ok &= info_is(w, "epoch_type", "lockall");
    /* Adding fence: the fence the change waits for is allowed. */
    MPI_Info_set(info, "epoch_type", "fence;lockall");
    ok &= MPI_Win_set_info(w, info) == MPI_SUCCESS;
    ok &= MPI_Win_fence(0, w) == MPI_SUCCESS;
    ok &= MPI_Win_fence(MPI_MODE_NOSUCCEED, w) == MPI_SUCCESS;
    ok &= info_is(w, "epoch_type", "lockall|fence");
    /* Both names, disagreeing. */
    MPI_Info_set(info, "epochs_used", "lock");
    const char *const bad6[] = {"disagree", NULL};
    ok &= err_is("setinfo_disagree", MPI_Win_set_info(w, info), MPI_ERR_INFO_VALUE, bad6);
    MPI_Info_free(&info);
    MPI_Win_free(&w);

    /* lock alone allows lock_all too (as Casper); the default allows all. */
    w = hinted("epoch_type", "lock", &base, &rc);
    ok &= MPI_Win_lock_all(0, w) == MPI_SUCCESS && MPI_Win_unlock_all(w) == MPI_SUCCESS;
    ok &= MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w) == MPI_SUCCESS && MPI_Win_unlock(0, w) == MPI_SUCCESS;
    const char *const nofence2[] = {"epoch_type=lock excludes", NULL};
    ok &= err_is("fence_excluded_lock", MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC, nofence2);
    MPI_Win_free(&w);
    w = hinted("async_config", "auto", &base, &rc);
    ok &= info_is(w, "epoch_type", "lockall|lock|pscw|fence") && info_is(w, "async_config", "auto");
    MPI_Win_free(&w);
    (void)accepted;
    result("epochs", ok);
}

/* Under the default fatal handlers: a bad epoch_type (fatalhint) or an
 * epoch it excludes (fatalepoch) ends the job with one line. */
static void fatal_epochs(int hint)
{
    long *base;
    int rc;
    MPI_Win w = hinted("epoch_type", hint ? "lockall,everything" : "lockall", &base, &rc);
    if (!hint) {
        MPI_Win_set_errhandler(w, MPI_ERRORS_ARE_FATAL);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
    }
    result("fatal_not_reached", 0);
    MPI_Win_free(&w);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* spin computes for ms milliseconds without calling MPI. */
static void spin(double ms)
{
    double end = now_s() + ms * 1e-3;
    while (now_s() < end)
        ;
}

static void lockall(int hint)
{
    MPI_Info info = MPI_INFO_NULL;
    if (hint) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "epoch_type", "lockall");
    }
    long *base;
    MPI_Win w;
    MPI_Win_allocate(SLOTS * sizeof(long), sizeof(long), info, MPI_COMM_WORLD, &base, &w);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Win_lock_all(0, w);
    memset(base, 0, SLOTS * sizeof(long));
    MPI_Win_sync(w);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, ok = 1;
    const int rounds = 40;
    long one = 1;
    for (int i = 0; i < rounds; i++) {
        long v = 100 * i + rank, got = -1;
        MPI_Win_lock_all(0, w);
        MPI_Put(&v, 1, MPI_LONG, peer, 0, 1, MPI_LONG, w);
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_LONG, t, 1 + rank, 1, MPI_LONG, MPI_SUM, w);
        MPI_Win_flush_all(w);
        MPI_Get(&got, 1, MPI_LONG, peer, 0, 1, MPI_LONG, w);
        MPI_Win_unlock_all(w);
        ok &= got == v;
        MPI_Barrier(MPI_COMM_WORLD);
        ok &= base[0] == 100 * i + from;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int s = 0; s < size; s++)
        ok &= base[1 + s] == rounds;
    printf("value rank=%d lockall=%ld,%ld\n", rank, base[0], base[1]);
    /* The epoch alone: lock_all, one put to the peer, unlock_all. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_s();
    const int epochs = 50;
    for (int i = 0; i < epochs; i++) {
        long v = i;
        MPI_Win_lock_all(0, w);
        MPI_Put(&v, 1, MPI_LONG, peer, 2 + size, 1, MPI_LONG, w);
        MPI_Win_unlock_all(w);
    }
    double us = (now_s() - t0) / epochs * 1e6;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("time name=lockall_epoch hint=%s ranks=%d us=%.1f\n", hint ? "lockall" : "none", size, us);
    MPI_Win_free(&w);
    result("lockall", ok);
}

/* What MPI_Win_get_info says is in effect ("-": nothing, as MPICH). */
static void effect(MPI_Win w, int phase)
{
    MPI_Info got;
    char v[16] = "-", a[16] = "-";
    int flag = 0;
    MPI_Win_get_info(w, &got);
    MPI_Info_get(got, "async_config_in_effect", sizeof v - 1, v, &flag);
    MPI_Info_get(got, "async_config", sizeof a - 1, a, &flag);
    MPI_Info_free(&got);
    printf("effect rank=%d phase=%d async_config=%s in_effect=%s\n", rank, phase, a, v);
}

static void autofence(void)
{
    long *base;
    MPI_Win w;
    MPI_Win_allocate(SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    MPI_Win_fence(0, w);
    memset(base, 0, SLOTS * sizeof(long));
    /* The idle phase is long: the members agree every 16 fences at most,
     * and a profile shorter than 1 ms of wall time decides nothing, so on
     * a fast host 40 idle fences (20-50 us each) could pass without a
     * decision made from them alone. */
    const int iters[3] = {40, 200, 40};
    long one = 1;
    for (int phase = 0; phase < 3; phase++) {
        int busy = phase != 1;
        for (int i = 0; i < iters[phase]; i++) {
            MPI_Win_fence(0, w);
            for (int t = 0; t < size; t++)
                MPI_Accumulate(&one, 1, MPI_LONG, t, phase, 1, MPI_LONG, MPI_SUM, w);
            long v = 1000 * phase + i;
            MPI_Put(&v, 1, MPI_LONG, (rank + 1) % size, 3 + phase, 1, MPI_LONG, w);
            if (busy)
                spin(5);
        }
        MPI_Win_fence(0, w);
        effect(w, phase);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    int ok = 1;
    for (int p = 0; p < 3; p++)
        ok &= base[p] == (long)iters[p] * size && base[3 + p] == 1000 * p + iters[p] - 1;
    printf("value rank=%d auto=%ld,%ld,%ld,%ld,%ld,%ld\n", rank, base[0], base[1], base[2], base[3], base[4],
           base[5]);
    MPI_Win_free(&w);
    result("auto", ok);
}

static void idle(double ms);

/* add_one adds 1 to slot of target's part of w in an epoch of its own
 * (a shared lock). */
static void add_one(MPI_Win w, int target, int slot)
{
    long one = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w);
    MPI_Accumulate(&one, 1, MPI_LONG, target, slot, 1, MPI_LONG, MPI_SUM, w);
    MPI_Win_unlock(target, w);
}

/* zeroed_window makes *w over comm with MPI_Win_allocate (SLOTS longs a
 * rank), zeroes this rank's part under an exclusive lock on itself, and
 * waits for every rank to have done so. */
static long *zeroed_window(MPI_Comm comm, MPI_Win *w)
{
    long *base;
    MPI_Win_allocate(SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, comm, &base, w);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, *w);
    memset(base, 0, SLOTS * sizeof(long));
    MPI_Win_unlock(rank, *w);
    MPI_Barrier(MPI_COMM_WORLD);
    return base;
}

static void autopassive(void)
{
    /* The window lives on a duplicate of the world: the collectives below
     * (the barriers, idle's reductions) are on the world itself, so the
     * members agree only where MPI_Win_set_info asks (rmaauto.c). */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Win w;
    long *base = zeroed_window(dup, &w);
    MPI_Info info, sym;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "auto");
    MPI_Info_set(info, "symmetric", "true");
    MPI_Win_set_info(w, info);
    MPI_Info_free(&info);
    MPI_Info_create(&sym);
    MPI_Info_set(sym, "symmetric", "true");
    /* In the computing phases the even ranks are the origins and the odd
     * ones the targets, computing without a call to MPI: where the
     * window is MPICH's, an origin's epoch waits for its target's next
     * call, and a target that was also an origin would spend that wait
     * in MPI itself (a ring of origins computing between epochs measured
     * about half its time in MPI, the threshold, on a loaded host). In
     * the idle phase every rank adds to the next in a ring. */
    int peer = (rank + 1) % size, odd = rank % 2;
    const int iters = 30;
    for (int phase = 0; phase < 3; phase++) {
        int busy = phase != 1;
        for (int i = 0; i < iters; i++) {
            if (!busy || (!odd && peer != rank))
                add_one(w, peer, phase);
            if (busy && odd)
                spin(5);
        }
        /* The idle phase's 30 epochs back to back can take under a
         * millisecond on a fast host, a profile too short to decide
         * (rmaauto.c: CSP_RMA_AUTO_BASE_US): its targets also wait in
         * MPI for a while, as idle ones do. */
        if (!busy)
            idle(5);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_set_info(w, sym); /* the members agree here */
        effect(w, phase);
    }
    MPI_Info_free(&sym);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    /* What the left neighbour added: in the computing phases only an
     * even one adds. */
    long busy_in = (rank + size - 1) % size % 2 == 0 && size > 1 ? iters : 0;
    int ok = base[0] == busy_in && base[1] == iters && base[2] == busy_in;
    printf("value rank=%d autopassive=%ld,%ld,%ld\n", rank, base[0], base[1], base[2]);
    MPI_Win_unlock(rank, w);
    MPI_Win_free(&w);
    MPI_Comm_free(&dup);
    result("autopassive", ok);
}

static void autoheld(int assert_)
{
    idle(20);
    MPI_Win w;
    long *base = zeroed_window(MPI_COMM_WORLD, &w);
    int peer = (rank + 1) % size, origin = rank % 2 == 0 && peer != rank;
    long one = 1;
    MPI_Win_lock_all(assert_, w);
    /* As in autopassive, origins and targets apart: a target that were
     * also an origin would wait in MPI for its own target, and its share
     * of time in MPI would sit near the thresholds. */
    for (int phase = 0; phase < 3; phase++) {
        int busy = phase != 1;
        for (int i = 0; i < 40; i++) {
            if (origin) {
                MPI_Accumulate(&one, 1, MPI_LONG, peer, phase, 1, MPI_LONG, MPI_SUM, w);
                MPI_Win_flush_all(w);
            } else if (busy) {
                spin(2);
            }
            if (!busy)
                idle(1);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        effect(w, phase);
    }
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    long got[3] = {base[0], base[1], base[2]};
    MPI_Win_unlock(rank, w);
    long in = (rank + size - 1) % size % 2 == 0 && size > 1 ? 40 : 0;
    printf("value rank=%d autoheld=%ld,%ld,%ld\n", rank, got[0], got[1], got[2]);
    MPI_Win_free(&w);
    result("autoheld", got[0] == in && got[1] == in && got[2] == in);
}

/* own_slot reads slot i of this rank's window w (memory base) under a
 * shared lock on itself. */
static long own_slot(MPI_Win w, const long *base, int i)
{
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    long v = base[i];
    MPI_Win_unlock(rank, w);
    return v;
}

static void autoregret(int epochs)
{
    MPI_Win w;
    long *base = zeroed_window(MPI_COMM_WORLD, &w);
    long one = 1;
    for (int i = 0; i < epochs; i++) {
        if (rank == 0 && size > 1) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
            MPI_Accumulate(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, w);
            MPI_Win_flush(1, w);
            MPI_Win_unlock(1, w);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    long got = own_slot(w, base, 0);
    printf("value rank=%d autoregret=%ld\n", rank, got);
    MPI_Win_free(&w);
    result("autoregret", got == (rank == 1 ? epochs : 0));
}

static void autocadence(int iters)
{
    MPI_Win w;
    long *base = zeroed_window(MPI_COMM_WORLD, &w);
    long one = 1;
    int to = (rank + 1) % size;
    for (int i = 0; i < iters; i++) {
        MPI_Win_lock(MPI_LOCK_SHARED, to, 0, w);
        MPI_Accumulate(&one, 1, MPI_LONG, to, 0, 1, MPI_LONG, MPI_SUM, w);
        MPI_Win_unlock(to, w);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    long got = own_slot(w, base, 0);
    printf("value rank=%d autocadence=%ld\n", rank, got);
    MPI_Win_free(&w);
    result("autocadence", got == iters);
}

/* idle stays inside MPI for ms milliseconds (collectives only; every rank
 * leaves after the same one). */
static void idle(double ms)
{
    double end = now_s() + ms * 1e-3;
    int more = 1;
    while (more) {
        int mine = now_s() < end;
        MPI_Allreduce(&mine, &more, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    }
}

/* Lock epochs only, on a window that is auto from its allocation
 * (CSP_ASYNC_CONFIG=auto), its phases separated by nothing but
 * collectives on the window's communicator: the members agree there
 * (rmaauto.c). Every iteration each rank also updates its own slot under
 * an exclusive lock on itself: once off, those are MPICH's real locks
 * after the redirected path's NOCHECK ones, which MPICH 4.0.2 made wait
 * forever unless the library set MPIR_CVAR_CH4_RMA_MEM_EFFICIENT
 * (internal/core/rma.go). */
static void autocoll(int nw)
{
    enum { MAXW = 4 };
    MPI_Win w[MAXW];
    long *base[MAXW];
    nw = nw < 1 ? 1 : nw > MAXW ? MAXW : nw;
    for (int k = 0; k < nw; k++)
        base[k] = zeroed_window(MPI_COMM_WORLD, &w[k]);
    int peer = (rank + 1) % size;
    /* More windows agree at staggered collectives: longer phases */
    const int iters = 40 + 20 * (nw - 1);
    for (int phase = 0; phase < 3; phase++) {
        int busy = phase != 1;
        for (int i = 0; i < iters; i++) {
            for (int k = 0; k < nw; k++) {
                add_one(w[k], peer, phase);
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w[k]);
                base[k][3 + phase]++;
                MPI_Win_unlock(rank, w[k]);
            }
            /* Over 0.5 ms of computing per MPI call of the iteration (4
             * per window, the barrier): a target that enters MPI every
             * 0.5 ms or more often counts as inside MPI (rmaauto.c). */
            if (busy)
                spin(2 + 3 * nw);
            else
                idle(0.2);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        for (int k = 0; k < nw; k++)
            effect(w[k], phase * nw + k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = 1;
    for (int k = 0; k < nw; k++) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w[k]);
        for (int p = 0; p < 3; p++)
            ok &= base[k][p] == iters && base[k][3 + p] == iters;
        printf("value rank=%d autocoll%d=%ld,%ld,%ld,%ld,%ld,%ld\n", rank, k, base[k][0], base[k][1], base[k][2],
               base[k][3], base[k][4], base[k][5]);
        MPI_Win_unlock(rank, w[k]);
    }
    for (int k = 0; k < nw; k++)
        MPI_Win_free(&w[k]);
    result("autocoll", ok);
}

/* MPI_Win_set_info(async_config) without symmetric=true on a window of
 * lock epochs only: no fence ever comes, so the change is taken at a
 * collective on the window's communicator where no member has an epoch
 * open (rmaauto.c). An accumulate to the peer on each path; rank 0 keeps
 * a lock_all epoch open across the first barrier after the change, which
 * must wait for later ones. */
static void setinfocoll(void)
{
    MPI_Win w;
    long *base = zeroed_window(MPI_COMM_WORLD, &w);
    int peer = (rank + 1) % size;
    MPI_Info off, on;
    MPI_Info_create(&off);
    MPI_Info_set(off, "async_config", "off");
    MPI_Info_create(&on);
    MPI_Info_set(on, "async_config", "on");
    add_one(w, peer, 0);
    MPI_Win_set_info(w, off);
    effect(w, 0); /* asked, not taken */
    if (rank == 0)
        MPI_Win_lock_all(0, w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Win_unlock_all(w);
    effect(w, 1); /* an epoch was open */
    for (int i = 0; i < 4; i++) /* the next tries come at doubling intervals */
        MPI_Barrier(MPI_COMM_WORLD);
    effect(w, 2);
    add_one(w, peer, 1);
    MPI_Win_set_info(w, on);
    MPI_Barrier(MPI_COMM_WORLD);
    effect(w, 3);
    add_one(w, peer, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    int ok = base[0] == 1 && base[1] == 1 && base[2] == 1;
    printf("value rank=%d setinfocoll=%ld,%ld,%ld\n", rank, base[0], base[1], base[2]);
    MPI_Win_unlock(rank, w);
    MPI_Win_free(&w);
    MPI_Info_free(&off);
    MPI_Info_free(&on);
    result("setinfocoll", ok);
}

static void autoburst(void)
{
    enum { NW = 6 };
    long *base[NW];
    MPI_Win w[NW];
    /* computing, then 2 windows; inside MPI, then 3; computing, then 1 */
    const int burst[] = {2, 3, 1};
    int k = 0;
    for (int b = 0; b < 3; b++) {
        if (b == 1)
            idle(20);
        else
            spin(20);
        /* What each starts with: the collectives below (idle's too) may
         * switch it later, by its own profile (rmaauto.c). */
        for (int i = 0; i < burst[b]; i++, k++) {
            MPI_Win_allocate(SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base[k], &w[k]);
            effect(w[k], k);
        }
    }
    int peer = (rank + 1) % size, ok = 1;
    long one = 1;
    for (k = 0; k < NW; k++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w[k]);
        base[k][0] = 10 * k;
        MPI_Win_unlock(rank, w[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w[k]);
        MPI_Accumulate(&one, 1, MPI_LONG, peer, 0, 1, MPI_LONG, MPI_SUM, w[k]);
        MPI_Win_unlock(peer, w[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w[k]);
        ok &= base[k][0] == 10 * k + 1;
        printf("value rank=%d autoburst%d=%ld\n", rank, k, base[k][0]);
        MPI_Win_unlock(rank, w[k]);
    }
    for (k = 0; k < NW; k++)
        MPI_Win_free(&w[k]);
    result("autoburst", ok);
}

/* blocked: passive-target epochs on a window of a process that waits in
 * MPI_Recv meanwhile (which plain MPICH's progress serves). */
static void blocked(int create, int epochs, int kib)
{
    const int n = kib * 1024 / (int)sizeof(long);
    long *base = NULL, *src = malloc((size_t)n * sizeof(long));
    MPI_Win w;
    if (create) {
        base = malloc((size_t)n * sizeof(long));
        MPI_Win_create(base, (MPI_Aint)n * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    } else {
        MPI_Win_allocate((MPI_Aint)n * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
    }
    memset(base, 0, (size_t)n * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 1) {
        double t0 = now_s();
        for (int e = 0; e < epochs; e++) {
            for (int i = 0; i < n; i++)
                src[i] = (long)e * n + i;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
            MPI_Put(src, n, MPI_LONG, 0, 0, n, MPI_LONG, w);
            MPI_Win_unlock(0, w);
        }
        double us = (now_s() - t0) / epochs * 1e6;
        printf("time name=blocked_epoch window=%s kib=%d us=%.1f\n", create ? "create" : "allocate", kib, us);
        MPI_Send(&epochs, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
        for (int i = 0; i < n; i++)
            ok &= base[i] == (long)(epochs - 1) * n + i;
        MPI_Win_unlock(0, w);
        ok &= got == epochs;
        printf("value rank=0 blocked=%d,%ld\n", got, base[n - 1]);
    }
    MPI_Win_free(&w);
    if (create)
        free(base);
    free(src);
    result("blocked", ok);
}

static void fatal(void)
{
    long *base;
    MPI_Win w = make(&base);
    long v = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    MPI_Put(&v, 1, MPI_LONG, 0, 1 << 20, 1, MPI_LONG, w); /* aborts */
    MPI_Win_unlock(0, w);
    result("fatal_not_reached", 0);
    MPI_Win_free(&w);
}

#define SERVE_EPOCHS 200
#define SERVE_APART 5 /* the last ones 5 ms apart */

static void serve(double ms)
{
    long *base;
    MPI_Win w = make(&base);
    long got = -1, one = 1;
    if (rank == 0) {
        /* Back to back, then a few apart (the target's ghost parks in
         * between). */
        for (int i = 0; i < SERVE_EPOCHS; i++) {
            if (i >= SERVE_EPOCHS - SERVE_APART) {
                struct timespec ts = {0, 5000000};
                nanosleep(&ts, NULL);
            }
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
            MPI_Accumulate(&one, 1, MPI_LONG, 1, 42, 1, MPI_LONG, MPI_SUM, w);
            MPI_Win_flush(1, w);
            MPI_Win_unlock(1, w);
        }
    } else if (rank == 1) {
        double end = MPI_Wtime() + ms / 1000;
        volatile double x = 0;
        while (MPI_Wtime() < end) /* MPI_Wtime is a clock read, no progress */
            x += 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w);
        got = base[42];
        MPI_Win_unlock(1, w);
    }
    result("serve", rank != 1 || got == SERVE_EPOCHS);
    if (rank == 1)
        printf("value rank=%d served=%ld\n", rank, got);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The lock word given back at this unlock is the last operation on the
     * window before its memory goes. */
    if (rank == 0) {
        long v = 7;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w);
        MPI_Put(&v, 1, MPI_LONG, 1, 43, 1, MPI_LONG, w);
        MPI_Win_unlock(1, w);
    }
    MPI_Win_free(&w);
    result("serve_free", 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "ops";
    if (argc > 2)
        shared_win = strcmp(argv[2], "shared") == 0 ? 1 : strcmp(argv[2], "noncontig") == 0 ? 2 : 0;
    if (strcmp(mode, "ops") == 0) {
        long *base;
        MPI_Win w = make(&base);
        attrs(w, base);
        fence_put_get(w, base);
        passive_accumulate(w, base);
        exclusive_counter(w, base);
        atomics(w, base);
        get_accumulate(w, base);
        request_ops(w, base);
        pscw_ring(w, base);
        strided(w, base);
        strided_acc(w, base);
        flushes(w, base);
        local_access(w, base);
        if (shared_win)
            shared_memory(w, base);
        MPI_Win_free(&w);
    } else if (strcmp(mode, "errors") == 0) {
        errors();
    } else if (strcmp(mode, "range") == 0) {
        range();
    } else if (strcmp(mode, "churn") == 0) {
        churn();
    } else if (strcmp(mode, "hintoff") == 0) {
        hintoff();
    } else if (strcmp(mode, "fatal") == 0) {
        fatal();
    } else if (strcmp(mode, "none") == 0) {
        result("none", 1);
    } else if (strcmp(mode, "window") == 0) {
        long *base;
        MPI_Win w = make(&base);
        MPI_Win_free(&w);
        result("window", 1);
    } else if (strcmp(mode, "switch") == 0) {
        switching();
    } else if (strcmp(mode, "serve") == 0) {
        serve(argc > 3 ? atof(argv[3]) : 300);
    } else if (strcmp(mode, "self") == 0) {
        self_window();
    } else if (strcmp(mode, "fatalhint") == 0 || strcmp(mode, "fatalepoch") == 0) {
        fatal_epochs(strcmp(mode, "fatalhint") == 0);
    } else if (strcmp(mode, "epochs") == 0) {
        epochs();
    } else if (strcmp(mode, "lockall") == 0) {
        lockall(argc > 2 && strcmp(argv[2], "hint") == 0);
    } else if (strcmp(mode, "auto") == 0) {
        autofence();
    } else if (strcmp(mode, "autopassive") == 0) {
        autopassive();
    } else if (strcmp(mode, "setinfocoll") == 0) {
        setinfocoll();
    } else if (strcmp(mode, "autocoll") == 0) {
        autocoll(argc > 2 ? atoi(argv[2]) : 1);
    } else if (strcmp(mode, "autoheld") == 0) {
        autoheld(argc > 2 && strcmp(argv[2], "nocheck") == 0 ? MPI_MODE_NOCHECK : 0);
    } else if (strcmp(mode, "autoregret") == 0) {
        autoregret(argc > 2 ? atoi(argv[2]) : 40);
    } else if (strcmp(mode, "autoburst") == 0) {
        autoburst();
    } else if (strcmp(mode, "autocadence") == 0) {
        autocadence(argc > 2 ? atoi(argv[2]) : 1000);
    } else if (strcmp(mode, "blocked") == 0) {
        blocked(argc <= 2 || strcmp(argv[2], "allocate") != 0, argc > 3 ? atoi(argv[3]) : 100,
                argc > 4 ? atoi(argv[4]) : 256);
    }
    MPI_Finalize();
    return 0;
}
