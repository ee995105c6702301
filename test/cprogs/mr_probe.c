/*
 * mr_probe: the probe family on an offloaded communicator (see
 * mr_common.c for the command line and output). Rank 0 probes and
 * receives, every other rank in turn sends when rank 0 says so (on the
 * plain communicator), so rank 0 knows when no message can exist yet.
 *
 * Every check runs for each probe spec the mode allows: st (source, tag),
 * sa (source, MPI_ANY_TAG), as (MPI_ANY_SOURCE, tag), aa (both wildcards);
 * one line per (check, spec) on rank 0, named <check>-<spec>, covering
 * every sender.
 *   iprobe   MPI_Iprobe is false before the message exists, true after
 *            (polled, bounded) with the right source, tag and count, true
 *            again (not consumed); the message is then received with its
 *            data; MPI_Iprobe is false afterwards.
 *   probe    MPI_Probe returns the right status; MPI_Recv from the status's
 *            source and tag gets the message.
 *   mprobe   the sender sends two messages, the same tag, different
 *            counts. MPI_Mprobe matches the first (status right); a later
 *            MPI_Iprobe sees only the second (count); MPI_Mrecv gets the
 *            first (data, status, the handle becomes MPI_MESSAGE_NULL);
 *            MPI_Mprobe + MPI_Mrecv then get the second; MPI_Iprobe is
 *            false.
 *   improbe  MPI_Improbe is false before the messages exist, then matches
 *            the first, then (polled) the second: the first is not seen
 *            again; MPI_Imrecv of both (second first) gets each its data
 *            and status; MPI_Improbe is false afterwards.
 */
#include "mr_common.c"

#define MAXC 32

static const char *spec_name[] = {"st", "sa", "as", "aa"};

static int spec_allowed(int k)
{
    int anysrc = k >= 2, anytag = k % 2;
    return (!anysrc || anysrc_ok) && (!anytag || anytag_ok);
}

static int c1(int s) { return 2 + s; }
static int c2(int s) { return 9 + s; }

/* Probe state across senders: the first failure is kept for the line. */
struct res {
    int ok;
    char bad[200];
};

static void fail(struct res *r, int s, const char *what, const MPI_Status *st)
{
    if (r->ok)
        snprintf(r->bad, sizeof(r->bad), " sender=%d %s got=%d:%d:%d", s, what,
                 st ? st->MPI_SOURCE : -9, st ? st->MPI_TAG : -9, st ? count_of(st) : -9);
    r->ok = 0;
}

/* Poll MPI_Iprobe until true (bounded); returns the flag. */
static int iprobe_until(int src, int tag, MPI_Status *st)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < HANG_S)
        MPI_Iprobe(src, tag, comm, &flag, st);
    return flag;
}

static int improbe_until(int src, int tag, MPI_Message *m, MPI_Status *st)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < HANG_S)
        MPI_Improbe(src, tag, comm, &flag, m, st);
    return flag;
}

