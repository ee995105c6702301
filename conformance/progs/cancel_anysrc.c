/*
 * cancel_anysrc: MPI_Cancel of receives from MPI_ANY_SOURCE (with a named
 * tag and with MPI_ANY_TAG), blocking until cancelled by MPI_Wait; the
 * messages sent afterwards go to new wildcard receives.
 *
 * Checklist (MPICH test/mpi/pt2pt): cancelanysrc.
 *
 * np: 3
 * uses: any_src any_tag
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "cancel_anysrc", 3);
    int me = conf_rank;
    int b[100];
    if (me == 0) {
        for (int k = 0; k < 2; k++) {
            MPI_Request r;
            MPI_Status st;
            int f = -1;
            MPI_Irecv(b, 100, MPI_INT, MPI_ANY_SOURCE, k ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &r);
            CHECK_RC(MPI_Cancel(&r), "MPI_Cancel");
            CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
            MPI_Test_cancelled(&st, &f);
            CHECK(f == 1, "MPI_ANY_SOURCE receive (%s): MPI_Test_cancelled %d",
                  k ? "MPI_ANY_TAG" : "tag 5", f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me > 0) {
        conf_fill(b, 100, me);
        MPI_Send(b, 100, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else {
        int seen = 0;
        for (int k = 0; k < 2; k++) {
            MPI_Status st;
            CHECK_RC(MPI_Recv(b, 100, MPI_INT, MPI_ANY_SOURCE, k ? MPI_ANY_TAG : 5, MPI_COMM_WORLD,
                              &st),
                     "MPI_Recv");
            int s = st.MPI_SOURCE;
            if (CHECK((s == 1 || s == 2) && !(seen & 1 << s), "source %d", s)) {
                seen |= 1 << s;
                if (conf_check_status(&st, s, 5, MPI_INT, 100, "after cancelled wildcard receives"))
                    conf_check_data(b, 100, s, "after cancelled wildcard receives");
            }
        }
    }
    return conf_finish();
}
