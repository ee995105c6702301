/*
 * procnull_status: the status of nonblocking and persistent receives from
 * MPI_PROC_NULL (MPI 3.11: source MPI_PROC_NULL, tag MPI_ANY_TAG, count
 * 0, whichever call completes them): MPI_Irecv completed by MPI_Wait,
 * MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Testsome; MPI_Recv_init
 * started and completed the same ways; MPI_Request_get_status.
 *
 * Checklist (MPICH test/mpi/pt2pt): recvnull.
 *
 * np: 1
 * mpich-bug: MPICH 4.0.2 completes an MPI_Irecv from MPI_PROC_NULL with
 * source 0 and tag 0, and a started MPI_Recv_init from it with an empty
 * status (MPI_ANY_SOURCE); its blocking MPI_Recv is right
 */
#include "conf.h"

/* post: a fresh request receiving from MPI_PROC_NULL; persistent or not. */
static void post(MPI_Request *r, int persistent, int *buf)
{
    if (persistent) {
        MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, r);
        MPI_Start(r);
    } else {
        MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, r);
    }
}

static void done(MPI_Request *r)
{
    if (*r != MPI_REQUEST_NULL)
        MPI_Request_free(r);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "procnull_status", 1);
    int buf[4];
    for (int pers = 0; pers < 2; pers++) {
        const char *kind = pers ? "MPI_Recv_init from MPI_PROC_NULL" : "MPI_Irecv from MPI_PROC_NULL";
        char what[96];
        MPI_Request r, rs[2];
        MPI_Status st, sts[2];
        int flag, idx, out, idxs[2];

        post(&r, pers, buf);
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        snprintf(what, sizeof(what), "%s, MPI_Wait", kind);
        conf_check_procnull(&st, what);
        done(&r);

        post(&r, pers, buf);
        conf_wait_test(&r, &st, kind);
        snprintf(what, sizeof(what), "%s, MPI_Test", kind);
        conf_check_procnull(&st, what);
        done(&r);

        post(&r, pers, buf);
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            MPI_Request_get_status(r, &flag, &st);
        snprintf(what, sizeof(what), "%s, MPI_Request_get_status", kind);
        if (CHECK(flag, "%s never completed", what))
            conf_check_procnull(&st, what);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        done(&r);

        post(&rs[0], pers, buf);
        post(&rs[1], pers, buf);
        CHECK_RC(MPI_Waitall(2, rs, sts), "MPI_Waitall");
        snprintf(what, sizeof(what), "%s, MPI_Waitall", kind);
        conf_check_procnull(&sts[0], what);
        conf_check_procnull(&sts[1], what);
        done(&rs[0]);
        done(&rs[1]);

        post(&rs[0], pers, buf);
        rs[1] = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Waitany(2, rs, &idx, &st), "MPI_Waitany");
        snprintf(what, sizeof(what), "%s, MPI_Waitany", kind);
        CHECK(idx == 0, "%s: index %d", what, idx);
        conf_check_procnull(&st, what);
        done(&rs[0]);

        post(&rs[0], pers, buf);
        rs[1] = MPI_REQUEST_NULL;
        out = 0;
        t0 = MPI_Wtime();
        while (out == 0 && MPI_Wtime() - t0 < CONF_HANG_S)
            CHECK_RC(MPI_Testsome(2, rs, &out, idxs, sts), "MPI_Testsome");
        snprintf(what, sizeof(what), "%s, MPI_Testsome", kind);
        if (CHECK(out == 1 && idxs[0] == 0, "%s: outcount %d", what, out))
            conf_check_procnull(&sts[0], what);
        done(&rs[0]);
    }
    return conf_finish();
}
