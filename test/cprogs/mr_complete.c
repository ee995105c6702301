/*
 * mr_complete: the completion calls on any mix of offloaded requests (on
 * the hinted communicator), ordinary requests (on an async_config=off
 * communicator), MPI_REQUEST_NULL and inactive persistent requests of both
 * kinds (see mr_common.c for the command line and output). Rank 0 receives
 * and reports unless said otherwise; the others send.
 *
 * Sections (every mode):
 *   family   waitany, waitsome, testany, testsome: rank 0 receives one
 *            message from every other rank on each communicator, its array
 *            holding MPI_REQUEST_NULL and inactive persistent requests
 *            (offloaded and ordinary) too; it completes them with the
 *            call until the call reports MPI_UNDEFINED. Every active index
 *            is reported exactly once, never a null or inactive one, with
 *            the right status and data. The senders complete their two
 *            sends with the same call and report <call>-send.
 *   reqfree  reqfree-send: every other rank MPI_Isend's to rank 0 and frees
 *            the request at once; rank 0's receives get the data.
 *            reqfree-recv: rank 0 posts receives (into malloc'd memory and
 *            into shmbuf_regist memory) and frees them; after the senders'
 *            MPI_Send and a barrier the buffers fill (immediate=1 if they
 *            were full right after the barrier, else rank 0 keeps making
 *            MPI calls until they are, bounded).
 *   cancel   cancel-unmatched: a receive nothing will match (each allowed
 *            wildcard spec), MPI_Cancel, MPI_Wait: MPI_Test_cancelled is
 *            true, the request is MPI_REQUEST_NULL. cancel-matched: a
 *            receive the sender's MPI_Ssend has matched (the sender says so
 *            on the plain communicator), MPI_Cancel, MPI_Wait: not
 *            cancelled, the status and the data are the message's.
 *   status   getstatus: MPI_Request_get_status on an offloaded and an
 *            ordinary receive until true: right status, the request is not
 *            freed (a second call is true again), MPI_Wait then completes
 *            it with the same status. On MPI_REQUEST_NULL: true, empty.
 *   null     null-inactive-all (every rank): arrays of only
 *            MPI_REQUEST_NULL and inactive persistent requests (offloaded
 *            and ordinary, send and receive): Waitany and Testany give
 *            MPI_UNDEFINED (Testany with flag true), Waitsome and Testsome
 *            outcount MPI_UNDEFINED, Waitall and Testall succeed with empty
 *            statuses; MPI_Wait and MPI_Test on an inactive offloaded
 *            request return at once with an empty status.
 *            null-inactive-mixed: Waitall over active offloaded and
 *            ordinary receives, nulls and inactive persistent requests:
 *            right statuses for the active, empty ones for the others.
 *            ours-null-waitall, ours-null-testall: Waitall and Testall
 *            over offloaded receives and MPI_REQUEST_NULL only (nothing for
 *            MPICH): right statuses for the receives, empty ones for the
 *            nulls, every request MPI_REQUEST_NULL after.
 *            statuses-ignore: Waitall, Testall, Waitsome and Testsome with
 *            MPI_STATUSES_IGNORE over such mixed arrays: data right.
 */
#include "mr_common.c"

#define MAXC 32

/* The message of sender s on communicator kind p (0 offloaded, 1 plain)
 * for section tag t: count and tag. */
static int mcount(int s, int p) { return 2 + s + 10 * p; }

/* ---- family ---- */

enum { WAITANY, WAITSOME, TESTANY, TESTSOME };
static const char *family_name[] = {"waitany", "waitsome", "testany", "testsome"};

/* Complete the requests of q (n) with call `how` until it reports
 * MPI_UNDEFINED; record per index how often it was reported in seen[] and
 * its status in sts[]. Returns 0 if the call misbehaved (outcount or
 * index out of range, more rounds than requests, or a hang). */
