/*
 * mr_status: the status fields every call we implement returns, one
 * section per rule of docs/status-fields.md (see mr_common.c for the
 * command line and output). TestStatusFields runs it on plain MPICH and
 * under the library in every wildcard_used mode and expects the same
 * lines, but for the rules where MPICH 4.0.2 departs from MPI.
 *
 * Rank 0 checks; the last rank serves it: rank 0 sends it commands on the
 * plain communicator (send n ints with a tag, receive, exchange), and it
 * acknowledges each once its call returned. Every status is primed before
 * the call: source, tag and MPI_ERROR hold KEPT, the rest a byte pattern,
 * so a line says which fields the call wrote. Each line prints the fields
 * its rule defines (error fields and return codes as classes: their codes
 * differ from run to run) and ok=1 if they are what the rule says.
 */
#include "mr_common.c"

#define KEPT 4242 /* a field holding this was not written */
#define ANYV -777 /* a field the rule does not define: not printed */

enum { CMD_SEND, CMD_RECV, CMD_EXCH, CMD_DONE };

static int peer; /* the serving rank */

/* ---- the server (the last rank) ---- */

static void serve(void)
{
    for (;;) {
        int c[3];
        MPI_Recv(c, 3, MPI_INT, 0, 2, plain, MPI_STATUS_IGNORE);
        if (c[0] == CMD_DONE)
            return;
        int b[64], r[64];
        fill(b, c[2], rank, c[1]);
        if (c[0] == CMD_SEND) {
            POST_S(comm);
            MPI_Send(b, c[2], MPI_INT, 0, c[1], comm);
        } else if (c[0] == CMD_RECV) {
            POST_R(comm);
            MPI_Recv(r, 64, MPI_INT, 0, c[1], comm, MPI_STATUS_IGNORE);
        } else {
            POST_S(comm);
            POST_R(comm);
            MPI_Sendrecv(b, c[2], MPI_INT, 0, c[1], r, 64, MPI_INT, 0, c[1], comm, MPI_STATUS_IGNORE);
        }
        signal_to(0, 1);
    }
}

/* Rank 0: have the server do kind with tag and n ints (no wait). */
static void order(int kind, int tag, int n)
{
    int c[3] = {kind, tag, n};
    MPI_Send(c, 3, MPI_INT, peer, 2, plain);
}
static void acked(void) { signal_from(peer); }

/* ---- what a line says ---- */

static void prime(MPI_Status *st, int n)
{
    memset(st, 0x5a, sizeof(*st) * (size_t)n);
    for (int i = 0; i < n; i++)
        st[i].MPI_SOURCE = st[i].MPI_TAG = st[i].MPI_ERROR = KEPT;
}

/* An error code as its class name. */
static const char *cls(int code, char *b)
{
    if (code == KEPT)
        return "kept";
    int c = -1;
    if (MPI_Error_class(code, &c) != MPI_SUCCESS)
        c = -1;
    switch (c) {
    case MPI_SUCCESS:
        return "success";
    case MPI_ERR_TRUNCATE:
        return "truncate";
    case MPI_ERR_IN_STATUS:
        return "in_status";
    case MPI_ERR_PENDING:
        return "pending";
    }
    sprintf(b, "code%d", code);
    return b;
}

static int same_class(int code, int want)
{
    if (code == KEPT || want == KEPT)
        return code == want;
    int c = -1;
    return MPI_Error_class(code, &c) == MPI_SUCCESS && c == want;
}

/* What a status must hold; ANYV: not defined by the rule. err is KEPT or
 * an error class; count and elements are of t. */
struct want {
    int src, tag, err, count, elements, cancelled;
};

static char line[1024];

static void add(const char *fmt, ...)
{
    size_t l = strlen(line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + l, sizeof(line) - l, fmt, ap);
    va_end(ap);
}

static const char *num(int v, char *b)
{
    if (v == KEPT)
        return "kept";
    if (v == MPI_UNDEFINED)
        return "undefined";
    sprintf(b, "%d", v);
    return b;
}

