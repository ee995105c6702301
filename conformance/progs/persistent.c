/*
 * persistent: persistent requests. MPI_Send_init, MPI_Ssend_init,
 * MPI_Bsend_init and MPI_Rsend_init against MPI_Recv_init, each started
 * 10 times with new data (the buffer's content at MPI_Start is what
 * travels), alone with MPI_Start and together with MPI_Startall; a
 * started MPI_Ssend_init is not complete before its receive is posted;
 * MPI_Wait, MPI_Test and MPI_Request_get_status on an inactive request
 * return at once with an empty status; MPI_Waitall/MPI_Testall over
 * inactive requests; MPI_Request_free of an inactive request, and of an
 * active send (the message is still delivered).
 *
 * Checklist (MPICH test/mpi/pt2pt): pssend, inactivereq, sendrecv
 * persistent cases, rqfree.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_READY 900
#define N 2000

enum { SEND, SSEND, BSEND, RSEND, NM };
static const char *mname[NM] = {"MPI_Send_init", "MPI_Ssend_init", "MPI_Bsend_init",
                                "MPI_Rsend_init"};

static void init_send(int m, int *b, int dest, int tag, MPI_Request *r)
{
    switch (m) {
    case SEND: MPI_Send_init(b, N, MPI_INT, dest, tag, MPI_COMM_WORLD, r); break;
    case SSEND: MPI_Ssend_init(b, N, MPI_INT, dest, tag, MPI_COMM_WORLD, r); break;
    case BSEND: MPI_Bsend_init(b, N, MPI_INT, dest, tag, MPI_COMM_WORLD, r); break;
    default: MPI_Rsend_init(b, N, MPI_INT, dest, tag, MPI_COMM_WORLD, r); break;
    }
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "persistent", 2);
    int me = conf_rank;
    int *sb = malloc(sizeof(int) * N), *rb = malloc(sizeof(int) * N);
    int bsize = 4 * (N * 4 + MPI_BSEND_OVERHEAD);
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    MPI_Status st;

    /* Each mode, 10 starts; the receiver starts its receive, then tells
     * the sender (ready mode's precondition). Odd modes use MPI_Startall on
     * the sender's side with an inactive request beside. */
    for (int m = 0; m < NM; m++) {
        int tag = 10 + m;
        MPI_Request r;
        if (me == 0) {
            MPI_Request pair[2];
            init_send(m, sb, 1, tag, &r);
            MPI_Recv_init(rb, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &pair[1]); /* never started */
            for (int it = 0; it < 10; it++) {
                conf_fill(sb, N, 1000 * m + it);
                MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (m % 2) {
                    pair[0] = r;
                    CHECK_RC(MPI_Startall(1, pair), "MPI_Startall");
                    CHECK_RC(MPI_Waitall(2, pair, MPI_STATUSES_IGNORE),
                             "MPI_Waitall with an inactive request");
                    r = pair[0];
                } else {
                    CHECK_RC(MPI_Start(&r), "MPI_Start");
                    CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
                }
                CHECK(r != MPI_REQUEST_NULL, "%s: completing freed the request", mname[m]);
            }
            MPI_Request_free(&r);
            MPI_Request_free(&pair[1]);
            CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
        } else if (me == 1) {
            MPI_Recv_init(rb, N, MPI_INT, 0, tag, MPI_COMM_WORLD, &r);
            for (int it = 0; it < 10; it++) {
                char what[64];
                snprintf(what, sizeof(what), "%s, start %d", mname[m], it);
                memset(rb, 0, sizeof(int) * N);
                CHECK_RC(MPI_Start(&r), "MPI_Start");
                MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
                CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
                if (conf_check_status(&st, 0, tag, MPI_INT, N, what))
                    conf_check_data(rb, N, 1000 * m + it, what);
            }
            MPI_Request_free(&r);
        }
    }

    /* A started MPI_Ssend_init is not complete while no receive matches. */
    if (me == 0) {
        MPI_Request r;
        int flag = 0;
        MPI_Ssend_init(sb, N, MPI_INT, 1, 20, MPI_COMM_WORLD, &r);
        for (int it = 0; it < 3; it++) {
            conf_fill(sb, N, 2000 + it);
            MPI_Start(&r);
            for (int i = 0; i < 10 && !flag; i++) {
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
                conf_sleep_ms(2);
            }
            CHECK(!flag, "a started MPI_Ssend_init completed before its receive was posted");
            MPI_Send(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD);
            if (!flag)
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            flag = 0;
        }
        MPI_Request_free(&r);
    } else if (me == 1) {
        for (int it = 0; it < 3; it++) {
            MPI_Recv(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(rb, N, MPI_INT, 0, 20, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 20, MPI_INT, N, "MPI_Ssend_init held until matched"))
                conf_check_data(rb, N, 2000 + it, "MPI_Ssend_init held until matched");
        }
    }

    /* Inactive requests: never started, and completed. */
    {
        MPI_Request p[2], q;
        MPI_Status sts[2];
        int flag, idx, out, idxs[2];
        MPI_Recv_init(rb, N, MPI_INT, 1 - me, 30, MPI_COMM_WORLD, &p[0]);
        MPI_Send_init(sb, N, MPI_INT, 1 - me, 30, MPI_COMM_WORLD, &p[1]);
        for (int round = 0; round < 2; round++) {
            const char *when = round ? "completed" : "never started";
            char what[80];
            snprintf(what, sizeof(what), "MPI_Wait on an inactive (%s) request", when);
            CHECK_RC(MPI_Wait(&p[0], &st), what);
            conf_check_empty(&st, what);
            CHECK(p[0] != MPI_REQUEST_NULL, "%s freed it", what);
            flag = 0;
            snprintf(what, sizeof(what), "MPI_Test on an inactive (%s) request", when);
            CHECK_RC(MPI_Test(&p[1], &flag, &st), what);
            CHECK(flag, "%s: flag false", what);
            conf_check_empty(&st, what);
            flag = 0;
            snprintf(what, sizeof(what), "MPI_Request_get_status on an inactive (%s) request",
                     when);
            CHECK_RC(MPI_Request_get_status(p[0], &flag, &st), what);
            CHECK(flag, "%s: flag false", what);
            conf_check_empty(&st, what);
            snprintf(what, sizeof(what), "MPI_Waitall on inactive (%s) requests", when);
            CHECK_RC(MPI_Waitall(2, p, sts), what);
            conf_check_empty(&sts[0], what);
            conf_check_empty(&sts[1], what);
            flag = 0;
            snprintf(what, sizeof(what), "MPI_Testall on inactive (%s) requests", when);
            CHECK_RC(MPI_Testall(2, p, &flag, sts), what);
            CHECK(flag, "%s: flag false", what);
            snprintf(what, sizeof(what), "MPI_Waitany on inactive (%s) requests", when);
            CHECK_RC(MPI_Waitany(2, p, &idx, &st), what);
            CHECK(idx == MPI_UNDEFINED, "%s: index %d", what, idx);
            conf_check_empty(&st, what);
            snprintf(what, sizeof(what), "MPI_Testany on inactive (%s) requests", when);
            flag = 0;
            CHECK_RC(MPI_Testany(2, p, &idx, &flag, &st), what);
            CHECK(flag && idx == MPI_UNDEFINED, "%s: flag %d index %d", what, flag, idx);
            snprintf(what, sizeof(what), "MPI_Waitsome on inactive (%s) requests", when);
            CHECK_RC(MPI_Waitsome(2, p, &out, idxs, sts), what);
            CHECK(out == MPI_UNDEFINED, "%s: outcount %d", what, out);
            snprintf(what, sizeof(what), "MPI_Testsome on inactive (%s) requests", when);
            CHECK_RC(MPI_Testsome(2, p, &out, idxs, sts), what);
            CHECK(out == MPI_UNDEFINED, "%s: outcount %d", what, out);
            if (round == 0) {
                conf_fill(sb, N, 3000 + me);
                MPI_Startall(2, p);
                MPI_Waitall(2, p, sts);
                if (conf_check_status(&sts[0], 1 - me, 30, MPI_INT, N, "persistent exchange"))
                    conf_check_data(rb, N, 3000 + 1 - me, "persistent exchange");
            }
        }
        MPI_Request_free(&p[0]);
        MPI_Request_free(&p[1]);

        /* MPI_Request_free of an active persistent send: it still arrives. */
        if (me == 0) {
            MPI_Send_init(sb, N, MPI_INT, 1, 40, MPI_COMM_WORLD, &q);
            conf_fill(sb, N, 4000);
            MPI_Start(&q);
            CHECK_RC(MPI_Request_free(&q), "MPI_Request_free of an active persistent send");
            CHECK(q == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
            MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE); /* sb free again */
        } else if (me == 1) {
            MPI_Recv(rb, N, MPI_INT, 0, 40, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 40, MPI_INT, N, "a freed active persistent send"))
                conf_check_data(rb, N, 4000, "a freed active persistent send");
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
        }
    }

    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    free(sb);
    free(rb);
    return conf_finish();
}
