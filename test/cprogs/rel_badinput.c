/*
 * rel_badinput: the bad-input matrix. Every user runs every check on a
 * duplicate of MPI_COMM_WORLD for each wildcard_used value (each selects
 * another offload algorithm), with MPI_ERRORS_RETURN.
 *
 * Errors (each must return its MPI error class with a one-line message,
 * post nothing and leave the job working):
 *   tag-above-ub, tag-negative     MPI_ERR_TAG   (send and receive side)
 *   count-negative                 MPI_ERR_COUNT (send and receive side)
 *   rank-invalid                   MPI_ERR_RANK  (size, -7 as destination;
 *                                                 size+3 as source)
 *   too-big                        MPI_ERR_COUNT: a message of more bytes
 *                                  than an MPI_Count holds (2 GiB and
 *                                  more is legal and offloaded: ip_large)
 *   wildcard-ruled-out             MPI_ERR_RANK / MPI_ERR_TAG (a wildcard the
 *                                  communicator's wildcard_used excludes)
 *   hint-value/<key>               MPI_ERR_INFO_VALUE naming key and value
 * Accepted:
 *   hint-unknown-key               unknown keys are ignored (MPI says so):
 *                                  the communicator is offloaded as asked
 *   proc-null/<call>               every point-to-point call with
 *                                  MPI_PROC_NULL completes at once; receive
 *                                  statuses are source MPI_PROC_NULL, tag
 *                                  MPI_ANY_TAG, count 0
 *   bounce                         buffers outside the shared heap (malloc,
 *                                  the stack, a strided datatype) arrive
 *                                  intact; the number of such operations is
 *                                  printed as expect_bounce=<n> for the
 *                                  test to compare with CSP_STATS bounce=
 *   no-side-effects                after all the errors: the same cells,
 *                                  records and heap bytes in use as before,
 *                                  and an exchange that arrives intact
 *
 * Output: "result rank=<r> test=<name> mode=<m> ok=<0|1> ..." lines.
 */
#define _GNU_SOURCE
#include "rel_hooks.h"

#include <string.h>

static int rank, size, bad;
static long expect_bounce;

static const char *modes[] = {"none", "any_tag_same_tag", "any_src|any_tag_same_tag", "any_src"};
static const char *mode_names[] = {"none", "any_tag_same_tag", "any_src+any_tag_same_tag", "any_src"};

static void report(const char *name, const char *mode, int ok, const char *extra)
{
    printf("result rank=%d test=%s mode=%s ok=%d%s%s\n", rank, name, mode, ok, extra ? " " : "",
           extra ? extra : "");
    bad += !ok;
}

/* An error check: rc must be of class want, with a one-line message
 * containing need (if given). */
static void check_err(const char *name, const char *mode, int rc, int want, const char *need1,
                      const char *need2)
{
    char msg[MPI_MAX_ERROR_STRING], extra[MPI_MAX_ERROR_STRING + 64];
    int cls, nl = rel_errstr(rc, msg, &cls);
    int ok = rc != MPI_SUCCESS && cls == want && !nl && msg[0] && (!need1 || strstr(msg, need1)) &&
             (!need2 || strstr(msg, need2));
    snprintf(extra, sizeof extra, "class=%d want=%d newline=%d msg=%s", cls, want, nl, msg);
    report(name, mode, ok, extra);
}

static int empty_recv_status(const MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0;
}

static MPI_Comm dup_with(const char *k1, const char *v1, const char *k2, const char *v2, int *rc)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (k1)
        MPI_Info_set(info, k1, v1);
    if (k2)
        MPI_Info_set(info, k2, v2);
    MPI_Comm c = MPI_COMM_NULL;
    *rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    return c;
}

/* A ring exchange of n ints on c from buffers sbuf/rbuf; checks the data. */
static int exchange(MPI_Comm c, int *sbuf, int *rbuf, int n, int salt)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < n; i++)
        sbuf[i] = salt * 7919 + rank * 1000003 + i;
    memset(rbuf, 0, sizeof(int) * (size_t)n);
    MPI_Request r[2];
    MPI_Irecv(rbuf, n, MPI_INT, prev, 77, c, &r[0]);
    MPI_Isend(sbuf, n, MPI_INT, next, 77, c, &r[1]);
    int rc = MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int ok = rc == MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        ok &= rbuf[i] == salt * 7919 + prev * 1000003 + i;
    return ok;
}

