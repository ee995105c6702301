/*
 * ip_greq: waits on generalized requests that complete only from their
 * poll function (MPICH's MPIX_Grequest_start; ROMIO's nonblocking I/O is
 * made of them), where the library's waits on MPICH poll instead of
 * blocking (CSP_DIRECT_YIELD=on, or users outnumbering cores).
 *
 *   ip_greq <dir>
 *
 *   1. MPI_Wait, MPI_Waitall (with an MPI_Irecv from the peer user beside
 *      it), MPI_Waitany and MPI_Waitsome on a generalized request whose
 *      poll function completes it on its third call; its query function
 *      sets the status (count 12 bytes, tag 77): checked.
 *   2. MPI_Waitall on three such requests, the second's query function
 *      failing (MPI_ERR_OTHER), with MPI_ERRORS_RETURN: the call's
 *      class and each status' error class are printed (MPICH's own
 *      MPI_Waitall: MPI_ERR_IN_STATUS, success, other, pending); the
 *      third is then waited for alone.
 *   3. MPI-IO: each user writes 1 MiB to <dir>/greq.<rank> with
 *      MPI_File_iwrite_at and MPI_Wait, reads it back with two
 *      MPI_File_iread_at halves and MPI_Waitall, and checks every byte.
 *   4. MPI-IO collective: every user writes four 1 MiB blocks of
 *      <dir>/greq.all with four MPI_File_iwrite_at_all and one MPI_Waitall
 *      (MPICH's io/i_aggregation1 and its hints), then reads its blocks back with
 *      MPI_File_read_at and checks every byte.
 *
 * Output, per user:
 *   result rank=<r> test=greq ok=<0|1> bad=<n> polls=<n> failed=<classes>
 * polls: calls of the poll function (at least 3 per request).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad, polls;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond) && bad++ < 5)                                                                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
    } while (0)

struct greq {
    MPI_Request req;
    int calls;
    int fail; /* the query function fails */
};

static int query_fn(void *extra, MPI_Status *st)
{
    struct greq *g = extra;
    MPI_Status_set_elements(st, MPI_BYTE, 12);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = 77;
    return g->fail ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* Completes the request on its third call, as an I/O library's poll
 * would once its operation finished. */
static int poll_fn(void *extra, MPI_Status *st)
{
    (void)st;
    struct greq *g = extra;
    polls++;
    if (++g->calls == 3)
        MPI_Grequest_complete(g->req);
    return MPI_SUCCESS;
}

/* MPICH's own MPI_Wait calls this and expects the requests complete on
 * return: poll them until they are. */
static int wait_fn(int count, void **extra, double timeout, MPI_Status *st)
{
    (void)timeout;
    for (int i = 0; i < count; i++) {
        struct greq *g = extra[i];
        while (g->calls < 3)
            poll_fn(g, st);
    }
    return MPI_SUCCESS;
}

static MPI_Request greq_failing(int fail)
{
    struct greq *g = calloc(1, sizeof *g);
    g->fail = fail;
    MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, wait_fn, g, &g->req);
    return g->req;
}

static MPI_Request greq(void) { return greq_failing(0); }

static int err_class(int code)
{
    int c = -1;
    MPI_Error_class(code, &c);
    return c;
}

