/*
 * phases.c: an application whose phases want opposite things (issue 15).
 * Every round runs two phases on the hinted communicator:
 *   (a) small, latency-bound: for each small size, 8, 64, 512 and 4096
 *       bytes, -P nonblocking ping-pongs with the user's pair (xchg.h, as
 *       the latency program), then -R message-rate windows of -W MPI_Isend
 *       from the first half of the users to the second (window.h, as the
 *       rate program). Offload can only slow this phase down.
 *   (b) large, compute-overlapped: -I halo-like exchanges of size bytes
 *       with 2 neighbours (a periodic ring, below 4 users) or 4 (a periodic
 *       2D grid): post, compute -u us (busy or sleep), MPI_Waitall
 *       (halo.h). Offload can hide the transfer behind the compute.
 * Each phase begins with MPI_Barrier on the communicator, in every mode,
 * which absorbs the users' arrival skew, then with -A (mode cspii-hint)
 * MPI_Comm_set_info with async_config=off before (a) and async_config=on
 * before (b), then a second MPI_Barrier. Nothing is in flight there
 * (every wait of the previous phase is done), so the runtime switches in
 * MPI_Comm_set_info itself, on members the first barrier aligned: its
 * time is what a switch costs, and the second barrier's is one barrier on
 * the same communicator, both without the skew. With -t every exchange
 * touches its buffers (common.h).
 *
 * Rank 0 prints per size (of the large exchange), averaged over the users:
 * small_us and large_us, each phase's time per round from the start of its
 * first barrier to the end of its last wait; round_us = small_us +
 * large_us, round_p50_us its median over rounds, round_max_us the slowest
 * user's mean; sync_us, the time in the barriers and MPI_Comm_set_info per
 * round (both phases); switch_us, one MPI_Comm_set_info (with -A; 0
 * without); barrier_us, one second barrier; pingpong_us and window_us, the
 * two parts of (a) per round; post_us, comp_in_us and wait_us per exchange
 * of (b); touch_us, the touching per round.
 */
#include "halo.h"
#include "window.h"
#include "xchg.h"

static const long small_sizes[] = {8, 64, 512, 4096};
#define NSMALL ((int)(sizeof small_sizes / sizeof small_sizes[0]))
#define SMALL_MAX 4096

typedef struct {
    double small, large, sync, sw, bar, pp, win, post, comp, wait, touch;
} phase_times;

static osub_nbrs nb;
static MPI_Info info_off, info_on;
static unsigned char *ps, *pr, *wbuf, *ack, *sb[OSUB_MAX_NB], *rb[OSUB_MAX_NB];
static MPI_Request *wreq;
static int peer, sender;

/* neighbours fills nb: a periodic ring of the users below 4 users, else a
 * periodic 2D grid (MPI_Dims_create, row-major as MPI_Cart_create), on
 * osub_comm (a duplicate of the world: the same ranks). */
static void neighbours(void)
{
    int n = osub_nusers, me = osub_rank;
    nb.comm = osub_comm;
    if (n < 4) {
        int right = (me + 1) % n, left = (me + n - 1) % n;
        nb.n = 2;
        nb.send[0] = right, nb.recv[0] = left;
        nb.send[1] = left, nb.recv[1] = right;
        return;
    }
    int dims[2] = {0, 0};
    OSUB_CHECK(MPI_Dims_create(n, 2, dims));
    int x = me / dims[1], y = me % dims[1];
    int xp = ((x + 1) % dims[0]) * dims[1] + y, xm = ((x + dims[0] - 1) % dims[0]) * dims[1] + y;
    int yp = x * dims[1] + (y + 1) % dims[1], ym = x * dims[1] + (y + dims[1] - 1) % dims[1];
    nb.n = 4;
    nb.send[0] = xp, nb.recv[0] = xm;
    nb.send[1] = xm, nb.recv[1] = xp;
    nb.send[2] = yp, nb.recv[2] = ym;
    nb.send[3] = ym, nb.recv[3] = yp;
}

/* phase_start begins a phase: MPI_Barrier on the communicator, the
 * switch cspii-hint asks for (-A), MPI_Barrier again. It adds the time of
 * all three to t->sync, the switch's to t->sw and the second barrier's to
 * t->bar. */
static void phase_start(MPI_Info info, phase_times *t)
{
    double t0 = osub_now();
    OSUB_CHECK(MPI_Barrier(osub_comm));
    double t1 = osub_now();
    if (O.phase_hint)
        OSUB_CHECK(MPI_Comm_set_info(osub_comm, info));
    double t2 = osub_now();
    OSUB_CHECK(MPI_Barrier(osub_comm));
    double t3 = osub_now();
    t->sync += t3 - t0;
    t->sw += t2 - t1;
    t->bar += t3 - t2;
}

/* rounds runs n rounds of (a, b) with large exchanges of size bytes, adds
 * their times to t and records each round's time in samples (if not NULL). */