static int drain(int how, int n, MPI_Request *q, int *seen, MPI_Status *sts)
{
    int *idx = malloc(sizeof(int) * (size_t)n);
    MPI_Status *tmp = malloc(sizeof(MPI_Status) * (size_t)n);
    double t0 = MPI_Wtime();
    int ok = 1, rounds = 0;
    for (;;) {
        if (MPI_Wtime() - t0 > HANG_S || rounds > 4 * n + 1000000) {
            ok = 0;
            break;
        }
        int one, flag = 0, cnt = 0;
        switch (how) {
        case WAITANY:
            rounds++;
            MPI_Waitany(n, q, &one, &tmp[0]);
            if (one == MPI_UNDEFINED)
                goto out;
            idx[0] = one;
            cnt = 1;
            break;
        case TESTANY:
            MPI_Testany(n, q, &one, &flag, &tmp[0]);
            if (!flag)
                continue;
            rounds++;
            if (one == MPI_UNDEFINED)
                goto out;
            idx[0] = one;
            cnt = 1;
            break;
        case WAITSOME:
            rounds++;
            MPI_Waitsome(n, q, &cnt, idx, tmp);
            if (cnt == MPI_UNDEFINED)
                goto out;
            if (cnt < 1 || cnt > n) /* Waitsome returns at least one */
                ok = 0;
            break;
        case TESTSOME:
            MPI_Testsome(n, q, &cnt, idx, tmp);
            if (cnt == MPI_UNDEFINED)
                goto out;
            if (cnt < 0 || cnt > n)
                ok = 0;
            if (cnt == 0)
                continue;
            rounds++;
            break;
        }
        if (!ok)
            break;
        for (int j = 0; j < cnt; j++) {
            if (idx[j] < 0 || idx[j] >= n) {
                ok = 0;
                continue;
            }
            seen[idx[j]]++;
            sts[idx[j]] = tmp[j];
        }
        if (rounds > n + 1) /* each round completes at least one request */
            ok = 0;
    }
out:
    free(idx);
    free(tmp);
    return ok;
}

static void family(int how)
{
    const char *name = family_name[how];
    int tag = 10 + how;
    /* array: [0] null, then per sender s (offloaded, ordinary), then an
     * inactive offloaded persistent receive, a null, an inactive ordinary
     * persistent receive */
    int peers = rank == 0 ? size - 1 : 1;
    int n = 1 + 2 * peers + 3;
    MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)n);
    MPI_Status *sts = calloc((size_t)n, sizeof(MPI_Status));
    int *seen = calloc((size_t)n, sizeof(int));
    int (*buf)[MAXC] = calloc((size_t)n, sizeof(*buf));
    int pbuf[2];
    q[0] = MPI_REQUEST_NULL;
    q[n - 2] = MPI_REQUEST_NULL;
    MPI_Recv_init(&pbuf[0], 1, MPI_INT, rank == 0 ? 1 : 0, 999, comm, &q[n - 3]);
    MPI_Recv_init(&pbuf[1], 1, MPI_INT, rank == 0 ? 1 : 0, 999, plain, &q[n - 1]);
    MPI_Request pers[2] = {q[n - 3], q[n - 1]};
    int ok;
    char bad[200] = "";
    if (rank == 0) {
        for (int s = 1; s < size; s++)
            for (int p = 0; p < 2; p++) {
                MPI_Comm c = p ? plain : comm;
                POST_R(c);
                int i = 1 + 2 * (s - 1) + p;
                MPI_Irecv(buf[i], MAXC, MPI_INT, s, tag, c, &q[i]);
            }
        MPI_Barrier(plain);
        ok = drain(how, n, q, seen, sts);
        for (int i = 0; i < n; i++) {
            int active = i >= 1 && i < 1 + 2 * peers;
            if (!active) {
                if (seen[i])
                    ok = 0, snprintf(bad, sizeof(bad), " null_or_inactive_reported=%d", i);
                continue;
            }
            int s = 1 + (i - 1) / 2, p = (i - 1) % 2;
            if (seen[i] != 1) {
                ok = 0;
                snprintf(bad, sizeof(bad), " index=%d reported=%d", i, seen[i]);
            } else if (!status_is(&sts[i], s, tag, mcount(s, p)) ||
                       !check(buf[i], mcount(s, p), s, tag + 100 * p)) {
                ok = 0;
                snprintf(bad, sizeof(bad), " index=%d got=%d:%d:%d", i, sts[i].MPI_SOURCE,
                         sts[i].MPI_TAG, count_of(&sts[i]));
            }
        }
        report(name, ok, "requests=%d%s", n, bad);
    } else {
        int sb[2][MAXC];
        for (int p = 0; p < 2; p++)
            fill(sb[p], mcount(rank, p), rank, tag + 100 * p);
        MPI_Barrier(plain);
        for (int p = 0; p < 2; p++) {
            MPI_Comm c = p ? plain : comm;
            POST_S(c);
            MPI_Isend(sb[p], mcount(rank, p), MPI_INT, 0, tag, c, &q[1 + p]);
        }
        ok = drain(how, n, q, seen, sts);
        for (int i = 0; i < n; i++)
            if (seen[i] != (i == 1 || i == 2))
                ok = 0, snprintf(bad, sizeof(bad), " index=%d reported=%d", i, seen[i]);
        char name_s[32];
        snprintf(name_s, sizeof(name_s), "%s-send", name);
        report(name_s, ok, "requests=%d%s", n, bad);
    }
    /* the persistent requests are still there, inactive */
    int kept = q[n - 3] == pers[0] && q[n - 1] == pers[1];
    MPI_Request_free(&q[n - 3]);
    MPI_Request_free(&q[n - 1]);
    if (!kept || q[n - 3] != MPI_REQUEST_NULL || q[n - 1] != MPI_REQUEST_NULL)
        report(name, 0, "persistent requests not kept or not freed");
    free(q);
    free(sts);
    free(seen);
    free(buf);
}

