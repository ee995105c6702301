/*
 * ip_winreg: windows of MPI_Win_allocate_shared with shmbuf_regist=true
 * are registered whatever their communicator, sizes and alignment, and
 * behave exactly as MPI's own.
 *
 *   ip_winreg self|node|verbose
 *
 * self: windows over MPI_COMM_SELF (MPICH allocates them with malloc) of
 *   1000, 65537, 3*4096+1 and 1 bytes with displacement units 1, 4, 8 and
 *   3, the hint on the window's info for the first two and on
 *   MPI_COMM_SELF's hints for the others; then one of 0 bytes.
 * node: windows over MPI_COMM_WORLD (the jobs run on one host),
 *   contiguous and with alloc_shared_noncontig=true, each rank its own
 *   odd size and displacement unit; a third window where every other rank
 *   has 0 bytes. Every user stores into its part and loads every other part
 *   MPI_Win_shared_query shows it (under MPIR_CVAR_NOLOCAL=1 MPICH gives
 *   each process private memory, and the query shows its own part only).
 *
 * In self and node, each window's whole part is sent on a wildcard_used=none
 * duplicate of MPI_COMM_WORLD to the next user and received into the next
 * user's part of a second window, checked byte by byte: with CSP_STATS=1
 * every user must report bounce=0. Every window prints what MPI says of it,
 * for comparison with the same program under plain MPICH:
 *
 *   layout rank=<r> test=<name> flavor= model= size= du= base=<0|1: the
 *          attribute is the base MPI_Win_allocate_shared returned>
 *          q<p>=<size>/<du>/<offset of p's base from the first non-empty
 *          part's, "null" for a NULL base, "own" for this process's base>
 *          info=<key=value;...>
 *
 * verbose (CSP_VERBOSE=1, CSP_HEAP_ARENA=20): windows that cannot be
 *   registered still work, and the runtime says so once per window:
 *   1. a node window with the hint on rank 0's info only;
 *   2. MPI_Alloc_mem(600 KiB, shmbuf_regist=true) until it fails (each
 *      block a heap segment of its own: the segment table fills), then a
 *      node window (no slot for its memfd) and an MPI_COMM_SELF window of
 *      600 KiB (no heap block for it);
 *   (these windows are checked with stores and loads, nothing is sent);
 *   3. four blocks freed, a node window and an MPI_COMM_SELF window are
 *      registered again: the exchange from them needs no bounce copy.
 *   Prints "result ... test=verbose-<step> bytes=<window bytes>" lines.
 *
 * Output: "result rank=<r> test=<name> ok=<0|1>" lines.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, bad;
static MPI_Comm off; /* wildcard_used=none duplicate of the world: offloaded */

static void check(const char *name, int ok)
{
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok);
    bad += !ok;
}

static unsigned char val(int who, int salt, long i)
{
    return (unsigned char)(who * 37 + salt * 13 + i * 11 + 1);
}

static MPI_Info info_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info inf;
    MPI_Info_create(&inf);
    if (k1)
        MPI_Info_set(inf, k1, v1);
    if (k2)
        MPI_Info_set(inf, k2, v2);
    return inf;
}

/* The window's info as key=value;key=value... */
static void info_string(MPI_Win w, char *out, size_t cap)
{
    MPI_Info inf;
    int n;
    MPI_Win_get_info(w, &inf);
    MPI_Info_get_nkeys(inf, &n);
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        char k[MPI_MAX_INFO_KEY + 1], v[256];
        int flag;
        MPI_Info_get_nthkey(inf, i, k);
        MPI_Info_get(inf, k, sizeof v - 1, v, &flag);
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s%s=%s", i ? ";" : "", k, v);
    }
    MPI_Info_free(&inf);
}

/* Print the layout line of window w over comm wc (nw processes), whose
 * base MPI_Win_allocate_shared returned as base; checks the attributes
 * agree with the query of this process. */
static void layout(const char *name, MPI_Win w, MPI_Comm wc, void *base)
{
    int nw, me, *flavor, *model, *du, flag;
    MPI_Aint *asz;
    void *abase;
    MPI_Comm_size(wc, &nw);
    MPI_Comm_rank(wc, &me);
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &asz, &flag);
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &flag);
    MPI_Win_get_attr(w, MPI_WIN_BASE, &abase, &flag);
    char line[4096], inf[2048];
    int l = snprintf(line, sizeof line, "layout rank=%d test=%s flavor=%d model=%d size=%ld du=%d base=%d",
                     rank, name, *flavor, *model, (long)*asz, *du, abase == base);
    char *first = NULL;
    for (int p = -1; p < nw; p++) {
        MPI_Aint qs;
        int qd;
        char *qb;
        MPI_Win_shared_query(w, p < 0 ? MPI_PROC_NULL : p, &qs, &qd, &qb);
        if (p < 0) {
            first = qb; /* MPI_PROC_NULL: the first non-empty part */
            continue;
        }
        if (p == me && !(qs == *asz && qd == *du && (qs == 0 || qb == (char *)base)))
            check("query-self", 0);
        if (!qb)
            l += snprintf(line + l, sizeof line - l, " q%d=%ld/%d/null", p, (long)qs, qd);
        else if (qb == (char *)base && p != me)
            l += snprintf(line + l, sizeof line - l, " q%d=%ld/%d/own", p, (long)qs, qd);
        else
            l += snprintf(line + l, sizeof line - l, " q%d=%ld/%d/%ld", p, (long)qs, qd,
                          (long)(qb - first));
    }
    info_string(w, inf, sizeof inf);
    printf("%s info=%s\n", line, inf);
}

