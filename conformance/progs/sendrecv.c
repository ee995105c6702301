/*
 * sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace around a ring of 3
 * processes: contiguous data of several sizes, different send and
 * receive types with the same type signature (a vector sent, ints
 * received), MPI_Sendrecv_replace with a vector type, MPI_PROC_NULL as
 * partner at the ends of an open chain, head-to-head exchanges of 1 MiB
 * (both partners send at once), and MPI_Sendrecv with oneself.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendrecv1, sendrecv2, sendrecv3.
 *
 * np: 3
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "sendrecv", 3);
    int me = conf_rank, n = conf_size;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int big = 1 << 18; /* 1 MiB of ints */
    int *sb = malloc(sizeof(int) * (size_t)big * 2), *rb = malloc(sizeof(int) * (size_t)big * 2);
    MPI_Status st;

    static const int sizes[] = {0, 1, 100, 10000, 1 << 18};
    for (int i = 0; i < 5; i++) {
        int c = sizes[i];
        conf_fill(sb, c, 10 * i + me);
        rb[c] = -7;
        CHECK_RC(MPI_Sendrecv(sb, c, MPI_INT, right, i, rb, c + 1, MPI_INT, left, i, MPI_COMM_WORLD,
                              &st),
                 "MPI_Sendrecv");
        if (conf_check_status(&st, left, i, MPI_INT, c, "MPI_Sendrecv ring"))
            conf_check_data(rb, c, 10 * i + left, "MPI_Sendrecv ring");
        CHECK(rb[c] == -7, "MPI_Sendrecv wrote past the message");
    }

    /* A vector of every other int sent, received as contiguous ints. */
    MPI_Datatype vec;
    MPI_Type_vector(1000, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (int i = 0; i < 2000; i++)
        sb[i] = i % 2 ? -1 : conf_val(20 + me, i / 2);
    CHECK_RC(MPI_Sendrecv(sb, 1, vec, right, 20, rb, 1000, MPI_INT, left, 20, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv vector to ints");
    if (conf_check_status(&st, left, 20, MPI_INT, 1000, "MPI_Sendrecv vector to ints"))
        conf_check_data(rb, 1000, 20 + left, "MPI_Sendrecv vector to ints");

    /* MPI_Sendrecv_replace: contiguous, then a vector (the gaps stay). */
    conf_fill(rb, 5000, 30 + me);
    CHECK_RC(MPI_Sendrecv_replace(rb, 5000, MPI_INT, right, 30, left, 30, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace");
    if (conf_check_status(&st, left, 30, MPI_INT, 5000, "MPI_Sendrecv_replace"))
        conf_check_data(rb, 5000, 30 + left, "MPI_Sendrecv_replace");
    for (int i = 0; i < 2000; i++)
        rb[i] = i % 2 ? -3 : conf_val(40 + me, i / 2);
    CHECK_RC(MPI_Sendrecv_replace(rb, 1, vec, right, 40, left, 40, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace with a vector");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 40, "vector replace: status %d/%d", st.MPI_SOURCE,
          st.MPI_TAG);
    for (int i = 0; i < 2000; i++) {
        int want = i % 2 ? -3 : conf_val(40 + left, i / 2);
        if (!CHECK(rb[i] == want, "vector replace: int %d is %d, want %d", i, rb[i], want))
            break;
    }
    MPI_Type_free(&vec);

    /* Open chain: MPI_PROC_NULL at both ends. */
    int to = me == n - 1 ? MPI_PROC_NULL : me + 1, from = me == 0 ? MPI_PROC_NULL : me - 1;
    conf_fill(sb, 300, 50 + me);
    for (int i = 0; i < 300; i++)
        rb[i] = -9;
    CHECK_RC(MPI_Sendrecv(sb, 300, MPI_INT, to, 50, rb, 300, MPI_INT, from, 50, MPI_COMM_WORLD,
                          &st),
             "MPI_Sendrecv on a chain");
    if (from == MPI_PROC_NULL) {
        conf_check_procnull(&st, "MPI_Sendrecv from MPI_PROC_NULL");
        CHECK(rb[0] == -9 && rb[299] == -9, "a receive from MPI_PROC_NULL wrote the buffer");
    } else if (conf_check_status(&st, from, 50, MPI_INT, 300, "MPI_Sendrecv on a chain")) {
        conf_check_data(rb, 300, 50 + from, "MPI_Sendrecv on a chain");
    }
    conf_fill(rb, 300, 60 + me);
    CHECK_RC(MPI_Sendrecv_replace(rb, 300, MPI_INT, to, 60, from, 60, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace on a chain");
    if (from == MPI_PROC_NULL) {
        conf_check_procnull(&st, "MPI_Sendrecv_replace from MPI_PROC_NULL");
        conf_check_data(rb, 300, 60 + me,
                        "MPI_Sendrecv_replace from MPI_PROC_NULL keeps the buffer");
    } else if (conf_check_status(&st, from, 60, MPI_INT, 300, "MPI_Sendrecv_replace on a chain")) {
        conf_check_data(rb, 300, 60 + from, "MPI_Sendrecv_replace on a chain");
    }
    CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 1, NULL, 0, MPI_INT, MPI_PROC_NULL, 1,
                          MPI_COMM_WORLD, &st),
             "MPI_Sendrecv with MPI_PROC_NULL both ways");
    conf_check_procnull(&st, "MPI_Sendrecv with MPI_PROC_NULL both ways");

    /* Head to head: ranks 0 and 1 exchange 1 MiB at once, 5 times. */
    if (me < 2) {
        int peer = 1 - me;
        for (int it = 0; it < 5; it++) {
            conf_fill(sb, big, 70 + it * 2 + me);
            CHECK_RC(MPI_Sendrecv(sb, big, MPI_INT, peer, 70, rb, big, MPI_INT, peer, 70,
                                  MPI_COMM_WORLD,
                                  &st),
                     "MPI_Sendrecv head to head");
            if (conf_check_status(&st, peer, 70, MPI_INT, big, "MPI_Sendrecv head to head"))
                conf_check_data(rb, big, 70 + it * 2 + peer, "MPI_Sendrecv head to head");
        }
    }

    /* With oneself. */
    conf_fill(sb, 1000, 80 + me);
    CHECK_RC(MPI_Sendrecv(sb, 1000, MPI_INT, me, 80, rb, 1000, MPI_INT, me, 80, MPI_COMM_WORLD,
                          &st),
             "MPI_Sendrecv with oneself");
    if (conf_check_status(&st, me, 80, MPI_INT, 1000, "MPI_Sendrecv with oneself"))
        conf_check_data(rb, 1000, 80 + me, "MPI_Sendrecv with oneself");
    conf_fill(rb, 1000, 90 + me);
    CHECK_RC(MPI_Sendrecv_replace(rb, 1000, MPI_INT, me, 90, me, 90, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace with oneself");
    if (conf_check_status(&st, me, 90, MPI_INT, 1000, "MPI_Sendrecv_replace with oneself"))
        conf_check_data(rb, 1000, 90 + me, "MPI_Sendrecv_replace with oneself");

    free(sb);
    free(rb);
    return conf_finish();
}