/* ---- reqfree ---- */

static void reqfree_send(void)
{
    static int sb[MAXC];
    if (rank == 0) {
        int ok = 1;
        for (int s = 1; s < size; s++) {
            int rb[MAXC] = {0};
            MPI_Status st;
            POST_R(comm);
            MPI_Recv(rb, MAXC, MPI_INT, s, 20, comm, &st);
            if (!status_is(&st, s, 20, mcount(s, 0)) || !check(rb, mcount(s, 0), s, 20))
                ok = 0;
        }
        report("reqfree-send", ok, NULL);
    } else {
        MPI_Request q;
        fill(sb, mcount(rank, 0), rank, 20);
        POST_S(comm);
        MPI_Isend(sb, mcount(rank, 0), MPI_INT, 0, 20, comm, &q);
        MPI_Request_free(&q);
        if (q != MPI_REQUEST_NULL)
            report("reqfree-send", 0, "freed request is not MPI_REQUEST_NULL");
    }
    MPI_Barrier(plain); /* sb stays valid until here (static anyway) */
}

static void reqfree_recv(void)
{
    if (rank == 0) {
        int n = size - 1;
        int *plainbuf = calloc((size_t)n * MAXC, sizeof(int));
        int *regbuf;
        MPI_Info reg;
        MPI_Info_create(&reg);
        MPI_Info_set(reg, "shmbuf_regist", "true");
        MPI_Alloc_mem((MPI_Aint)(n * MAXC * sizeof(int)), reg, &regbuf);
        MPI_Info_free(&reg);
        memset(regbuf, 0, (size_t)n * MAXC * sizeof(int));
        int nullok = 1;
        for (int s = 1; s < size; s++) {
            MPI_Request q;
            POST_R(comm);
            MPI_Irecv(plainbuf + (s - 1) * MAXC, MAXC, MPI_INT, s, 21, comm, &q);
            MPI_Request_free(&q);
            nullok &= q == MPI_REQUEST_NULL;
            POST_R(comm);
            MPI_Irecv(regbuf + (s - 1) * MAXC, MAXC, MPI_INT, s, 22, comm, &q);
            MPI_Request_free(&q);
            nullok &= q == MPI_REQUEST_NULL;
        }
        MPI_Barrier(plain); /* receives posted and freed */
        MPI_Barrier(plain); /* the senders' MPI_Send returned */
        int full = 0, immediate = -1, polls = 0;
        double t0 = MPI_Wtime();
        for (;;) {
            full = 1;
            for (int s = 1; s < size; s++)
                full &= check(plainbuf + (s - 1) * MAXC, mcount(s, 0), s, 21) &&
                        check(regbuf + (s - 1) * MAXC, mcount(s, 0), s, 22);
            if (immediate < 0)
                immediate = full;
            if (full || MPI_Wtime() - t0 > HANG_S)
                break;
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, plain, &flag, MPI_STATUS_IGNORE);
            polls++;
            sleep_ms(1);
        }
        report("reqfree-recv", full && nullok, "immediate=%d polls=%d", immediate, polls);
        MPI_Free_mem(regbuf);
        free(plainbuf);
    } else {
        int sb[MAXC];
        MPI_Barrier(plain);
        fill(sb, mcount(rank, 0), rank, 21);
        POST_S(comm);
        MPI_Send(sb, mcount(rank, 0), MPI_INT, 0, 21, comm);
        fill(sb, mcount(rank, 0), rank, 22);
        POST_S(comm);
        MPI_Send(sb, mcount(rank, 0), MPI_INT, 0, 22, comm);
        MPI_Barrier(plain);
    }
    MPI_Barrier(plain);
}

