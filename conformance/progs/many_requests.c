/*
 * many_requests: thousands of operations outstanding at once (more than
 * the library's default 1024 post cells per process). Rank 0 posts 3000
 * MPI_Isend to each of ranks 1 and 2 before either posts a receive (the
 * messages wait as unexpected); then ranks 1 and 2 post 3000 MPI_Irecv
 * each and complete them with MPI_Waitall (rank 1) or an MPI_Testsome
 * loop (rank 2); then the same with the receives posted first.
 *
 * Checklist (MPICH test/mpi/pt2pt): many_isend, sendflood.
 *
 * np: 3
 * timeout: 180
 */
#include "conf.h"

#define NR 3000
#define LEN 8

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "many_requests", 3);
    int me = conf_rank;
    MPI_Request *rs = malloc(sizeof(MPI_Request) * 2 * NR);
    int *buf = malloc(sizeof(int) * 2 * NR * LEN);

    for (int round = 0; round < 2; round++) {
        if (me == 0) {
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD); /* the receives are posted */
            for (int i = 0; i < 2 * NR; i++) {
                int d = 1 + i % 2;
                conf_fill(buf + i * LEN, LEN, round * 100000 + i);
                CHECK_RC(MPI_Isend(buf + i * LEN, LEN, MPI_INT, d, i / 2 % 7, MPI_COMM_WORLD,
                                   &rs[i]), "MPI_Isend");
            }
            if (round == 0)
                MPI_Barrier(MPI_COMM_WORLD); /* all posted before any receive */
            CHECK_RC(MPI_Waitall(2 * NR, rs, MPI_STATUSES_IGNORE), "MPI_Waitall of the sends");
        } else {
            MPI_Status *sts = malloc(sizeof(MPI_Status) * NR);
            if (round == 0)
                MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < NR; i++)
                CHECK_RC(MPI_Irecv(buf + i * LEN, LEN, MPI_INT, 0, i % 7, MPI_COMM_WORLD, &rs[i]),
                         "MPI_Irecv");
            if (round == 1)
                MPI_Barrier(MPI_COMM_WORLD);
            if (me == 1) {
                CHECK_RC(MPI_Waitall(NR, rs, sts), "MPI_Waitall of the receives");
            } else {
                int done = 0, out, *idx = malloc(sizeof(int) * NR);
                MPI_Status *tmp = malloc(sizeof(MPI_Status) * NR);
                double t0 = MPI_Wtime();
                while (done < NR && MPI_Wtime() - t0 < CONF_HANG_S) {
                    CHECK_RC(MPI_Testsome(NR, rs, &out, idx, tmp), "MPI_Testsome");
                    if (out == MPI_UNDEFINED)
                        break;
                    for (int k = 0; k < out; k++)
                        sts[idx[k]] = tmp[k];
                    done += out;
                }
                CHECK(done == NR, "MPI_Testsome: %d of %d completed", done, NR);
                free(idx);
                free(tmp);
            }
            for (int i = 0; i < NR; i++) {
                int j = 2 * i + me - 1; /* the sender's index */
                char what[48];
                snprintf(what, sizeof(what), "round %d receive %d", round, i);
                if (!conf_check_status(&sts[i], 0, i % 7, MPI_INT, LEN, what) ||
                    !conf_check_data(buf + i * LEN, LEN, round * 100000 + j, what))
                    break;
            }
            free(sts);
        }
    }
    free(rs);
    free(buf);
    return conf_finish();
}
