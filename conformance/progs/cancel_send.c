/*
 * cancel_send: MPI_Cancel of sends (MPI 3.8.4: cancelling a send either
 * succeeds, and then the message is never received, or fails, and then
 * it is received normally; MPI_Test_cancelled says which). For MPI_Isend
 * of 100 ints and of 1 MiB, MPI_Issend of both, MPI_Ibsend, and started
 * MPI_Send_init and MPI_Ssend_init: the sender cancels, tells the
 * receiver (which only then posts a receive on the tag), completes the
 * send, tells the receiver the outcome and sends a second, small message
 * on the same tag. The receiver's receive must get the first message if
 * the cancel failed and the second if it succeeded. The same with an
 * MPI_Issend to oneself. Either outcome passes; the counts of each are
 * printed on stderr.
 *
 * Checklist (MPICH test/mpi/pt2pt): scancel, scancel2, pscancel,
 * issendselfcancel, scancel_unmatch.
 *
 * np: 2
 */
#include "conf.h"

#define C1 500 /* cancel called */
#define C2 501 /* the outcome */
#define SMALL 10

enum { ISEND, ISEND_BIG, ISSEND, ISSEND_BIG, IBSEND, SEND_INIT, SSEND_INIT, NK };
static const char *kname[NK] = {"MPI_Isend",  "MPI_Isend of 1 MiB", "MPI_Issend",
                                   "MPI_Issend of 1 MiB",
                                "MPI_Ibsend", "MPI_Send_init",      "MPI_Ssend_init"};

static int big = 1 << 18;

static int count_of(int k) { return k == ISEND_BIG || k == ISSEND_BIG ? big : 100; }

static void start(int k, int *buf, int dest, int tag, MPI_Request *r)
{
    int n = count_of(k);
    switch (k) {
    case ISEND:
    case ISEND_BIG:
        MPI_Isend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
        break;
    case ISSEND:
    case ISSEND_BIG:
        MPI_Issend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
        break;
    case IBSEND:
        MPI_Ibsend(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
        break;
    case SEND_INIT:
        MPI_Send_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
        MPI_Start(r);
        break;
    default:
        MPI_Ssend_init(buf, n, MPI_INT, dest, tag, MPI_COMM_WORLD, r);
        MPI_Start(r);
        break;
    }
}

/* The receiver's side: rreq was posted after the cancel; c is the
 * outcome. */
static void check_recv(MPI_Request *rreq, int *rb, int c, int k, int src, int tag, const char *what)
{
    MPI_Status st;
    CHECK_RC(MPI_Wait(rreq, &st), "MPI_Wait on the receive");
    if (c) {
        if (conf_check_status(&st, src, tag, MPI_INT, SMALL, what))
            conf_check_data(rb, SMALL, 200 + k, what);
    } else {
        if (conf_check_status(&st, src, tag, MPI_INT, count_of(k), what))
            conf_check_data(rb, count_of(k), 100 + k, what);
        MPI_Recv(rb, big, MPI_INT, src, tag, MPI_COMM_WORLD, &st);
        if (conf_check_status(&st, src, tag, MPI_INT, SMALL, what))
            conf_check_data(rb, SMALL, 200 + k, what);
    }
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "cancel_send", 2);
    int me = conf_rank;
    int *sb = malloc(sizeof(int) * (size_t)big), *rb = malloc(sizeof(int) * (size_t)big);
    int small[SMALL];
    int bsize = 4 * (100 + SMALL) + 2 * MPI_BSEND_OVERHEAD;
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    int ncanc = 0, nsent = 0;

    for (int k = 0; k < NK; k++) {
        int tag = 10 * k + 1;
        char what[96];
        snprintf(what, sizeof(what), "after cancelling an %s", kname[k]);
        if (me == 0) {
            MPI_Request r;
            MPI_Status st;
            int c = -1;
            conf_fill(sb, count_of(k), 100 + k);
            start(k, sb, 1, tag, &r);
            CHECK_RC(MPI_Cancel(&r), "MPI_Cancel");
            MPI_Send(NULL, 0, MPI_INT, 1, C1, MPI_COMM_WORLD);
            CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait on a cancelled send");
            MPI_Test_cancelled(&st, &c);
            ncanc += c == 1;
            nsent += c == 0;
            MPI_Send(&c, 1, MPI_INT, 1, C2, MPI_COMM_WORLD);
            conf_fill(small, SMALL, 200 + k);
            MPI_Send(small, SMALL, MPI_INT, 1, tag, MPI_COMM_WORLD);
            if (k >= SEND_INIT)
                MPI_Request_free(&r);
        } else if (me == 1) {
            MPI_Request rreq;
            int c = -1;
            MPI_Recv(NULL, 0, MPI_INT, 0, C1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Irecv(rb, big, MPI_INT, 0, tag, MPI_COMM_WORLD, &rreq);
            MPI_Recv(&c, 1, MPI_INT, 0, C2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(c == 0 || c == 1, "%s: MPI_Test_cancelled gave %d", kname[k], c);
            check_recv(&rreq, rb, c, k, 0, tag, what);
        }
    }

    /* MPI_Issend to oneself, cancelled. */
    {
        MPI_Request r, rreq, r2;
        MPI_Status st;
        int c = -1, k = ISSEND, tag = 90;
        conf_fill(sb, 100, 100 + k);
        MPI_Issend(sb, 100, MPI_INT, me, tag, MPI_COMM_WORLD, &r);
        CHECK_RC(MPI_Cancel(&r), "MPI_Cancel of an MPI_Issend to self");
        MPI_Irecv(rb, big, MPI_INT, me, tag, MPI_COMM_WORLD, &rreq);
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        MPI_Test_cancelled(&st, &c);
        ncanc += c == 1;
        nsent += c == 0;
        conf_fill(small, SMALL, 200 + k);
        MPI_Isend(small, SMALL, MPI_INT, me, tag, MPI_COMM_WORLD, &r2);
        check_recv(&rreq, rb, c, k, me, tag, "after cancelling an MPI_Issend to self");
        MPI_Wait(&r2, MPI_STATUS_IGNORE);
    }
    fprintf(stderr, "conformance cancel_send: rank %d: %d sends cancelled, %d delivered\n", me,
            ncanc, nsent);

    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    free(sb);
    free(rb);
    return conf_finish();
}
