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
#include "halo.h"

static MPI_Comm cart;

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
    osub_nbrs nb = {.comm = cart, .n = 4};
    for (int dim = 0; dim < 2; dim++) {
        int lo, hi;
        OSUB_CHECK(MPI_Cart_shift(cart, dim, 1, &lo, &hi));
        nb.send[2 * dim] = hi, nb.recv[2 * dim] = lo;
        nb.send[2 * dim + 1] = lo, nb.recv[2 * dim + 1] = hi;
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
        if (O.check)
            osub_halo_check(&nb, sb, rb, size, cartrank);
        long warm = 10;
        post = comp = wait = tch = total = 0;
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        osub_halo(&nb, sb, rb, size, warm, O.halo_us, O.touch, &post, &comp, &wait, &tch, &total);
        post = comp = wait = tch = total = 0;
        osub_halo(&nb, sb, rb, size, warm, O.halo_us, O.touch, &post, &comp, &wait, &tch, &total);
        long iters = osub_iters(total, warm);
        post = comp = wait = tch = total = 0;
        osub_rounds r;
        osub_use use;
        for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n))
            osub_halo(&nb, sb, rb, size, n, O.halo_us, O.touch, &post, &comp, &wait, &tch, &total);
        iters = osub_rounds_end(&r, &use);
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
