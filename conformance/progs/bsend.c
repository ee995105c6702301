/*
 * bsend: buffered mode and the attached buffer. A buffer attached at an
 * odd address; MPI_Bsend of several messages before the receiver posts
 * anything, received in another order (by tag); MPI_Ibsend completed by
 * MPI_Wait and MPI_Ibsend freed at once with MPI_Request_free;
 * MPI_Bsend_init started several times; MPI_Buffer_detach, which returns
 * the buffer attached and waits until the buffered messages are
 * delivered, while the receiver is late; a second buffer attached after
 * it; buffered sends to oneself.
 *
 * Checklist (MPICH test/mpi/pt2pt): bsend1-5, bsendalign, bsendfrag,
 * bsendpending, rqfree.
 *
 * np: 2
 */
#include "conf.h"

#define NMSG 10
#define MSG 1000 /* ints per message */

static int bufsize(int nmsg, int count)
{
    int sz = 0;
    MPI_Pack_size(count, MPI_INT, MPI_COMM_WORLD, &sz);
    return nmsg * (sz + MPI_BSEND_OVERHEAD);
}

static void recv_check(int src, int tag, int count, int seed, const char *what)
{
    int *b = calloc((size_t)count + 1, sizeof(int));
    MPI_Status st;
    CHECK_RC(MPI_Recv(b, count + 1, MPI_INT, src, tag, MPI_COMM_WORLD, &st), "MPI_Recv");
    if (conf_check_status(&st, src, tag, MPI_INT, count, what))
        conf_check_data(b, count, seed, what);
    free(b);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "bsend", 2);
    int size = bufsize(NMSG + 4, MSG) + bufsize(1, 100000);
    char *raw = malloc((size_t)size + 8);
    char *bbuf = raw + 3; /* any alignment is allowed */
    CHECK_RC(MPI_Buffer_attach(bbuf, size), "MPI_Buffer_attach");

    /* NMSG buffered sends, then the receiver receives them by tag from the
     * last to the first. */
    int *m = malloc(sizeof(int) * MSG * NMSG);
    if (conf_rank == 0) {
        for (int i = 0; i < NMSG; i++) {
            conf_fill(m + i * MSG, MSG, 100 + i);
            CHECK_RC(MPI_Bsend(m + i * MSG, MSG, MPI_INT, 1, 100 + i, MPI_COMM_WORLD), "MPI_Bsend");
        }
        memset(m, 0, sizeof(int) * MSG * NMSG); /* buffered: ours again */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (conf_rank == 1)
        for (int i = NMSG - 1; i >= 0; i--)
            recv_check(0, 100 + i, MSG, 100 + i, "MPI_Bsend received by tag in reverse");

    /* MPI_Ibsend + MPI_Wait, and MPI_Ibsend + MPI_Request_free. */
    if (conf_rank == 0) {
        MPI_Request r[2];
        conf_fill(m, MSG, 200);
        conf_fill(m + MSG, MSG, 201);
        CHECK_RC(MPI_Ibsend(m, MSG, MPI_INT, 1, 200, MPI_COMM_WORLD, &r[0]), "MPI_Ibsend");
        CHECK_RC(MPI_Ibsend(m + MSG, MSG, MPI_INT, 1, 201, MPI_COMM_WORLD, &r[1]), "MPI_Ibsend");
        CHECK_RC(MPI_Request_free(&r[1]), "MPI_Request_free of an MPI_Ibsend");
        CHECK(r[1] == MPI_REQUEST_NULL, "MPI_Request_free left the handle non-null");
        CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE), "MPI_Wait on an MPI_Ibsend");
    } else if (conf_rank == 1) {
        recv_check(0, 201, MSG, 201, "MPI_Ibsend freed by MPI_Request_free");
        recv_check(0, 200, MSG, 200, "MPI_Ibsend waited for");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 may reuse m[MSG..] now */

    /* MPI_Bsend_init started three times with new data each time. */
    if (conf_rank == 0) {
        MPI_Request p;
        CHECK_RC(MPI_Bsend_init(m, MSG, MPI_INT, 1, 300, MPI_COMM_WORLD, &p), "MPI_Bsend_init");
        for (int i = 0; i < 3; i++) {
            conf_fill(m, MSG, 300 + i);
            CHECK_RC(MPI_Start(&p), "MPI_Start");
            CHECK_RC(MPI_Wait(&p, MPI_STATUS_IGNORE), "MPI_Wait on MPI_Bsend_init");
        }
        CHECK(p != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
        MPI_Request_free(&p);
    } else if (conf_rank == 1) {
        for (int i = 0; i < 3; i++)
            recv_check(0, 300, MSG, 300 + i, "MPI_Bsend_init started again");
    }

    /* MPI_Buffer_detach waits for the buffered messages: rank 1 receives
     * only 200 ms after rank 0 buffered a large message and detached. */
    int big = 100000;
    int *b = malloc(sizeof(int) * (size_t)big);
    if (conf_rank == 0) {
        conf_fill(b, big, 400);
        CHECK_RC(MPI_Bsend(b, big, MPI_INT, 1, 400, MPI_COMM_WORLD), "MPI_Bsend");
        memset(b, 0, sizeof(int) * (size_t)big);
    }
    void *addr;
    int got;
    CHECK_RC(MPI_Buffer_detach(&addr, &got), "MPI_Buffer_detach");
    CHECK(addr == bbuf && got == size, "MPI_Buffer_detach returned %p/%d, attached %p/%d", addr,
          got,
          (void *)bbuf, size);
    if (conf_rank == 1) {
        conf_sleep_ms(200);
        recv_check(0, 400, big, 400, "MPI_Bsend delivered after MPI_Buffer_detach");
    }

    /* A second buffer, smaller, aligned; and buffered sends to oneself. */
    int size2 = bufsize(2, MSG);
    char *bbuf2 = malloc((size_t)size2);
    CHECK_RC(MPI_Buffer_attach(bbuf2, size2), "MPI_Buffer_attach again");
    conf_fill(m, MSG, 500 + conf_rank);
    CHECK_RC(MPI_Bsend(m, MSG, MPI_INT, conf_rank, 500, MPI_COMM_WORLD), "MPI_Bsend to self");
    MPI_Request r;
    conf_fill(m + MSG, MSG, 600 + conf_rank);
    CHECK_RC(MPI_Ibsend(m + MSG, MSG, MPI_INT, conf_rank, 600, MPI_COMM_WORLD, &r),
             "MPI_Ibsend to self");
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait on MPI_Ibsend to self");
    recv_check(conf_rank, 600, MSG, 600 + conf_rank, "MPI_Ibsend to self");
    recv_check(conf_rank, 500, MSG, 500 + conf_rank, "MPI_Bsend to self");
    CHECK_RC(MPI_Buffer_detach(&addr, &got), "MPI_Buffer_detach");
    CHECK(addr == bbuf2 && got == size2, "second MPI_Buffer_detach returned %p/%d, attached %p/%d",
          addr, got, (void *)bbuf2, size2);

    free(bbuf2);
    free(b);
    free(m);
    free(raw);
    return conf_finish();
}
