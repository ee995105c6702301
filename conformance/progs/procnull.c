/*
 * procnull: MPI_PROC_NULL as source and destination (MPI 3.11). Sends in
 * every mode succeed at once; receives (blocking, nonblocking,
 * persistent) complete at once with source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0 and leave the buffer alone; MPI_Probe and
 * MPI_Iprobe find such a message at once; MPI_Mprobe and MPI_Improbe
 * return MPI_MESSAGE_NO_PROC, which MPI_Mrecv and MPI_Imrecv receive
 * like a receive from MPI_PROC_NULL (the handle becomes MPI_MESSAGE_NULL);
 * MPI_Sendrecv and MPI_Sendrecv_replace with MPI_PROC_NULL on both sides.
 * The whole program runs on every rank, on its own.
 *
 * Checklist (MPICH test/mpi/pt2pt): probenull, recvnull.
 *
 * np: 2
 */
#include "conf.h"

static int buf[8];

static void fresh(void)
{
    for (int i = 0; i < 8; i++)
        buf[i] = -4;
}

static void untouched(const char *what)
{
    for (int i = 0; i < 8; i++)
        if (!CHECK(buf[i] == -4, "%s wrote the buffer", what))
            return;
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "procnull", 2);
    const int P = MPI_PROC_NULL;
    MPI_Status st;
    MPI_Request r;
    int flag;
    int bsize = 4 * (MPI_BSEND_OVERHEAD + 64);
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);

    conf_fill(buf, 8, 1);
    CHECK_RC(MPI_Send(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD), "MPI_Send to MPI_PROC_NULL");
    CHECK_RC(MPI_Ssend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD), "MPI_Ssend to MPI_PROC_NULL");
    CHECK_RC(MPI_Rsend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD), "MPI_Rsend to MPI_PROC_NULL");
    CHECK_RC(MPI_Bsend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD), "MPI_Bsend to MPI_PROC_NULL");
    MPI_Request rs[4];
    CHECK_RC(MPI_Isend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD, &rs[0]),
             "MPI_Isend to MPI_PROC_NULL");
    CHECK_RC(MPI_Issend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD, &rs[1]),
             "MPI_Issend to MPI_PROC_NULL");
    CHECK_RC(MPI_Irsend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD, &rs[2]),
             "MPI_Irsend to MPI_PROC_NULL");
    CHECK_RC(MPI_Ibsend(buf, 8, MPI_INT, P, 1, MPI_COMM_WORLD, &rs[3]),
             "MPI_Ibsend to MPI_PROC_NULL");
    CHECK_RC(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE), "MPI_Waitall on sends to MPI_PROC_NULL");

    fresh();
    CHECK_RC(MPI_Recv(buf, 8, MPI_INT, P, 2, MPI_COMM_WORLD, &st), "MPI_Recv from MPI_PROC_NULL");
    conf_check_procnull(&st, "MPI_Recv from MPI_PROC_NULL");
    untouched("MPI_Recv from MPI_PROC_NULL");

    fresh();
    CHECK_RC(MPI_Irecv(buf, 8, MPI_INT, P, 2, MPI_COMM_WORLD, &r), "MPI_Irecv from MPI_PROC_NULL");
    flag = 0;
    CHECK_RC(MPI_Test(&r, &flag, &st), "MPI_Test");
    if (!flag)
        MPI_Wait(&r, &st);
    untouched("MPI_Irecv from MPI_PROC_NULL");

    flag = 0;
    CHECK_RC(MPI_Iprobe(P, 4, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe of MPI_PROC_NULL");
    CHECK(flag, "MPI_Iprobe of MPI_PROC_NULL: flag false");
    conf_check_procnull(&st, "MPI_Iprobe of MPI_PROC_NULL");
    CHECK_RC(MPI_Probe(P, 4, MPI_COMM_WORLD, &st), "MPI_Probe of MPI_PROC_NULL");
    conf_check_procnull(&st, "MPI_Probe of MPI_PROC_NULL");

    MPI_Message m = MPI_MESSAGE_NULL;
    CHECK_RC(MPI_Mprobe(P, 5, MPI_COMM_WORLD, &m, &st), "MPI_Mprobe of MPI_PROC_NULL");
    CHECK(m == MPI_MESSAGE_NO_PROC,
          "MPI_Mprobe of MPI_PROC_NULL: message is not MPI_MESSAGE_NO_PROC");
    conf_check_procnull(&st, "MPI_Mprobe of MPI_PROC_NULL");
    fresh();
    CHECK_RC(MPI_Mrecv(buf, 8, MPI_INT, &m, &st), "MPI_Mrecv of MPI_MESSAGE_NO_PROC");
    CHECK(m == MPI_MESSAGE_NULL, "MPI_Mrecv of MPI_MESSAGE_NO_PROC left the message handle set");
    conf_check_procnull(&st, "MPI_Mrecv of MPI_MESSAGE_NO_PROC");
    untouched("MPI_Mrecv of MPI_MESSAGE_NO_PROC");

    m = MPI_MESSAGE_NULL;
    flag = 0;
    CHECK_RC(MPI_Improbe(P, 5, MPI_COMM_WORLD, &flag, &m, &st), "MPI_Improbe of MPI_PROC_NULL");
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "MPI_Improbe of MPI_PROC_NULL: flag %d, message %s",
          flag,
          m == MPI_MESSAGE_NO_PROC ? "MPI_MESSAGE_NO_PROC" : "other");
    conf_check_procnull(&st, "MPI_Improbe of MPI_PROC_NULL");
    fresh();
    CHECK_RC(MPI_Imrecv(buf, 8, MPI_INT, &m, &r), "MPI_Imrecv of MPI_MESSAGE_NO_PROC");
    CHECK(m == MPI_MESSAGE_NULL, "MPI_Imrecv of MPI_MESSAGE_NO_PROC left the message handle set");
    CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
    conf_check_procnull(&st, "MPI_Imrecv of MPI_MESSAGE_NO_PROC");
    untouched("MPI_Imrecv of MPI_MESSAGE_NO_PROC");

    /* Persistent requests to and from MPI_PROC_NULL. */
    MPI_Request p[2];
    MPI_Status sts[2];
    CHECK_RC(MPI_Send_init(buf, 8, MPI_INT, P, 6, MPI_COMM_WORLD, &p[0]), "MPI_Send_init");
    CHECK_RC(MPI_Recv_init(buf, 8, MPI_INT, P, 6, MPI_COMM_WORLD, &p[1]), "MPI_Recv_init");
    for (int i = 0; i < 3; i++) {
        fresh();
        CHECK_RC(MPI_Startall(2, p), "MPI_Startall");
        CHECK_RC(MPI_Waitall(2, p, sts), "MPI_Waitall");
        untouched("persistent receive from MPI_PROC_NULL");
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);

    fresh();
    CHECK_RC(MPI_Sendrecv(buf, 8, MPI_INT, P, 7, buf, 8, MPI_INT, P, 7, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv with MPI_PROC_NULL");
    conf_check_procnull(&st, "MPI_Sendrecv with MPI_PROC_NULL");
    untouched("MPI_Sendrecv with MPI_PROC_NULL");
    CHECK_RC(MPI_Sendrecv_replace(buf, 8, MPI_INT, P, 7, P, 7, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace with MPI_PROC_NULL");
    conf_check_procnull(&st, "MPI_Sendrecv_replace with MPI_PROC_NULL");
    untouched("MPI_Sendrecv_replace with MPI_PROC_NULL");

    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    return conf_finish();
}