/* Append status st (prefix p) to the line; returns whether it is w. */
static int status_as(const char *p, const MPI_Status *st, MPI_Datatype t, struct want w)
{
    char b[32];
    int ok = 1;
    if (w.src != ANYV) {
        add(" %ssrc=%s", p, num(st->MPI_SOURCE, b));
        ok &= st->MPI_SOURCE == w.src;
    }
    if (w.tag != ANYV) {
        add(" %stag=%s", p, num(st->MPI_TAG, b));
        ok &= st->MPI_TAG == w.tag;
    }
    if (w.err != ANYV) {
        add(" %serr=%s", p, cls(st->MPI_ERROR, b));
        ok &= same_class(st->MPI_ERROR, w.err);
    }
    if (w.count != ANYV) {
        int n = -1;
        MPI_Get_count(st, t, &n);
        add(" %scount=%s", p, num(n, b));
        ok &= n == w.count;
    }
    if (w.elements != ANYV) {
        int n = -1;
        MPI_Get_elements(st, t, &n);
        add(" %selements=%s", p, num(n, b));
        ok &= n == w.elements;
    }
    if (w.cancelled != ANYV) {
        int c = -1;
        MPI_Test_cancelled(st, &c);
        add(" %scancelled=%d", p, c);
        ok &= c == w.cancelled;
    }
    return ok;
}

/* Append a return code (as a class) to the line; returns whether it is
 * of class want. */
static int rc_is(const char *name, int rc, int want)
{
    char b[32];
    add(" %s=%s", name, cls(rc, b));
    return same_class(rc, want);
}

static void emit(const char *test, int ok)
{
    report(test, ok, "%s", line + (line[0] == ' '));
    line[0] = 0;
}

/* A message of n ints from the server with tag, and the empty status. */
static struct want msg(int tag, int n) { return (struct want){peer, tag, KEPT, n, n, 0}; }
static struct want with_tag(struct want w, int tag)
{
    w.tag = tag;
    return w;
}
static const struct want empty = {MPI_ANY_SOURCE, MPI_ANY_TAG, KEPT, 0, 0, 0};
static const struct want procnull = {MPI_PROC_NULL, MPI_ANY_TAG, KEPT, 0, 0, 0};
/* nothing written but (maybe) the cancelled flag: a send's status */
static const struct want untouched = {KEPT, KEPT, KEPT, ANYV, ANYV, ANYV};
static const struct want send_status = {KEPT, KEPT, KEPT, ANYV, ANYV, 0};

static int buf[64];

/* ---- err: single-completion calls never write MPI_ERROR ---- */

