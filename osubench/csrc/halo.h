/*
 * halo.h: the nearest-neighbour exchange of the halo and phases programs.
 * Per iteration each user posts MPI_Irecv from and MPI_Isend to each of its
 * n neighbours (direction d: send toward send[d], receive from recv[d], the
 * opposite side, with tag d), computes comp_us (common.h: busy or sleep),
 * and calls MPI_Waitall. With touch it writes its n outgoing halos before
 * posting and reads the n incoming ones after MPI_Waitall.
 */
#ifndef OSUB_HALO_H
#define OSUB_HALO_H

#include "common.h"

#define OSUB_MAX_NB 4

typedef struct {
    MPI_Comm comm;
    int n; /* neighbours: 2 (a ring) or 4 (a 2D grid) */
    int send[OSUB_MAX_NB], recv[OSUB_MAX_NB];
} osub_nbrs;

/* osub_halo runs iters exchanges of size bytes with the neighbours of nb
 * and adds the times of each part to post, comp, wait, tch and total. */
static void osub_halo(const osub_nbrs *nb, unsigned char **sb, unsigned char **rb, long size,
                      long iters, double comp_us, int touch, double *post, double *comp,
                      double *wait, double *tch, double *total)
{
    MPI_Request req[2 * OSUB_MAX_NB];
    int n = nb->n;
    for (long it = 0; it < iters; it++) {
        double ts = osub_now(), t0 = ts;
        if (touch) {
            for (int d = 0; d < n; d++)
                osub_touch_write(sb[d], size);
            t0 = osub_now();
        }
        for (int d = 0; d < n; d++)
            OSUB_CHECK(MPI_Irecv(rb[d], (int)size, MPI_BYTE, nb->recv[d], d, nb->comm, &req[d]));
        for (int d = 0; d < n; d++)
            OSUB_CHECK(
                MPI_Isend(sb[d], (int)size, MPI_BYTE, nb->send[d], d, nb->comm, &req[n + d]));
        double t1 = osub_now();
        osub_compute(comp_us);
        double t2 = osub_now();
        OSUB_CHECK(MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE));
        double t3 = osub_now(), t4 = t3;
        if (touch) {
            for (int d = 0; d < n; d++)
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

/* osub_halo_check does one exchange with known data (untouched, no
 * compute) and verifies what arrived: the halo from neighbour recv[d] in
 * direction d is filled with seed(recv[d], d). me is this user's rank in
 * nb->comm. */
static void osub_halo_check(const osub_nbrs *nb, unsigned char **sb, unsigned char **rb, long size,
                            int me)
{
    double p = 0, c = 0, w = 0, t = 0, tot = 0;
    for (int d = 0; d < nb->n; d++) {
        osub_fill(sb[d], size, me * OSUB_MAX_NB + d + 1);
        memset(rb[d], 0, size > 0 ? size : 1);
    }
    osub_halo(nb, sb, rb, size, 1, 0, 0, &p, &c, &w, &t, &tot);
    for (int d = 0; d < nb->n; d++)
        if (!osub_verify(rb[d], size, nb->recv[d] * OSUB_MAX_NB + d + 1))
            osub_die("halo: data check failed");
}

#endif