static void check_status(const MPI_Status *st, const char *how)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(n == 12 && st->MPI_TAG == 77, "ip_greq: %s: count %d tag %d\n", how, n, st->MPI_TAG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    MPI_Status st, sts[2];

    MPI_Request r = greq();
    CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL, "ip_greq: MPI_Wait\n");
    check_status(&st, "MPI_Wait");

    MPI_Request rs[2];
    int in = -1, out = 1000 + rank;
    rs[0] = greq();
    MPI_Irecv(&in, 1, MPI_INT, peer < size ? peer : MPI_PROC_NULL, 5, MPI_COMM_WORLD, &rs[1]);
    if (peer < size)
        MPI_Send(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD);
    CHECK(MPI_Waitall(2, rs, sts) == MPI_SUCCESS, "ip_greq: MPI_Waitall\n");
    check_status(&sts[0], "MPI_Waitall");
    CHECK(peer >= size || (in == 1000 + peer && sts[1].MPI_SOURCE == peer), "ip_greq: MPI_Waitall's receive got %d\n",
          in);

    int idx = -1;
    rs[0] = MPI_REQUEST_NULL;
    rs[1] = greq();
    CHECK(MPI_Waitany(2, rs, &idx, &st) == MPI_SUCCESS && idx == 1, "ip_greq: MPI_Waitany index %d\n", idx);
    check_status(&st, "MPI_Waitany");

    int outcount = -1, idxs[2];
    rs[0] = greq();
    CHECK(MPI_Waitsome(2, rs, &outcount, idxs, sts) == MPI_SUCCESS && outcount == 1 && idxs[0] == 0,
          "ip_greq: MPI_Waitsome outcount %d\n", outcount);
    check_status(&sts[0], "MPI_Waitsome");

    char failed[64] = "";
    {
        MPI_Request fs[3] = {greq(), greq_failing(1), greq()};
        MPI_Status fst[3];
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int rc = MPI_Waitall(3, fs, fst);
        snprintf(failed, sizeof failed, "%d/%d,%d,%d", err_class(rc), err_class(fst[0].MPI_ERROR),
                 err_class(fst[1].MPI_ERROR), err_class(fst[2].MPI_ERROR));
        check_status(&fst[0], "MPI_Waitall, the first of three");
        if (fs[2] != MPI_REQUEST_NULL) {
            CHECK(MPI_Wait(&fs[2], &st) == MPI_SUCCESS, "ip_greq: MPI_Wait after MPI_ERR_IN_STATUS\n");
            check_status(&st, "MPI_Wait after MPI_ERR_IN_STATUS");
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }

    if (argc > 1) {
        char path[4096];
        snprintf(path, sizeof path, "%s/greq.%d", argv[1], rank);
        MPI_File f;
        const int n = 1 << 20;
        unsigned char *w = malloc(n), *rd = malloc(n);
        for (int i = 0; i < n; i++)
            w[i] = (unsigned char)(i * 31 + rank);
        memset(rd, 0, n);
        int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f);
        CHECK(rc == MPI_SUCCESS, "ip_greq: MPI_File_open %s: %d\n", path, rc);
        if (rc == MPI_SUCCESS) {
            MPI_Request fr[2];
            MPI_File_iwrite_at(f, 0, w, n, MPI_BYTE, &fr[0]);
            CHECK(MPI_Wait(&fr[0], &st) == MPI_SUCCESS, "ip_greq: wait for the write\n");
            MPI_File_iread_at(f, 0, rd, n / 2, MPI_BYTE, &fr[0]);
            MPI_File_iread_at(f, n / 2, rd + n / 2, n / 2, MPI_BYTE, &fr[1]);
            CHECK(MPI_Waitall(2, fr, sts) == MPI_SUCCESS, "ip_greq: wait for the reads\n");
            CHECK(memcmp(w, rd, n) == 0, "ip_greq: the file's bytes differ\n");
            MPI_File_close(&f);
            MPI_File_delete(path, MPI_INFO_NULL);
        }
        free(w);
        free(rd);

        /* 4: four collective writes in flight, one MPI_Waitall */
        snprintf(path, sizeof path, "%s/greq.all", argv[1]);
        const int blk = 1 << 20, nblk = 4;
        unsigned char *wb = malloc((size_t)blk * nblk), *rb = malloc(blk);
        MPI_Info hints; /* i_aggregation1's: one aggregator, a 4 MiB buffer */
        MPI_Info_create(&hints);
        MPI_Info_set(hints, "romio_cb_write", "enable");
        MPI_Info_set(hints, "romio_no_indep_rw", "1");
        MPI_Info_set(hints, "cb_nodes", "1");
        MPI_Info_set(hints, "cb_buffer_size", "4194304");
        rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, hints, &f);
        MPI_Info_free(&hints);
        CHECK(rc == MPI_SUCCESS, "ip_greq: MPI_File_open %s: %d\n", path, rc);
        if (rc == MPI_SUCCESS) {
            MPI_Request cw[4];
            MPI_Status cst[4];
            for (int b = 0; b < nblk; b++) {
                unsigned char *p = wb + (size_t)b * blk;
                for (int i = 0; i < blk; i++)
                    p[i] = (unsigned char)(i * 7 + b * 13 + rank * 29);
                MPI_Offset off = ((MPI_Offset)rank * nblk + b) * blk;
                MPI_File_iwrite_at_all(f, off, p, blk, MPI_BYTE, &cw[b]);
            }
            CHECK(MPI_Waitall(nblk, cw, cst) == MPI_SUCCESS, "ip_greq: wait for the collective writes\n");
            for (int b = 0; b < nblk; b++) {
                int cnt = -1;
                MPI_Get_count(&cst[b], MPI_BYTE, &cnt);
                CHECK(cnt == blk, "ip_greq: collective write %d: count %d\n", b, cnt);
            }
            MPI_File_sync(f);
            MPI_Barrier(MPI_COMM_WORLD);
            for (int b = 0; b < nblk; b++) {
                memset(rb, 0, blk);
                MPI_File_read_at(f, ((MPI_Offset)rank * nblk + b) * blk, rb, blk, MPI_BYTE, &st);
                CHECK(memcmp(rb, wb + (size_t)b * blk, blk) == 0, "ip_greq: collective block %d differs\n", b);
            }
            MPI_File_close(&f);
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                MPI_File_delete(path, MPI_INFO_NULL);
        }
        free(wb);
        free(rb);
    }
    printf("result rank=%d test=greq ok=%d bad=%d polls=%d failed=%s\n", rank, bad == 0 && polls >= 12, bad,
           polls, failed);
    MPI_Finalize();
    return 0;
}
