/*
 * mr_persist: persistent requests, synchronous and buffered modes on an
 * offloaded communicator (see mr_common.c for the command line and
 * output). Rank 0 pairs with every other rank p in turn (p sends, rank 0
 * receives) and reports one line per check and peer (peer=<p>); senders
 * pass their own verdicts to rank 0 on the plain communicator.
 *
 * Sections (every mode):
 *   persist  persist: MPI_Send_init, MPI_Ssend_init and MPI_Bsend_init (a
 *            buffer is attached) on the offloaded communicator and on the
 *            plain one, matched by MPI_Recv_init's, started six times
 *            (MPI_Startall and MPI_Start alternately) and completed with
 *            Waitall, Testall, Waitany, Waitsome, Testany, Testsome in
 *            turn (the any and some calls until MPI_UNDEFINED: every
 *            request exactly once per start). Data and statuses right, the
 *            handles unchanged after each completion (inactive, not
 *            freed), MPI_Request_free of the inactive requests gives
 *            MPI_REQUEST_NULL.
 *   issend   synchronous mode keeps its meaning: the sender's request or
 *            call must not complete before rank 0 posts the receive, and
 *            rank 0 posts it only after the sender has looked (50 tests,
 *            1 ms apart) and told it so, on the plain communicator.
 *            issend-small, issend-large (MPI_Issend of 16 B, 1 MiB),
 *            ssend-init (MPI_Ssend_init, started twice), issend-probed
 *            (rank 0 has MPI_Iprobe'd the message first: a probe does not
 *            match it), ssend (blocking MPI_Ssend: the sender's next message
 *            on the plain communicator must not arrive before the receive
 *            is posted; rank 0 tests for it 50 times).
 *   bsend    buffered mode completes locally, whatever the receiver does:
 *            bsend-local (MPI_Bsend of 1 MiB and of 16 B return while rank 0
 *            waits for the sender's signal before receiving),
 *            ibsend-local (MPI_Ibsend of 1 MiB completes under MPI_Test
 *            before rank 0 receives).
 *   bsendinit  the same for persistent buffered sends: bsend-init-local
 *            (MPI_Bsend_init of 1 MiB, started twice: each start completes
 *            under MPI_Test, bounded, before rank 0 receives),
 *            bsend-init-plain (the same on the plain communicator: MPICH's
 *            own behaviour, the control).
 */
#include "mr_common.c"

#define SMALL 4
#define BIG (256 * 1024) /* ints: 1 MiB, beyond any eager limit */
#define LOCAL_S 5.0      /* bound on a completion that must be local */

static int *big;

/* ---- persist ---- */

enum { C_WAITALL, C_TESTALL, C_WAITANY, C_WAITSOME, C_TESTANY, C_TESTSOME };

/* Complete the started requests of q with call `how`; seen[i] counts
 * reports of index i, sts[i] its status. 0 if the call misbehaved. */
static int complete(int how, int n, MPI_Request *q, MPI_Status *sts, int *seen)
{
    int idx[16], cnt, one, flag;
    MPI_Status tmp[16];
    double t0 = MPI_Wtime();
    memset(seen, 0, sizeof(int) * (size_t)n);
    switch (how) {
    case C_WAITALL:
        MPI_Waitall(n, q, sts);
        for (int i = 0; i < n; i++)
            seen[i] = 1;
        return 1;
    case C_TESTALL:
        flag = 0;
        while (!flag && MPI_Wtime() - t0 < HANG_S)
            MPI_Testall(n, q, &flag, sts);
        for (int i = 0; i < n; i++)
            seen[i] = flag;
        return flag;
    }
    for (int rounds = 0; rounds <= n; rounds++) {
        switch (how) {
        case C_WAITANY:
            MPI_Waitany(n, q, &one, &tmp[0]);
            cnt = one == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
            idx[0] = one;
            break;
        case C_TESTANY:
            do
                MPI_Testany(n, q, &one, &flag, &tmp[0]);
            while (!flag && MPI_Wtime() - t0 < HANG_S);
            if (!flag)
                return 0;
            cnt = one == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
            idx[0] = one;
            break;
        case C_WAITSOME:
            MPI_Waitsome(n, q, &cnt, idx, tmp);
            break;
        default: /* C_TESTSOME */
            do
                MPI_Testsome(n, q, &cnt, idx, tmp);
            while (cnt == 0 && MPI_Wtime() - t0 < HANG_S);
            if (cnt == 0)
                return 0;
            break;
        }
        if (cnt == MPI_UNDEFINED)
            return 1;
        for (int j = 0; j < cnt; j++) {
            if (idx[j] < 0 || idx[j] >= n)
                return 0;
            seen[idx[j]]++;
            sts[idx[j]] = tmp[j];
        }
    }
    return 0; /* more rounds than requests */
}

