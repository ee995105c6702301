/*
 * probe.c: a request/response server that polls MPI_Iprobe between slices
 * of compute, as PGAS runtimes serve remote requests (issue 15). User 0 is
 * the server, the others are its clients.
 *   server: computes in slices of -q us (busy or sleep, default 20); after
 *           each slice it polls MPI_Iprobe(MPI_ANY_SOURCE, REQ) and, as long
 *           as that finds a request, receives it (MPI_Recv from the source
 *           found), reads it and answers it (MPI_Send of as many bytes),
 *           then polls again.
 *   client: per request, posts MPI_Irecv of the response, then MPI_Isend of
 *           the request (size bytes) to the server, and MPI_Waitall: that
 *           is its round trip (with -t the request is written before the
 *           posts and the response read after the wait, in the round
 *           trip). It then computes -u us before its next request.
 * Every client sends as many requests per round of the timed loop, so the
 * server knows when a round is over and no termination message is needed.
 * The communicator must allow MPI_ANY_SOURCE: under CasperII a hint such
 * as wildcard_used=any_src (the driver passes -H any_src).
 *
 * Rank 0 prints per size: rtt_us, the round trip (mean over requests and
 * clients), rtt_p50_us (the clients' medians, averaged), rtt_max_us (the
 * slowest client's mean), post_us and wait_us of a request, touch_us (the
 * clients' touching per request); server_comp_pct, the server's compute
 * time over its wall time in the timed loop (the compute throughput it
 * keeps while serving); empty_probe_us, the mean time of an MPI_Iprobe that
 * found nothing; probes_per_req, its MPI_Iprobe calls per request
 * answered; req_per_s, the requests it answered per second.
 */
#include "common.h"

#define TAG_REQ 300
#define TAG_RESP 301

static unsigned char *qbuf, *rbuf;

typedef struct {
    double rtt, post, wait, touch;           /* client: sums over requests */
    double wall, comp, empty;                /* server: its loop, its compute, its empty probes */
    long probes, empties;                    /* server */
} probe_times;

/* client sends n requests of size bytes to the server, computing -u us
 * after each, and records each round trip in samples (if not NULL). */
static void client(long size, long n, probe_times *t, double *samples)
{
    MPI_Request req[2];
    for (long i = 0; i < n; i++) {
        double t0 = osub_now(), tw = t0;
        if (O.touch) {
            osub_touch_write(qbuf, size);
            tw = osub_now();
        }
        OSUB_CHECK(MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, TAG_RESP, osub_comm, &req[0]));
        OSUB_CHECK(MPI_Isend(qbuf, (int)size, MPI_BYTE, 0, TAG_REQ, osub_comm, &req[1]));
        double t1 = osub_now();
        OSUB_CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        double t2 = osub_now(), t3 = t2;
        if (O.touch) {
            osub_touch_read(rbuf, size);
            t3 = osub_now();
        }
        t->rtt += t3 - t0;
        t->post += t1 - tw;
        t->wait += t2 - t1;
        t->touch += (tw - t0) + (t3 - t2);
        if (samples)
            samples[i] = t3 - t0;
        osub_compute(O.halo_us);
    }
}

/* server answers todo requests of size bytes, computing -q us between
 * polls. */
static void server(long size, long todo, probe_times *t)
{
    double t0 = osub_now();
    long done = 0;
    while (done < todo) {
        double c0 = osub_now();
        osub_compute(O.slice_us);
        t->comp += osub_now() - c0;
        for (;;) {
            int flag = 0;
            MPI_Status st;
            double p0 = osub_now();
            OSUB_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, osub_comm, &flag, &st));
            double p1 = osub_now();
            t->probes++;
            if (!flag) {
                t->empty += p1 - p0;
                t->empties++;
                break;
            }
            OSUB_CHECK(MPI_Recv(qbuf, (int)size, MPI_BYTE, st.MPI_SOURCE, TAG_REQ, osub_comm,
                                MPI_STATUS_IGNORE));
            if (O.touch) {
                osub_touch_read(qbuf, size);
                osub_touch_write(rbuf, size);
            }
            OSUB_CHECK(MPI_Send(rbuf, (int)size, MPI_BYTE, st.MPI_SOURCE, TAG_RESP, osub_comm));
            done++;
        }
    }
    t->wall += osub_now() - t0;
}

/* run runs n requests per client (the server answers them all). */
static void run(long size, long n, probe_times *t, double *samples)
{
    if (osub_rank == 0)
        server(size, n * (osub_nusers - 1), t);
    else
        client(size, n, t, samples);
}

/* check sends one request with known data from every client; the server
 * verifies each and answers with data the client verifies. */
