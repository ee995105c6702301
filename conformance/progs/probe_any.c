/*
 * probe_any: the probe family with MPI_ANY_SOURCE and MPI_ANY_TAG, two
 * senders. MPI_Probe(ANY, ANY) then MPI_Recv of what it names;
 * MPI_Iprobe(ANY_SOURCE, tag); MPI_Iprobe(source, ANY_TAG); MPI_Mprobe and
 * MPI_Improbe with both wildcards, received with MPI_Mrecv/MPI_Imrecv;
 * every message received exactly once, with its real source and tag.
 *
 * Checklist (MPICH test/mpi/pt2pt): mprobe, probe_unexp (wildcards).
 *
 * np: 3
 * uses: any_src any_tag
 */
#include "conf.h"

#define PER 6

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "probe_any", 3);
    int me = conf_rank;
    int buf[3000];
    if (me == 1 || me == 2) {
        /* Four rounds of PER messages: tag t, t+1..., sizes vary. */
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < PER; i++) {
                int n = 1 + (i * 997 + me * 31) % 3000, tag = round * 100 + i;
                conf_fill(buf, n, tag * 10 + me);
                MPI_Send(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD);
            }
            MPI_Barrier(MPI_COMM_WORLD); /* one round at a time */
        }
    } else if (me == 0) {
        for (int round = 0; round < 4; round++) {
            int seen[3][PER] = {{0}};
            for (int got = 0; got < 2 * PER; got++) {
                MPI_Status st;
                MPI_Message m;
                MPI_Request r;
                int flag = 0, src, tag, n;
                double t0 = MPI_Wtime();
                switch (round) {
                case 0:
                    CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
                             "MPI_Probe");
                    break;
                case 1:
                    /* A tag first, from anyone; then anything from rank 2. */
                    while (!flag && MPI_Wtime() - t0 < CONF_HANG_S) {
                        MPI_Iprobe(MPI_ANY_SOURCE, 100 + got % PER, MPI_COMM_WORLD, &flag, &st);
                        if (!flag)
                            MPI_Iprobe(2, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                        if (!flag)
                            MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                    }
                    if (!flag)
                        conf_abort("MPI_Iprobe with wildcards never found a message");
                    break;
                case 2:
                    CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st),
                             "MPI_Mprobe");
                    break;
                default:
                    while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
                    if (!flag)
                        conf_abort("MPI_Improbe with wildcards never found a message");
                    break;
                }
                src = st.MPI_SOURCE;
                tag = st.MPI_TAG;
                MPI_Get_count(&st, MPI_INT, &n);
                if (!CHECK((src == 1 || src == 2) && tag >= round * 100 && tag < round * 100 + PER,
                           "round %d: a probe named source %d tag %d", round, src, tag))
                    conf_abort("cannot go on after a wrong probe");
                int i = tag - round * 100, want = 1 + (i * 997 + src * 31) % 3000;
                CHECK(n == want, "round %d: probe of %d/%d: count %d, want %d", round, src, tag, n,
                      want);
                CHECK(!seen[src][i], "round %d: message %d/%d found twice", round, src, tag);
                seen[src][i] = 1;
                if (round < 2)
                    MPI_Recv(buf, 3000, MPI_INT, src, tag, MPI_COMM_WORLD, &st);
                else if (round == 2)
                    MPI_Mrecv(buf, 3000, MPI_INT, &m, &st);
                else {
                    MPI_Imrecv(buf, 3000, MPI_INT, &m, &r);
                    MPI_Wait(&r, &st);
                }
                if (conf_check_status(&st, src, tag, MPI_INT, want,
                                      "receive after a wildcard probe"))
                    conf_check_data(buf, want, tag * 10 + src, "receive after a wildcard probe");
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return conf_finish();
}