static void rounds(long size, long n, phase_times *t, double *samples)
{
    for (long r = 0; r < n; r++) {
        double t0 = osub_now();
        phase_start(info_off, t);
        for (int k = 0; k < NSMALL; k++) {
            osub_xtimes x = {0};
            double post = 0, wait = 0, tch = 0;
            double a = osub_now();
            osub_xchg(ps, pr, small_sizes[k], peer, O.pingpongs, 0, O.touch, &x, NULL);
            double b = osub_now();
            osub_window(wbuf, ack, small_sizes[k], O.windows, sender, peer, wreq, O.touch, &post,
                        &wait, &tch);
            double c = osub_now();
            t->pp += b - a;
            t->win += c - b;
            t->touch += x.touch + tch;
        }
        double t1 = osub_now();
        phase_start(info_on, t);
        double total = 0;
        osub_halo(&nb, sb, rb, size, O.exchanges, O.halo_us, O.touch, &t->post, &t->comp, &t->wait,
                  &t->touch, &total);
        double t2 = osub_now();
        t->small += t1 - t0;
        t->large += t2 - t1;
        if (samples)
            samples[r] = t2 - t0;
    }
}

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "phases");
    peer = osub_peer();
    sender = osub_rank < osub_nusers / 2;
    neighbours();
    OSUB_CHECK(MPI_Info_create(&info_off));
    OSUB_CHECK(MPI_Info_set(info_off, "async_config", "off"));
    OSUB_CHECK(MPI_Info_create(&info_on));
    OSUB_CHECK(MPI_Info_set(info_on, "async_config", "on"));
    if (osub_rank == 0) {
        printf("osub-info bench=phases neighbours=%d small_sizes=8,64,512,4096 pingpongs=%ld "
               "windows=%ld window=%d exchanges=%ld compute=%s compute_us=%g touch=%s "
               "phase_hint=%d\n",
               nb.n, O.pingpongs, O.windows, O.window, O.exchanges, O.busy ? "busy" : "sleep",
               O.halo_us, O.touch ? "on" : "off", O.phase_hint);
        fflush(stdout);
    }
    long maxsz = osub_max_size();
    ps = osub_alloc(SMALL_MAX);
    pr = osub_alloc(SMALL_MAX);
    wbuf = osub_alloc(SMALL_MAX);
    ack = osub_alloc(4);
    wreq = malloc(sizeof(MPI_Request) * O.window);
    double *samples = malloc(sizeof(double) * O.max_iters);
    if (!wreq || !samples)
        osub_die("out of memory");
    for (int d = 0; d < nb.n; d++)
        sb[d] = osub_alloc(maxsz), rb[d] = osub_alloc(maxsz);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        if (O.check) {
            for (int k = 0; k < NSMALL; k++)
                osub_xcheck(ps, pr, small_sizes[k], peer);
            osub_halo_check(&nb, sb, rb, size, osub_rank);
        }
        long warm = 2;
        phase_times t = {0};
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        rounds(size, warm, &t, NULL);
        double w0 = osub_now();
        rounds(size, warm, &t, NULL);
        long iters = osub_iters(osub_now() - w0, warm);
        memset(&t, 0, sizeof t);
        osub_rounds r;
        osub_use use;
        for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n))
            rounds(size, n, &t, samples + r.done);
        iters = osub_rounds_end(&r, &use);
        double xn = (double)iters * (double)(O.exchanges > 0 ? O.exchanges : 1);
        double small = osub_avg(t.small / iters), large = osub_avg(t.large / iters);
        double rmax = osub_maxv((t.small + t.large) / iters);
        double p50 = osub_avg(osub_median(samples, iters));
        double sync = osub_avg(t.sync / iters), pp = osub_avg(t.pp / iters);
        double sw = osub_avg(t.sw / (2.0 * iters)), bar = osub_avg(t.bar / (2.0 * iters));
        double win = osub_avg(t.win / iters), tch = osub_avg(t.touch / iters);
        double post = osub_avg(t.post / xn), comp = osub_avg(t.comp / xn);
        double wait = osub_avg(t.wait / xn);
        if (osub_rank == 0) {
            printf("osub bench=phases size=%ld iters=%ld round_us=%.4f round_p50_us=%.4f "
                   "round_max_us=%.4f small_us=%.4f large_us=%.4f sync_us=%.4f switch_us=%.4f "
                   "barrier_us=%.4f pingpong_us=%.4f window_us=%.4f post_us=%.4f comp_in_us=%.4f "
                   "wait_us=%.4f touch_us=%.4f cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
                   size, iters, (small + large) * 1e6, p50 * 1e6, rmax * 1e6, small * 1e6,
                   large * 1e6, sync * 1e6, sw * 1e6, bar * 1e6, pp * 1e6, win * 1e6, post * 1e6,
                   comp * 1e6, wait * 1e6, tch * 1e6, use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    for (int d = 0; d < nb.n; d++)
        osub_free(sb[d]), osub_free(rb[d]);
    osub_free(ps);
    osub_free(pr);
    osub_free(wbuf);
    osub_free(ack);
    free(wreq);
    free(samples);
    MPI_Info_free(&info_off);
    MPI_Info_free(&info_on);
    osub_finalize();
    return 0;
}
