/*
 * dtype_free: a datatype freed while operations still use it (MPI 5.1.9:
 * MPI_Type_free marks the type for deallocation; operations that use it
 * complete normally). An indexed-block type freed on both sides between
 * MPI_Isend/MPI_Irecv and MPI_Wait; a vector freed with a receive posted
 * before the message is sent; a MPI_Type_dup of MPI_INT freed right after
 * MPI_Send_init/MPI_Recv_init, the persistent requests started many
 * times; a type freed between MPI_Imrecv and MPI_Wait; an MPI_Ibsend of a
 * freed type.
 *
 * Checklist (MPICH test/mpi/pt2pt): dtype_send, multi_psend_derived.
 *
 * np: 2
 */
#include "conf.h"

static MPI_Datatype iblock(void)
{
    MPI_Datatype t;
    int d[4] = {0, 3, 7, 12};
    MPI_Type_create_indexed_block(4, 2, d, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Check the ints of count elements of the indexed-block type at b. */
static void check_iblock(const int *b, int count, int seed, const char *what)
{
    static const int d[4] = {0, 3, 7, 12};
    MPI_Aint lb, ext;
    MPI_Datatype t = iblock();
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_free(&t);
    long k = 0;
    for (int e = 0; e < count; e++)
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 2; x++, k++) {
                long at = e * (ext / (MPI_Aint)sizeof(int)) + d[j] + x;
                if (!CHECK(b[at] == conf_val(seed, k), "%s: int %ld is %d, want %d", what, at,
                           b[at],
                           conf_val(seed, k)))
                    return;
            }
}

static void fill_iblock(int *b, int count, int seed)
{
    static const int d[4] = {0, 3, 7, 12};
    long k = 0;
    for (int e = 0; e < count; e++)
        for (int j = 0; j < 4; j++)
            for (int x = 0; x < 2; x++, k++)
                b[e * 14 + d[j] + x] = conf_val(seed, k);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "dtype_free", 2);
    int me = conf_rank, peer = 1 - me;
    int count = 1000;
    int *sb = calloc((size_t)count * 14, sizeof(int)), *rb = calloc((size_t)count * 14,
                                                                    sizeof(int));

    /* Freed on both sides between the post and the wait. */
    for (int it = 0; it < 3; it++) {
        MPI_Datatype t = iblock();
        MPI_Request r[2];
        fill_iblock(sb, count, 10 * it + me);
        memset(rb, 0, sizeof(int) * (size_t)count * 14);
        CHECK_RC(MPI_Irecv(rb, count, t, peer, it, MPI_COMM_WORLD, &r[0]), "MPI_Irecv");
        CHECK_RC(MPI_Isend(sb, count, t, peer, it, MPI_COMM_WORLD, &r[1]), "MPI_Isend");
        MPI_Type_free(&t);
        CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), "MPI_Waitall");
        check_iblock(rb, count, 10 * it + peer, "indexed-block type freed while pending");
    }

    /* A vector receive posted, its type freed, then the message sent. */
    {
        MPI_Datatype v;
        MPI_Type_vector(500, 1, 3, MPI_INT, &v);
        MPI_Type_commit(&v);
        if (me == 1) {
            MPI_Request r;
            MPI_Status st;
            for (int i = 0; i < 1500; i++)
                rb[i] = -1;
            CHECK_RC(MPI_Irecv(rb, 1, v, 0, 50, MPI_COMM_WORLD, &r), "MPI_Irecv");
            MPI_Type_free(&v);
            MPI_Send(NULL, 0, MPI_INT, 0, 51, MPI_COMM_WORLD);
            CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 50, "freed vector: status %d/%d",
                  st.MPI_SOURCE,
                  st.MPI_TAG);
            for (int i = 0; i < 1500; i++) {
                int want = i % 3 ? -1 : conf_val(50, i / 3);
                if (!CHECK(rb[i] == want, "freed vector: int %d is %d, want %d", i, rb[i], want))
                    break;
            }
        } else {
            MPI_Type_free(&v);
            conf_fill(sb, 500, 50);
            MPI_Recv(NULL, 0, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sb, 500, MPI_INT, 1, 50, MPI_COMM_WORLD);
        }
    }

    /* Persistent requests of a dup of MPI_INT freed right away. */
    {
        MPI_Datatype d;
        MPI_Request p;
        MPI_Type_dup(MPI_INT, &d);
        MPI_Type_commit(&d);
        if (me == 0)
            CHECK_RC(MPI_Send_init(sb, 100, d, 1, 60, MPI_COMM_WORLD, &p), "MPI_Send_init");
        else
            CHECK_RC(MPI_Recv_init(rb, 100, d, 0, 60, MPI_COMM_WORLD, &p), "MPI_Recv_init");
        MPI_Type_free(&d);
        for (int it = 0; it < 50; it++) {
            MPI_Status st;
            if (me == 0)
                conf_fill(sb, 100, 600 + it);
            CHECK_RC(MPI_Start(&p), "MPI_Start");
            CHECK_RC(MPI_Wait(&p, &st), "MPI_Wait");
            if (me == 1) {
                int n = -1;
                MPI_Get_count(&st, MPI_INT, &n);
                CHECK(n == 100, "persistent of a freed dup: count %d, want 100", n);
                if (!conf_check_data(rb, 100, 600 + it, "persistent of a freed dup"))
                    break;
            }
        }
        MPI_Request_free(&p);
    }

    /* MPI_Imrecv of a type freed before the wait. */
    {
        MPI_Datatype t = iblock();
        if (me == 0) {
            fill_iblock(sb, 10, 70);
            MPI_Send(sb, 10, t, 1, 70, MPI_COMM_WORLD);
            MPI_Type_free(&t);
        } else {
            MPI_Message msg;
            MPI_Request r;
            MPI_Mprobe(0, 70, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
            memset(rb, 0, sizeof(int) * 140);
            CHECK_RC(MPI_Imrecv(rb, 10, t, &msg, &r), "MPI_Imrecv");
            MPI_Type_free(&t);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
            check_iblock(rb, 10, 70, "MPI_Imrecv of a freed type");
        }
    }

    /* MPI_Ibsend of a freed type. */
    {
        int bsize = 1 << 20;
        char *bb = malloc((size_t)bsize);
        MPI_Buffer_attach(bb, bsize);
        MPI_Datatype t = iblock();
        if (me == 0) {
            MPI_Request r;
            fill_iblock(sb, 100, 80);
            CHECK_RC(MPI_Ibsend(sb, 100, t, 1, 80, MPI_COMM_WORLD, &r), "MPI_Ibsend");
            MPI_Type_free(&t);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
        } else {
            memset(rb, 0, sizeof(int) * 1400);
            MPI_Recv(rb, 100, t, 0, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Type_free(&t);
            check_iblock(rb, 100, 80, "MPI_Ibsend of a freed type");
        }
        void *a;
        int s;
        MPI_Buffer_detach(&a, &s);
        free(bb);
    }
    free(sb);
    free(rb);
    return conf_finish();
}