/* ---- cancel ---- */

static void cancel_unmatched(void)
{
    if (rank != 0)
        return;
    int specs[4][2] = {
        {1, 990}, {1, MPI_ANY_TAG}, {MPI_ANY_SOURCE, 991}, {MPI_ANY_SOURCE, MPI_ANY_TAG}};
    int ok = 1, tried = 0;
    char bad[128] = "";
    for (int k = 0; k < 4; k++) {
        if ((specs[k][0] == MPI_ANY_SOURCE && !anysrc_ok) ||
            (specs[k][1] == MPI_ANY_TAG && !anytag_ok))
            continue;
        int rb[4];
        MPI_Request q;
        MPI_Status st;
        POST_R(comm);
        MPI_Irecv(rb, 4, MPI_INT, specs[k][0], specs[k][1], comm, &q);
        MPI_Cancel(&q);
        MPI_Wait(&q, &st);
        int c = 0;
        MPI_Test_cancelled(&st, &c);
        tried++;
        if (!c || q != MPI_REQUEST_NULL) {
            ok = 0;
            snprintf(bad, sizeof(bad), " spec=%d,%d cancelled=%d", specs[k][0], specs[k][1], c);
        }
    }
    report("cancel-unmatched", ok, "specs=%d%s", tried, bad);
}

static void cancel_matched(void)
{
    int s = size - 1;
    if (rank == 0) {
        int rb[MAXC] = {0};
        MPI_Request q;
        MPI_Status st;
        POST_R(comm);
        MPI_Irecv(rb, MAXC, MPI_INT, s, 31, comm, &q);
        signal_to(s, 0);
        signal_from(s); /* its MPI_Ssend completed: the receive matched */
        MPI_Cancel(&q);
        MPI_Wait(&q, &st);
        int c = 1;
        MPI_Test_cancelled(&st, &c);
        int data = check(rb, mcount(s, 0), s, 31);
        int good = !c && data && status_is(&st, s, 31, mcount(s, 0)) && q == MPI_REQUEST_NULL;
        report("cancel-matched", good, "cancelled=%d data=%d got=%d:%d:%d", c, data, st.MPI_SOURCE,
               st.MPI_TAG, count_of(&st));
    } else if (rank == s) {
        int sb[MAXC];
        fill(sb, mcount(s, 0), s, 31);
        signal_from(0);
        POST_S(comm);
        MPI_Ssend(sb, mcount(s, 0), MPI_INT, 0, 31, comm);
        signal_to(0, 0);
    }
    MPI_Barrier(plain);
}

/* ---- status ---- */