static void err_single(void)
{
    MPI_Status st, st2;
    MPI_Request q, qs[2];
    MPI_Message m;
    int ok, flag, idx, tag = 10;

    order(CMD_SEND, tag, 5);
    prime(&st, 1);
    POST_R(comm);
    ok = rc_is("rc", MPI_Recv(buf, 64, MPI_INT, peer, tag, comm, &st), MPI_SUCCESS);
    acked();
    emit("err-recv", status_as("", &st, MPI_INT, msg(tag, 5)) && ok);

    order(CMD_SEND, ++tag, 6);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 64, MPI_INT, peer, tag, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    emit("err-wait", status_as("", &st, MPI_INT, msg(tag, 6)) && ok);

    order(CMD_SEND, ++tag, 7);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 64, MPI_INT, peer, tag, comm, &q);
    flag = 0;
    int rc = MPI_SUCCESS;
    for (double t0 = MPI_Wtime(); !flag && rc == MPI_SUCCESS && MPI_Wtime() - t0 < HANG_S;)
        rc = MPI_Test(&q, &flag, &st);
    acked();
    ok = rc_is("rc", rc, MPI_SUCCESS) && flag;
    emit("err-test", status_as("", &st, MPI_INT, msg(tag, 7)) && ok);

    order(CMD_SEND, ++tag, 8);
    prime(&st, 1);
    POST_R(comm);
    qs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 64, MPI_INT, peer, tag, comm, &qs[1]);
    ok = rc_is("rc", MPI_Waitany(2, qs, &idx, &st), MPI_SUCCESS) && idx == 1;
    acked();
    emit("err-waitany", status_as("", &st, MPI_INT, msg(tag, 8)) && ok);

    order(CMD_SEND, ++tag, 9);
    prime(&st, 1);
    POST_R(comm);
    qs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 64, MPI_INT, peer, tag, comm, &qs[1]);
    flag = 0;
    rc = MPI_SUCCESS;
    for (double t0 = MPI_Wtime(); !flag && rc == MPI_SUCCESS && MPI_Wtime() - t0 < HANG_S;)
        rc = MPI_Testany(2, qs, &idx, &flag, &st);
    acked();
    ok = rc_is("rc", rc, MPI_SUCCESS) && flag && idx == 1;
    emit("err-testany", status_as("", &st, MPI_INT, msg(tag, 9)) && ok);

    /* MPI_Request_get_status: true, the request not freed, twice; then
     * MPI_Wait gives the same status */
    order(CMD_SEND, ++tag, 10);
    prime(&st, 1);
    prime(&st2, 1);
    POST_R(comm);
    MPI_Irecv(buf, 64, MPI_INT, peer, tag, comm, &q);
    flag = 0;
    for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < HANG_S;)
        MPI_Request_get_status(q, &flag, &st);
    int again = 0;
    MPI_Request_get_status(q, &again, &st2);
    ok = flag && again && q != MPI_REQUEST_NULL;
    ok &= status_as("", &st, MPI_INT, msg(tag, 10));
    ok &= status_as("again_", &st2, MPI_INT, msg(tag, 10));
    prime(&st, 1);
    MPI_Wait(&q, &st);
    acked();
    emit("err-getstatus", status_as("wait_", &st, MPI_INT, msg(tag, 10)) && ok);

    order(CMD_SEND, ++tag, 11);
    acked();
    prime(&st, 1);
    ok = rc_is("rc", MPI_Probe(peer, tag, comm, &st), MPI_SUCCESS);
    ok &= status_as("", &st, MPI_INT, msg(tag, 11));
    POST_R(comm);
    MPI_Recv(buf, 64, MPI_INT, peer, tag, comm, MPI_STATUS_IGNORE);
    emit("err-probe", ok);

    order(CMD_SEND, ++tag, 12);
    acked();
    prime(&st, 1);
    flag = 0;
    for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < HANG_S;)
        MPI_Iprobe(peer, tag, comm, &flag, &st);
    ok = flag && status_as("", &st, MPI_INT, msg(tag, 12));
    POST_R(comm);
    MPI_Recv(buf, 64, MPI_INT, peer, tag, comm, MPI_STATUS_IGNORE);
    emit("err-iprobe", ok);

    order(CMD_SEND, ++tag, 13);
    acked();
    prime(&st, 1);
    prime(&st2, 1);
    ok = rc_is("rc", MPI_Mprobe(peer, tag, comm, &m, &st), MPI_SUCCESS);
    ok &= status_as("", &st, MPI_INT, msg(tag, 13));
    POST_R(comm);
    ok &= rc_is("mrecv_rc", MPI_Mrecv(buf, 64, MPI_INT, &m, &st2), MPI_SUCCESS);
    emit("err-mprobe-mrecv", status_as("mrecv_", &st2, MPI_INT, msg(tag, 13)) && ok);

    order(CMD_SEND, ++tag, 14);
    acked();
    prime(&st, 1);
    prime(&st2, 1);
    flag = 0;
    for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < HANG_S;)
        MPI_Improbe(peer, tag, comm, &flag, &m, &st);
    ok = flag && status_as("", &st, MPI_INT, msg(tag, 14));
    POST_R(comm);
    MPI_Imrecv(buf, 64, MPI_INT, &m, &q);
    ok &= rc_is("wait_rc", MPI_Wait(&q, &st2), MPI_SUCCESS);
    emit("err-improbe-imrecv", status_as("imrecv_", &st2, MPI_INT, msg(tag, 14)) && ok);

    order(CMD_EXCH, ++tag, 15);
    prime(&st, 1);
    POST_S(comm);
    POST_R(comm);
    fill(buf, 3, rank, tag);
    ok = rc_is("rc", MPI_Sendrecv(buf, 3, MPI_INT, peer, tag, buf + 8, 56, MPI_INT, peer, tag, comm, &st),
               MPI_SUCCESS);
    acked();
    emit("err-sendrecv", status_as("", &st, MPI_INT, msg(tag, 15)) && ok);

    order(CMD_EXCH, ++tag, 16);
    prime(&st, 1);
    POST_S(comm);
    POST_R(comm);
    MPI_Isendrecv(buf, 3, MPI_INT, peer, tag, buf + 8, 56, MPI_INT, peer, tag, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    emit("err-isendrecv", status_as("", &st, MPI_INT, msg(tag, 16)) && ok);

    order(CMD_SEND, ++tag, 17);
    prime(&st, 1);
    MPI_Recv_init(buf, 64, MPI_INT, peer, tag, comm, &q);
    POST_R(comm);
    MPI_Start(&q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    MPI_Request_free(&q);
    emit("err-persist", status_as("", &st, MPI_INT, msg(tag, 17)) && ok);
}

/* ---- multi: calls returning several statuses write MPI_ERROR only with
 * MPI_ERR_IN_STATUS ---- */

/* Post receives of the server's messages tag, tag+1 (n ints) into
 * qs[0], qs[1] (the second into 2 ints if trunc); qs[2] null. */
static void post_two(MPI_Request *qs, int tag, int n, int trunc)
{
    order(CMD_SEND, tag, n);
    order(CMD_SEND, tag + 1, n);
    POST_R(comm);
    POST_R(comm);
    MPI_Irecv(buf, 32, MPI_INT, peer, tag, comm, &qs[0]);
    MPI_Irecv(buf + 32, trunc ? 2 : 32, MPI_INT, peer, tag + 1, comm, &qs[1]);
    qs[2] = MPI_REQUEST_NULL;
}

enum { WAITALL, TESTALL, WAITSOME, TESTSOME };
static const char *multi_name[] = {"waitall", "testall", "waitsome", "testsome"};

/* Complete qs[0..n) with call how until every request is null;
 * statuses by index in sts. Returns the first code other than
 * MPI_SUCCESS, else MPI_SUCCESS. */
static int complete_all(int how, int n, MPI_Request *qs, MPI_Status *sts, int ignore)
{
    int rc = MPI_SUCCESS, first = MPI_SUCCESS;
    MPI_Status tmp[4];
    int idx[4], cnt, flag;
    double t0 = MPI_Wtime();
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++)
            left += qs[i] != MPI_REQUEST_NULL;
        if (!left || MPI_Wtime() - t0 > HANG_S)
            return first;
        prime(tmp, 4);
        switch (how) {
        case WAITALL:
            return MPI_Waitall(n, qs, ignore ? MPI_STATUSES_IGNORE : sts);
        case TESTALL:
            flag = 0;
            rc = MPI_Testall(n, qs, &flag, ignore ? MPI_STATUSES_IGNORE : sts);
            if (flag || rc != MPI_SUCCESS)
                return rc;
            continue;
        case WAITSOME:
            rc = MPI_Waitsome(n, qs, &cnt, idx, ignore ? MPI_STATUSES_IGNORE : tmp);
            break;
        default:
            rc = MPI_Testsome(n, qs, &cnt, idx, ignore ? MPI_STATUSES_IGNORE : tmp);
            break;
        }
        if (first == MPI_SUCCESS)
            first = rc;
        if (cnt == MPI_UNDEFINED)
            return first;
        for (int j = 0; j < cnt && !ignore; j++)
            sts[idx[j]] = tmp[j];
    }
}