static int ptag(int k) { return 50 + k % 3; }
static int pdata(int k, int it) { return 50 + k % 3 + 100 * (k / 3) + 1000 * it; }

static void persist(int p)
{
    static const char *calls[] = {"waitall", "testall", "waitany",
                                  "waitsome", "testany", "testsome"};
    int buf[6][8];
    MPI_Request q[6], keep[6];
    MPI_Status sts[6];
    int seen[6], ok = 1;
    char bad[160] = "";
    for (int k = 0; k < 6; k++) {
        MPI_Comm c = k < 3 ? comm : plain;
        if (rank == 0)
            MPI_Recv_init(buf[k], 8, MPI_INT, p, ptag(k), c, &q[k]);
        else if (k % 3 == 0)
            MPI_Send_init(buf[k], 8, MPI_INT, 0, ptag(k), c, &q[k]);
        else if (k % 3 == 1)
            MPI_Ssend_init(buf[k], 8, MPI_INT, 0, ptag(k), c, &q[k]);
        else
            MPI_Bsend_init(buf[k], 8, MPI_INT, 0, ptag(k), c, &q[k]);
    }
    memcpy(keep, q, sizeof(q));
    for (int it = 0; it < 6; it++) {
        for (int k = 0; k < 6; k++) {
            if (rank == 0)
                memset(buf[k], 0, sizeof(buf[k]));
            else
                fill(buf[k], 8, p, pdata(k, it));
        }
        for (int k = 0; k < 3; k++) {
            if (rank == 0)
                POST_R(comm);
            else
                POST_S(comm);
        }
        if (it % 2 == 0)
            MPI_Startall(6, q);
        else
            for (int k = 5; k >= 0; k--)
                MPI_Start(&q[k]);
        int good = complete(it, 6, q, sts, seen);
        for (int k = 0; k < 6; k++) {
            if (seen[k] != 1 || q[k] != keep[k])
                good = 0;
            else if (rank == 0 &&
                     (!status_is(&sts[k], p, ptag(k), 8) || !check(buf[k], 8, p, pdata(k, it))))
                good = 0;
        }
        if (!good && ok) {
            ok = 0;
            snprintf(bad, sizeof(bad), " failed_at=%s", calls[it]);
        }
    }
    for (int k = 0; k < 6; k++) {
        MPI_Request_free(&q[k]);
        if (q[k] != MPI_REQUEST_NULL)
            ok = 0;
    }
    if (rank == 0) {
        int send_ok = signal_from(p);
        report("persist", ok && send_ok, "peer=%d send_ok=%d%s", p, send_ok, bad);
    } else {
        signal_to(0, ok);
    }
}

/* ---- issend ---- */

/* The sender's look: 50 tests 1 ms apart. Returns 1 if q stayed
 * incomplete; if it completed, *q is done (inactive or null). */
