/*
 * large_tag: tags up to MPI_TAG_UB. The attribute exists and is at least
 * 32767 (MPI 8.1.2), on MPI_COMM_WORLD and on a duplicate; messages with
 * tag MPI_TAG_UB, MPI_TAG_UB-1, MPI_TAG_UB/2, powers of two and 0, posted
 * in one order and received in another, each receive getting its tag's
 * message.
 *
 * Checklist (MPICH test/mpi/pt2pt): large_tag.
 *
 * np: 2
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "large_tag", 2);
    int me = conf_rank;
    int *ub = NULL, flag = 0, *ub2 = NULL, flag2 = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (!CHECK(flag && ub && *ub >= 32767, "MPI_TAG_UB: flag %d value %d", flag,
               flag && ub ? *ub : -1))
        return conf_finish();
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_attr(dup, MPI_TAG_UB, &ub2, &flag2);
    CHECK(flag2 && ub2 && *ub2 == *ub, "MPI_TAG_UB of a duplicate differs");

    int tags[40], nt = 0;
    tags[nt++] = *ub;
    tags[nt++] = *ub - 1;
    tags[nt++] = *ub / 2;
    tags[nt++] = 0;
    for (long p = 1; p <= *ub && nt < 40; p *= 2) {
        int seen = 0;
        for (int i = 0; i < nt; i++)
            seen |= tags[i] == p;
        if (!seen) /* one message per tag: they are received out of order */
            tags[nt++] = (int)p;
    }
    for (int c = 0; c < 2; c++) {
        MPI_Comm comm = c ? dup : MPI_COMM_WORLD;
        if (me == 0) {
            for (int i = 0; i < nt; i++) {
                int b[4];
                conf_fill(b, 4, c * 100 + i);
                CHECK_RC(MPI_Send(b, 4, MPI_INT, 1, tags[i], comm), "MPI_Send with a large tag");
            }
        } else {
            MPI_Request r[40];
            MPI_Status st[40];
            int b[40][4];
            for (int i = nt - 1; i >= 0; i--)
                CHECK_RC(MPI_Irecv(b[i], 4, MPI_INT, 0, tags[i], comm, &r[i]),
                         "MPI_Irecv with a large tag");
            CHECK_RC(MPI_Waitall(nt, r, st), "MPI_Waitall");
            for (int i = 0; i < nt; i++) {
                char what[48];
                snprintf(what, sizeof(what), "tag %d (MPI_TAG_UB %d)", tags[i], *ub);
                if (conf_check_status(&st[i], 0, tags[i], MPI_INT, 4, what))
                    conf_check_data(b[i], 4, c * 100 + i, what);
            }
        }
    }
    MPI_Comm_free(&dup);
    return conf_finish();
}
