/*
 * large: messages of several MiB. 4 and 8 MiB with MPI_Send/MPI_Recv,
 * MPI_Isend/MPI_Irecv both ways at once, MPI_Ssend, and a vector type of
 * 4 MiB of data spread over 8 MiB; a small message into an 8 MiB receive
 * (the rest untouched); 8 outstanding 1 MiB transfers received in reverse
 * order of sending (by tag); 2 MiB at once on each of 4 duplicated
 * communicators.
 *
 * Checklist (MPICH test/mpi/pt2pt): large_message (scaled down),
 * huge_ssend, huge_underflow, manylmt, huge_dupcomm, pt2pt_large.
 *
 * np: 2
 * timeout: 180
 */
#include "conf.h"

#define MIB (1 << 18) /* ints */

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "large", 2);
    int me = conf_rank, peer = 1 - me;
    int *sb = malloc(sizeof(int) * 16 * (size_t)MIB), *rb = malloc(sizeof(int) * 16 * (size_t)MIB);
    MPI_Status st;
    char what[64];

    for (int sz = 4; sz <= 8; sz *= 2) {
        long n = (long)sz * MIB;
        /* blocking one way */
        snprintf(what, sizeof(what), "%d MiB MPI_Send", sz);
        if (me == 0) {
            conf_fill(sb, n, sz);
            CHECK_RC(MPI_Send(sb, (int)n, MPI_INT, 1, sz, MPI_COMM_WORLD), what);
        } else {
            CHECK_RC(MPI_Recv(rb, (int)n, MPI_INT, 0, sz, MPI_COMM_WORLD, &st), what);
            if (conf_check_status(&st, 0, sz, MPI_INT, (int)n, what))
                conf_check_data(rb, n, sz, what);
        }
        /* nonblocking, both ways at once */
        snprintf(what, sizeof(what), "%d MiB MPI_Isend both ways", sz);
        MPI_Request r[2];
        conf_fill(sb, n, 100 + sz + me);
        MPI_Irecv(rb, (int)n, MPI_INT, peer, 100 + sz, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sb, (int)n, MPI_INT, peer, 100 + sz, MPI_COMM_WORLD, &r[1]);
        MPI_Status sts[2];
        CHECK_RC(MPI_Waitall(2, r, sts), what);
        if (conf_check_status(&sts[0], peer, 100 + sz, MPI_INT, (int)n, what))
            conf_check_data(rb, n, 100 + sz + peer, what);
        /* synchronous */
        snprintf(what, sizeof(what), "%d MiB MPI_Ssend", sz);
        if (me == 1) {
            conf_fill(sb, n, 200 + sz);
            CHECK_RC(MPI_Ssend(sb, (int)n, MPI_INT, 0, 200 + sz, MPI_COMM_WORLD), what);
        } else {
            CHECK_RC(MPI_Recv(rb, (int)n, MPI_INT, 1, 200 + sz, MPI_COMM_WORLD, &st), what);
            if (conf_check_status(&st, 1, 200 + sz, MPI_INT, (int)n, what))
                conf_check_data(rb, n, 200 + sz, what);
        }
    }

    /* A vector: 4 MiB of data, every other int of 8 MiB. */
    MPI_Datatype v;
    MPI_Type_vector(4 * MIB, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    if (me == 0) {
        for (long i = 0; i < 8L * MIB; i++)
            sb[i] = i % 2 ? -1 : conf_val(300, i / 2);
        CHECK_RC(MPI_Send(sb, 1, v, 1, 300, MPI_COMM_WORLD), "MPI_Send of a 4 MiB vector");
    } else {
        for (long i = 0; i < 8L * MIB; i++)
            rb[i] = -2;
        CHECK_RC(MPI_Recv(rb, 1, v, 0, 300, MPI_COMM_WORLD, &st), "MPI_Recv of a 4 MiB vector");
        for (long i = 0; i < 8L * MIB; i++) {
            int want = i % 2 ? -2 : conf_val(300, i / 2);
            if (!CHECK(rb[i] == want, "4 MiB vector: int %ld is %d, want %d", i, rb[i], want))
                break;
        }
    }
    MPI_Type_free(&v);

    /* A small message into an 8 MiB receive. */
    if (me == 0) {
        conf_fill(sb, 100, 400);
        MPI_Send(sb, 100, MPI_INT, 1, 400, MPI_COMM_WORLD);
    } else {
        rb[100] = rb[8 * MIB - 1] = -3;
        CHECK_RC(MPI_Recv(rb, 8 * MIB, MPI_INT, 0, 400, MPI_COMM_WORLD, &st), "MPI_Recv");
        if (conf_check_status(&st, 0, 400, MPI_INT, 100, "100 ints into 8 MiB"))
            conf_check_data(rb, 100, 400, "100 ints into 8 MiB");
        CHECK(rb[100] == -3 && rb[8 * MIB - 1] == -3,
              "100 ints into 8 MiB: wrote past the message");
    }

    /* 8 outstanding 1 MiB transfers, received in reverse. */
    {
        MPI_Request r[8];
        MPI_Status sts[8];
        if (me == 0) {
            for (int i = 0; i < 8; i++) {
                conf_fill(sb + (size_t)i * MIB, MIB, 500 + i);
                MPI_Isend(sb + (size_t)i * MIB, MIB, MPI_INT, 1, 500 + i, MPI_COMM_WORLD, &r[i]);
            }
        } else {
            for (int i = 7; i >= 0; i--)
                MPI_Irecv(rb + (size_t)i * MIB, MIB, MPI_INT, 0, 500 + i, MPI_COMM_WORLD, &r[i]);
        }
        CHECK_RC(MPI_Waitall(8, r, sts), "MPI_Waitall of 8 x 1 MiB");
        if (me == 1)
            for (int i = 0; i < 8; i++)
                if (conf_check_status(&sts[i], 0, 500 + i, MPI_INT, MIB, "8 x 1 MiB"))
                    conf_check_data(rb + (size_t)i * MIB, MIB, 500 + i, "8 x 1 MiB");
    }

    /* 2 MiB on each of 4 duplicates at once, same tag. */
    {
        MPI_Comm c[4];
        MPI_Request r[8];
        for (int i = 0; i < 4; i++)
            MPI_Comm_dup(MPI_COMM_WORLD, &c[i]);
        for (int i = 0; i < 4; i++) {
            conf_fill(sb + (size_t)i * 2 * MIB, 2 * MIB, 600 + 10 * i + me);
            MPI_Irecv(rb + (size_t)i * 2 * MIB, 2 * MIB, MPI_INT, peer, 6, c[i], &r[2 * i]);
            MPI_Isend(sb + (size_t)i * 2 * MIB, 2 * MIB, MPI_INT, peer, 6, c[i], &r[2 * i + 1]);
        }
        CHECK_RC(MPI_Waitall(8, r, MPI_STATUSES_IGNORE), "MPI_Waitall on 4 communicators");
        for (int i = 0; i < 4; i++) {
            conf_check_data(rb + (size_t)i * 2 * MIB, 2 * MIB, 600 + 10 * i + peer,
                            "2 MiB on 4 communicators");
            MPI_Comm_free(&c[i]);
        }
    }
    free(sb);
    free(rb);
    return conf_finish();
}