static int stays_incomplete(MPI_Request *q)
{
    for (int i = 0; i < 50; i++) {
        int flag = 0;
        MPI_Test(q, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return 0;
        sleep_ms(1);
    }
    return 1;
}

/* Receiver: the sender's verdict, then the receive; report. */
static void sync_receive(const char *name, int p, int tag, int *rb, int n, int dtag, int probed)
{
    int incomplete = signal_from(p);
    MPI_Status st;
    POST_R(comm);
    MPI_Recv(rb, n, MPI_INT, p, tag, comm, &st);
    int data = status_is(&st, p, tag, n) && check(rb, n, p, dtag);
    report(name, incomplete && data && probed, "peer=%d stayed_incomplete=%d data=%d%s", p,
           incomplete, data, probed ? "" : " probe_failed=1");
}

static void issend(int p)
{
    int sb[SMALL], rb[SMALL];
    /* issend-small, issend-large */
    for (int large = 0; large < 2; large++) {
        int n = large ? BIG : SMALL, tag = 60 + large;
        int *b = large ? big : (rank == 0 ? rb : sb);
        if (rank == 0) {
            sync_receive(large ? "issend-large" : "issend-small", p, tag, b, n, tag, 1);
        } else {
            MPI_Request q;
            fill(b, n, p, tag);
            POST_S(comm);
            MPI_Issend(b, n, MPI_INT, 0, tag, comm, &q);
            int inc = stays_incomplete(&q);
            signal_to(0, inc);
            if (inc)
                MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
    }
    /* ssend-init: started twice */
    MPI_Request pq = MPI_REQUEST_NULL;
    if (rank != 0)
        MPI_Ssend_init(sb, SMALL, MPI_INT, 0, 62, comm, &pq);
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            sync_receive("ssend-init", p, 62, rb, SMALL, 62 + 100 * round, 1);
        } else {
            fill(sb, SMALL, p, 62 + 100 * round);
            POST_S(comm);
            MPI_Start(&pq);
            int inc = stays_incomplete(&pq);
            signal_to(0, inc);
            MPI_Wait(&pq, MPI_STATUS_IGNORE); /* inactive already: returns at once */
        }
    }
    if (rank != 0)
        MPI_Request_free(&pq);
    /* issend-probed */
    if (rank == 0) {
        MPI_Status st;
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < HANG_S)
            MPI_Iprobe(p, 63, comm, &flag, &st);
        int probed = flag && status_is(&st, p, 63, SMALL);
        signal_to(p, 0);
        sync_receive("issend-probed", p, 63, rb, SMALL, 63, probed);
    } else {
        MPI_Request q;
        fill(sb, SMALL, p, 63);
        POST_S(comm);
        MPI_Issend(sb, SMALL, MPI_INT, 0, 63, comm, &q);
        signal_from(0); /* rank 0 has seen the message with MPI_Iprobe */
        int inc = stays_incomplete(&q);
        signal_to(0, inc);
        if (inc)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    /* ssend: blocking */
    if (rank == 0) {
        int after = -1, flag = 0, early = 0;
        MPI_Request qa;
        MPI_Status st;
        signal_from(p); /* about to MPI_Ssend */
        MPI_Irecv(&after, 1, MPI_INT, p, 1, plain, &qa);
        for (int i = 0; i < 50 && !early; i++) {
            MPI_Test(&qa, &flag, MPI_STATUS_IGNORE);
            early = flag;
            if (!early)
                sleep_ms(1);
        }
        POST_R(comm);
        MPI_Recv(rb, SMALL, MPI_INT, p, 64, comm, &st);
        int data = status_is(&st, p, 64, SMALL) && check(rb, SMALL, p, 64);
        if (!early)
            MPI_Wait(&qa, MPI_STATUS_IGNORE);
        report("ssend", !early && data && after == 7, "peer=%d returned_early=%d data=%d", p, early,
               data);
    } else {
        fill(sb, SMALL, p, 64);
        signal_to(0, 0);
        POST_S(comm);
        MPI_Ssend(sb, SMALL, MPI_INT, 0, 64, comm);
        signal_to(0, 7);
    }
}