static void multi(void)
{
    for (int how = 0; how < 4; how++) {
        MPI_Request qs[3];
        MPI_Status sts[3];
        char name[64];
        int tag = 40 + 10 * how;

        /* success: no field written (MPICH 4.0.2's MPI_Waitall departs) */
        if (how == WAITALL || how == TESTALL) {
            prime(sts, 3);
            post_two(qs, tag, 4, 0);
            acked(), acked();
            int ok = rc_is("rc", complete_all(how, 3, qs, sts, 0), MPI_SUCCESS);
            ok &= status_as("0_", &sts[0], MPI_INT, msg(tag, 4));
            ok &= status_as("1_", &sts[1], MPI_INT, msg(tag + 1, 4));
            ok &= status_as("2_", &sts[2], MPI_INT, empty);
            snprintf(name, sizeof(name), "ok-%s", multi_name[how]);
            emit(name, ok);
        } else { /* the some calls: one request at a time */
            prime(sts, 3);
            order(CMD_SEND, tag, 4);
            acked();
            qs[0] = qs[2] = MPI_REQUEST_NULL;
            POST_R(comm);
            MPI_Irecv(buf, 32, MPI_INT, peer, tag, comm, &qs[1]);
            int ok = rc_is("rc", complete_all(how, 3, qs, sts, 0), MPI_SUCCESS);
            ok &= status_as("1_", &sts[1], MPI_INT, msg(tag, 4));
            snprintf(name, sizeof(name), "ok-%s", multi_name[how]);
            emit(name, ok);
        }

        /* a truncated receive: MPI_ERR_IN_STATUS and every MPI_ERROR
         * written, the null request's too. The failing request after the
         * good one, so that MPICH completes that first (after a failure it
         * reports later requests MPI_ERR_PENDING, and leaves the error
         * field of null requests before it). The count of a truncated
         * receive is not defined (MPICH's varies). */
        prime(sts, 3);
        if (how == WAITALL || how == TESTALL) {
            post_two(qs, tag + 2, 5, 1);
            acked(), acked();
        } else {
            order(CMD_SEND, tag + 3, 5);
            acked();
            qs[0] = qs[1] = MPI_REQUEST_NULL;
            POST_R(comm);
            MPI_Irecv(buf, 2, MPI_INT, peer, tag + 3, comm, &qs[2]);
        }
        int ok = rc_is("rc", complete_all(how, 3, qs, sts, 0), MPI_ERR_IN_STATUS);
        struct want failed = {peer, tag + 3, MPI_ERR_TRUNCATE, ANYV, ANYV, 0};
        if (how == WAITALL || how == TESTALL) {
            ok &= status_as("0_", &sts[0], MPI_INT, (struct want){peer, tag + 2, MPI_SUCCESS, 5, 5, 0});
            ok &= status_as("1_", &sts[1], MPI_INT, failed);
            ok &= status_as("2_", &sts[2], MPI_INT,
                            (struct want){MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0, 0, 0});
        } else {
            ok &= status_as("2_", &sts[2], MPI_INT, failed);
        }
        snprintf(name, sizeof(name), "in-status-%s", multi_name[how]);
        emit(name, ok);

        /* the same with MPI_STATUSES_IGNORE: MPI_ERR_IN_STATUS all the same */
        order(CMD_SEND, tag + 4, 5);
        acked();
        qs[0] = qs[1] = MPI_REQUEST_NULL;
        POST_R(comm);
        MPI_Irecv(buf, 2, MPI_INT, peer, tag + 4, comm, &qs[2]);
        ok = rc_is("rc", complete_all(how, 3, qs, sts, 1), MPI_ERR_IN_STATUS);
        snprintf(name, sizeof(name), "in-status-ignore-%s", multi_name[how]);
        emit(name, ok);
    }

    /* single-completion calls on a truncated receive return the error and
     * leave MPI_ERROR; the status names the message */
    const struct want trunc = {peer, ANYV, KEPT, ANYV, ANYV, 0};
    MPI_Status st;
    MPI_Request q, qs[2];
    int idx, flag, rc;
    order(CMD_SEND, 90, 5);
    prime(&st, 1);
    POST_R(comm);
    int ok = rc_is("rc", MPI_Recv(buf, 2, MPI_INT, peer, 90, comm, &st), MPI_ERR_TRUNCATE);
    acked();
    emit("truncate-recv", status_as("", &st, MPI_INT, with_tag(trunc, 90)) && ok);

    order(CMD_SEND, 91, 5);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 2, MPI_INT, peer, 91, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_ERR_TRUNCATE) && q == MPI_REQUEST_NULL;
    acked();
    emit("truncate-wait", status_as("", &st, MPI_INT, with_tag(trunc, 91)) && ok);

    order(CMD_SEND, 92, 5);
    prime(&st, 1);
    POST_R(comm);
    qs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 2, MPI_INT, peer, 92, comm, &qs[1]);
    ok = rc_is("rc", MPI_Waitany(2, qs, &idx, &st), MPI_ERR_TRUNCATE) && idx == 1;
    acked();
    emit("truncate-waitany", status_as("", &st, MPI_INT, with_tag(trunc, 92)) && ok);

    /* MPI_Request_get_status of it returns the error too, and leaves
     * the request to MPI_Wait, which returns it again */
    order(CMD_SEND, 94, 5);
    prime(&st, 1);
    MPI_Status st2;
    prime(&st2, 1);
    POST_R(comm);
    MPI_Irecv(buf, 2, MPI_INT, peer, 94, comm, &q);
    flag = 0;
    rc = MPI_SUCCESS;
    for (double t0 = MPI_Wtime(); !flag && rc == MPI_SUCCESS && MPI_Wtime() - t0 < HANG_S;)
        rc = MPI_Request_get_status(q, &flag, &st);
    ok = rc_is("rc", rc, MPI_ERR_TRUNCATE) && flag && q != MPI_REQUEST_NULL;
    ok &= status_as("", &st, MPI_INT, with_tag(trunc, 94));
    ok &= rc_is("wait_rc", MPI_Wait(&q, &st2), MPI_ERR_TRUNCATE) && q == MPI_REQUEST_NULL;
    acked();
    emit("truncate-getstatus", status_as("wait_", &st2, MPI_INT, with_tag(trunc, 94)) && ok);

    order(CMD_SEND, 93, 5);
    prime(&st, 1);
    POST_R(comm);
    qs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(buf, 2, MPI_INT, peer, 93, comm, &qs[1]);
    flag = 0;
    rc = MPI_SUCCESS;
    for (double t0 = MPI_Wtime(); !flag && rc == MPI_SUCCESS && MPI_Wtime() - t0 < HANG_S;)
        rc = MPI_Testany(2, qs, &idx, &flag, &st);
    ok = rc_is("rc", rc, MPI_ERR_TRUNCATE) && flag && idx == 1;
    acked();
    emit("truncate-testany", status_as("", &st, MPI_INT, with_tag(trunc, 93)) && ok);
}

