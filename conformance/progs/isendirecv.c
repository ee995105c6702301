/*
 * isendirecv: nonblocking exchanges among 4 processes. Every process
 * posts receives from all others and sends to all others (several
 * messages per pair, different sizes), completes them with MPI_Waitall,
 * then with an MPI_Testall loop, then with MPI_Waitsome; a ring shift with
 * receives posted after the sends.
 *
 * Checklist (MPICH test/mpi/pt2pt): isendirecv, sendall, pingping.
 *
 * np: 4
 */
#include "conf.h"

#define PER 3 /* messages per ordered pair */

static int count_of(int k) { return k == 0 ? 1 : k == 1 ? 700 : 30000; }
static int seed_of(int src, int dst, int k,
                   int round) { return round * 1000 + src * 100 + dst * 10 + k; }

/* One all-to-all round of nonblocking messages, completed by `how`
 * (0 Waitall, 1 Testall loop, 2 Waitsome loop). */
static void round_trip(int round, int how)
{
    int n = conf_size, me = conf_rank, nreq = 0;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * n * PER));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)(2 * n * PER));
    int **rbuf = calloc((size_t)(n * PER), sizeof(int *));
    int **sbuf = calloc((size_t)(n * PER), sizeof(int *));
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < PER; k++) {
            rbuf[p * PER + k] = calloc((size_t)count_of(k), sizeof(int));
            MPI_Irecv(rbuf[p * PER + k], count_of(k), MPI_INT, p, k, MPI_COMM_WORLD, &req[nreq++]);
        }
    }
    int nrecv = nreq;
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < PER; k++) {
            sbuf[p * PER + k] = malloc(sizeof(int) * (size_t)count_of(k));
            conf_fill(sbuf[p * PER + k], count_of(k), seed_of(me, p, k, round));
            MPI_Isend(sbuf[p * PER + k], count_of(k), MPI_INT, p, k, MPI_COMM_WORLD, &req[nreq++]);
        }
    }
    if (how == 0) {
        CHECK_RC(MPI_Waitall(nreq, req, st), "MPI_Waitall");
    } else if (how == 1) {
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag) {
            CHECK_RC(MPI_Testall(nreq, req, &flag, st), "MPI_Testall");
            if (MPI_Wtime() - t0 > CONF_HANG_S)
                conf_abort("MPI_Testall never completed");
        }
    } else {
        int done = 0, out = 0;
        int *idx = malloc(sizeof(int) * (size_t)nreq);
        MPI_Status *tmp = malloc(sizeof(MPI_Status) * (size_t)nreq);
        while (done < nreq) {
            CHECK_RC(MPI_Waitsome(nreq, req, &out, idx, tmp), "MPI_Waitsome");
            if (!CHECK(out != MPI_UNDEFINED && out > 0,
                       "MPI_Waitsome returned outcount %d with %d pending",
                       out, nreq - done))
                break;
            for (int i = 0; i < out; i++) {
                CHECK(req[idx[i]] == MPI_REQUEST_NULL, "MPI_Waitsome left request %d non-null",
                      idx[i]);
                st[idx[i]] = tmp[i];
            }
            done += out;
        }
        CHECK_RC(MPI_Waitsome(nreq, req, &out, idx, tmp), "MPI_Waitsome");
        CHECK(out == MPI_UNDEFINED, "MPI_Waitsome over null requests returned outcount %d", out);
        free(idx);
        free(tmp);
    }
    int i = 0;
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < PER; k++, i++) {
            char what[80];
            snprintf(what, sizeof(what), "round %d (completion %d) from %d, message %d", round, how,
                     p, k);
            if (conf_check_status(&st[i], p, k, MPI_INT, count_of(k), what))
                conf_check_data(rbuf[p * PER + k], count_of(k), seed_of(p, me, k, round), what);
        }
    }
    CHECK(i == nrecv, "receive count");
    for (int j = 0; j < n * PER; j++) {
        free(rbuf[j]);
        free(sbuf[j]);
    }
    free(rbuf);
    free(sbuf);
    free(req);
    free(st);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "isendirecv", 4);
    for (int round = 0; round < 6; round++)
        round_trip(round, round % 3);

    /* Ring shift, sends first: 50 iterations of Isend right, Irecv left. */
    int right = (conf_rank + 1) % conf_size, left = (conf_rank + conf_size - 1) % conf_size;
    int sb[64], rb[64];
    for (int it = 0; it < 50; it++) {
        MPI_Request r[2];
        MPI_Status st[2];
        conf_fill(sb, 64, it * 10 + conf_rank);
        MPI_Isend(sb, 64, MPI_INT, right, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(rb, 64, MPI_INT, left, 7, MPI_COMM_WORLD, &r[1]);
        CHECK_RC(MPI_Waitall(2, r, st), "MPI_Waitall");
        if (conf_check_status(&st[1], left, 7, MPI_INT, 64, "ring shift"))
            conf_check_data(rb, 64, it * 10 + left, "ring shift");
    }
    return conf_finish();
}
