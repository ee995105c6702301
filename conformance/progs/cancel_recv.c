/*
 * cancel_recv: MPI_Cancel of receives (MPI 3.8.4: a receive that has not
 * matched is cancelled; MPI_Test_cancelled then says so and the message
 * goes to another receive). An MPI_Irecv cancelled and completed by
 * MPI_Wait, by an MPI_Test loop and by MPI_Waitall; four receives of
 * which two are cancelled, the other two and a later message on a
 * cancelled tag received normally; a receive that completed before
 * MPI_Cancel (seen by MPI_Request_get_status) is not cancelled; a
 * started persistent receive cancelled, then started again and
 * completed.
 *
 * Checklist (MPICH test/mpi/pt2pt): rcancel, cancelrecv.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_GO 999

static int cancelled(const MPI_Status *st)
{
    int f = -1;
    MPI_Test_cancelled(st, &f);
    return f;
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "cancel_recv", 2);
    int me = conf_rank;
    int b[4][100];
    MPI_Status st, sts[4];
    MPI_Request r, rs[4];

    if (me == 1) {
        /* Cancelled, completed three ways; then the message is sent and
         * received by a new receive. */
        for (int how = 0; how < 3; how++) {
            CHECK_RC(MPI_Irecv(b[0], 100, MPI_INT, 0, 1, MPI_COMM_WORLD, &r), "MPI_Irecv");
            CHECK_RC(MPI_Cancel(&r), "MPI_Cancel");
            if (how == 0)
                CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
            else if (how == 1)
                conf_wait_test(&r, &st, "MPI_Test on a cancelled receive");
            else
                CHECK_RC(MPI_Waitall(1, &r, &st), "MPI_Waitall");
            CHECK(r == MPI_REQUEST_NULL, "completion %d left a cancelled request non-null", how);
            CHECK(cancelled(&st) == 1, "completion %d: MPI_Test_cancelled %d, want 1", how,
                  cancelled(&st));
        }
        MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
        CHECK_RC(MPI_Recv(b[0], 100, MPI_INT, 0, 1, MPI_COMM_WORLD, &st), "MPI_Recv");
        CHECK(cancelled(&st) == 0, "a normal receive: MPI_Test_cancelled %d", cancelled(&st));
        if (conf_check_status(&st, 0, 1, MPI_INT, 100, "the message after cancelled receives"))
            conf_check_data(b[0], 100, 1, "the message after cancelled receives");
    } else {
        int s[100];
        MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        conf_fill(s, 100, 1);
        MPI_Send(s, 100, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }

    /* Four receives, two cancelled. */
    if (me == 1) {
        for (int i = 0; i < 4; i++)
            MPI_Irecv(b[i], 100, MPI_INT, 0, 10 + i, MPI_COMM_WORLD, &rs[i]);
        MPI_Cancel(&rs[1]);
        MPI_Cancel(&rs[3]);
        MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
        CHECK_RC(MPI_Waitall(4, rs, sts), "MPI_Waitall");
        for (int i = 0; i < 4; i++) {
            char what[48];
            snprintf(what, sizeof(what), "receive %d of 4 (%s)", i, i % 2 ? "cancelled" : "kept");
            CHECK(cancelled(&sts[i]) == i % 2, "%s: MPI_Test_cancelled %d", what,
                  cancelled(&sts[i]));
            if (i % 2 == 0 && conf_check_status(&sts[i], 0, 10 + i, MPI_INT, 100, what))
                conf_check_data(b[i], 100, 10 + i, what);
        }
        CHECK_RC(MPI_Recv(b[1], 100, MPI_INT, 0, 11, MPI_COMM_WORLD, &st), "MPI_Recv");
        if (conf_check_status(&st, 0, 11, MPI_INT, 100, "a message on a cancelled receive's tag"))
            conf_check_data(b[1], 100, 11, "a message on a cancelled receive's tag");
    } else {
        int s[100];
        MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < 3; i++) {
            conf_fill(s, 100, 10 + i);
            MPI_Send(s, 100, MPI_INT, 1, 10 + i, MPI_COMM_WORLD);
        }
    }

    /* Completed before MPI_Cancel: not cancelled. */
    if (me == 1) {
        int flag = 0;
        MPI_Irecv(b[0], 100, MPI_INT, 0, 20, MPI_COMM_WORLD, &r);
        MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
        CHECK(flag, "the receive never completed");
        CHECK_RC(MPI_Cancel(&r), "MPI_Cancel of a completed receive");
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        CHECK(cancelled(&st) == 0, "a receive complete before MPI_Cancel was cancelled");
        if (conf_check_status(&st, 0, 20, MPI_INT, 100, "a receive complete before MPI_Cancel"))
            conf_check_data(b[0], 100, 20, "a receive complete before MPI_Cancel");
    } else {
        int s[100];
        MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        conf_fill(s, 100, 20);
        MPI_Send(s, 100, MPI_INT, 1, 20, MPI_COMM_WORLD);
    }

    /* A persistent receive: started, cancelled; started again, received. */
    if (me == 1) {
        MPI_Request p;
        MPI_Recv_init(b[2], 100, MPI_INT, 0, 30, MPI_COMM_WORLD, &p);
        MPI_Start(&p);
        CHECK_RC(MPI_Cancel(&p), "MPI_Cancel of a persistent receive");
        CHECK_RC(MPI_Wait(&p, &st), "MPI_Wait");
        CHECK(p != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
        CHECK(cancelled(&st) == 1, "a started persistent receive: MPI_Test_cancelled %d",
              cancelled(&st));
        MPI_Start(&p);
        MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
        CHECK_RC(MPI_Wait(&p, &st), "MPI_Wait");
        CHECK(cancelled(&st) == 0, "the persistent receive started again was cancelled");
        if (conf_check_status(&st, 0, 30, MPI_INT, 100, "a persistent receive after a cancel"))
            conf_check_data(b[2], 100, 30, "a persistent receive after a cancel");
        MPI_Request_free(&p);
    } else {
        int s[100];
        MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        conf_fill(s, 100, 30);
        MPI_Send(s, 100, MPI_INT, 1, 30, MPI_COMM_WORLD);
    }
    return conf_finish();
}
