/*
 * self: messages to oneself, on MPI_COMM_WORLD and on MPI_COMM_SELF (and
 * a duplicate of it). A receive posted, then MPI_Send; MPI_Isend, then
 * MPI_Recv; MPI_Issend, MPI_Recv, then MPI_Wait; MPI_Isend found by an
 * MPI_Iprobe loop and by MPI_Probe before MPI_Recv; MPI_Isend, then
 * MPI_Mprobe and MPI_Mrecv (the send freed at once: mprobe_self_free);
 * MPI_Sendrecv and
 * MPI_Sendrecv_replace; MPI_Bsend; a 1 MiB MPI_Isend; persistent
 * requests started together with MPI_Startall. Sizes of 1 and 5000 ints.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendself, isendself, isendselfprobe,
 * bsend1.
 *
 * np: 2
 */
#include "conf.h"

static void on(MPI_Comm comm, const char *cname)
{
    int me;
    MPI_Comm_rank(comm, &me);
    static const int sizes[] = {1, 5000};
    int big = 1 << 18;
    int *sb = malloc(sizeof(int) * (size_t)big), *rb = malloc(sizeof(int) * (size_t)big);
    MPI_Request r, r2;
    MPI_Status st;
    char what[128];
    int flag;

    for (int k = 0; k < 2; k++) {
        int n = sizes[k], t = 10 * k;
#define WHAT(s) (snprintf(what, sizeof(what), "%s on %s, %d ints", s, cname, n), what)
        conf_fill(sb, n, t + 1);
        CHECK_RC(MPI_Irecv(rb, n, MPI_INT, me, t + 1, comm, &r), "MPI_Irecv");
        CHECK_RC(MPI_Send(sb, n, MPI_INT, me, t + 1, comm), "MPI_Send to self");
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        if (conf_check_status(&st, me, t + 1, MPI_INT, n, WHAT("posted receive, MPI_Send")))
            conf_check_data(rb, n, t + 1, what);

        conf_fill(sb, n, t + 2);
        CHECK_RC(MPI_Isend(sb, n, MPI_INT, me, t + 2, comm, &r), "MPI_Isend");
        CHECK_RC(MPI_Recv(rb, n, MPI_INT, me, t + 2, comm, &st), "MPI_Recv");
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        if (conf_check_status(&st, me, t + 2, MPI_INT, n, WHAT("MPI_Isend, MPI_Recv")))
            conf_check_data(rb, n, t + 2, what);

        conf_fill(sb, n, t + 3);
        CHECK_RC(MPI_Issend(sb, n, MPI_INT, me, t + 3, comm, &r), "MPI_Issend");
        CHECK_RC(MPI_Recv(rb, n, MPI_INT, me, t + 3, comm, &st), "MPI_Recv");
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        if (conf_check_status(&st, me, t + 3, MPI_INT, n, WHAT("MPI_Issend, MPI_Recv")))
            conf_check_data(rb, n, t + 3, what);

        conf_fill(sb, n, t + 4);
        CHECK_RC(MPI_Isend(sb, n, MPI_INT, me, t + 4, comm, &r), "MPI_Isend");
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            CHECK_RC(MPI_Iprobe(me, t + 4, comm, &flag, &st), "MPI_Iprobe");
        if (CHECK(flag, "%s: MPI_Iprobe never found it", WHAT("MPI_Isend, MPI_Iprobe")))
            conf_check_status(&st, me, t + 4, MPI_INT, n, what);
        CHECK_RC(MPI_Probe(me, t + 4, comm, &st), "MPI_Probe");
        conf_check_status(&st, me, t + 4, MPI_INT, n, WHAT("MPI_Isend, MPI_Probe"));
        CHECK_RC(MPI_Recv(rb, n, MPI_INT, me, t + 4, comm, &st), "MPI_Recv");
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        if (conf_check_status(&st, me, t + 4, MPI_INT, n, WHAT("MPI_Isend, probes, MPI_Recv")))
            conf_check_data(rb, n, t + 4, what);

        conf_fill(sb, n, t + 5);
        CHECK_RC(MPI_Isend(sb, n, MPI_INT, me, t + 5, comm, &r), "MPI_Isend");
        MPI_Message msg;
        CHECK_RC(MPI_Mprobe(me, t + 5, comm, &msg, &st), "MPI_Mprobe");
        conf_check_status(&st, me, t + 5, MPI_INT, n, WHAT("MPI_Isend, MPI_Mprobe"));
        CHECK_RC(MPI_Mrecv(rb, n, MPI_INT, &msg, &st), "MPI_Mrecv");
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        if (conf_check_status(&st, me, t + 5, MPI_INT, n, WHAT("MPI_Isend, MPI_Mrecv")))
            conf_check_data(rb, n, t + 5, what);

        conf_fill(sb, n, t + 6);
        CHECK_RC(MPI_Sendrecv(sb, n, MPI_INT, me, t + 6, rb, n, MPI_INT, me, t + 6, comm, &st),
                 "MPI_Sendrecv");
        if (conf_check_status(&st, me, t + 6, MPI_INT, n, WHAT("MPI_Sendrecv")))
            conf_check_data(rb, n, t + 6, what);
        conf_fill(rb, n, t + 7);
        CHECK_RC(MPI_Sendrecv_replace(rb, n, MPI_INT, me, t + 7, me, t + 7, comm, &st),
                 "MPI_Sendrecv_replace");
        if (conf_check_status(&st, me, t + 7, MPI_INT, n, WHAT("MPI_Sendrecv_replace")))
            conf_check_data(rb, n, t + 7, what);

        conf_fill(sb, n, t + 8);
        CHECK_RC(MPI_Bsend(sb, n, MPI_INT, me, t + 8, comm), "MPI_Bsend to self");
        memset(sb, 0, sizeof(int) * (size_t)n);
        CHECK_RC(MPI_Recv(rb, n, MPI_INT, me, t + 8, comm, &st), "MPI_Recv");
        if (conf_check_status(&st, me, t + 8, MPI_INT, n, WHAT("MPI_Bsend, MPI_Recv")))
            conf_check_data(rb, n, t + 8, what);

        /* Persistent: receive and send started together, three times. */
        MPI_Request p[2];
        MPI_Status sts[2];
        MPI_Recv_init(rb, n, MPI_INT, me, t + 9, comm, &p[0]);
        MPI_Send_init(sb, n, MPI_INT, me, t + 9, comm, &p[1]);
        for (int i = 0; i < 3; i++) {
            conf_fill(sb, n, 100 * i + t + 9);
            CHECK_RC(MPI_Startall(2, p), "MPI_Startall");
            CHECK_RC(MPI_Waitall(2, p, sts), "MPI_Waitall");
            if (conf_check_status(&sts[0], me, t + 9, MPI_INT, n, WHAT("persistent to self")))
                conf_check_data(rb, n, 100 * i + t + 9, what);
        }
        MPI_Request_free(&p[0]);
        MPI_Request_free(&p[1]);
#undef WHAT
    }

    /* 1 MiB, receive posted after the send. */
    conf_fill(sb, big, 99);
    CHECK_RC(MPI_Isend(sb, big, MPI_INT, me, 99, comm, &r), "MPI_Isend of 1 MiB");
    CHECK_RC(MPI_Irecv(rb, big, MPI_INT, me, 99, comm, &r2), "MPI_Irecv of 1 MiB");
    CHECK_RC(MPI_Wait(&r2, &st), "MPI_Wait");
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    snprintf(what, sizeof(what), "1 MiB to self on %s", cname);
    if (conf_check_status(&st, me, 99, MPI_INT, big, what))
        conf_check_data(rb, big, 99, what);
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "self", 2);
    int bsize = 4 * (20000 + MPI_BSEND_OVERHEAD);
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    on(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    on(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    on(dup, "a duplicate of MPI_COMM_SELF");
    MPI_Comm_free(&dup);
    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    return conf_finish();
}
