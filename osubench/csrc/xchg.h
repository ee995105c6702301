/*
 * xchg.h: the nonblocking ping-pong of the latency and overlap programs
 * (the paper's modified osu_latency): every iteration, each user of a pair
 * posts MPI_Isend and MPI_Irecv to its peer, optionally computes, then
 * MPI_Waitall. User i is paired with user (i + n/2) mod n, which with
 * CSP_NODE_SIZE puts the two users of a pair on different (virtual) nodes.
 *
 * With touching (-t), an iteration is what an application does:
 *   write the whole send buffer | Isend + Irecv | compute | Waitall | read the whole receive buffer
 *   \------------ touch -------/ \--- post ---/ \- comp -/ \- wait -/ \------------ touch ---------/
 * total is all of it; touch is the two touching parts together.
 */
#ifndef OSUB_XCHG_H
#define OSUB_XCHG_H

#include "common.h"

typedef struct {
    double post, comp, wait, touch, total; /* seconds, summed over iterations */
} osub_xtimes;

/* Per-iteration samples (for medians): post, wait, total (touching
 * included) and the exchange alone (post + wait, touching excluded). */
typedef struct {
    double *post, *wait, *total, *xchg;
    long n, cap;
} osub_xsamples;

static void osub_xsamples_init(osub_xsamples *s, long cap)
{
    s->post = malloc(sizeof(double) * cap);
    s->wait = malloc(sizeof(double) * cap);
    s->total = malloc(sizeof(double) * cap);
    s->xchg = malloc(sizeof(double) * cap);
    if (!s->post || !s->wait || !s->total || !s->xchg)
        osub_die("out of memory for samples");
    s->n = 0;
    s->cap = cap;
}

static int osub_peer(void)
{
    if (osub_nusers % 2 != 0)
        osub_die("the ping-pong needs an even number of users");
    return (osub_rank + osub_nusers / 2) % osub_nusers;
}

/* osub_xchg runs iters exchanges of size bytes with peer, computing comp_us
 * between the posts and the Waitall (0: none), touching the buffers if
 * touch, adds the times to t and records each iteration in s (if not NULL). */
static void osub_xchg(void *sbuf, void *rbuf, long size, int peer, long iters, double comp_us,
                      int touch, osub_xtimes *t, osub_xsamples *s)
{
    MPI_Request req[2];
    for (long i = 0; i < iters; i++) {
        double t0 = osub_now(), tw = t0;
        if (touch) {
            osub_touch_write(sbuf, size);
            tw = osub_now();
        }
        OSUB_CHECK(MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, 1, osub_comm, &req[0]));
        OSUB_CHECK(MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, 1, osub_comm, &req[1]));
        double t1 = osub_now(), t2 = t1;
        if (comp_us > 0) {
            osub_compute(comp_us);
            t2 = osub_now();
        }
        OSUB_CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        double t3 = osub_now(), t4 = t3;
        if (touch) {
            osub_touch_read(rbuf, size);
            t4 = osub_now();
        }
        t->post += t1 - tw;
        t->comp += t2 - t1;
        t->wait += t3 - t2;
        t->touch += (tw - t0) + (t4 - t3);
        t->total += t4 - t0;
        if (s && s->n < s->cap) {
            s->post[s->n] = t1 - tw;
            s->wait[s->n] = t3 - t2;
            s->total[s->n] = t4 - t0;
            s->xchg[s->n] = (t1 - tw) + (t3 - t2);
            s->n++;
        }
    }
}

/* osub_xcheck does one exchange with known data (untouched) and verifies
 * what arrived. */
static void osub_xcheck(unsigned char *sbuf, unsigned char *rbuf, long size, int peer)
{
    osub_xtimes t = {0};
    osub_fill(sbuf, size, osub_rank + 1);
    memset(rbuf, 0, size > 0 ? size : 1);
    osub_xchg(sbuf, rbuf, size, peer, 1, 0, 0, &t, NULL);
    if (!osub_verify(rbuf, size, peer + 1)) {
        char msg[128];
        snprintf(msg, sizeof msg, "data check failed at size %ld from peer %d", size, peer);
        osub_die(msg);
    }
}

/* osub_xwarm runs the warm-up of a size twice (the first pass pays for
 * first-touch and registration) and returns the iteration count that fits
 * the budget (or budget/parts for a phase run in parts). */
static long osub_xwarm(void *sbuf, void *rbuf, long size, int peer, double comp_us)
{
    osub_xtimes w = {0};
    long warm = osub_warm(size);
    OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    osub_xchg(sbuf, rbuf, size, peer, warm, comp_us, O.touch, &w, NULL);
    memset(&w, 0, sizeof w);
    osub_xchg(sbuf, rbuf, size, peer, warm, comp_us, O.touch, &w, NULL);
    return osub_iters(w.total, warm);
}

#endif