static void check(long size)
{
    if (osub_rank == 0) {
        for (long i = 0; i < osub_nusers - 1; i++) {
            MPI_Status st;
            int flag = 0;
            while (!flag)
                OSUB_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, TAG_REQ, osub_comm, &flag, &st));
            memset(qbuf, 0, size > 0 ? size : 1);
            OSUB_CHECK(MPI_Recv(qbuf, (int)size, MPI_BYTE, st.MPI_SOURCE, TAG_REQ, osub_comm,
                                MPI_STATUS_IGNORE));
            if (!osub_verify(qbuf, size, st.MPI_SOURCE + 1))
                osub_die("probe: data check of a request failed");
            osub_fill(rbuf, size, st.MPI_SOURCE + 101);
            OSUB_CHECK(MPI_Send(rbuf, (int)size, MPI_BYTE, st.MPI_SOURCE, TAG_RESP, osub_comm));
        }
        return;
    }
    MPI_Request req[2];
    osub_fill(qbuf, size, osub_rank + 1);
    memset(rbuf, 0, size > 0 ? size : 1);
    OSUB_CHECK(MPI_Irecv(rbuf, (int)size, MPI_BYTE, 0, TAG_RESP, osub_comm, &req[0]));
    OSUB_CHECK(MPI_Isend(qbuf, (int)size, MPI_BYTE, 0, TAG_REQ, osub_comm, &req[1]));
    OSUB_CHECK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    if (!osub_verify(rbuf, size, osub_rank + 101))
        osub_die("probe: data check of a response failed");
}

int main(int argc, char **argv)
{
    osub_init(&argc, &argv, "probe");
    if (osub_nusers < 2)
        osub_die("the probe test needs a server and at least one client (2 users)");
    int srv = osub_rank == 0;
    double nclients = osub_nusers - 1;
    if (osub_rank == 0) {
        printf("osub-info bench=probe server=0 clients=%d slice_us=%g think_us=%g compute=%s "
               "touch=%s\n",
               osub_nusers - 1, O.slice_us, O.halo_us, O.busy ? "busy" : "sleep",
               O.touch ? "on" : "off");
        fflush(stdout);
    }
    long maxsz = osub_max_size();
    qbuf = osub_alloc(maxsz);
    rbuf = osub_alloc(maxsz);
    double *samples = malloc(sizeof(double) * O.max_iters);
    if (!samples)
        osub_die("out of memory");
    for (int s = 0; s < O.nsizes; s++) {
        long size = O.sizes[s];
        if (O.check)
            check(size);
        long warm = osub_warm(size) / 5 + 2;
        probe_times t = {0};
        OSUB_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        run(size, warm, &t, NULL);
        double w0 = osub_now();
        run(size, warm, &t, NULL);
        long iters = osub_iters(osub_now() - w0, warm);
        memset(&t, 0, sizeof t);
        osub_rounds r;
        osub_use use;
        for (long n = osub_rounds_begin(&r, iters); n > 0; n = osub_rounds_next(&r, n))
            run(size, n, &t, samples + r.done);
        iters = osub_rounds_end(&r, &use);
        /* Client means: the server contributes 0 to the sums. */
        double k = osub_nusers / nclients;
        double rtt = osub_avg(srv ? 0 : t.rtt / iters) * k;
        double p50 = osub_avg(srv ? 0 : osub_median(samples, iters)) * k;
        double rmax = osub_maxv(srv ? 0 : t.rtt / iters);
        double post = osub_avg(srv ? 0 : t.post / iters) * k;
        double wait = osub_avg(srv ? 0 : t.wait / iters) * k;
        double tch = osub_avg(srv ? 0 : t.touch / iters) * k;
        /* Server values: the clients contribute 0 to the maxima. */
        double answered = (double)iters * nclients;
        double comp = osub_maxv(srv && t.wall > 0 ? 100 * t.comp / t.wall : 0);
        double empty = osub_maxv(srv && t.empties ? t.empty / (double)t.empties : 0);
        double ppr = osub_maxv(srv ? (double)t.probes / answered : 0);
        double rate = osub_maxv(srv && t.wall > 0 ? answered / t.wall : 0);
        if (osub_rank == 0) {
            printf("osub bench=probe size=%ld iters=%ld rtt_us=%.4f rtt_p50_us=%.4f "
                   "rtt_max_us=%.4f post_us=%.4f wait_us=%.4f touch_us=%.4f "
                   "server_comp_pct=%.2f empty_probe_us=%.4f probes_per_req=%.3f req_per_s=%.1f "
                   "cpu_pct=%.1f vcsw=%.3f ivcsw=%.3f\n",
                   size, iters, rtt * 1e6, p50 * 1e6, rmax * 1e6, post * 1e6, wait * 1e6,
                   tch * 1e6, comp, empty * 1e6, ppr, rate, use.cpu_frac * 100, use.vcsw,
                   use.ivcsw);
            fflush(stdout);
        }
    }
    osub_free(qbuf);
    osub_free(rbuf);
    free(samples);
    osub_finalize();
    return 0;
}
