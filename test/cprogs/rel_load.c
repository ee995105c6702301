/*
 * rel_load: load and backpressure. User 0 floods user 1; every other user
 * pair (if any) does the same, 2k -> 2k+1.
 *
 *   rel_load <messages> <window> <bytes> [regist|plain] [wildcard_used] [second]
 *
 * The receiver posts <window> receives before any message leaves (a barrier
 * separates the two), then keeps <window> receives outstanding: it waits for
 * the oldest, checks it, and reposts its slot. The sender posts <messages>
 * sends of <bytes> bytes (>= 8) without ever waiting: MPI_Isend followed by
 * MPI_Request_free, each from its own slot of one buffer, so the sender
 * never reuses memory it has not seen delivered. Every message carries its
 * sequence number in its first 8 bytes; receive i must get message i (same
 * source, same tag: MPI's non-overtaking rule), so a lost, duplicated or
 * reordered message fails the check.
 *
 * Buffers come from MPI_Alloc_mem with shmbuf_regist=true (regist, the
 * default: no bounce copy) or with plain malloc (plain: every message is
 * bounced). The communicator is a duplicate of MPI_COMM_WORLD with
 * wildcard_used=<wildcard_used> (default none).
 *
 * With [second] > 0, a second burst of that many messages follows once the
 * first is delivered: the memory the first one needed is reused, so the
 * peak (VmHWM) must not grow by much.
 *
 * Output, per user:
 *   result rank=<r> test=load role=send|recv ok=<0|1> messages=<n>
 *          bad_seq=<n> first_bad=<i> errors=<n> post_s=<s> total_s=<s>
 *          hwm0_kib=<n> hwm1_kib=<n> hwm2_kib=<n> rss_kib=<n>
 *          cells=<n> ops=<n> heap=<n> held=<n> pid=<pid>
 * hwm0/1/2: VmHWM (/proc/self/status) before the first burst, after it,
 * after the second; rss: VmRSS at the end; cells/ops/heap/held: what the
 * fast path holds at the end, all operations finished and buffers freed
 * (test hook csp_test_usage; -1 without it).
 */
#include "rel_hooks.h"

#include <string.h>
#include <unistd.h>

/* A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), -1 if absent. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            v = atol(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

static int rank, tag = 7;
static long bad, first_bad = -1, errs;

/* One burst of n messages of sz bytes from the sender to the receiver;
 * seq0 numbers the first. */
static void send_burst(MPI_Comm c, int peer, char *buf, long n, int sz, long seq0)
{
    for (long i = 0; i < n; i++) {
        uint64_t s = (uint64_t)(seq0 + i);
        memcpy(buf + (size_t)i * sz, &s, 8);
        memset(buf + (size_t)i * sz + 8, (int)(s & 0xff), (size_t)sz - 8);
    }
    MPI_Barrier(c); /* the receiver has posted its window */
    for (long i = 0; i < n; i++) {
        MPI_Request r;
        int rc = MPI_Isend(buf + (size_t)i * sz, sz, MPI_BYTE, peer, tag, c, &r);
        if (rc == MPI_SUCCESS)
            rc = MPI_Request_free(&r);
        if (rc != MPI_SUCCESS && errs++ == 0)
            fprintf(stderr, "rel_load rank %d: send %ld failed: error %d\n", rank, seq0 + i, rc);
    }
    /* Every send has been delivered once the receiver says so; only then
     * may the buffer be reused. */
    int done;
    MPI_Recv(&done, 1, MPI_INT, peer, tag + 1, c, MPI_STATUS_IGNORE);
}

