/*
 * rate.c: windowed message rate (osu_mbw_mr, paper Fig. 3(c,f)). The first
 * half of the users send to the second half (user i to user i + n/2): per
 * iteration a sender posts a window of MPI_Isend and calls MPI_Waitall, then
 * receives a 4-byte ack; its receiver posts the window of MPI_Irecv, calls
 * MPI_Waitall and sends the ack. Rank 0 prints the aggregate rate (messages
 * per second, summed over the pairs), the bandwidth, and the senders' mean
 * post time per message and wait time per window, and the senders' time
 * per window (iter_us: post, wait, ack and touching).
 * With -t a sender writes the whole send buffer before each window and a
 * receiver reads the whole receive buffer after each window's MPI_Waitall
 * (common.h); touch_us is that time per window, averaged over all users (0
 * without -t). The rate counts it: it is part of every window.
 */
#include "window.h"

static unsigned char *ack; /* the 4-byte ack, registered like the data */

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "rate");
    if (osub_nusers % 2 != 0)
        osub_die("the message rate test needs an even number of users");
    int half = osub_nusers / 2, sender = osub_rank < half;
    int peer = sender ? osub_rank + half : osub_rank - half;
    long maxsz = osub_max_size();
    unsigned char *buf = osub_alloc(maxsz);
    ack = osub_alloc(4);
    MPI_Request *req = malloc(sizeof(MPI_Request) * O.window);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        double post = 0, wait = 0, tch = 0;
        if (O.check) {
            if (sender)
                osub_fill(buf, size, osub_rank + 1);
            else
                memset(buf, 0, size > 0 ? size : 1);
            osub_window(buf, ack, size, 1, sender, peer, req, 0, &post, &wait, &tch);
            if (!sender && !osub_verify(buf, size, peer + 1))
                osub_die("rate: data check failed");
        }
        long warm = osub_warm(size) / 5 + 2;
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        osub_window(buf, ack, size, warm, sender, peer, req, O.touch, &post, &wait, &tch);
        double w0 = osub_now();
        osub_window(buf, ack, size, warm, sender, peer, req, O.touch, &post, &wait, &tch);
        long iters = osub_iters(osub_now() - w0, warm);
        post = wait = tch = 0;
        double t = 0;
        osub_rounds r;
        osub_use use;
        for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n)) {
            double t0 = osub_now();
            osub_window(buf, ack, size, n, sender, peer, req, O.touch, &post, &wait, &tch);
            t += osub_now() - t0;
        }
        iters = osub_rounds_end(&r, &use);
        double mine = sender ? (double)iters * O.window / t : 0, rate = 0;
        OSUB_CHECK(MPI_Allreduce(&mine, &rate, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        double sp = sender ? post / ((double)iters * O.window) : 0;
        double sw = sender ? wait / (double)iters : 0;
        double spost = osub_avg(sp) * osub_nusers / half, swait = osub_avg(sw) * osub_nusers / half;
        double siter = osub_avg(sender ? t / (double)iters : 0) * osub_nusers / half;
        double touch = osub_avg(tch / (double)iters);
        if (osub_rank == 0) {
            printf("osub bench=rate size=%ld iters=%ld window=%d pairs=%d msg_rate=%.1f mb_s=%.3f "
                   "post_us=%.4f wait_us=%.4f iter_us=%.4f touch_us=%.4f cpu_pct=%.1f vcsw=%.3f "
                   "ivcsw=%.3f\n",
                   size, iters, O.window, half, rate, rate * size / 1e6, spost * 1e6, swait * 1e6,
                   siter * 1e6, touch * 1e6, use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    free(req);
    osub_free(buf);
    osub_free(ack);
    osub_finalize();
    return 0;
}
