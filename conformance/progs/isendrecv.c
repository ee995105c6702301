/*
 * isendrecv: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4) around a ring
 * of 3 processes, with contiguous data and with a vector type, completed
 * by MPI_Wait and by MPI_Test; with MPI_PROC_NULL as partner (an open
 * chain), whose receive leaves the buffer alone and returns the
 * MPI_PROC_NULL status.
 *
 * Checklist (MPICH test/mpi/pt2pt): isendrecv, isendrecv_replace.
 *
 * np: 3
 * mpich-bug: MPICH 4.0.2's MPI_Isendrecv and MPI_Isendrecv_replace complete
 * with an empty status (source 0, tag 0, count 0), and its
 * MPI_Isendrecv_replace with a derived type drops a reference it does not
 * hold (MPI_Type_free then fails an assertion, ref_count >= 0)
 */
#include "conf.h"

#define N 500

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "isendrecv", 3);
    int me = conf_rank, n = conf_size;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int *sb = malloc(sizeof(int) * N * 3), *rb = malloc(sizeof(int) * N * 3);
    MPI_Request req;
    MPI_Status st;

    for (int it = 0; it < 4; it++) {
        conf_fill(sb, N, 10 * it + me);
        memset(rb, 0, sizeof(int) * N);
        CHECK_RC(MPI_Isendrecv(sb, N, MPI_INT, right, it, rb, N, MPI_INT, left, it, MPI_COMM_WORLD,
                               &req),
                 "MPI_Isendrecv");
        if (it % 2)
            conf_wait_test(&req, &st, "MPI_Isendrecv");
        else
            CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait on MPI_Isendrecv");
        if (conf_check_status(&st, left, it, MPI_INT, N, "MPI_Isendrecv"))
            conf_check_data(rb, N, 10 * it + left, "MPI_Isendrecv");
    }

    /* Replace, contiguous. */
    conf_fill(rb, N, 50 + me);
    CHECK_RC(MPI_Isendrecv_replace(rb, N, MPI_INT, right, 5, left, 5, MPI_COMM_WORLD, &req),
             "MPI_Isendrecv_replace");
    CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait on MPI_Isendrecv_replace");
    if (conf_check_status(&st, left, 5, MPI_INT, N, "MPI_Isendrecv_replace"))
        conf_check_data(rb, N, 50 + left, "MPI_Isendrecv_replace");

    /* Replace, vector type: every third int of 3N travels. */
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *v = malloc(sizeof(int) * N * 3);
    for (int i = 0; i < 3 * N; i++)
        v[i] = i % 3 ? -1 : conf_val(70 + me, i / 3);
    CHECK_RC(MPI_Isendrecv_replace(v, 1, vec, right, 6, left, 6, MPI_COMM_WORLD, &req),
             "MPI_Isendrecv_replace with a vector");
    CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 6, "vector replace: status %d/%d", st.MPI_SOURCE,
          st.MPI_TAG);
    for (int i = 0; i < 3 * N; i++) {
        int want = i % 3 ? -1 : conf_val(70 + left, i / 3);
        if (!CHECK(v[i] == want, "vector replace: int %d is %d, want %d", i, v[i], want))
            break;
    }
    MPI_Type_free(&vec);

    /* An open chain: rank 0 receives from MPI_PROC_NULL, the last rank sends
     * to MPI_PROC_NULL. */
    int to = me == n - 1 ? MPI_PROC_NULL : me + 1, from = me == 0 ? MPI_PROC_NULL : me - 1;
    conf_fill(sb, N, 90 + me);
    for (int i = 0; i < N; i++)
        rb[i] = -5;
    CHECK_RC(MPI_Isendrecv(sb, N, MPI_INT, to, 9, rb, N, MPI_INT, from, 9, MPI_COMM_WORLD, &req),
             "MPI_Isendrecv on a chain");
    CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait");
    if (from == MPI_PROC_NULL) {
        conf_check_procnull(&st, "MPI_Isendrecv from MPI_PROC_NULL");
        CHECK(rb[0] == -5 && rb[N - 1] == -5, "a receive from MPI_PROC_NULL wrote the buffer");
    } else if (conf_check_status(&st, from, 9, MPI_INT, N, "MPI_Isendrecv on a chain")) {
        conf_check_data(rb, N, 90 + from, "MPI_Isendrecv on a chain");
    }
    conf_fill(rb, N, 95 + me);
    CHECK_RC(MPI_Isendrecv_replace(rb, N, MPI_INT, to, 10, from, 10, MPI_COMM_WORLD, &req),
             "MPI_Isendrecv_replace on a chain");
    CHECK_RC(MPI_Wait(&req, &st), "MPI_Wait");
    if (from == MPI_PROC_NULL) {
        conf_check_procnull(&st, "MPI_Isendrecv_replace from MPI_PROC_NULL");
        conf_check_data(rb, N, 95 + me,
                        "MPI_Isendrecv_replace from MPI_PROC_NULL keeps the buffer");
    } else if (conf_check_status(&st, from, 10, MPI_INT, N, "MPI_Isendrecv_replace on a chain")) {
        conf_check_data(rb, N, 95 + from, "MPI_Isendrecv_replace on a chain");
    }
    free(v);
    free(sb);
    free(rb);
    return conf_finish();
}
