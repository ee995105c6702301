/*
 * anytag: receives with MPI_ANY_TAG from a named source (what
 * wildcard_used=any_tag_same_tag allows). The real tag in the status;
 * messages with different tags from one sender arrive in the order sent;
 * MPI_Irecv(ANY_TAG) posted before the sends; MPI_Probe(source,
 * ANY_TAG) and MPI_Mprobe/MPI_Improbe with it; a persistent receive with
 * MPI_ANY_TAG.
 *
 * Checklist (MPICH test/mpi/pt2pt): anyall (tags), mprobe (ANY_TAG).
 *
 * np: 2
 * uses: any_tag
 */
#include "conf.h"

static const int tags[] = {5, 3, 9, 0, 17, 5, 1000, 2};
#define NT 8

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "anytag", 2);
    int me = conf_rank;
    int buf[100];
    for (int round = 0; round < 5; round++) {
        if (me == 0) {
            for (int i = 0; i < NT; i++) {
                conf_fill(buf, 10 + i, round * 100 + i);
                MPI_Send(buf, 10 + i, MPI_INT, 1, tags[i], MPI_COMM_WORLD);
            }
        } else {
            MPI_Request r[NT];
            MPI_Status st[NT];
            MPI_Message m;
            int flag, rb[NT][20], pb[20];
            if (round == 1) /* posted before the sends (no handshake: may or may not be) */
                for (int i = 0; i < NT; i++)
                    MPI_Irecv(rb[i], 20, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r[i]);
            if (round == 4)
                MPI_Recv_init(pb, 20, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
            for (int i = 0; i < NT; i++) {
                switch (round) {
                case 0:
                    CHECK_RC(MPI_Recv(rb[i], 20, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st[i]),
                             "MPI_Recv");
                    break;
                case 1:
                    CHECK_RC(MPI_Wait(&r[i], &st[i]), "MPI_Wait");
                    break;
                case 2:
                    CHECK_RC(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st[i]), "MPI_Probe");
                    CHECK(st[i].MPI_TAG == tags[i], "MPI_Probe(ANY_TAG): tag %d, want %d",
                          st[i].MPI_TAG, tags[i]);
                    MPI_Recv(rb[i], 20, MPI_INT, 0, st[i].MPI_TAG, MPI_COMM_WORLD, &st[i]);
                    break;
                case 3:
                    if (i % 2) {
                        CHECK_RC(MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st[i]),
                                 "MPI_Mprobe");
                    } else {
                        flag = 0;
                        double t0 = MPI_Wtime();
                        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                            MPI_Improbe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st[i]);
                        if (!flag)
                            conf_abort("MPI_Improbe(ANY_TAG) never found a message");
                    }
                    CHECK(st[i].MPI_TAG == tags[i], "matched probe(ANY_TAG): tag %d, want %d",
                          st[i].MPI_TAG,
                          tags[i]);
                    MPI_Mrecv(rb[i], 20, MPI_INT, &m, &st[i]);
                    break;
                default:
                    MPI_Start(&r[0]);
                    MPI_Wait(&r[0], &st[i]);
                    memcpy(rb[i], pb, sizeof(pb));
                    break;
                }
            }
            if (round == 4)
                MPI_Request_free(&r[0]);
            for (int i = 0; i < NT; i++) {
                char what[48];
                snprintf(what, sizeof(what), "round %d message %d", round, i);
                if (conf_check_status(&st[i], 0, tags[i], MPI_INT, 10 + i, what))
                    conf_check_data(rb[i], 10 + i, round * 100 + i, what);
            }
        }
    }
    return conf_finish();
}
