/*
 * mprobe_error: the matched probes and receives leave MPI_ERROR as the
 * caller set it (MPI 3.2.5, as for every single-completion call):
 * MPI_Mprobe, MPI_Improbe, MPI_Mrecv, and MPI_Wait on an MPI_Imrecv, also
 * for MPI_MESSAGE_NO_PROC.
 *
 * Checklist (MPICH test/mpi/pt2pt): mprobe.
 *
 * np: 2
 */
#include "conf.h"

#define MARK 4321

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "mprobe_error", 2);
    int me = conf_rank, peer = 1 - me;
    int sb[100], rb[100];
    conf_fill(sb, 100, me);
    for (int pn = 0; pn < 2; pn++) {
        int p = pn ? MPI_PROC_NULL : peer;
        const char *sfx = pn ? " (MPI_PROC_NULL)" : "";
        MPI_Request s0, r;
        MPI_Message m;
        MPI_Status st;
        int flag = 0;

        MPI_Isend(sb, 100, MPI_INT, p, 1, MPI_COMM_WORLD, &s0);
        st.MPI_ERROR = MARK;
        CHECK_RC(MPI_Mprobe(p, 1, MPI_COMM_WORLD, &m, &st), "MPI_Mprobe");
        CHECK(st.MPI_ERROR == MARK, "MPI_Mprobe%s wrote MPI_ERROR (%d)", sfx, st.MPI_ERROR);
        st.MPI_ERROR = MARK;
        CHECK_RC(MPI_Mrecv(rb, 100, MPI_INT, &m, &st), "MPI_Mrecv");
        CHECK(st.MPI_ERROR == MARK, "MPI_Mrecv%s wrote MPI_ERROR (%d)", sfx, st.MPI_ERROR);
        MPI_Wait(&s0, MPI_STATUS_IGNORE);

        MPI_Isend(sb, 100, MPI_INT, p, 2, MPI_COMM_WORLD, &s0);
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S) {
            st.MPI_ERROR = MARK;
            CHECK_RC(MPI_Improbe(p, 2, MPI_COMM_WORLD, &flag, &m, &st), "MPI_Improbe");
        }
        CHECK(st.MPI_ERROR == MARK, "MPI_Improbe%s wrote MPI_ERROR (%d)", sfx, st.MPI_ERROR);
        MPI_Imrecv(rb, 100, MPI_INT, &m, &r);
        st.MPI_ERROR = MARK;
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait on an MPI_Imrecv");
        CHECK(st.MPI_ERROR == MARK, "MPI_Wait on an MPI_Imrecv%s wrote MPI_ERROR (%d)", sfx,
              st.MPI_ERROR);
        MPI_Wait(&s0, MPI_STATUS_IGNORE);
    }
    return conf_finish();
}