/* ---- empty: null and inactive requests ---- */

static void empty_status(void)
{
    MPI_Status st, sts[2];
    MPI_Request q = MPI_REQUEST_NULL, qs[2], pr;
    int flag, idx, cnt, ids[2];

    prime(&st, 1);
    int ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    emit("empty-wait-null", status_as("", &st, MPI_INT, empty) && ok);
    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Test(&q, &flag, &st), MPI_SUCCESS) && flag;
    emit("empty-test-null", status_as("", &st, MPI_INT, empty) && ok);
    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Request_get_status(q, &flag, &st), MPI_SUCCESS) && flag;
    /* the empty status as MPI defines it, MPI_ERROR included: MPICH's,
     * which the library leaves this to */
    struct want empty_err = empty;
    empty_err.err = MPI_SUCCESS;
    emit("empty-getstatus-null", status_as("", &st, MPI_INT, empty_err) && ok);

    /* inactive persistent requests of the offloaded communicator */
    MPI_Recv_init(buf, 64, MPI_INT, peer, 99, comm, &pr);
    prime(&st, 1);
    ok = rc_is("rc", MPI_Wait(&pr, &st), MPI_SUCCESS) && pr != MPI_REQUEST_NULL;
    emit("empty-wait-inactive", status_as("", &st, MPI_INT, empty) && ok);
    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Test(&pr, &flag, &st), MPI_SUCCESS) && flag;
    emit("empty-test-inactive", status_as("", &st, MPI_INT, empty) && ok);
    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Request_get_status(pr, &flag, &st), MPI_SUCCESS) && flag;
    emit("empty-getstatus-inactive", status_as("", &st, MPI_INT, empty) && ok);

    qs[0] = MPI_REQUEST_NULL;
    qs[1] = pr;
    prime(&st, 1);
    ok = rc_is("rc", MPI_Waitany(2, qs, &idx, &st), MPI_SUCCESS) && idx == MPI_UNDEFINED;
    emit("empty-waitany", status_as("", &st, MPI_INT, empty) && ok);
    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Testany(2, qs, &idx, &flag, &st), MPI_SUCCESS) && flag && idx == MPI_UNDEFINED;
    emit("empty-testany", status_as("", &st, MPI_INT, empty) && ok);

    /* the calls returning several statuses: empty statuses, MPI_ERROR not
     * written (MPICH 4.0.2's MPI_Waitall writes it for the inactive one) */
    prime(sts, 2);
    ok = rc_is("rc", MPI_Waitall(2, qs, sts), MPI_SUCCESS);
    emit("empty-waitall-null", status_as("0_", &sts[0], MPI_INT, empty) && ok);
    emit("empty-waitall-inactive", status_as("1_", &sts[1], MPI_INT, empty));
    prime(sts, 2);
    flag = 0;
    ok = rc_is("rc", MPI_Testall(2, qs, &flag, sts), MPI_SUCCESS) && flag;
    ok &= status_as("0_", &sts[0], MPI_INT, empty);
    emit("empty-testall", status_as("1_", &sts[1], MPI_INT, empty) && ok);
    prime(sts, 2);
    ok = rc_is("rc", MPI_Waitsome(2, qs, &cnt, ids, sts), MPI_SUCCESS) && cnt == MPI_UNDEFINED;
    emit("empty-waitsome", status_as("0_", &sts[0], MPI_INT, untouched) && ok);
    prime(sts, 2);
    ok = rc_is("rc", MPI_Testsome(2, qs, &cnt, ids, sts), MPI_SUCCESS) && cnt == MPI_UNDEFINED;
    emit("empty-testsome", status_as("0_", &sts[0], MPI_INT, untouched) && ok);
    MPI_Request_free(&pr);
}