static void errors(MPI_Comm c, const char *m)
{
    int *ub, flag, x[4] = {0};
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm_get_attr(c, MPI_TAG_UB, &ub, &flag);
    check_err("tag-above-ub", m, MPI_Isend(x, 1, MPI_INT, 0, *ub + 1, c, &r), MPI_ERR_TAG, "MPI_TAG_UB", NULL);
    check_err("tag-above-ub", m, MPI_Irecv(x, 1, MPI_INT, 0, *ub + 1, c, &r), MPI_ERR_TAG, "MPI_TAG_UB", NULL);
    check_err("tag-negative", m, MPI_Send(x, 1, MPI_INT, 0, -5, c), MPI_ERR_TAG, NULL, NULL);
    check_err("tag-negative", m, MPI_Irecv(x, 1, MPI_INT, 0, -5, c, &r), MPI_ERR_TAG, NULL, NULL);
    check_err("count-negative", m, MPI_Isend(x, -1, MPI_INT, 0, 1, c, &r), MPI_ERR_COUNT, NULL, NULL);
    check_err("count-negative", m, MPI_Irecv(x, -1, MPI_INT, 0, 1, c, &r), MPI_ERR_COUNT, NULL, NULL);
    check_err("rank-invalid", m, MPI_Isend(x, 1, MPI_INT, size, 1, c, &r), MPI_ERR_RANK, NULL, NULL);
    check_err("rank-invalid", m, MPI_Send(x, 1, MPI_INT, -7, 1, c), MPI_ERR_RANK, NULL, NULL);
    check_err("rank-invalid", m, MPI_Irecv(x, 1, MPI_INT, size + 3, 1, c, &r), MPI_ERR_RANK, NULL, NULL);
    /* more bytes than an MPI_Count holds (the buffers are never touched) */
    check_err("too-big", m, MPI_Isend_c(x, (MPI_Count)1 << 62, MPI_INT, 0, 1, c, &r), MPI_ERR_COUNT, "MPI_Count",
              NULL);
    check_err("too-big", m, MPI_Irecv_c(x, (MPI_Count)1 << 62, MPI_INT, 0, 1, c, &r), MPI_ERR_COUNT, "MPI_Count",
              NULL);
    /* wildcards the communicator's wildcard_used rules out */
    if (strcmp(m, "none") == 0) {
        check_err("wildcard-ruled-out", m, MPI_Irecv(x, 1, MPI_INT, MPI_ANY_SOURCE, 1, c, &r), MPI_ERR_RANK,
                  "wildcard_used", NULL);
        check_err("wildcard-ruled-out", m, MPI_Irecv(x, 1, MPI_INT, 0, MPI_ANY_TAG, c, &r), MPI_ERR_TAG,
                  "wildcard_used", NULL);
    } else if (strcmp(m, "any_tag_same_tag") == 0) {
        check_err("wildcard-ruled-out", m, MPI_Irecv(x, 1, MPI_INT, MPI_ANY_SOURCE, 1, c, &r), MPI_ERR_RANK,
                  "wildcard_used", NULL);
    }
}

