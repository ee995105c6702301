/*
 * latency.c: nonblocking ping-pong (paper Fig. 3(a,b,d,e)). Per size, rank 0
 * prints, averaged over the users, the mean post time (MPI_Isend +
 * MPI_Irecv) and wait time (MPI_Waitall) per iteration in microseconds,
 * their medians over the iterations (*_p50_us), the users' CPU time over
 * the wall time of the timed loop (cpu_pct) and their voluntary and
 * involuntary context switches per iteration (vcsw, ivcsw). With -t the
 * buffers are touched every iteration (xchg.h): lat_us and lat_p50_us
 * include the touching, touch_us is its mean time per iteration (0 without
 * -t), post and wait exclude it.
 */
#include "xchg.h"

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "latency");
    int peer = osub_peer();
    long maxsz = osub_max_size();
    unsigned char *sbuf = osub_alloc(maxsz), *rbuf = osub_alloc(maxsz);
    osub_xsamples smp;
    osub_xsamples_init(&smp, O.max_iters);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        if (O.check)
            osub_xcheck(sbuf, rbuf, size, peer);
        long iters = osub_xwarm(sbuf, rbuf, size, peer, 0);
        osub_xtimes t = {0};
        smp.n = 0;
        osub_rounds r;
        osub_use use;
        for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n))
            osub_xchg(sbuf, rbuf, size, peer, n, 0, O.touch, &t, &smp);
        iters = osub_rounds_end(&r, &use);
        double post = osub_avg(t.post / iters) * 1e6, wait = osub_avg(t.wait / iters) * 1e6;
        double touch = osub_avg(t.touch / iters) * 1e6;
        double lat = osub_avg(t.total / iters) * 1e6, latmax = osub_maxv(t.total / iters) * 1e6;
        double ppost = osub_avg(osub_median(smp.post, smp.n)) * 1e6;
        double pwait = osub_avg(osub_median(smp.wait, smp.n)) * 1e6;
        double plat = osub_avg(osub_median(smp.total, smp.n)) * 1e6;
        if (osub_rank == 0) {
            printf("osub bench=latency size=%ld iters=%ld post_us=%.4f wait_us=%.4f lat_us=%.4f "
                   "lat_max_us=%.4f post_p50_us=%.4f wait_p50_us=%.4f lat_p50_us=%.4f "
                   "touch_us=%.4f cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
                   size, iters, post, wait, lat, latmax, ppost, pwait, plat, touch,
                   use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    osub_free(sbuf);
    osub_free(rbuf);
    osub_finalize();
    return 0;
}