static void getstatus(void)
{
    int s = size - 1;
    if (rank == 0) {
        int rb[2][MAXC] = {{0}};
        MPI_Request q[2];
        int ok = 1;
        char bad[160] = "";
        for (int p = 0; p < 2; p++) {
            MPI_Comm c = p ? plain : comm;
            POST_R(c);
            MPI_Irecv(rb[p], MAXC, MPI_INT, s, 40, c, &q[p]);
        }
        signal_to(s, 0);
        for (int p = 0; p < 2; p++) {
            MPI_Status st, st2, st3;
            int flag = 0, flag2 = 0;
            double t0 = MPI_Wtime();
            while (!flag && MPI_Wtime() - t0 < HANG_S)
                MPI_Request_get_status(q[p], &flag, &st);
            MPI_Request keep = q[p];
            if (flag)
                MPI_Request_get_status(q[p], &flag2, &st2);
            int good = flag && flag2 && q[p] == keep && q[p] != MPI_REQUEST_NULL &&
                       status_is(&st, s, 40, mcount(s, p)) && status_is(&st2, s, 40, mcount(s, p));
            MPI_Wait(&q[p], &st3);
            good = good && q[p] == MPI_REQUEST_NULL && status_is(&st3, s, 40, mcount(s, p)) &&
                   check(rb[p], mcount(s, p), s, 40 + 100 * p);
            if (!good) {
                ok = 0;
                snprintf(bad, sizeof(bad), " %s: flag=%d again=%d got=%d:%d:%d wait=%d:%d:%d",
                         p ? "ordinary" : "offloaded", flag, flag2, st.MPI_SOURCE, st.MPI_TAG,
                         flag ? count_of(&st) : -1, st3.MPI_SOURCE, st3.MPI_TAG, count_of(&st3));
            }
        }
        MPI_Request nq = MPI_REQUEST_NULL;
        MPI_Status ns;
        int nflag = 0;
        MPI_Request_get_status(nq, &nflag, &ns);
        if (!nflag || !status_empty(&ns))
            ok = 0, snprintf(bad, sizeof(bad), " null: flag=%d", nflag);
        report("getstatus", ok, "%s", bad);
    } else if (rank == s) {
        int sb[2][MAXC];
        signal_from(0);
        for (int p = 0; p < 2; p++) {
            MPI_Comm c = p ? plain : comm;
            fill(sb[p], mcount(s, p), s, 40 + 100 * p);
            POST_S(c);
            MPI_Send(sb[p], mcount(s, p), MPI_INT, 0, 40, c);
        }
    }
    MPI_Barrier(plain);
}

/* ---- null and inactive ---- */

/* Inactive persistent requests of both kinds (send and receive), nulls. */
static void inactive_array(MPI_Request *q, int *b, int ordinary)
{
    int peer = rank == 0 ? size - 1 : 0;
    q[0] = q[3] = MPI_REQUEST_NULL;
    MPI_Recv_init(&b[0], 1, MPI_INT, peer, 998, comm, &q[1]);
    MPI_Send_init(&b[1], 1, MPI_INT, peer, 998, comm, &q[2]);
    if (ordinary) {
        MPI_Recv_init(&b[2], 1, MPI_INT, peer, 998, plain, &q[4]);
        MPI_Send_init(&b[3], 1, MPI_INT, peer, 998, plain, &q[5]);
    } else {
        q[4] = q[5] = MPI_REQUEST_NULL;
    }
}

