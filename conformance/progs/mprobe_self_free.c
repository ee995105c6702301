/*
 * mprobe_self_free: an MPI_Isend to oneself freed at once with
 * MPI_Request_free, then found with MPI_Mprobe and received with MPI_Mrecv
 * (and the same with MPI_Improbe and MPI_Imrecv), on MPI_COMM_WORLD, at 1
 * and 5000 ints.
 *
 * Checklist (MPICH test/mpi/pt2pt): mprobe_self_free.
 *
 * np: 1
 * mpich-bug: MPICH 4.0.2 over UCX aborts in MPI_Mrecv of a message to
 * oneself whose send request was freed (UCX assertion
 * rdesc->flags & UCP_RECV_DESC_FLAG_EAGER)
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "mprobe_self_free", 1);
    int me = conf_rank;
    int *sb = malloc(sizeof(int) * 5000), *rb = malloc(sizeof(int) * 5000);
    static const int sizes[] = {1, 5000};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        MPI_Request r;
        MPI_Message msg;
        MPI_Status st;
        char what[64];

        snprintf(what, sizeof(what), "MPI_Mprobe+MPI_Mrecv of %d ints", n);
        conf_fill(sb, n, 10 + k);
        CHECK_RC(MPI_Isend(sb, n, MPI_INT, me, 10 + k, MPI_COMM_WORLD, &r), "MPI_Isend");
        CHECK_RC(MPI_Request_free(&r), "MPI_Request_free");
        CHECK_RC(MPI_Mprobe(me, 10 + k, MPI_COMM_WORLD, &msg, &st), "MPI_Mprobe");
        conf_check_status(&st, me, 10 + k, MPI_INT, n, what);
        CHECK_RC(MPI_Mrecv(rb, n, MPI_INT, &msg, &st), "MPI_Mrecv");
        if (conf_check_status(&st, me, 10 + k, MPI_INT, n, what))
            conf_check_data(rb, n, 10 + k, what);

        snprintf(what, sizeof(what), "MPI_Improbe+MPI_Imrecv of %d ints", n);
        conf_fill(sb + 0, n, 20 + k);
        CHECK_RC(MPI_Isend(sb, n, MPI_INT, me, 20 + k, MPI_COMM_WORLD, &r), "MPI_Isend");
        CHECK_RC(MPI_Request_free(&r), "MPI_Request_free");
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            CHECK_RC(MPI_Improbe(me, 20 + k, MPI_COMM_WORLD, &flag, &msg, &st), "MPI_Improbe");
        if (!CHECK(flag, "%s: never found", what))
            continue;
        CHECK_RC(MPI_Imrecv(rb, n, MPI_INT, &msg, &r), "MPI_Imrecv");
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        if (conf_check_status(&st, me, 20 + k, MPI_INT, n, what))
            conf_check_data(rb, n, 20 + k, what);
    }
    free(sb);
    free(rb);
    return conf_finish();
}
