/*
 * ordering: MPI's non-overtaking rule (MPI 3.5): messages from one sender
 * to one receiver on one communicator that match the same receive arrive
 * in the order sent, whatever their sizes (small ones behind large ones,
 * eager behind rendezvous) and send modes (standard, synchronous,
 * buffered, ready, blocking and not). 600 messages on one tag received
 * by MPI_Irecv posted in advance and by MPI_Recv; 100 tags sent in order
 * and received in reverse (each receive gets its own tag's message); both
 * ranks sending floods to each other at once.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendflood, pingping, bsendfrag,
 * large_message ordering.
 *
 * np: 2
 */
#include "conf.h"

#define NMSG 600
#define TAG_READY 900

static int size_of(int i) { return i % 7 == 3 ? 70000 : i % 5 == 1 ? 1000 : 1 + i % 3; }

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "ordering", 2);
    int me = conf_rank, peer = 1 - me;
    int bsize = 8 * (70000 * 4 + MPI_BSEND_OVERHEAD);
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    int **msg = malloc(sizeof(int *) * NMSG);
    for (int i = 0; i < NMSG; i++)
        msg[i] = malloc(sizeof(int) * (size_t)size_of(i));

    /* One tag, mixed sizes and modes; receives posted in advance (round 0)
     * or blocking (round 1). */
    for (int round = 0; round < 2; round++) {
        if (me == 0) {
            MPI_Request *rs = malloc(sizeof(MPI_Request) * NMSG);
            int nr = 0;
            MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < NMSG; i++) {
                int n = size_of(i);
                conf_fill(msg[i], n, i);
                msg[i][0] = i;
                switch (i % 8) {
                case 0: MPI_Send(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD); break;
                case 1: MPI_Isend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]); break;
                case 2: MPI_Issend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]); break;
                case 3: MPI_Ibsend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]); break;
                case 4:
                    /* ready mode needs the receive posted: only in round 0 */
                    if (round == 0)
                        MPI_Irsend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]);
                    else
                        MPI_Isend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]);
                    break;
                case 5: MPI_Bsend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD); break;
                case 6: MPI_Isend(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD, &rs[nr++]); break;
                default:
                    if (nr > 0) { /* bound the buffered bytes outstanding */
                        MPI_Waitall(nr, rs, MPI_STATUSES_IGNORE);
                        nr = 0;
                    }
                    MPI_Send(msg[i], n, MPI_INT, 1, 1, MPI_COMM_WORLD);
                    break;
                }
            }
            MPI_Waitall(nr, rs, MPI_STATUSES_IGNORE);
            free(rs);
        } else if (me == 1) {
            MPI_Request *rs = malloc(sizeof(MPI_Request) * NMSG);
            int **rb = malloc(sizeof(int *) * NMSG);
            MPI_Status st;
            /* Every receive has room for the largest message. */
            for (int i = 0; i < NMSG; i++) {
                rb[i] = malloc(sizeof(int) * 70000);
                if (round == 0)
                    MPI_Irecv(rb[i], 70000, MPI_INT, 0, 1, MPI_COMM_WORLD, &rs[i]);
            }
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
            for (int i = 0; i < NMSG; i++) {
                int n = -1;
                if (round == 0)
                    MPI_Wait(&rs[i], &st);
                else
                    MPI_Recv(rb[i], 70000, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &n);
                if (!CHECK(rb[i][0] == i && n == size_of(i),
                           "round %d: receive %d got message %d of %d ints",
                           round, i, rb[i][0], n))
                    break;
                for (int j = 1; j < n; j++)
                    if (!CHECK(rb[i][j] == conf_val(i, j), "round %d: message %d: data", round, i))
                        break;
            }
            if (round == 0) /* after a failure some may still be pending */
                for (int i = 0; i < NMSG; i++)
                    if (rs[i] != MPI_REQUEST_NULL) {
                        MPI_Cancel(&rs[i]);
                        MPI_Wait(&rs[i], MPI_STATUS_IGNORE);
                    }
            for (int i = 0; i < NMSG; i++)
                free(rb[i]);
            free(rb);
            free(rs);
        }
    }

    /* 100 tags in order, received in reverse. */
    if (me == 0) {
        int b[16];
        for (int t = 0; t < 100; t++) {
            conf_fill(b, 16, 5000 + t);
            MPI_Send(b, 16, MPI_INT, 1, 100 + t, MPI_COMM_WORLD);
        }
    } else if (me == 1) {
        MPI_Request rs[100];
        MPI_Status sts[100];
        int (*b)[16] = malloc(sizeof(int) * 16 * 100);
        for (int t = 99; t >= 0; t--)
            MPI_Irecv(b[t], 16, MPI_INT, 0, 100 + t, MPI_COMM_WORLD, &rs[t]);
        MPI_Waitall(100, rs, sts);
        for (int t = 0; t < 100; t++)
            if (conf_check_status(&sts[t], 0, 100 + t, MPI_INT, 16, "tags received in reverse"))
                if (!conf_check_data(b[t], 16, 5000 + t, "tags received in reverse"))
                    break;
        free(b);
    }

    /* Both flood each other: 300 small nonblocking messages each way. */
    {
        MPI_Request rs[600];
        int sb[300][4], rb[300][4];
        for (int i = 0; i < 300; i++)
            MPI_Irecv(rb[i], 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[i]);
        for (int i = 0; i < 300; i++) {
            conf_fill(sb[i], 4, me * 1000 + i);
            MPI_Isend(sb[i], 4, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[300 + i]);
        }
        MPI_Waitall(600, rs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 300; i++)
            if (!conf_check_data(rb[i], 4, peer * 1000 + i, "crossing floods"))
                break;
    }

    for (int i = 0; i < NMSG; i++)
        free(msg[i]);
    free(msg);
    void *a;
    int s;
    MPI_Buffer_detach(&a, &s);
    free(bb);
    return conf_finish();
}
