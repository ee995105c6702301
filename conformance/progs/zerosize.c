/*
 * zerosize: messages of no data. Count 0 in every send mode (blocking and
 * nonblocking), with a NULL and with a real buffer, received into count
 * 0 and into a larger buffer (which stays untouched); a type of size 0
 * (MPI_Type_contiguous of 0 ints) sent with count 5; persistent requests
 * of count 0; MPI_Sendrecv of nothing; a probe of an empty message.
 * Status: source, tag, MPI_Get_count 0, MPI_Get_elements 0.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendrecv1 (size 0), big_count_status
 * (the zero end).
 *
 * np: 2
 */
#include "conf.h"

#define TAG_READY 900

static void check_zero(const MPI_Status *st, int src, int tag, const char *what)
{
    int el = -1;
    conf_check_status(st, src, tag, MPI_INT, 0, what);
    MPI_Get_elements(st, MPI_INT, &el);
    CHECK(el == 0, "%s: MPI_Get_elements %d, want 0", what, el);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "zerosize", 2);
    int me = conf_rank;
    int bsize = 64 * MPI_BSEND_OVERHEAD;
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    int data[16];
    char what[64];

    for (int mode = 0; mode < 8; mode++)
        for (int nullbuf = 0; nullbuf < 2; nullbuf++) {
            int tag = mode * 2 + nullbuf;
            void *b = nullbuf ? NULL : data;
            snprintf(what, sizeof(what), "empty message, mode %d, %s buffer", mode,
                     nullbuf ? "NULL" : "real");
            if (me == 0) {
                MPI_Request r = MPI_REQUEST_NULL;
                MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                switch (mode) {
                case 0: CHECK_RC(MPI_Send(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD), what); break;
                case 1: CHECK_RC(MPI_Ssend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD), what); break;
                case 2: CHECK_RC(MPI_Rsend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD), what); break;
                case 3: CHECK_RC(MPI_Bsend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD), what); break;
                case 4: CHECK_RC(MPI_Isend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD, &r), what); break;
                case 5: CHECK_RC(MPI_Issend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD, &r),
                                 what); break;
                case 6: CHECK_RC(MPI_Irsend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD, &r),
                                 what); break;
                default: CHECK_RC(MPI_Ibsend(b, 0, MPI_INT, 1, tag, MPI_COMM_WORLD, &r),
                                  what); break;
                }
                CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), what);
            } else if (me == 1) {
                MPI_Request r;
                MPI_Status st;
                for (int i = 0; i < 16; i++)
                    data[i] = -1;
                /* Half into count 0 (NULL buffer), half into 16 ints. */
                if (nullbuf)
                    CHECK_RC(MPI_Irecv(NULL, 0, MPI_INT, 0, tag, MPI_COMM_WORLD, &r), what);
                else
                    CHECK_RC(MPI_Irecv(data, 16, MPI_INT, 0, tag, MPI_COMM_WORLD, &r), what);
                MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
                CHECK_RC(MPI_Wait(&r, &st), what);
                check_zero(&st, 0, tag, what);
                CHECK(data[0] == -1 && data[15] == -1, "%s: the receive buffer was written", what);
            }
        }

    /* A type of size 0, count 5; blocking receive. */
    MPI_Datatype z;
    MPI_Type_contiguous(0, MPI_INT, &z);
    MPI_Type_commit(&z);
    if (me == 0) {
        CHECK_RC(MPI_Send(data, 5, z, 1, 20, MPI_COMM_WORLD), "MPI_Send of a size-0 type");
    } else if (me == 1) {
        MPI_Status st;
        int n = -1;
        CHECK_RC(MPI_Recv(data, 5, z, 0, 20, MPI_COMM_WORLD, &st), "MPI_Recv of a size-0 type");
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 20, "size-0 type: status %d/%d", st.MPI_SOURCE,
              st.MPI_TAG);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == 0, "size-0 type: MPI_Get_count(MPI_INT) %d, want 0", n);
    }
    MPI_Type_free(&z);

    /* Persistent requests of count 0, started three times. */
    {
        MPI_Request p;
        if (me == 0)
            MPI_Send_init(NULL, 0, MPI_INT, 1, 30, MPI_COMM_WORLD, &p);
        else
            MPI_Recv_init(data, 16, MPI_INT, 0, 30, MPI_COMM_WORLD, &p);
        for (int i = 0; i < 3; i++) {
            MPI_Status st;
            CHECK_RC(MPI_Start(&p), "MPI_Start of count 0");
            CHECK_RC(MPI_Wait(&p, &st), "MPI_Wait of count 0");
            if (me == 1)
                check_zero(&st, 0, 30, "persistent count 0");
        }
        MPI_Request_free(&p);
    }

    /* MPI_Sendrecv of nothing, and a probe of an empty message. */
    {
        MPI_Status st;
        int peer = 1 - me;
        CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 40, NULL, 0, MPI_INT, peer, 40,
                              MPI_COMM_WORLD, &st),
                 "MPI_Sendrecv of nothing");
        check_zero(&st, peer, 40, "MPI_Sendrecv of nothing");
        if (me == 0) {
            MPI_Send(NULL, 0, MPI_INT, 1, 41, MPI_COMM_WORLD);
        } else {
            CHECK_RC(MPI_Probe(0, 41, MPI_COMM_WORLD, &st), "MPI_Probe");
            check_zero(&st, 0, 41, "MPI_Probe of an empty message");
            MPI_Recv(NULL, 0, MPI_INT, 0, 41, MPI_COMM_WORLD, &st);
            check_zero(&st, 0, 41, "MPI_Recv after MPI_Probe");
        }
    }

    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    return conf_finish();
}
