/*
 * intercomm: point-to-point on inter-communicators (MPI 6.6: ranks name
 * processes of the remote group). The world split into two halves joined
 * by MPI_Intercomm_create; between partners (rank i of each side):
 * MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv, MPI_Sendrecv, MPI_Probe and
 * MPI_Iprobe, MPI_Mprobe/MPI_Mrecv, a persistent pair; MPI_Comm_dup of the
 * inter-communicator; and MPI_Intercomm_merge, with a ring on the merged
 * intra-communicator.
 *
 * Checklist (MPICH test/mpi/pt2pt): icsend, icprobe.
 *
 * np: 4
 */
#include "conf.h"

static void partners(MPI_Comm ic, int seed, const char *name)
{
    int me, rsize;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_remote_size(ic, &rsize);
    int p = me % rsize;
    int sb[500], rb[500];
    MPI_Status st;
    MPI_Request r[2];
    char what[80];
    int flag;

    snprintf(what, sizeof(what), "%s: MPI_Sendrecv", name);
    conf_fill(sb, 500, seed + me);
    CHECK_RC(MPI_Sendrecv(sb, 500, MPI_INT, p, 1, rb, 500, MPI_INT, p, 1, ic, &st), what);
    if (conf_check_status(&st, p, 1, MPI_INT, 500, what))
        conf_check_data(rb, 500, seed + p, what);

    snprintf(what, sizeof(what), "%s: MPI_Isend/MPI_Irecv", name);
    conf_fill(sb, 500, seed + 10 + me);
    MPI_Irecv(rb, 500, MPI_INT, p, 2, ic, &r[0]);
    MPI_Isend(sb, 500, MPI_INT, p, 2, ic, &r[1]);
    MPI_Status sts[2];
    CHECK_RC(MPI_Waitall(2, r, sts), what);
    if (conf_check_status(&sts[0], p, 2, MPI_INT, 500, what))
        conf_check_data(rb, 500, seed + 10 + p, what);

    /* Blocking and probes: the low group sends first. */
    int low;
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &low);
    low = low < conf_size / 2;
    snprintf(what, sizeof(what), "%s: probes and MPI_Recv", name);
    if (low) {
        conf_fill(sb, 500, seed + 20);
        MPI_Send(sb, 500, MPI_INT, p, 3, ic);
        conf_fill(sb, 200, seed + 21);
        MPI_Send(sb, 200, MPI_INT, p, 4, ic);
        conf_fill(sb, 300, seed + 22);
        MPI_Send(sb, 300, MPI_INT, p, 5, ic);
    } else {
        CHECK_RC(MPI_Probe(p, 3, ic, &st), what);
        conf_check_status(&st, p, 3, MPI_INT, 500, what);
        MPI_Recv(rb, 500, MPI_INT, p, 3, ic, &st);
        if (conf_check_status(&st, p, 3, MPI_INT, 500, what))
            conf_check_data(rb, 500, seed + 20, what);
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
            MPI_Iprobe(p, 4, ic, &flag, &st);
        if (CHECK(flag, "%s: MPI_Iprobe never found it", what))
            conf_check_status(&st, p, 4, MPI_INT, 200, what);
        MPI_Recv(rb, 200, MPI_INT, p, 4, ic, &st);
        conf_check_data(rb, 200, seed + 21, what);
        MPI_Message m;
        CHECK_RC(MPI_Mprobe(p, 5, ic, &m, &st), what);
        conf_check_status(&st, p, 5, MPI_INT, 300, what);
        CHECK_RC(MPI_Mrecv(rb, 300, MPI_INT, &m, &st), what);
        if (conf_check_status(&st, p, 5, MPI_INT, 300, what))
            conf_check_data(rb, 300, seed + 22, what);
    }

    snprintf(what, sizeof(what), "%s: persistent", name);
    MPI_Recv_init(rb, 500, MPI_INT, p, 6, ic, &r[0]);
    MPI_Send_init(sb, 500, MPI_INT, p, 6, ic, &r[1]);
    for (int it = 0; it < 3; it++) {
        conf_fill(sb, 500, seed + 30 + it * 10 + me);
        MPI_Startall(2, r);
        CHECK_RC(MPI_Waitall(2, r, sts), what);
        if (conf_check_status(&sts[0], p, 6, MPI_INT, 500, what))
            conf_check_data(rb, 500, seed + 30 + it * 10 + p, what);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "intercomm", 4);
    int me = conf_rank, half = conf_size / 2, low = me < half;
    MPI_Comm local, ic, icdup, merged;
    MPI_Comm_split(MPI_COMM_WORLD, low, me, &local);
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 77, &ic),
             "MPI_Intercomm_create");
    int flag = 0, rsize = 0;
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_remote_size(ic, &rsize);
    CHECK(flag && rsize == half, "MPI_Intercomm_create: inter %d, remote size %d", flag, rsize);

    partners(ic, 1000, "inter-communicator");
    MPI_Comm_dup(ic, &icdup);
    partners(icdup, 2000, "a duplicate of the inter-communicator");

    MPI_Intercomm_merge(ic, !low, &merged);
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK(ms == conf_size && mr == me, "MPI_Intercomm_merge: rank %d of %d", mr, ms);
    int right = (mr + 1) % ms, left = (mr + ms - 1) % ms, sb[100], rb[100];
    MPI_Status st;
    conf_fill(sb, 100, 3000 + mr);
    CHECK_RC(MPI_Sendrecv(sb, 100, MPI_INT, right, 7, rb, 100, MPI_INT, left, 7, merged, &st),
             "merged ring");
    if (conf_check_status(&st, left, 7, MPI_INT, 100, "merged ring"))
        conf_check_data(rb, 100, 3000 + left, "merged ring");

    MPI_Comm_free(&merged);
    MPI_Comm_free(&icdup);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    return conf_finish();
}