static void proc_null(MPI_Comm c, const char *m, int offloaded)
{
    int x[4] = {1, 2, 3, 4}, y[4], flag = 0;
    MPI_Status st;
    MPI_Request r, rs[3];
    MPI_Message msg;
    char extra[128];

    memset(&st, 0x5a, sizeof st);
    int rc = MPI_Recv(y, 4, MPI_INT, MPI_PROC_NULL, 3, c, &st);
    report("proc-null/recv", m, rc == MPI_SUCCESS && empty_recv_status(&st), NULL);

    memset(&st, 0x5a, sizeof st);
    rc = MPI_Irecv(y, 4, MPI_INT, MPI_PROC_NULL, 3, c, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Test(&r, &flag, &st);
    report("proc-null/irecv", m, rc == MPI_SUCCESS && flag && r == MPI_REQUEST_NULL && empty_recv_status(&st),
           NULL);

    rc = MPI_Send(x, 4, MPI_INT, MPI_PROC_NULL, 3, c);
    report("proc-null/send", m, rc == MPI_SUCCESS, NULL);
    rc = MPI_Isend(x, 4, MPI_INT, MPI_PROC_NULL, 3, c, &r);
    flag = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    report("proc-null/isend", m, rc == MPI_SUCCESS && flag, NULL);
    rc = MPI_Ssend(x, 4, MPI_INT, MPI_PROC_NULL, 3, c);
    report("proc-null/ssend", m, rc == MPI_SUCCESS, NULL);

    memset(&st, 0x5a, sizeof st);
    rc = MPI_Sendrecv(x, 4, MPI_INT, MPI_PROC_NULL, 3, y, 4, MPI_INT, MPI_PROC_NULL, 3, c, &st);
    report("proc-null/sendrecv", m, rc == MPI_SUCCESS && empty_recv_status(&st), NULL);

    memset(&st, 0x5a, sizeof st);
    rc = MPI_Probe(MPI_PROC_NULL, 3, c, &st);
    report("proc-null/probe", m, rc == MPI_SUCCESS && empty_recv_status(&st), NULL);
    memset(&st, 0x5a, sizeof st);
    flag = 0;
    rc = MPI_Iprobe(MPI_PROC_NULL, 3, c, &flag, &st);
    report("proc-null/iprobe", m, rc == MPI_SUCCESS && flag && empty_recv_status(&st), NULL);

    memset(&st, 0x5a, sizeof st);
    rc = MPI_Mprobe(MPI_PROC_NULL, 3, c, &msg, &st);
    int ok = rc == MPI_SUCCESS && msg == MPI_MESSAGE_NO_PROC && empty_recv_status(&st);
    memset(&st, 0x5a, sizeof st);
    rc = MPI_Mrecv(y, 4, MPI_INT, &msg, &st);
    report("proc-null/mprobe-mrecv", m, ok && rc == MPI_SUCCESS && empty_recv_status(&st), NULL);
    flag = 0;
    rc = MPI_Improbe(MPI_PROC_NULL, 3, c, &flag, &msg, &st);
    ok = rc == MPI_SUCCESS && flag && msg == MPI_MESSAGE_NO_PROC;
    memset(&st, 0x5a, sizeof st);
    rc = MPI_Imrecv(y, 4, MPI_INT, &msg, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, &st);
    report("proc-null/improbe-imrecv", m, ok && rc == MPI_SUCCESS && empty_recv_status(&st), NULL);

    memset(&st, 0x5a, sizeof st);
    rc = MPI_Isendrecv(x, 4, MPI_INT, MPI_PROC_NULL, 3, y, 4, MPI_INT, MPI_PROC_NULL, 3, c, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, &st);
    report("proc-null/isendrecv", m, rc == MPI_SUCCESS && empty_recv_status(&st), NULL);

    /* Persistent requests: start, complete at once, start again. */
    ok = MPI_Recv_init(y, 4, MPI_INT, MPI_PROC_NULL, 3, c, &rs[0]) == MPI_SUCCESS &&
         MPI_Send_init(x, 4, MPI_INT, MPI_PROC_NULL, 3, c, &rs[1]) == MPI_SUCCESS;
    for (int k = 0; k < 2 && ok; k++) {
        MPI_Status sts[2];
        memset(sts, 0x5a, sizeof sts);
        ok &= MPI_Startall(2, rs) == MPI_SUCCESS && MPI_Waitall(2, rs, sts) == MPI_SUCCESS &&
              empty_recv_status(&sts[0]);
    }
    MPI_Request_free(&rs[0]);
    MPI_Request_free(&rs[1]);
    report("proc-null/persistent", m, ok, NULL);

    /* Mixed with offloaded requests in one MPI_Waitall: statuses in place. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, z = rank, w = -1;
    MPI_Status sts[3];
    memset(sts, 0x5a, sizeof sts);
    MPI_Irecv(&w, 1, MPI_INT, prev, 4, c, &rs[0]);
    MPI_Irecv(y, 4, MPI_INT, MPI_PROC_NULL, 4, c, &rs[1]);
    MPI_Isend(&z, 1, MPI_INT, next, 4, c, &rs[2]);
    rc = MPI_Waitall(3, rs, sts);
    expect_bounce += offloaded ? 2 : 0; /* w and z live on the stack */
    int cnt = -1;
    MPI_Get_count(&sts[0], MPI_INT, &cnt);
    ok = rc == MPI_SUCCESS && w == prev && sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 4 && cnt == 1 &&
         empty_recv_status(&sts[1]);
    snprintf(extra, sizeof extra, "w=%d src0=%d src1=%d tag1=%d", w, sts[0].MPI_SOURCE, sts[1].MPI_SOURCE,
             sts[1].MPI_TAG);
    report("proc-null/mixed-waitall", m, ok, extra);
}

/* Buffers outside the shared heap are copied through a bounce block. */
static void bounce(MPI_Comm c, const char *m, int offloaded)
{
    int n = 1000, ok;
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    ok = exchange(c, s, r, n, 1);
    int sst[64], rst[64];
    ok &= exchange(c, sst, rst, 64, 2);
    if (offloaded)
        expect_bounce += 4; /* two sends, two receives */
    /* A strided datatype: packed into the bounce block, unpacked out. */
    MPI_Datatype vec;
    MPI_Type_vector(100, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < 300; i++)
        s[i] = rank * 100000 + i, r[i] = -1;
    MPI_Request q[2];
    MPI_Irecv(r, 1, vec, prev, 9, c, &q[0]);
    MPI_Isend(s, 1, vec, next, 9, c, &q[1]);
    ok &= MPI_Waitall(2, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
    for (int i = 0; i < 300; i++)
        ok &= r[i] == (i % 3 == 0 ? prev * 100000 + i : -1);
    if (offloaded)
        expect_bounce += 2;
    MPI_Type_free(&vec);
    free(s);
    free(r);
    report("bounce", m, ok, NULL);
}

static void hints(void)
{
    struct {
        const char *key, *value;
    } badv[] = {{"wildcard_used", "bogus"},
                {"shmbuf_regist", "maybe"},
                {"async_config", "sometimes"},
                {"datatype_used", "weird"},
                {"offload_min_msgsz", "-5"}};
    int rc, sb[8], rb[8];
    char name[64];
    for (size_t i = 0; i < sizeof badv / sizeof badv[0]; i++) {
        MPI_Comm c = dup_with(badv[i].key, badv[i].value, NULL, NULL, &rc);
        snprintf(name, sizeof name, "hint-value/%s", badv[i].key);
        check_err(name, "-", rc, MPI_ERR_INFO_VALUE, badv[i].key, badv[i].value);
        /* The communicator exists and works (MPI leaves it defined here;
         * offload is off on it). */
        if (c != MPI_COMM_NULL) {
            report("hint-value-comm-works", badv[i].key, exchange(c, sb, rb, 8, 3) && rel_comm_algo(c) == 0, NULL);
            MPI_Comm_free(&c);
        }
    }
    /* Unknown keys: ignored, the known ones applied. */
    MPI_Comm c = dup_with("casperii_no_such_key", "1", "wildcard_used", "none", &rc);
    int algo = rel_comm_algo(c);
    char extra[64];
    snprintf(extra, sizeof extra, "rc=%d algo=%d", rc, algo);
    report("hint-unknown-key", "dup", rc == MPI_SUCCESS && algo == 1 && exchange(c, sb, rb, 8, 4), extra);
    expect_bounce += algo > 0 ? 2 : 0; /* stack buffers */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_such_key_either", "whatever");
    rc = MPI_Comm_set_info(c, info);
    MPI_Info_free(&info);
    algo = rel_comm_algo(c);
    snprintf(extra, sizeof extra, "rc=%d algo=%d", rc, algo);
    report("hint-unknown-key", "set_info", rc == MPI_SUCCESS && algo == 1 && exchange(c, sb, rb, 8, 5), extra);
    expect_bounce += algo > 0 ? 2 : 0;
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int hooks = rel_hook("csp_test_usage") != NULL;

    hints();
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    int *sreg, *rreg;
    MPI_Alloc_mem(4096 * sizeof(int), info, &sreg);
    MPI_Alloc_mem(4096 * sizeof(int), info, &rreg);
    MPI_Info_free(&info);

    for (int k = 0; k < 4; k++) {
        int rc;
        MPI_Comm c = dup_with("wildcard_used", modes[k], NULL, NULL, &rc);
        const char *m = mode_names[k];
        int algo = rel_comm_algo(c);
        report("setup", m, rc == MPI_SUCCESS && (!hooks || algo > 0), NULL);
        exchange(c, sreg, rreg, 4096, 6); /* warm up: records and cells exist */
        uint32_t c0 = 0, c1 = 0, h0 = 0, h1 = 0;
        uint64_t o0 = 0, o1 = 0, b0 = 0, b1 = 0;
        if (hooks)
            rel_usage(1, &c0, &o0, &b0, &h0);
        errors(c, m);
        if (hooks)
            rel_usage(1, &c1, &o1, &b1, &h1);
        char extra[160];
        snprintf(extra, sizeof extra, "cells=%u,%u ops=%llu,%llu heap=%llu,%llu", c0, c1, (unsigned long long)o0,
                 (unsigned long long)o1, (unsigned long long)b0, (unsigned long long)b1);
        int same = c0 == c1 && o0 == o1 && b0 == b1 && h0 == h1;
        report("no-side-effects", m, same && exchange(c, sreg, rreg, 4096, 7), extra);
        proc_null(c, m, algo > 0);
        {
            /* an empty message of MPI_DATATYPE_NULL, as MPICH accepts */
            MPI_Request zr;
            MPI_Status zs;
            int n = -1, zrc = MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, rank, 5, c, &zr);
            if (zrc == MPI_SUCCESS)
                zrc = MPI_Send(NULL, 0, MPI_DATATYPE_NULL, rank, 5, c);
            if (zrc == MPI_SUCCESS)
                zrc = MPI_Wait(&zr, &zs);
            report("zero-count-null-type", m,
                   zrc == MPI_SUCCESS && MPI_Get_count(&zs, MPI_BYTE, &n) == MPI_SUCCESS && n == 0 &&
                       zs.MPI_SOURCE == rank && zs.MPI_TAG == 5,
                   NULL);
        }
        bounce(c, m, algo > 0);
        MPI_Comm_free(&c);
    }
    MPI_Free_mem(sreg);
    MPI_Free_mem(rreg);

    /* A failed operation must not taint the next use of its cell: after
     * truncated receives (their cells return to the pool first), MPI_Cancel
     * and MPI_Finalize succeed. */
    int rc;
    MPI_Comm c = dup_with("wildcard_used", "none", NULL, NULL, &rc);
    int big[8] = {0}, small[2];
    MPI_Request q[2];
    MPI_Status st;
    MPI_Isend(big, 8, MPI_INT, rank, 40, c, &q[0]);
    MPI_Isend(big, 8, MPI_INT, rank, 40, c, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    MPI_Irecv(small, 2, MPI_INT, rank, 40, c, &q[0]);
    MPI_Irecv(small, 2, MPI_INT, rank, 40, c, &q[1]);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE); /* MPI_ERR_TRUNCATE twice */
    MPI_Irecv(small, 2, MPI_INT, rank, 41, c, &q[0]);
    rc = MPI_Cancel(&q[0]);
    MPI_Wait(&q[0], &st);
    int canc = 0;
    MPI_Test_cancelled(&st, &canc);
    char extra[64];
    snprintf(extra, sizeof extra, "rc=%d cancelled=%d", rc, canc);
    report("cancel-after-error", "none", rc == MPI_SUCCESS && canc, extra);
    MPI_Isend(big, 8, MPI_INT, rank, 42, c, &q[0]);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    MPI_Irecv(small, 2, MPI_INT, rank, 42, c, &q[1]);
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    if (rel_comm_algo(c) > 0)
        expect_bounce += 7; /* stack buffers: 3 sends, 4 receives */
    MPI_Comm_free(&c);
    printf("result rank=%d test=bounce-count ok=1 expect_bounce=%ld\n", rank, expect_bounce);
    fflush(stdout);
    rc = MPI_Finalize();
    printf("result rank=%d test=finalize-after-error ok=%d rc=%d\n", rank, rc == MPI_SUCCESS, rc);
    return bad != 0 || rc != MPI_SUCCESS;
}
