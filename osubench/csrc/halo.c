/*
 * halo.c: 2D nearest-neighbour exchange (paper Fig. 6). The users form a
 * periodic 2D Cartesian grid (MPI_Dims_create, MPI_Cart_create from the
 * hinted communicator, so it inherits the hint; -S also sets it with
 * MPI_Comm_set_info). Per iteration each user posts MPI_Irecv from and
 * MPI_Isend to its 4 neighbours (boundary of size bytes each), computes
 * -u microseconds (default 300), and calls MPI_Waitall. Rank 0 prints the
 * time per iteration averaged over the users (and the slowest user's), and
 * its post and wait parts. -c busy computes on the CPU (a spin on the clock),
 * -c sleep leaves the core (nanosleep).
 * With -t each user writes its 4 outgoing halos before posting and reads
 * the 4 incoming halos after MPI_Waitall (common.h); iter_us includes that,
 * touch_us is its time per iteration (0 without -t).
 */
#include "common.h"

static MPI_Comm cart;
static int nb_send[4], nb_recv[4];

static void halo_loop(unsigned char **sb, unsigned char **rb, long size, long iters, int touch,
                      double *post, double *comp, double *wait, double *tch, double *total)
{
    MPI_Request req[8];
    for (long it = 0; it < iters; it++) {
        double ts = osub_now(), t0 = ts;
        if (touch) {
            for (int d = 0; d < 4; d++)
                osub_touch_write(sb[d], size);
            t0 = osub_now();
        }
        for (int d = 0; d < 4; d++)
            OSUB_CHECK(MPI_Irecv(rb[d], (int)size, MPI_BYTE, nb_recv[d], d, cart, &req[d]));
        for (int d = 0; d < 4; d++)
            OSUB_CHECK(MPI_Isend(sb[d], (int)size, MPI_BYTE, nb_send[d], d, cart, &req[4 + d]));
        double t1 = osub_now();
        osub_compute(O.halo_us);
        double t2 = osub_now();
        OSUB_CHECK(MPI_Waitall(8, req, MPI_STATUSES_IGNORE));
        double t3 = osub_now(), t4 = t3;
        if (touch) {
            for (int d = 0; d < 4; d++)
                osub_touch_read(rb[d], size);
            t4 = osub_now();
        }
        *post += t1 - t0;
        *comp += t2 - t1;
        *wait += t3 - t2;
        *tch += (t0 - ts) + (t4 - t3);
        *total += t4 - ts;
    }
}

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "halo");
    int dims[2] = {0, 0}, periods[2] = {1, 1}, cartrank;
    OSUB_CHECK(MPI_Dims_create(osub_nusers, 2, dims));
    OSUB_CHECK(MPI_Cart_create(osub_comm, 2, dims, periods, 0, &cart));
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    if (O.setinfo && O.hint) {
        MPI_Info info;
        OSUB_CHECK(MPI_Info_create(&info));
        OSUB_CHECK(MPI_Info_set(info, "wildcard_used", O.hint));
        OSUB_CHECK(MPI_Comm_set_info(cart, info));
        MPI_Info_free(&info);
    }
    MPI_Comm_rank(cart, &cartrank);
    /* direction d: send toward d, receive from the opposite side with tag d */
    for (int dim = 0; dim < 2; dim++) {
        int lo, hi;
        OSUB_CHECK(MPI_Cart_shift(cart, dim, 1, &lo, &hi));
        nb_send[2 * dim] = hi, nb_recv[2 * dim] = lo;
        nb_send[2 * dim + 1] = lo, nb_recv[2 * dim + 1] = hi;
    }
    if (osub_rank == 0) {
        printf("osub-info bench=halo dims=%dx%d periodic=1 compute=%s compute_us=%g touch=%s "
               "setinfo=%d\n",
               dims[0], dims[1], O.busy ? "busy" : "sleep", O.halo_us, O.touch ? "on" : "off",
               O.setinfo);
        fflush(stdout);
    }
    long maxsz = osub_max_size();
    unsigned char *sb[4], *rb[4];
    for (int d = 0; d < 4; d++)
        sb[d] = osub_alloc(maxsz), rb[d] = osub_alloc(maxsz);
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        double post = 0, comp = 0, wait = 0, tch = 0, total = 0;
        if (O.check) {
            for (int d = 0; d < 4; d++) {
                osub_fill(sb[d], size, cartrank * 4 + d + 1);
                memset(rb[d], 0, size > 0 ? size : 1);
            }
            halo_loop(sb, rb, size, 1, 0, &post, &comp, &wait, &tch, &total);
            for (int d = 0; d < 4; d++)
                if (!osub_verify(rb[d], size, nb_recv[d] * 4 + d + 1))
                    osub_die("halo: data check failed");
        }
        long warm = 10;
        post = comp = wait = tch = total = 0;
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        halo_loop(sb, rb, size, warm, O.touch, &post, &comp, &wait, &tch, &total);
        post = comp = wait = tch = total = 0;
        halo_loop(sb, rb, size, warm, O.touch, &post, &comp, &wait, &tch, &total);
        long iters = osub_iters(total, warm);
        post = comp = wait = tch = total = 0;
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        osub_mark m;
        osub_mark_now(&m);
        long chunk = osub_chunk(iters), done = 0;
        double start = osub_now();
        while (done < iters) {
            long n = iters - done < chunk ? iters - done : chunk;
            halo_loop(sb, rb, size, n, O.touch, &post, &comp, &wait, &tch, &total);
            done += n;
            if (done < iters && osub_stop(start, OSUB_OVERRUN * O.budget_s))
                break;
        }
        iters = done;
        osub_use use = osub_use_avg(osub_usage(&m, iters));
        double it = osub_avg(total / iters), itmax = osub_maxv(total / iters);
        double p = osub_avg(post / iters), c = osub_avg(comp / iters), w = osub_avg(wait / iters);
        double tc = osub_avg(tch / iters);
        if (osub_rank == 0) {
            printf("osub bench=halo size=%ld iters=%ld iter_us=%.4f iter_max_us=%.4f post_us=%.4f "
                   "comp_in_us=%.4f wait_us=%.4f touch_us=%.4f cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
                   size, iters, it * 1e6, itmax * 1e6, p * 1e6, c * 1e6, w * 1e6, tc * 1e6,
                   use.cpu_frac * 100, use.vcsw, use.ivcsw);
            fflush(stdout);
        }
    }
    for (int d = 0; d < 4; d++)
        osub_free(sb[d]), osub_free(rb[d]);
    MPI_Comm_free(&cart);
    osub_finalize();
    return 0;
}