static void free_array(MPI_Request *q, int n)
{
    for (int i = 0; i < n; i++)
        if (q[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&q[i]);
}

#define NI_FAIL(what)                                                                              \
    do {                                                                                           \
        ok = 0;                                                                                    \
        size_t l_ = strlen(bad);                                                                   \
        snprintf(bad + l_, sizeof(bad) - l_, " %s", what);                                       \
    } while (0)

static void null_inactive_all(void)
{
    int b[4];
    MPI_Request q[6], keep[6];
    inactive_array(q, b, 1);
    memcpy(keep, q, sizeof(q));
    int ok = 1, idx = -5, flag = -5, cnt = -5, idxs[6];
    char bad[256] = "";
    MPI_Status st, sts[6];

    MPI_Waitany(6, q, &idx, &st);
    if (idx != MPI_UNDEFINED)
        NI_FAIL("waitany");
    idx = -5;
    MPI_Testany(6, q, &idx, &flag, &st);
    if (!flag || idx != MPI_UNDEFINED)
        NI_FAIL("testany");
    MPI_Waitsome(6, q, &cnt, idxs, sts);
    if (cnt != MPI_UNDEFINED)
        NI_FAIL("waitsome");
    cnt = -5;
    MPI_Testsome(6, q, &cnt, idxs, sts);
    if (cnt != MPI_UNDEFINED)
        NI_FAIL("testsome");
    memset(sts, 0x5a, sizeof(sts));
    if (MPI_Waitall(6, q, sts) != MPI_SUCCESS)
        NI_FAIL("waitall-rc");
    for (int i = 0; i < 6; i++)
        if (!status_empty(&sts[i]))
            NI_FAIL("waitall-status");
    flag = 0;
    memset(sts, 0x5a, sizeof(sts));
    MPI_Testall(6, q, &flag, sts);
    if (!flag)
        NI_FAIL("testall");
    for (int i = 0; i < 6; i++)
        if (!status_empty(&sts[i]))
            NI_FAIL("testall-status");
    /* single-request calls on inactive offloaded requests, and on null */
    memset(&st, 0x5a, sizeof(st));
    MPI_Wait(&q[1], &st);
    if (!status_empty(&st))
        NI_FAIL("wait-inactive");
    flag = 0;
    memset(&st, 0x5a, sizeof(st));
    MPI_Test(&q[2], &flag, &st);
    if (!flag || !status_empty(&st))
        NI_FAIL("test-inactive");
    memset(&st, 0x5a, sizeof(st));
    MPI_Wait(&q[0], &st);
    if (!status_empty(&st))
        NI_FAIL("wait-null");
    if (memcmp(keep, q, sizeof(q)) != 0)
        NI_FAIL("requests-changed");
    free_array(q, 6);
    report("null-inactive-all", ok, "%s", bad);
}

/* any-empty-status: MPI_Waitany and MPI_Testany over only null and
 * inactive requests return an empty status with MPI_UNDEFINED. Arrays:
 * nulls + inactive offloaded requests; and the same + inactive ordinary
 * persistent requests, for MPI_Waitany only (MPICH 4.0.2's own
 * MPI_Testany leaves the status untouched when the array holds an inactive
 * persistent request; its MPI_Waitany gives the empty status). */
static void any_empty_status(void)
{
    int b[4], ok = 1, idx, flag;
    char bad[256] = "";
    MPI_Request q[6];
    MPI_Status st;
    for (int ordinary = 0; ordinary < 2; ordinary++) {
        inactive_array(q, b, ordinary);
        memset(&st, 0x5a, sizeof(st));
        idx = -5;
        MPI_Waitany(6, q, &idx, &st);
        if (idx != MPI_UNDEFINED || !status_empty(&st)) {
            char w[96];
            snprintf(w, sizeof(w), "waitany%s(idx=%d,src=%d,tag=%d)",
                     ordinary ? "-with-ordinary" : "", idx, st.MPI_SOURCE, st.MPI_TAG);
            NI_FAIL(w);
        }
        if (!ordinary) {
            memset(&st, 0x5a, sizeof(st));
            idx = -5;
            flag = 0;
            MPI_Testany(6, q, &idx, &flag, &st);
            if (!flag || idx != MPI_UNDEFINED || !status_empty(&st)) {
                char w[96];
                snprintf(w, sizeof(w), "testany(flag=%d,idx=%d,src=%d,tag=%d)", flag, idx,
                         st.MPI_SOURCE, st.MPI_TAG);
                NI_FAIL(w);
            }
        }
        free_array(q, 6);
    }
    report("any-empty-status", ok, "%s", bad);
}

/* Rank 0's mixed array: [0] null, [1] offloaded Irecv, [2] inactive
 * offloaded persistent, [3] ordinary Irecv, [4] null, [5] inactive
 * ordinary persistent. */
static void mixed_post(MPI_Request *q, int (*rb)[MAXC], int s, int tag, int *pb)
{
    q[0] = q[4] = MPI_REQUEST_NULL;
    POST_R(comm);
    MPI_Irecv(rb[1], MAXC, MPI_INT, s, tag, comm, &q[1]);
    MPI_Recv_init(&pb[0], 1, MPI_INT, s, 997, comm, &q[2]);
    POST_R(plain);
    MPI_Irecv(rb[3], MAXC, MPI_INT, s, tag, plain, &q[3]);
    MPI_Recv_init(&pb[1], 1, MPI_INT, s, 997, plain, &q[5]);
}

static int mixed_check(MPI_Request *q, int (*rb)[MAXC], int s, int tag)
{
    int ok = check(rb[1], mcount(s, 0), s, tag) && check(rb[3], mcount(s, 1), s, tag + 100);
    ok = ok && q[0] == MPI_REQUEST_NULL && q[1] == MPI_REQUEST_NULL && q[3] == MPI_REQUEST_NULL &&
         q[4] == MPI_REQUEST_NULL && q[2] != MPI_REQUEST_NULL && q[5] != MPI_REQUEST_NULL;
    MPI_Request_free(&q[2]);
    MPI_Request_free(&q[5]);
    return ok;
}

static void mixed_send(int s, int tag)
{
    int sb[2][MAXC];
    MPI_Request q[2];
    for (int p = 0; p < 2; p++) {
        MPI_Comm c = p ? plain : comm;
        fill(sb[p], mcount(s, p), s, tag + 100 * p);
        POST_S(c);
        MPI_Isend(sb[p], mcount(s, p), MPI_INT, 0, tag, c, &q[p]);
    }
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
}

static void null_inactive_mixed(void)
{
    int s = size - 1;
    if (rank == 0) {
        int rb[6][MAXC], pb[2];
        MPI_Request q[6];
        MPI_Status sts[6];
        mixed_post(q, rb, s, 50, pb);
        signal_to(s, 0);
        memset(sts, 0x5a, sizeof(sts));
        int rc = MPI_Waitall(6, q, sts);
        int ok = rc == MPI_SUCCESS && status_is(&sts[1], s, 50, mcount(s, 0)) &&
                 status_is(&sts[3], s, 50, mcount(s, 1));
        for (int i = 0; i < 6; i++)
            if (i != 1 && i != 3 && !status_empty(&sts[i]))
                ok = 0;
        ok = mixed_check(q, rb, s, 50) && ok;
        report("null-inactive-mixed", ok, "offloaded=%d:%d:%d ordinary=%d:%d:%d", sts[1].MPI_SOURCE,
               sts[1].MPI_TAG, count_of(&sts[1]), sts[3].MPI_SOURCE, sts[3].MPI_TAG,
               count_of(&sts[3]));
    } else if (rank == s) {
        signal_from(0);
        mixed_send(s, 50);
    }
    MPI_Barrier(plain);
}

static void ours_null(int testall)
{
    int s = size - 1, tag = 70 + testall;
    const char *name = testall ? "ours-null-testall" : "ours-null-waitall";
    if (rank == 0) {
        int rb[2][MAXC];
        MPI_Request q[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Status sts[4];
        for (int k = 0; k < 2; k++) {
            POST_R(comm);
            MPI_Irecv(rb[k], MAXC, MPI_INT, s, tag + 100 * k, comm, &q[1 + 2 * k]);
        }
        signal_to(s, 0);
        memset(sts, 0x5a, sizeof(sts));
        int rc = MPI_SUCCESS, flag = 0;
        if (testall) {
            double t0 = MPI_Wtime();
            while (!flag && rc == MPI_SUCCESS && MPI_Wtime() - t0 < HANG_S)
                rc = MPI_Testall(4, q, &flag, sts);
        } else {
            rc = MPI_Waitall(4, q, sts);
            flag = 1;
        }
        int ok = rc == MPI_SUCCESS && flag && status_is(&sts[1], s, tag, mcount(s, 0)) &&
                 status_is(&sts[3], s, tag + 100, mcount(s, 1)) && status_empty(&sts[0]) &&
                 status_empty(&sts[2]) && check(rb[0], mcount(s, 0), s, tag) &&
                 check(rb[1], mcount(s, 1), s, tag + 100);
        for (int i = 0; i < 4; i++)
            ok = ok && q[i] == MPI_REQUEST_NULL;
        report(name, ok, "rc=%d flag=%d recv=%d:%d:%d,%d:%d:%d null=%d:%d", rc, flag, sts[1].MPI_SOURCE,
               sts[1].MPI_TAG, count_of(&sts[1]), sts[3].MPI_SOURCE, sts[3].MPI_TAG,
               count_of(&sts[3]), sts[0].MPI_SOURCE, sts[0].MPI_TAG);
    } else if (rank == s) {
        int sb[2][MAXC];
        MPI_Request q[2];
        signal_from(0);
        for (int k = 0; k < 2; k++) {
            fill(sb[k], mcount(s, k), s, tag + 100 * k);
            POST_S(comm);
            MPI_Isend(sb[k], mcount(s, k), MPI_INT, 0, tag + 100 * k, comm, &q[k]);
        }
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(plain);
}

static void statuses_ignore(void)
{
    int s = size - 1;
    static const char *calls[] = {"waitall", "testall", "waitsome", "testsome"};
    if (rank == 0) {
        int ok = 1;
        char bad[64] = "";
        for (int k = 0; k < 4; k++) {
            int rb[6][MAXC], pb[2], tag = 60 + k;
            MPI_Request q[6];
            mixed_post(q, rb, s, tag, pb);
            signal_to(s, 0);
            int good = 1, left = 2, flag = 0, cnt, idx[6];
            double t0 = MPI_Wtime();
            switch (k) {
            case 0:
                good = MPI_Waitall(6, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
                break;
            case 1:
                while (!flag && MPI_Wtime() - t0 < HANG_S)
                    MPI_Testall(6, q, &flag, MPI_STATUSES_IGNORE);
                good = flag;
                break;
            case 2:
            case 3:
                while (left > 0 && MPI_Wtime() - t0 < HANG_S) {
                    if (k == 2)
                        MPI_Waitsome(6, q, &cnt, idx, MPI_STATUSES_IGNORE);
                    else
                        MPI_Testsome(6, q, &cnt, idx, MPI_STATUSES_IGNORE);
                    if (cnt == MPI_UNDEFINED)
                        break;
                    for (int j = 0; j < cnt; j++)
                        if (idx[j] != 1 && idx[j] != 3)
                            good = 0;
                    left -= cnt;
                }
                good = good && left == 0;
                break;
            }
            good = mixed_check(q, rb, s, tag) && good;
            if (!good)
                ok = 0, snprintf(bad, sizeof(bad), " failed=%s", calls[k]);
        }
        report("statuses-ignore", ok, "%s", bad);
    } else if (rank == s) {
        for (int k = 0; k < 4; k++) {
            signal_from(0);
            mixed_send(s, 60 + k);
        }
    }
    MPI_Barrier(plain);
}

static void run_mode(void)
{
    if (!skipped("family"))
        for (int how = 0; how < 4; how++) {
            family(how);
            MPI_Barrier(plain);
        }
    if (!skipped("reqfree")) {
        reqfree_send();
        reqfree_recv();
    }
    if (!skipped("cancel")) {
        cancel_unmatched();
        MPI_Barrier(plain);
        cancel_matched();
    }
    if (!skipped("status"))
        getstatus();
    if (!skipped("null")) {
        null_inactive_all();
        MPI_Barrier(plain);
        null_inactive_mixed();
        ours_null(0);
        ours_null(1);
        statuses_ignore();
    }
    if (!skipped("anystatus"))
        any_empty_status();
}