/* ---- bsend ---- */

/* Sender: test q until complete (bounded: it must complete locally). */
static int completes_locally(MPI_Request *q)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < LOCAL_S)
        MPI_Test(q, &flag, MPI_STATUS_IGNORE);
    return flag;
}

static void local_receive(const char *name, int p, int tag, int dtag, MPI_Comm c)
{
    int local = signal_from(p);
    MPI_Status st;
    memset(big, 0, sizeof(int) * BIG);
    POST_R(c);
    MPI_Recv(big, BIG, MPI_INT, p, tag, c, &st);
    int data = status_is(&st, p, tag, BIG) && check(big, BIG, p, dtag);
    report(name, local && data, "peer=%d completed_locally=%d data=%d", p, local, data);
}

static void bsend(int p)
{
    int sb[SMALL], rb[SMALL];
    /* bsend-local */
    if (rank == 0) {
        MPI_Status st;
        signal_from(p); /* both MPI_Bsend returned */
        memset(big, 0, sizeof(int) * BIG);
        POST_R(comm);
        MPI_Recv(big, BIG, MPI_INT, p, 70, comm, &st);
        int data = status_is(&st, p, 70, BIG) && check(big, BIG, p, 70);
        POST_R(comm);
        MPI_Recv(rb, SMALL, MPI_INT, p, 71, comm, &st);
        data = data && status_is(&st, p, 71, SMALL) && check(rb, SMALL, p, 71);
        report("bsend-local", data, "peer=%d data=%d", p, data);
    } else {
        fill(big, BIG, p, 70);
        fill(sb, SMALL, p, 71);
        POST_S(comm);
        MPI_Bsend(big, BIG, MPI_INT, 0, 70, comm);
        POST_S(comm);
        MPI_Bsend(sb, SMALL, MPI_INT, 0, 71, comm);
        signal_to(0, 1);
    }
    /* ibsend-local */
    if (rank == 0) {
        local_receive("ibsend-local", p, 72, 72, comm);
    } else {
        MPI_Request q;
        fill(big, BIG, p, 72);
        POST_S(comm);
        MPI_Ibsend(big, BIG, MPI_INT, 0, 72, comm, &q);
        int local = completes_locally(&q);
        signal_to(0, local);
        if (!local)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
}

/* bsend-init-local (offloaded), bsend-init-plain (the control) */
static void bsend_init(int p)
{
    for (int pl = 0; pl < 2; pl++) {
        MPI_Comm c = pl ? plain : comm;
        const char *name = pl ? "bsend-init-plain" : "bsend-init-local";
        MPI_Request q = MPI_REQUEST_NULL;
        if (rank != 0)
            MPI_Bsend_init(big, BIG, MPI_INT, 0, 73, c, &q);
        for (int round = 0; round < 2; round++) {
            int dtag = 73 + 100 * round;
            if (rank == 0) {
                local_receive(name, p, 73, dtag, c);
            } else {
                fill(big, BIG, p, dtag);
                POST_S(c);
                MPI_Start(&q);
                int local = completes_locally(&q);
                signal_to(0, local);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
        if (rank != 0)
            MPI_Request_free(&q);
    }
}

static void run_mode(void)
{
    int bsize = 8 * (BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD) + 64 * (64 + MPI_BSEND_OVERHEAD);
    void *attached = malloc((size_t)bsize);
    MPI_Buffer_attach(attached, bsize);
    big = malloc(sizeof(int) * BIG);
    for (int p = 1; p < size; p++) {
        if (rank == 0 || rank == p) {
            if (!skipped("persist"))
                persist(p);
            if (!skipped("issend"))
                issend(p);
            if (!skipped("bsend"))
                bsend(p);
            if (!skipped("bsendinit"))
                bsend_init(p);
        }
        MPI_Barrier(plain);
    }
    int dsize;
    MPI_Buffer_detach(&attached, &dsize);
    free(attached);
    free(big);
}
