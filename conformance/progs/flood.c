/*
 * flood: many processes, many messages. Ranks 1..3 each send 1000
 * messages of varying size (up to 40000 ints) to rank 0 as fast as they
 * can, which receives them by source in turns (no wildcards); then every
 * rank sends to every other rank (MPI_Send to higher ranks first, lower
 * ones after, with receives posted in advance) ten times.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendflood, sendall, pingping.
 *
 * np: 4
 * timeout: 180
 */
#include "conf.h"

#define NFLOOD 1000

static int size_of(int i) { return i % 50 == 7 ? 40000 : 1 + (i * 37) % 500; }

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "flood", 4);
    int me = conf_rank, n = conf_size;
    int *b = malloc(sizeof(int) * 40000);

    if (me > 0) {
        for (int i = 0; i < NFLOOD; i++) {
            int k = size_of(i);
            conf_fill(b, k, me * 10000 + i);
            MPI_Send(b, k, MPI_INT, 0, 1, MPI_COMM_WORLD);
        }
    } else {
        MPI_Status st;
        for (int i = 0; i < NFLOOD; i++)
            for (int s = 1; s < n; s++) {
                char what[48];
                snprintf(what, sizeof(what), "flood message %d from %d", i, s);
                MPI_Recv(b, 40000, MPI_INT, s, 1, MPI_COMM_WORLD, &st);
                if (conf_check_status(&st, s, 1, MPI_INT, size_of(i), what))
                    conf_check_data(b, size_of(i), s * 10000 + i, what);
            }
    }

    /* All to all by point-to-point, ten times. */
    int *in = malloc(sizeof(int) * 64 * (size_t)n), out[64];
    MPI_Request *rs = malloc(sizeof(MPI_Request) * (size_t)n);
    for (int it = 0; it < 10; it++) {
        int nr = 0;
        for (int p = 0; p < n; p++)
            if (p != me)
                MPI_Irecv(in + 64 * p, 64, MPI_INT, p, 2, MPI_COMM_WORLD, &rs[nr++]);
        conf_fill(out, 64, it * 100 + me);
        for (int p = me + 1; p < n; p++)
            MPI_Send(out, 64, MPI_INT, p, 2, MPI_COMM_WORLD);
        for (int p = 0; p < me; p++)
            MPI_Send(out, 64, MPI_INT, p, 2, MPI_COMM_WORLD);
        MPI_Waitall(nr, rs, MPI_STATUSES_IGNORE);
        for (int p = 0; p < n; p++)
            if (p != me && !conf_check_data(in + 64 * p, 64, it * 100 + p, "all to all"))
                break;
    }
    free(rs);
    free(in);
    free(b);
    return conf_finish();
}