/* ---- procnull: MPI_PROC_NULL receives and probes ---- */

static void procnull_rows(void)
{
    MPI_Status st;
    MPI_Request q;
    MPI_Message m;
    int flag, ok;

    prime(&st, 1);
    ok = rc_is("rc", MPI_Recv(buf, 64, MPI_INT, MPI_PROC_NULL, 5, comm, &st), MPI_SUCCESS);
    emit("procnull-recv", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    MPI_Irecv(buf, 64, MPI_INT, MPI_PROC_NULL, 5, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    emit("procnull-irecv", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    MPI_Recv_init(buf, 64, MPI_INT, MPI_PROC_NULL, 5, comm, &q);
    MPI_Start(&q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    MPI_Request_free(&q);
    emit("procnull-persist", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    ok = rc_is("rc", MPI_Sendrecv(buf, 2, MPI_INT, MPI_PROC_NULL, 5, buf + 8, 8, MPI_INT, MPI_PROC_NULL,
                                  5, comm, &st),
               MPI_SUCCESS);
    emit("procnull-sendrecv", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    ok = rc_is("rc", MPI_Probe(MPI_PROC_NULL, 5, comm, &st), MPI_SUCCESS);
    emit("procnull-probe", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Iprobe(MPI_PROC_NULL, 5, comm, &flag, &st), MPI_SUCCESS) && flag;
    emit("procnull-iprobe", status_as("", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    ok = rc_is("rc", MPI_Mprobe(MPI_PROC_NULL, 5, comm, &m, &st), MPI_SUCCESS) && m == MPI_MESSAGE_NO_PROC;
    ok &= status_as("", &st, MPI_INT, procnull);
    prime(&st, 1);
    ok &= rc_is("mrecv_rc", MPI_Mrecv(buf, 64, MPI_INT, &m, &st), MPI_SUCCESS) && m == MPI_MESSAGE_NULL;
    emit("procnull-mprobe-mrecv", status_as("mrecv_", &st, MPI_INT, procnull) && ok);

    prime(&st, 1);
    flag = 0;
    ok = rc_is("rc", MPI_Improbe(MPI_PROC_NULL, 5, comm, &flag, &m, &st), MPI_SUCCESS) && flag &&
         m == MPI_MESSAGE_NO_PROC;
    ok &= status_as("", &st, MPI_INT, procnull);
    prime(&st, 1);
    MPI_Imrecv(buf, 64, MPI_INT, &m, &q);
    ok &= rc_is("wait_rc", MPI_Wait(&q, &st), MPI_SUCCESS) && m == MPI_MESSAGE_NULL;
    emit("procnull-improbe-imrecv", status_as("imrecv_", &st, MPI_INT, procnull) && ok);
}

/* ---- count: MPI_Get_count, MPI_Get_elements, MPI_Test_cancelled ---- */

static void counts(void)
{
    MPI_Status st;
    MPI_Request q;
    int ok;

    /* a derived type: whole elements, then a message ending inside one */
    MPI_Datatype vec;
    MPI_Type_vector(2, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    order(CMD_SEND, 100, 8);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 4, vec, peer, 100, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    ok &= status_as("", &st, vec, (struct want){peer, 100, KEPT, 2, 8, 0});
    emit("count-derived", status_as("int_", &st, MPI_INT, (struct want){ANYV, ANYV, ANYV, 8, 8, ANYV}) && ok);

    order(CMD_SEND, 101, 5);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 4, vec, peer, 101, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    ok &= status_as("", &st, vec, (struct want){peer, 101, KEPT, MPI_UNDEFINED, 5, 0});
    struct want bytes = {ANYV, ANYV, ANYV, 20, 20, ANYV};
    emit("count-partial", status_as("byte_", &st, MPI_BYTE, bytes) && ok);
    MPI_Type_free(&vec);

    order(CMD_SEND, 102, 0);
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 4, MPI_INT, peer, 102, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    emit("count-zero", status_as("", &st, MPI_INT, msg(102, 0)) && ok);

    /* a send's status: only the cancelled flag is defined (MPICH writes
     * nothing else) */
    order(CMD_RECV, 103, 0);
    prime(&st, 1);
    POST_S(comm);
    MPI_Isend(buf, 3, MPI_INT, peer, 103, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    acked();
    emit("count-send", status_as("", &st, MPI_INT, send_status) && ok);

    prime(&st, 1);
    MPI_Isend(buf, 3, MPI_INT, MPI_PROC_NULL, 103, comm, &q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS);
    emit("count-send-procnull", status_as("", &st, MPI_INT, send_status) && ok);

    /* a cancelled receive: cancelled, MPI_ERROR not written (the other
     * fields are not defined) */
    prime(&st, 1);
    POST_R(comm);
    MPI_Irecv(buf, 4, MPI_INT, peer, 104, comm, &q);
    MPI_Cancel(&q);
    ok = rc_is("rc", MPI_Wait(&q, &st), MPI_SUCCESS) && q == MPI_REQUEST_NULL;
    emit("cancelled-recv", status_as("", &st, MPI_INT, (struct want){ANYV, ANYV, KEPT, ANYV, ANYV, 1}) && ok);
}

static void run_mode(void)
{
    peer = size - 1;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == peer) {
        serve();
    } else if (rank == 0) {
        if (!skipped("err"))
            err_single();
        if (!skipped("multi"))
            multi();
        if (!skipped("empty"))
            empty_status();
        if (!skipped("procnull"))
            procnull_rows();
        if (!skipped("count"))
            counts();
        order(CMD_DONE, 0, 0);
    }
}
