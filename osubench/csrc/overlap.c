/*
 * overlap.c: post, compute, wait (paper Fig. 4/5). Per size, in one job,
 * three phases interleaved in rounds (so a burst of load on the shared
 * machine hits all three alike):
 *   comm:    the nonblocking ping-pong alone           -> T_comm
 *   compute: the compute emulation alone, target C      -> T_comp (measured)
 *   overlap: post, compute C, wait                      -> T_total (and its post/wait)
 * C is -x's value for the size if given (the driver passes plain MPI's
 * latency), else this job's own median exchange time (post + wait) from a
 * calibration.
 * overlap_pct = 100 * (T_comm + T_comp - T_total) / min(T_comm, T_comp).
 * comm_p50_us is the median ping-pong time over the comm iterations,
 * xchg_p50_us the median of their exchange alone (post + wait, touching
 * excluded: the latency the driver hands out as compute).
 *
 * With -t every iteration of the comm and overlap phases touches the
 * buffers (xchg.h): write the send buffer before the post, read the receive
 * buffer after the wait. Touching is part of communicating, as in an
 * application that produces and consumes each message: T_comm and T_total
 * include it, T_comp (the compute alone) does not. touch_us and
 * comm_touch_us are the touching time per iteration of the overlap and comm
 * phases (0 without -t). Touching cannot overlap anything (it is the
 * user's own work before the post and after the wait): with the transfer
 * hidden completely, T_total = touch + post + max(exchange, T_comp), so the
 * overlap reaches 100% only if T_comp is at most the exchange alone
 * (T_comm - comm_touch_us).
 */
#include "xchg.h"

#define ROUNDS OSUB_ROUNDS

/* chunk returns the iterations per round for a phase that took secs for
 * warm iterations: budget/ROUNDS per round, at least min_iters in all. */
static long chunk(double secs, long warm)
{
    double worst = 0;
    OSUB_CHECK(MPI_Allreduce(&secs, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    double per = warm > 0 ? worst / (double)warm : 0;
    long n = per > 0 ? (long)(O.budget_s / ROUNDS / per) : O.max_iters / ROUNDS;
    long lo = (O.min_iters + ROUNDS - 1) / ROUNDS, hi = O.max_iters / ROUNDS;
    if (hi < 1)
        hi = 1;
    if (n < lo)
        n = lo;
    if (n > hi)
        n = hi;
    return n;
}

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "overlap");
    int peer = osub_peer();
    long maxsz = osub_max_size();
    unsigned char *sbuf = osub_alloc(maxsz), *rbuf = osub_alloc(maxsz);
    if (O.nxcompute != 0 && O.nxcompute != O.nsizes)
        osub_die("-x needs one compute time per size");
    osub_xsamples smp;
    osub_xsamples_init(&smp, O.max_iters);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        if (O.check)
            osub_xcheck(sbuf, rbuf, size, peer);

        /* Calibration: the ping-pong alone (twice, the first pass warms up). */
        long warm = osub_warm(size);
        osub_xtimes w = {0};
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        osub_xchg(sbuf, rbuf, size, peer, warm, 0, O.touch, &w, NULL);
        memset(&w, 0, sizeof w);
        smp.n = 0;
        osub_xchg(sbuf, rbuf, size, peer, warm, 0, O.touch, &w, &smp);
        long ncomm = chunk(w.total, warm);
        double target_us = O.nxcompute ? O.xcompute_us[s]
                                       : osub_avg(osub_median(smp.xchg, smp.n)) * 1e6;
        double c0 = osub_now();
        for (long i = 0; i < 5; i++)
            osub_compute(target_us);
        long ncomp = chunk(osub_now() - c0, 5);
        memset(&w, 0, sizeof w);
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        osub_xchg(sbuf, rbuf, size, peer, 5, target_us, O.touch, &w, NULL);
        long nover = chunk(w.total, 5);

        /* Rounds of comm, compute, overlap. */
        osub_xtimes comm = {0}, ov = {0};
        double comp = 0;
        smp.n = 0;
        osub_mark m;
        osub_mark_now(&m);
        double start = osub_now();
        int rounds = 0;
        for (int r = 0; r < ROUNDS; r++) {
            OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            osub_xchg(sbuf, rbuf, size, peer, ncomm, 0, O.touch, &comm, &smp);
            OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            double t0 = osub_now();
            for (long i = 0; i < ncomp; i++)
                osub_compute(target_us);
            comp += osub_now() - t0;
            OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
            osub_xchg(sbuf, rbuf, size, peer, nover, target_us, O.touch, &ov, NULL);
            rounds++;
            if (r + 1 < ROUNDS && osub_stop(start, 3 * OSUB_OVERRUN * O.budget_s))
                break;
        }
        osub_use use = osub_use_avg(osub_usage(&m, (long)rounds * (ncomm + nover)));
        long ci = (long)rounds * ncomm, pi = (long)rounds * ncomp, oi = (long)rounds * nover;
        double tcomm = osub_avg(comm.total / ci), tcomp = osub_avg(comp / pi);
        double cpost = osub_avg(comm.post / ci), cwait = osub_avg(comm.wait / ci);
        double cp50 = osub_avg(osub_median(smp.total, smp.n));
        double xp50 = osub_avg(osub_median(smp.xchg, smp.n));
        double ctouch = osub_avg(comm.touch / ci), touch = osub_avg(ov.touch / oi);
        double ttotal = osub_avg(ov.total / oi);
        double post = osub_avg(ov.post / oi), wait = osub_avg(ov.wait / oi);
        double compin = osub_avg(ov.comp / oi);
        double mn = tcomm < tcomp ? tcomm : tcomp;
        double pct = mn > 0 ? 100 * (tcomm + tcomp - ttotal) / mn : 0;
        if (osub_rank == 0) {
            printf("osub bench=overlap size=%ld iters=%ld comm_iters=%ld comp_iters=%ld "
                   "target_us=%.4f comm_us=%.4f comm_p50_us=%.4f xchg_p50_us=%.4f comm_post_us=%.4f "
                   "comm_wait_us=%.4f comm_touch_us=%.4f comp_us=%.4f total_us=%.4f post_us=%.4f "
                   "comp_in_us=%.4f wait_us=%.4f touch_us=%.4f overlap_pct=%.2f cpu_pct=%.1f "
                   "vcsw=%.3f ivcsw=%.3f\n",
                   size, oi, ci, pi, target_us, tcomm * 1e6, cp50 * 1e6, xp50 * 1e6, cpost * 1e6,
                   cwait * 1e6, ctouch * 1e6, tcomp * 1e6, ttotal * 1e6, post * 1e6, compin * 1e6,
                   wait * 1e6, touch * 1e6, pct, use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    osub_free(sbuf);
    osub_free(rbuf);
    osub_finalize();
    return 0;
}
