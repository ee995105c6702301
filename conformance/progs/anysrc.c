/*
 * anysrc: receives from MPI_ANY_SOURCE, with MPI_ANY_TAG and with a named
 * tag, blocking and nonblocking, from 3 senders: every message arrives
 * once with its data, its real source and tag; messages from one sender
 * arrive in the order it sent them; MPI_Waitany over receives from
 * MPI_ANY_SOURCE (each message once); large messages (1 MiB) from MPI_ANY_SOURCE.
 *
 * Checklist (MPICH test/mpi/pt2pt): anyall, recv_any, irecv_any,
 * huge_anysrc.
 *
 * np: 4
 * uses: any_src any_tag
 */
#include "conf.h"

#define PER 50

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "anysrc", 4);
    int me = conf_rank, ns = conf_size - 1;
    int buf[64];

    /* Round 0: MPI_Recv(ANY_SOURCE, ANY_TAG); round 1: MPI_Irecv(ANY_SOURCE,
     * tag 7) + MPI_Wait; each sender's messages carry a sequence number. */
    for (int round = 0; round < 2; round++) {
        if (me > 0) {
            for (int i = 0; i < PER; i++) {
                conf_fill(buf, 1 + i % 64, me * 1000 + i);
                buf[0] = i;
                MPI_Send(buf, 1 + i % 64, MPI_INT, 0, round ? 7 : i % 5, MPI_COMM_WORLD);
            }
        } else {
            int next[8] = {0};
            for (int k = 0; k < ns * PER; k++) {
                MPI_Status st;
                MPI_Request r;
                if (round == 0) {
                    CHECK_RC(MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                                      &st),
                             "MPI_Recv");
                } else {
                    MPI_Irecv(buf, 64, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r);
                    CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
                }
                int s = st.MPI_SOURCE, n = -1;
                MPI_Get_count(&st, MPI_INT, &n);
                if (!CHECK(s >= 1 && s <= ns, "round %d: source %d", round, s))
                    break;
                int i = buf[0];
                CHECK(i == next[s], "round %d: from %d message %d arrived when %d was due", round,
                      s, i,
                      next[s]);
                next[s] = i + 1;
                CHECK(st.MPI_TAG == (round ? 7 : i % 5), "round %d: from %d message %d: tag %d",
                      round, s, i,
                      st.MPI_TAG);
                CHECK(n == 1 + i % 64, "round %d: from %d message %d: count %d", round, s, i, n);
                for (int j = 1; j < n; j++)
                    if (!CHECK(buf[j] == conf_val(s * 1000 + i, j), "round %d: data of %d/%d",
                               round, s, i))
                        break;
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* MPI_Waitany over one MPI_ANY_SOURCE receive per sender, reposted. */
    if (me > 0) {
        for (int i = 0; i < 20; i++) {
            buf[0] = me;
            buf[1] = i;
            MPI_Send(buf, 2, MPI_INT, 0, 9, MPI_COMM_WORLD);
        }
    } else {
        MPI_Request rs[8];
        int bufs[8][2], seen[8][20] = {{0}};
        for (int j = 0; j < ns; j++)
            MPI_Irecv(bufs[j], 2, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &rs[j]);
        for (int k = 0; k < ns * 20; k++) {
            int idx;
            MPI_Status st;
            CHECK_RC(MPI_Waitany(ns, rs, &idx, &st), "MPI_Waitany");
            int s = st.MPI_SOURCE;
            CHECK(s == bufs[idx][0], "MPI_Waitany: status source %d, message from %d", s,
                  bufs[idx][0]);
            /* Completion order among several receives is not the matching
             * order: each message once is what MPI promises here. */
            int i = bufs[idx][1];
            if (CHECK(s >= 1 && s <= ns && i >= 0 && i < 20, "MPI_Waitany: message %d from %d", i,
                      s))
                CHECK(!seen[s][i]++, "MPI_Waitany: message %d from %d received twice", i, s);
            if (k + ns < ns * 20)
                MPI_Irecv(bufs[idx], 2, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &rs[idx]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1 MiB from every sender into MPI_ANY_SOURCE receives posted first. */
    int big = 1 << 18;
    int *b = malloc(sizeof(int) * (size_t)big * 3);
    if (me > 0) {
        conf_fill(b, big, 500 + me);
        MPI_Send(b, big, MPI_INT, 0, 11, MPI_COMM_WORLD);
    } else {
        MPI_Request rs[3];
        MPI_Status sts[3];
        for (int j = 0; j < ns; j++)
            MPI_Irecv(b + (size_t)j * big, big, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD,
                      &rs[j]);
        CHECK_RC(MPI_Waitall(ns, rs, sts), "MPI_Waitall");
        int seen = 0;
        for (int j = 0; j < ns; j++) {
            int s = sts[j].MPI_SOURCE;
            if (CHECK(s >= 1 && s <= ns && !(seen & 1 << s), "1 MiB: source %d", s)) {
                seen |= 1 << s;
                conf_check_data(b + (size_t)j * big, big, 500 + s, "1 MiB from MPI_ANY_SOURCE");
            }
        }
    }
    free(b);
    return conf_finish();
}
