/*
 * window.h: the message-rate window of the rate and phases programs
 * (osu_mbw_mr): per iteration a sender posts a window of O.window MPI_Isend
 * to its peer and calls MPI_Waitall, then receives a 4-byte ack; its
 * receiver posts the window of MPI_Irecv, calls MPI_Waitall and sends the
 * ack. With touch, a sender writes the whole send buffer before each
 * window and a receiver reads the whole receive buffer after each
 * window's MPI_Waitall (common.h); tch gets that time.
 */
#ifndef OSUB_WINDOW_H
#define OSUB_WINDOW_H

#include "common.h"

/* osub_window runs iters windows of size bytes on osub_comm (req holds
 * O.window requests; ack is a registered 4-byte buffer) and adds the post,
 * wait and touch times to post, wait and tch. */
static void osub_window(unsigned char *buf, unsigned char *ack, long size, long iters, int sender,
                        int peer, MPI_Request *req, int touch, double *post, double *wait,
                        double *tch)
{
    for (long it = 0; it < iters; it++) {
        double t0 = osub_now();
        if (touch && sender) {
            osub_touch_write(buf, size);
            double tw = osub_now();
            *tch += tw - t0;
            t0 = tw;
        }
        if (sender) {
            for (int j = 0; j < O.window; j++)
                OSUB_CHECK(MPI_Isend(buf, (int)size, MPI_BYTE, peer, 100, osub_comm, &req[j]));
        } else {
            for (int j = 0; j < O.window; j++)
                OSUB_CHECK(MPI_Irecv(buf, (int)size, MPI_BYTE, peer, 100, osub_comm, &req[j]));
        }
        double t1 = osub_now();
        OSUB_CHECK(MPI_Waitall(O.window, req, MPI_STATUSES_IGNORE));
        double t2 = osub_now();
        if (touch && !sender) {
            osub_touch_read(buf, size);
            *tch += osub_now() - t2;
        }
        if (sender)
            OSUB_CHECK(MPI_Recv(ack, 4, MPI_BYTE, peer, 101, osub_comm, MPI_STATUS_IGNORE));
        else
            OSUB_CHECK(MPI_Send(ack, 4, MPI_BYTE, peer, 101, osub_comm));
        *post += t1 - t0;
        *wait += t2 - t1;
    }
}

#endif
