/*
 * reqstatus: MPI_Request_get_status. On a receive not yet satisfied:
 * flag false; once the message is there: flag true with the receive's
 * status, and the request is still valid (not freed): MPI_Wait then
 * returns the same status. On a send; on MPI_REQUEST_NULL (flag true,
 * empty status); on a cancelled receive (MPI_Test_cancelled true).
 *
 * Checklist (MPICH test/mpi/pt2pt): rqstatus.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_GO 999

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "reqstatus", 2);
    int me = conf_rank;
    int b[1000];
    MPI_Status st, st2;
    MPI_Request r;
    int flag;

    if (me == 1) {
        MPI_Irecv(b, 1000, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
        flag = 1;
        CHECK_RC(MPI_Request_get_status(r, &flag, &st), "MPI_Request_get_status");
        CHECK(!flag, "MPI_Request_get_status: flag true before the message was sent");
        MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            CHECK_RC(MPI_Request_get_status(r, &flag, &st), "MPI_Request_get_status");
        if (CHECK(flag, "MPI_Request_get_status never saw the message"))
            conf_check_status(&st, 0, 5, MPI_INT, 700, "MPI_Request_get_status");
        CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
        flag = 0;
        CHECK_RC(MPI_Request_get_status(r, &flag, &st), "MPI_Request_get_status, again");
        CHECK(flag, "MPI_Request_get_status: flag false the second time");
        CHECK_RC(MPI_Wait(&r, &st2), "MPI_Wait after MPI_Request_get_status");
        if (conf_check_status(&st2, 0, 5, MPI_INT, 700, "MPI_Wait after MPI_Request_get_status"))
            conf_check_data(b, 700, 5, "MPI_Wait after MPI_Request_get_status");
    } else {
        MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        conf_fill(b, 700, 5);
        MPI_Send(b, 700, MPI_INT, 1, 5, MPI_COMM_WORLD);
    }

    /* A send. */
    if (me == 0) {
        conf_fill(b, 1000, 6);
        MPI_Isend(b, 1000, MPI_INT, 1, 6, MPI_COMM_WORLD, &r);
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            CHECK_RC(MPI_Request_get_status(r, &flag, &st), "MPI_Request_get_status on a send");
        CHECK(flag, "MPI_Request_get_status on a send: never complete");
        CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed a send");
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
    } else {
        MPI_Recv(b, 1000, MPI_INT, 0, 6, MPI_COMM_WORLD, &st);
        if (conf_check_status(&st, 0, 6, MPI_INT, 1000, "a send tested by MPI_Request_get_status"))
            conf_check_data(b, 1000, 6, "a send tested by MPI_Request_get_status");
    }

    /* MPI_REQUEST_NULL; a cancelled receive. */
    flag = 0;
    CHECK_RC(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st),
             "MPI_Request_get_status(MPI_REQUEST_NULL)");
    CHECK(flag, "MPI_Request_get_status(MPI_REQUEST_NULL): flag false");
    conf_check_empty(&st, "MPI_Request_get_status(MPI_REQUEST_NULL)");
    MPI_Irecv(b, 10, MPI_INT, 1 - me, 7, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
        MPI_Request_get_status(r, &flag, &st);
    int c = -1;
    MPI_Test_cancelled(&st, &c);
    CHECK(flag && c == 1, "MPI_Request_get_status of a cancelled receive: flag %d cancelled %d",
          flag, c);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &c);
    CHECK(c == 1, "MPI_Wait of a cancelled receive after MPI_Request_get_status: cancelled %d", c);
    return conf_finish();
}
