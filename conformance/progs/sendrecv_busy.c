/*
 * sendrecv_busy: MPI_Sendrecv and MPI_Sendrecv_replace while a receive on
 * MPI_COMM_WORLD is still pending, on communicators of other kinds:
 * MPI_COMM_SELF, a duplicate of it, and an inter-communicator joining
 * the two ranks. The status must describe the receive (source, tag,
 * count) and the data arrive, as when nothing is pending.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendrecv1, icsend (with a receive
 * outstanding elsewhere).
 *
 * np: 2
 */
#include "conf.h"

#define TAG_LATE 77

/* Exchanges with rank peer of comm, which is world rank from. */
static void exchange(MPI_Comm comm, int peer, int from, const char *name)
{
    int sb[50], rb[50];
    MPI_Status st;
    char what[96];
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof(what), "MPI_Sendrecv on %s, round %d", name, i);
        conf_fill(sb, 50, 10 * i + conf_rank);
        CHECK_RC(MPI_Sendrecv(sb, 50, MPI_INT, peer, 5 + i, rb, 50, MPI_INT, peer, 5 + i, comm,
                              &st), what);
        if (conf_check_status(&st, peer, 5 + i, MPI_INT, 50, what))
            conf_check_data(rb, 50, 10 * i + from, what);
    }
    snprintf(what, sizeof(what), "MPI_Sendrecv_replace on %s", name);
    conf_fill(rb, 50, 40 + conf_rank);
    CHECK_RC(MPI_Sendrecv_replace(rb, 50, MPI_INT, peer, 9, peer, 9, comm, &st), what);
    if (conf_check_status(&st, peer, 9, MPI_INT, 50, what))
        conf_check_data(rb, 50, 40 + from, what);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "sendrecv_busy", 2);
    int me = conf_rank, other = 1 - me, late = 0;
    MPI_Request r;
    /* Pending until the end: the peer sends it last. */
    MPI_Irecv(&late, 1, MPI_INT, other, TAG_LATE, MPI_COMM_WORLD, &r);

    exchange(MPI_COMM_SELF, 0, me, "MPI_COMM_SELF");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    exchange(dup, 0, me, "a duplicate of MPI_COMM_SELF");
    MPI_Comm_free(&dup);
    MPI_Comm ic;
    MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, other, 1, &ic);
    exchange(ic, 0, other, "an inter-communicator");
    MPI_Comm_free(&ic);

    int v = 1234 + me;
    MPI_Send(&v, 1, MPI_INT, other, TAG_LATE, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(late == 1234 + other, "the pending receive got %d", late);
    return conf_finish();
}
