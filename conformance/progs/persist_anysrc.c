/*
 * persist_anysrc: a persistent receive from MPI_ANY_SOURCE, started again
 * and again while two senders send: each start receives one message,
 * every message once, with its real source; messages queued before the
 * starts (unexpected) and after.
 *
 * Checklist (MPICH test/mpi/pt2pt): precv_anysrc, precv_anysrc_exp.
 *
 * np: 3
 * uses: any_src
 */
#include "conf.h"

#define PER 100

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "persist_anysrc", 3);
    int me = conf_rank;
    int b[2];
    for (int round = 0; round < 2; round++) {
        if (me > 0) {
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < PER; i++) {
                b[0] = me;
                b[1] = i;
                MPI_Send(b, 2, MPI_INT, 0, 5, MPI_COMM_WORLD);
            }
            if (round == 0)
                MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_Request p;
            MPI_Status st;
            int next[3] = {0, 0, 0};
            if (round == 0)
                MPI_Barrier(MPI_COMM_WORLD); /* every message already sent */
            MPI_Recv_init(b, 2, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &p);
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            for (int k = 0; k < 2 * PER; k++) {
                CHECK_RC(MPI_Start(&p), "MPI_Start");
                CHECK_RC(MPI_Wait(&p, &st), "MPI_Wait");
                int s = st.MPI_SOURCE;
                if (!CHECK(s == 1 || s == 2, "round %d: source %d", round, s))
                    break;
                CHECK(b[0] == s && b[1] == next[s], "round %d: from %d got message %d/%d, due %d",
                      round, s,
                      b[0], b[1], next[s]);
                next[s] = b[1] + 1;
            }
            MPI_Request_free(&p);
        }
    }
    return conf_finish();
}