/* Sends n bytes from sbuf to the next user and receives m bytes from the
 * previous one into rbuf on the offloaded communicator; checks every byte
 * against val(prev, salt, .). */
static int exchange(const unsigned char *sbuf, long n, unsigned char *rbuf, long m, int salt)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request r[2];
    MPI_Status st[2];
    memset(rbuf, 0, m);
    MPI_Irecv(rbuf, (int)m, MPI_BYTE, prev, salt, off, &r[0]);
    MPI_Isend(sbuf, (int)n, MPI_BYTE, next, salt, off, &r[1]);
    MPI_Waitall(2, r, st);
    int count;
    MPI_Get_count(&st[0], MPI_BYTE, &count);
    int ok = count == m && st[0].MPI_SOURCE == prev;
    for (long i = 0; i < m && ok; i++)
        ok = rbuf[i] == val(prev, salt, i);
    return ok;
}

/* ---- self ---- */

static void self_windows(void)
{
    static const long sizes[] = {1000, 65537, 3 * 4096 + 1, 1};
    static const int dus[] = {1, 4, 8, 3};
    MPI_Info reg = info_of("shmbuf_regist", "true", NULL, NULL);
    for (int k = 0; k < 4; k++) {
        if (k == 2)
            MPI_Comm_set_info(MPI_COMM_SELF, reg); /* from here the hint is MPI_COMM_SELF's */
        MPI_Info wi = k < 2 ? reg : MPI_INFO_NULL;
        long n = sizes[k];
        unsigned char *a, *b;
        MPI_Win wa, wb;
        MPI_Win_allocate_shared(n, dus[k], wi, MPI_COMM_SELF, &a, &wa);
        MPI_Win_allocate_shared(n, dus[k], wi, MPI_COMM_SELF, &b, &wb);
        char name[64];
        snprintf(name, sizeof name, "self-%ld-du%d", n, dus[k]);
        layout(name, wa, MPI_COMM_SELF, a);
        for (long i = 0; i < n; i++)
            a[i] = val(rank, k, i);
        snprintf(name, sizeof name, "self-exchange-%ld", n);
        check(name, exchange(a, n, b, n, k));

        /* RMA on it: a Put of 16 bytes at displacement 1 (dus[k] bytes in) */
        if (n >= dus[k] + 16) {
            unsigned char put[16];
            for (int i = 0; i < 16; i++)
                put[i] = (unsigned char)(200 + i);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wa);
            MPI_Put(put, 16, MPI_BYTE, 0, 1, 16, MPI_BYTE, wa);
            MPI_Win_unlock(0, wa);
            int ok = 1;
            for (long i = 0; i < n && ok; i++)
                ok = a[i] == (i >= dus[k] && i < dus[k] + 16 ? 200 + i - dus[k] : val(rank, k, i));
            snprintf(name, sizeof name, "self-put-%ld", n);
            check(name, ok);
        }
        MPI_Win_free(&wa);
        MPI_Win_free(&wb);
        check("self-freed", wa == MPI_WIN_NULL && wb == MPI_WIN_NULL);
    }
    /* 0 bytes */
    void *z;
    MPI_Win wz;
    MPI_Win_allocate_shared(0, 1, reg, MPI_COMM_SELF, &z, &wz);
    layout("self-0", wz, MPI_COMM_SELF, z);
    MPI_Win_free(&wz);
    MPI_Info_free(&reg);
}

/* ---- node ---- */

static long part_a(int p) { return (p % 2 ? 65537 : 1000) + 3 * p; }
static long part_b(int p) { return 70001 + 2 * p; } /* more than any part_a */
static long part_z(int p) { return p % 2 ? 0 : 4097 * (p + 1); }

/* Stores into this process's part, then loads every part the query shows
 * (its own only in private memory). */
static int shared_loads(MPI_Win w, MPI_Comm nc, unsigned char *mine, long n, int salt)
{
    int nw, me;
    MPI_Comm_size(nc, &nw);
    MPI_Comm_rank(nc, &me);
    for (long i = 0; i < n; i++)
        mine[i] = val(me, salt, i);
    MPI_Win_fence(0, w);
    int ok = 1;
    for (int p = 0; p < nw && ok; p++) {
        MPI_Aint qs;
        int qd;
        unsigned char *qb;
        MPI_Win_shared_query(w, p, &qs, &qd, &qb);
        int who = qb == mine ? me : p; /* private memory: every answer is ours */
        for (long i = 0; i < qs && ok; i++)
            ok = qb[i] == val(who, salt, i);
    }
    MPI_Win_fence(0, w);
    return ok;
}