static void recv_burst(MPI_Comm c, int peer, char *buf, long n, int w, int sz, long seq0)
{
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)w);
    long posted = 0;
    for (; posted < w && posted < n; posted++)
        MPI_Irecv(buf + (size_t)posted * sz, sz, MPI_BYTE, peer, tag, c, &req[posted]);
    MPI_Barrier(c);
    for (long i = 0; i < n; i++) {
        int slot = (int)(i % w);
        MPI_Status st;
        int rc = MPI_Wait(&req[slot], &st);
        uint64_t s;
        memcpy(&s, buf + (size_t)slot * sz, 8);
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        int ok = rc == MPI_SUCCESS && s == (uint64_t)(seq0 + i) && cnt == sz && st.MPI_SOURCE == peer &&
                 st.MPI_TAG == tag;
        for (int k = 8; ok && k < sz; k++)
            ok = (unsigned char)buf[(size_t)slot * sz + k] == (unsigned char)(s & 0xff);
        if (!ok) {
            if (first_bad < 0) {
                first_bad = seq0 + i;
                fprintf(stderr, "rel_load rank %d: receive %ld got seq %llu count %d src %d tag %d rc %d\n",
                        rank, seq0 + i, (unsigned long long)s, cnt, st.MPI_SOURCE, st.MPI_TAG, rc);
            }
            bad++;
        }
        if (posted < n) {
            MPI_Irecv(buf + (size_t)slot * sz, sz, MPI_BYTE, peer, tag, c, &req[slot]);
            posted++;
        }
    }
    int done = 1;
    MPI_Send(&done, 1, MPI_INT, peer, tag + 1, c);
    free(req);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: rel_load <messages> <window> <bytes> [regist|plain] [wildcard_used] [second]\n");
        return 2;
    }
    long n = atol(argv[1]), n2 = argc > 6 ? atol(argv[6]) : 0;
    int w = atoi(argv[2]);
    int sz = atoi(argv[3]);
    int regist = !(argc > 4 && strcmp(argv[4], "plain") == 0);
    const char *wild = argc > 5 ? argv[5] : "none";
    if (sz < 8)
        sz = 8;

    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", wild);
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");

    int pairs = size / 2;
    int sender = rank % 2 == 0 && rank / 2 < pairs;
    int receiver = rank % 2 == 1 && rank / 2 < pairs;
    int peer = sender ? rank + 1 : rank - 1;
    long hwm0 = status_kib("VmHWM"), hwm1 = -1, hwm2 = -1;
    double t0 = MPI_Wtime(), tpost = 0;

    if (sender || receiver) {
        long cnt = sender ? (n > n2 ? n : n2) : w;
        size_t bytes = (size_t)cnt * (size_t)sz;
        char *buf;
        if (regist)
            MPI_Alloc_mem((MPI_Aint)bytes, info, &buf);
        else
            buf = malloc(bytes);
        if (sender) {
            send_burst(c, peer, buf, n, sz, 0);
            tpost = MPI_Wtime() - t0;
        } else {
            recv_burst(c, peer, buf, n, w, sz, 0);
        }
        hwm1 = status_kib("VmHWM");
        if (n2 > 0) {
            if (sender)
                send_burst(c, peer, buf, n2, sz, n);
            else
                recv_burst(c, peer, buf, n2, w, sz, n);
        }
        hwm2 = status_kib("VmHWM");
        if (regist)
            MPI_Free_mem(buf);
        else
            free(buf);
    } else {
        MPI_Barrier(c);
        if (n2 > 0)
            MPI_Barrier(c);
    }
    double total = MPI_Wtime() - t0;
    uint32_t cells = (uint32_t)-1, held = (uint32_t)-1;
    uint64_t ops = (uint64_t)-1, heap = (uint64_t)-1;
    rel_usage(1, &cells, &ops, &heap, &held);
    if (sender || receiver)
        printf("result rank=%d test=load role=%s ok=%d messages=%ld second=%ld bad_seq=%ld first_bad=%ld errors=%ld "
               "post_s=%.3f total_s=%.3f hwm0_kib=%ld hwm1_kib=%ld hwm2_kib=%ld rss_kib=%ld "
               "cells=%d ops=%lld heap=%lld held=%d pid=%d\n",
               rank, sender ? "send" : "recv", bad == 0 && errs == 0, n, n2, bad, first_bad, errs, tpost, total,
               hwm0, hwm1, hwm2, status_kib("VmRSS"), (int)cells, (long long)ops, (long long)heap, (int)held,
               (int)getpid());
    fflush(stdout);
    MPI_Info_free(&info);
    MPI_Comm_free(&c);
    MPI_Finalize();
    return bad != 0 || errs != 0;
}
