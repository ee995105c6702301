/*
 * sendmodes: every send mode, blocking and nonblocking (MPI_Send, Ssend,
 * Rsend, Bsend, Isend, Issend, Irsend, Ibsend), at 1, 1000 and 65536
 * ints, in both directions, against a receive posted first (MPI_Irecv,
 * then a handshake, as ready mode needs) and a blocking MPI_Recv; data,
 * source, tag and count checked. Then the modes' own promises: a
 * synchronous send does not complete before its receive is posted, and a
 * buffered send completes without any receive posted.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendrecv1, send_tests, pingping.
 *
 * np: 2
 */
#include "conf.h"

enum { SEND, SSEND, RSEND, BSEND, ISEND, ISSEND, IRSEND, IBSEND, NMODES };
static const char *names[NMODES] = {"MPI_Send",  "MPI_Ssend",  "MPI_Rsend",  "MPI_Bsend",
                                    "MPI_Isend", "MPI_Issend", "MPI_Irsend", "MPI_Ibsend"};

#define TAG_READY 30000

static void send_mode(int mode, const int *buf, int count, int dest, int tag)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    switch (mode) {
    case SEND:
        rc = MPI_Send(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD);
        break;
    case SSEND:
        rc = MPI_Ssend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD);
        break;
    case RSEND:
        rc = MPI_Rsend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD);
        break;
    case BSEND:
        rc = MPI_Bsend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD);
        break;
    case ISEND:
        rc = MPI_Isend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD, &req);
        break;
    case ISSEND:
        rc = MPI_Issend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD, &req);
        break;
    case IRSEND:
        rc = MPI_Irsend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD, &req);
        break;
    default:
        rc = MPI_Ibsend(buf, count, MPI_INT, dest, tag, MPI_COMM_WORLD, &req);
        break;
    }
    CHECK_RC(rc, names[mode]);
    if (req != MPI_REQUEST_NULL) {
        MPI_Status st;
        int canc = -1;
        CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait on a send");
        MPI_Test_cancelled(&st, &canc);
        CHECK(canc == 0, "%s: MPI_Test_cancelled %d after a normal completion", names[mode], canc);
        CHECK(req == MPI_REQUEST_NULL, "%s: MPI_Wait left the request non-null", names[mode]);
    }
}

/* One message from s to r in mode; posted: the receiver posts MPI_Irecv
 * and tells the sender (ready mode's precondition), else it calls
 * MPI_Recv. */
static void one(int s, int r, int mode, int count, int posted, int tag)
{
    char what[96];
    snprintf(what, sizeof(what), "%s of %d ints %d->%d, receive %s", names[mode], count, s, r,
             posted ? "posted first" : "blocking");
    if (conf_rank == s) {
        int *buf = malloc(sizeof(int) * (size_t)count);
        conf_fill(buf, count, tag);
        if (posted)
            MPI_Recv(NULL, 0, MPI_INT, r, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        send_mode(mode, buf, count, r, tag);
        free(buf);
    } else if (conf_rank == r) {
        int *buf = calloc((size_t)count + 8, sizeof(int));
        MPI_Status st;
        if (posted) {
            MPI_Request req;
            CHECK_RC(MPI_Irecv(buf, count + 8, MPI_INT, s, tag, MPI_COMM_WORLD, &req), "MPI_Irecv");
            MPI_Send(NULL, 0, MPI_INT, s, TAG_READY, MPI_COMM_WORLD);
            CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait on a receive");
        } else {
            CHECK_RC(MPI_Recv(buf, count + 8, MPI_INT, s, tag, MPI_COMM_WORLD, &st), "MPI_Recv");
        }
        if (conf_check_status(&st, s, tag, MPI_INT, count, what))
            conf_check_data(buf, count, tag, what);
        CHECK(buf[count] == 0, "%s: wrote past the message", what);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "sendmodes", 2);
    int bsize = 4 << 20;
    char *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);

    static const int counts[] = {1, 1000, 65536};
    int tag = 1;
    for (int dir = 0; dir < 2; dir++) {
        int s = dir, r = 1 - dir;
        for (int mode = 0; mode < NMODES; mode++)
            for (int c = 0; c < 3; c++)
                for (int posted = 1; posted >= 0; posted--) {
                    if (!posted && (mode == RSEND || mode == IRSEND))
                        continue;
                    one(s, r, mode, counts[c], posted, tag++);
                }
    }

    /* Synchronous mode: MPI_Issend is not complete while no receive
     * matches it (the receiver posts only when told to). */
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        int *buf = malloc(sizeof(int) * (size_t)n);
        if (conf_rank == 0) {
            MPI_Request req;
            int flag = 0;
            conf_fill(buf, n, 500 + c);
            MPI_Issend(buf, n, MPI_INT, 1, 500 + c, MPI_COMM_WORLD, &req);
            for (int i = 0; i < 20 && !flag; i++) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                conf_sleep_ms(2);
            }
            CHECK(!flag, "MPI_Issend of %d ints completed before any receive was posted", n);
            MPI_Send(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD);
            if (!flag)
                MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else if (conf_rank == 1) {
            MPI_Status st;
            MPI_Recv(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(buf, n, MPI_INT, 0, 500 + c, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 500 + c, MPI_INT, n, "MPI_Issend held until matched"))
                conf_check_data(buf, n, 500 + c, "MPI_Issend held until matched");
        }
        free(buf);
    }

    /* Buffered mode completes locally: the receiver posts only after the
     * sender's MPI_Bsend returned and its MPI_Ibsend completed. */
    {
        int n = 65536;
        int *buf = malloc(sizeof(int) * (size_t)n * 2);
        if (conf_rank == 0) {
            MPI_Request req;
            conf_fill(buf, n, 600);
            CHECK_RC(MPI_Bsend(buf, n, MPI_INT, 1, 600, MPI_COMM_WORLD), "MPI_Bsend");
            conf_fill(buf + n, n, 601);
            CHECK_RC(MPI_Ibsend(buf + n, n, MPI_INT, 1, 601, MPI_COMM_WORLD, &req), "MPI_Ibsend");
            conf_wait_test(&req, MPI_STATUS_IGNORE, "MPI_Ibsend with no receive posted");
            memset(buf, 0, sizeof(int) * (size_t)n * 2); /* the buffer is ours again */
            MPI_Send(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD);
        } else if (conf_rank == 1) {
            MPI_Status st;
            MPI_Recv(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(buf, n, MPI_INT, 0, 601, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 601, MPI_INT, n, "MPI_Ibsend completed locally"))
                conf_check_data(buf, n, 601, "MPI_Ibsend completed locally");
            MPI_Recv(buf, n, MPI_INT, 0, 600, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 600, MPI_INT, n, "MPI_Bsend completed locally"))
                conf_check_data(buf, n, 600, "MPI_Bsend completed locally");
        }
        free(buf);
    }

    void *addr;
    int size;
    MPI_Buffer_detach(&addr, &size);
    CHECK(addr == bbuf && size == bsize, "MPI_Buffer_detach returned %p/%d, attached %p/%d", addr,
          size, (void *)bbuf, bsize);
    free(bbuf);
    return conf_finish();
}