static void node_windows(MPI_Comm nc)
{
    int me, nw;
    MPI_Comm_rank(nc, &me);
    MPI_Comm_size(nc, &nw);
    for (int noncontig = 0; noncontig <= 1; noncontig++) {
        MPI_Info inf = info_of("shmbuf_regist", "true", "alloc_shared_noncontig",
                               noncontig ? "true" : "false");
        unsigned char *a, *b;
        MPI_Win wa, wb;
        MPI_Win_allocate_shared(part_a(me), me + 1, inf, nc, &a, &wa);
        MPI_Win_allocate_shared(part_b(me), 8, inf, nc, &b, &wb);
        char name[64];
        snprintf(name, sizeof name, "node-a-noncontig%d", noncontig);
        layout(name, wa, nc, a);
        snprintf(name, sizeof name, "node-b-noncontig%d", noncontig);
        layout(name, wb, nc, b);
        check("node-shared-loads", shared_loads(wa, nc, a, part_a(me), 5));
        for (long i = 0; i < part_a(me); i++)
            a[i] = val(me, 6 + noncontig, i);
        MPI_Barrier(nc);
        check("node-exchange",
              exchange(a, part_a(me), b, part_a((me + nw - 1) % nw), 6 + noncontig));
        MPI_Win_free(&wa);
        MPI_Win_free(&wb);
        MPI_Info_free(&inf);
    }
    /* every other rank has 0 bytes */
    MPI_Info reg = info_of("shmbuf_regist", "true", NULL, NULL);
    unsigned char *z;
    MPI_Win wz;
    MPI_Win_allocate_shared(part_z(me), 2, reg, nc, &z, &wz);
    layout("node-z", wz, nc, z);
    check("node-z-loads", shared_loads(wz, nc, z, part_z(me), 8));
    MPI_Win_free(&wz);
    MPI_Info_free(&reg);
}

/* ---- verbose ---- */

/* A window over nc with the hint where hint is set; checks it works and
 * prints its bytes over all processes as a result line. */
static void verbose_window(const char *name, MPI_Comm nc, long n, int hint)
{
    MPI_Info inf = info_of(hint ? "shmbuf_regist" : NULL, "true", NULL, NULL);
    unsigned char *m;
    MPI_Win w;
    MPI_Win_allocate_shared(n, 1, inf, nc, &m, &w);
    int ok = shared_loads(w, nc, m, n, 3);
    long total;
    MPI_Allreduce(&n, &total, 1, MPI_LONG, MPI_SUM, nc);
    printf("result rank=%d test=%s ok=%d bytes=%ld\n", rank, name, ok, total);
    bad += !ok;
    MPI_Win_free(&w);
    MPI_Info_free(&inf);
}

static void verbose_windows(MPI_Comm nc)
{
    int me, nw;
    MPI_Comm_rank(nc, &me);
    MPI_Comm_size(nc, &nw);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* 1. the hint on rank 0 only */
    verbose_window("verbose-notasked", nc, 5000 + me, me == 0);

    /* 2. the segment table full */
    MPI_Info reg = info_of("shmbuf_regist", "true", NULL, NULL);
    enum { MAXB = 4096 };
    static void *blocks[MAXB];
    int nb = 0;
    while (nb < MAXB && MPI_Alloc_mem(600 * 1024, reg, &blocks[nb]) == MPI_SUCCESS)
        nb++;
    check("verbose-table-full", nb > 4 && nb < MAXB);
    verbose_window("verbose-segs", nc, 7000 + me, 1);
    verbose_window("verbose-heap", MPI_COMM_SELF, 600 * 1024, 1);

    /* 3. room again: registered, no bounce copy */
    for (int i = 0; i < 4; i++)
        MPI_Free_mem(blocks[--nb]);
    unsigned char *a, *b;
    MPI_Win wa, wb;
    MPI_Win_allocate_shared(part_a(me), 1, reg, nc, &a, &wa);
    MPI_Win_allocate_shared(part_b(me), 1, reg, MPI_COMM_SELF, &b, &wb);
    for (long i = 0; i < part_a(me); i++)
        a[i] = val(me, 11, i);
    MPI_Barrier(nc);
    check("verbose-registered", exchange(a, part_a(me), b, part_a((me + nw - 1) % nw), 11));
    MPI_Win_free(&wa);
    MPI_Win_free(&wb);
    while (nb > 0)
        MPI_Free_mem(blocks[--nb]);
    MPI_Info_free(&reg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "self";

    MPI_Info none = info_of("wildcard_used", "none", NULL, NULL);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, none, &off);
    MPI_Info_free(&none);
    if (strcmp(mode, "self") == 0)
        self_windows();
    else if (strcmp(mode, "node") == 0)
        node_windows(MPI_COMM_WORLD);
    else if (strcmp(mode, "verbose") == 0)
        verbose_windows(MPI_COMM_WORLD);
    else
        check("mode", 0);

    MPI_Comm_free(&off);
    MPI_Finalize();
    return bad != 0;
}