/* The receiver's side of one check with sender s. */
static void receive_side(int check_kind, int k, int s, int tag, struct res *r)
{
    int src = k >= 2 ? MPI_ANY_SOURCE : s, tg = k % 2 ? MPI_ANY_TAG : tag;
    int flag = -1, b1[MAXC] = {0}, b2[MAXC] = {0};
    MPI_Status st, st2;
    MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
    switch (check_kind) {
    case 0: /* iprobe */
        MPI_Iprobe(src, tg, comm, &flag, &st);
        if (flag)
            fail(r, s, "iprobe-before", &st);
        signal_to(s, 0);
        if (!iprobe_until(src, tg, &st) || !status_is(&st, s, tag, c1(s)))
            fail(r, s, "iprobe", &st);
        flag = 0;
        MPI_Iprobe(src, tg, comm, &flag, &st);
        if (!flag || !status_is(&st, s, tag, c1(s)))
            fail(r, s, "iprobe-again", &st);
        POST_R(comm);
        MPI_Recv(b1, MAXC, MPI_INT, s, tag, comm, &st);
        if (!status_is(&st, s, tag, c1(s)) || !check(b1, c1(s), s, tag))
            fail(r, s, "recv", &st);
        MPI_Iprobe(src, tg, comm, &flag, &st);
        if (flag)
            fail(r, s, "iprobe-after", &st);
        break;
    case 1: /* probe */
        signal_to(s, 0);
        MPI_Probe(src, tg, comm, &st);
        if (!status_is(&st, s, tag, c1(s)))
            fail(r, s, "probe", &st);
        POST_R(comm);
        MPI_Recv(b1, MAXC, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, comm, &st2);
        if (!status_is(&st2, s, tag, c1(s)) || !check(b1, c1(s), s, tag))
            fail(r, s, "recv", &st2);
        break;
    case 2: /* mprobe */
        signal_to(s, 0);
        MPI_Mprobe(src, tg, comm, &m1, &st);
        if (!status_is(&st, s, tag, c1(s)) || m1 == MPI_MESSAGE_NULL)
            fail(r, s, "mprobe", &st);
        if (!iprobe_until(src, tg, &st) || !status_is(&st, s, tag, c2(s)))
            fail(r, s, "iprobe-sees-second", &st);
        POST_R(comm);
        MPI_Mrecv(b1, MAXC, MPI_INT, &m1, &st);
        if (!status_is(&st, s, tag, c1(s)) || !check(b1, c1(s), s, tag) || m1 != MPI_MESSAGE_NULL)
            fail(r, s, "mrecv", &st);
        MPI_Mprobe(src, tg, comm, &m2, &st);
        if (!status_is(&st, s, tag, c2(s)))
            fail(r, s, "mprobe-second", &st);
        POST_R(comm);
        MPI_Mrecv(b2, MAXC, MPI_INT, &m2, &st);
        if (!status_is(&st, s, tag, c2(s)) || !check(b2, c2(s), s, tag + 1))
            fail(r, s, "mrecv-second", &st);
        MPI_Iprobe(src, tg, comm, &flag, &st);
        if (flag)
            fail(r, s, "iprobe-after", &st);
        break;
    case 3: { /* improbe */
        MPI_Request q[2];
        MPI_Status sts[2];
        MPI_Improbe(src, tg, comm, &flag, &m1, &st);
        if (flag)
            fail(r, s, "improbe-before", &st);
        signal_to(s, 0);
        if (!improbe_until(src, tg, &m1, &st) || !status_is(&st, s, tag, c1(s)))
            fail(r, s, "improbe", &st);
        if (!improbe_until(src, tg, &m2, &st) || !status_is(&st, s, tag, c2(s)))
            fail(r, s, "improbe-second", &st);
        POST_R(comm);
        MPI_Imrecv(b2, MAXC, MPI_INT, &m2, &q[0]);
        POST_R(comm);
        MPI_Imrecv(b1, MAXC, MPI_INT, &m1, &q[1]);
        if (m1 != MPI_MESSAGE_NULL || m2 != MPI_MESSAGE_NULL)
            fail(r, s, "imrecv-handle", NULL);
        MPI_Waitall(2, q, sts);
        if (!status_is(&sts[0], s, tag, c2(s)) || !check(b2, c2(s), s, tag + 1))
            fail(r, s, "imrecv-second", &sts[0]);
        if (!status_is(&sts[1], s, tag, c1(s)) || !check(b1, c1(s), s, tag))
            fail(r, s, "imrecv-first", &sts[1]);
        MPI_Improbe(src, tg, comm, &flag, &m1, &st);
        if (flag)
            fail(r, s, "improbe-after", &st);
        break;
    }
    }
}

static void send_side(int check_kind, int tag)
{
    int b1[MAXC], b2[MAXC];
    MPI_Request q[2];
    fill(b1, c1(rank), rank, tag);
    fill(b2, c2(rank), rank, tag + 1);
    signal_from(0);
    POST_S(comm);
    MPI_Isend(b1, c1(rank), MPI_INT, 0, tag, comm, &q[0]);
    q[1] = MPI_REQUEST_NULL;
    if (check_kind >= 2) {
        POST_S(comm);
        MPI_Isend(b2, c2(rank), MPI_INT, 0, tag, comm, &q[1]);
    }
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
}

static void run_mode(void)
{
    static const char *checks[] = {"iprobe", "probe", "mprobe", "improbe"};
    for (int c = 0; c < 4; c++) {
        if (skipped(checks[c]))
            continue;
        for (int k = 0; k < 4; k++) {
            if (!spec_allowed(k))
                continue;
            int tag = 500 + 10 * c + 2 * k;
            struct res r = {1, ""};
            for (int s = 1; s < size; s++) {
                if (rank == 0)
                    receive_side(c, k, s, tag, &r);
                else if (rank == s)
                    send_side(c, tag);
                MPI_Barrier(plain);
            }
            if (rank == 0) {
                char name[32];
                snprintf(name, sizeof(name), "%s-%s", checks[c], spec_name[k]);
                report(name, r.ok, "senders=%d%s", size - 1, r.bad);
            }
        }
    }
}
