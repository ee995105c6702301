/*
 * ip_pollprobe: MPI_Iprobe polled in loops, as a PGAS runtime's server
 * does, on a duplicate of the world with wildcard_used=<hint> ("-": no
 * hint). Rank 0 serves, every other rank is a client.
 *
 *   ip_pollprobe <requests per client> <hint> [improbe]
 *
 * With "improbe" every loop below polls MPI_Improbe instead and receives
 * the message it matched with MPI_Mrecv (the stale section's first two
 * probes stay MPI_Iprobe: they are the section's point).
 *
 * Sections (rank 0 prints one result line each):
 *   serve  every client sends <requests> requests (tag 100 + i % 7, i
 *          words: client rank and i), each after the reply to the one
 *          before. Rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG)
 *          between slices of 20 us of compute, receives what each probe
 *          names from its status's source and tag, and checks count, data
 *          and that each client's requests come in order; then replies.
 *   stale  rank 0 probes (1, tag 7) and finds nothing; rank 1 sends A (3
 *          words) then B (5 words) with tag 7 and both meet in a barrier;
 *          rank 0 probes (1, 7) again after 20 ms, receives (1, 7) (A),
 *          and polls MPI_Iprobe(1, 7) until it is true: its count must be
 *          B's; a probe answer given before the receive names A, which is
 *          gone. Then B is received and a last probe finds nothing.
 *   once   rank 0 polls MPI_Iprobe(1, 9) a few times, then (after a
 *          barrier) rank 1 sends one message with tag 9: polling finds it
 *          (bounded) and it is received with its data and status.
 *   threads (MPI_THREAD_MULTIPLE) two threads of rank 0 poll
 *          MPI_Iprobe(1, 200 + k) and receive what they find while rank 1
 *          sends <requests> messages alternating the two tags: each thread
 *          gets its half, in order (the polled probe is one per process:
 *          the threads take it from each other all along).
 *
 * Output: "result rank=0 test=<section> ok=<0|1> msgs=<n> bad=<text>".
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void spin(double us)
{
    double end = now() + us * 1e-6;
    while (now() < end)
        ;
}

static int rank, size, matched;
static MPI_Comm comm;

/* One poll: MPI_Iprobe, or MPI_Improbe with "improbe" (*msg then holds
 * the message found). */
static void probe(int src, int tag, int *flag, MPI_Message *msg, MPI_Status *st)
{
    if (matched)
        MPI_Improbe(src, tag, comm, flag, msg, st);
    else
        MPI_Iprobe(src, tag, comm, flag, st);
}

/* Receive what probe found (src and tag: its status's). */
static void recv_probed(int *buf, int n, int src, int tag, MPI_Message *msg, MPI_Status *st)
{
    if (matched)
        MPI_Mrecv(buf, n, MPI_INT, msg, st);
    else
        MPI_Recv(buf, n, MPI_INT, src, tag, comm, st);
}

static void report(const char *test, int ok, long msgs, const char *bad)
{
    printf("result rank=%d test=%s ok=%d msgs=%ld bad=%s\n", rank, test, ok, msgs, ok ? "-" : bad);
    fflush(stdout);
}

static void serve(int n)
{
    int req[64], done = 0, ok = 1;
    char bad[160] = "";
    if (rank != 0) {
        for (int i = 0; i < n; i++) {
            int k = i % 64;
            for (int w = 0; w < k; w++)
                req[w] = w % 2 ? i : rank;
            int reply;
            MPI_Send(req, k, MPI_INT, 0, 100 + i % 7, comm);
            MPI_Recv(&reply, 1, MPI_INT, 0, 1, comm, MPI_STATUS_IGNORE);
            if (reply != rank * 100000 + i)
                fprintf(stderr, "rank %d: reply %d to request %d\n", rank, reply, i);
        }
        return;
    }
    int *next = calloc((size_t)size, sizeof(int));
    long want = (long)n * (size - 1), polls = 0;
    while (done < want && polls < 200000000L) {
        int flag = 0;
        MPI_Status st;
        MPI_Message msg;
        probe(MPI_ANY_SOURCE, MPI_ANY_TAG, &flag, &msg, &st);
        polls++;
        if (!flag) {
            spin(20);
            continue;
        }
        int s = st.MPI_SOURCE, count;
        MPI_Get_count(&st, MPI_INT, &count);
        int i = s > 0 && s < size ? next[s] : -1;
        if (ok && (i < 0 || st.MPI_TAG != 100 + i % 7 || count != i % 64)) {
            snprintf(bad, sizeof(bad), "probe:src=%d,tag=%d,count=%d,want_i=%d", s, st.MPI_TAG, count, i);
            ok = 0;
        }
        MPI_Status rs;
        int got;
        recv_probed(req, 64, s, st.MPI_TAG, &msg, &rs);
        MPI_Get_count(&rs, MPI_INT, &got);
        for (int w = 0; ok && w < got; w++)
            if (req[w] != (w % 2 ? i : s)) {
                snprintf(bad, sizeof(bad), "data:src=%d,i=%d,word=%d", s, i, w);
                ok = 0;
            }
        if (ok && (rs.MPI_SOURCE != s || rs.MPI_TAG != st.MPI_TAG || got != count)) {
            snprintf(bad, sizeof(bad), "recv:src=%d,tag=%d,count=%d", rs.MPI_SOURCE, rs.MPI_TAG, got);
            ok = 0;
        }
        int reply = s * 100000 + i;
        MPI_Send(&reply, 1, MPI_INT, s, 1, comm);
        next[s]++;
        done++;
    }
    if (done < want && ok) {
        snprintf(bad, sizeof(bad), "served:%d/%ld", done, want);
        ok = 0;
    }
    free(next);
    report("serve", ok, done, bad);
}

/* Poll (src, tag) until found, at most about 10 s. */
static int poll_until(int src, int tag, MPI_Message *msg, MPI_Status *st)
{
    int flag = 0;
    for (long i = 0; !flag && i < 1000000L; i++) {
        probe(src, tag, &flag, msg, st);
        if (!flag)
            spin(10);
    }
    return flag;
}

static void stale(void)
{
    int a[3] = {1, 2, 3}, b[5] = {4, 5, 6, 7, 8}, buf[8], flag = 0, ok = 1, count;
    char bad[160] = "";
    MPI_Status st;
    MPI_Message msg;
    if (rank == 0)
        MPI_Iprobe(1, 7, comm, &flag, &st);
    if (rank == 0 && flag) {
        snprintf(bad, sizeof(bad), "found-before-send");
        ok = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Send(a, 3, MPI_INT, 0, 7, comm);
        MPI_Send(b, 5, MPI_INT, 0, 7, comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    MPI_Iprobe(1, 7, comm, &flag, &st); /* may answer from before the sends */
    nanosleep(&ts, NULL);               /* the ghost probes again meanwhile */
    MPI_Recv(buf, 8, MPI_INT, 1, 7, comm, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    if (ok && (count != 3 || buf[0] != 1 || buf[2] != 3)) {
        snprintf(bad, sizeof(bad), "first:count=%d", count);
        ok = 0;
    }
    int second = poll_until(1, 7, &msg, &st);
    if (!second) {
        snprintf(bad, sizeof(bad), "second-not-found");
        ok = 0;
    } else {
        MPI_Get_count(&st, MPI_INT, &count);
        if (ok && (count != 5 || st.MPI_SOURCE != 1 || st.MPI_TAG != 7)) {
            snprintf(bad, sizeof(bad), "second-probe:count=%d,src=%d,tag=%d", count, st.MPI_SOURCE, st.MPI_TAG);
            ok = 0;
        }
    }
    if (matched && second)
        recv_probed(buf, 8, 1, 7, &msg, &st);
    else
        MPI_Recv(buf, 8, MPI_INT, 1, 7, comm, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    if (ok && (count != 5 || buf[0] != 4 || buf[4] != 8)) {
        snprintf(bad, sizeof(bad), "second:count=%d", count);
        ok = 0;
    }
    for (int i = 0; ok && i <= 100; i++) {
        probe(1, 7, &flag, &msg, &st);
        if (flag) {
            snprintf(bad, sizeof(bad), "found-after-both-received:poll=%d", i);
            ok = 0;
        }
        spin(100);
    }
    report("stale", ok, 2, bad);
}

static void once(void)
{
    int v = 42, got = 0, flag = 0, ok = 1;
    char bad[160] = "";
    MPI_Status st;
    MPI_Message msg;
    MPI_Request r = MPI_REQUEST_NULL;
    if (rank == 0)
        for (int i = 0; i < 5; i++)
            probe(1, 9, &flag, &msg, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Isend(&v, 1, MPI_INT, 0, 9, comm, &r);
    if (rank == 0) {
        if (!poll_until(1, 9, &msg, &st)) {
            snprintf(bad, sizeof(bad), "not-found");
            ok = 0;
        } else {
            recv_probed(&got, 1, 1, 9, &msg, &st);
            if (got != 42 || st.MPI_SOURCE != 1 || st.MPI_TAG != 9) {
                snprintf(bad, sizeof(bad), "got=%d,src=%d,tag=%d", got, st.MPI_SOURCE, st.MPI_TAG);
                ok = 0;
            }
        }
    }
    if (rank == 1)
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank == 0)
        report("once", ok, 1, bad);
}

struct tharg {
    int k, n, ok, got;
    char bad[160];
};

static void *poller(void *v)
{
    struct tharg *a = v;
    for (int i = 0; i < a->n && a->ok; i++) {
        MPI_Status st;
        MPI_Message msg;
        if (!poll_until(1, 200 + a->k, &msg, &st)) {
            snprintf(a->bad, sizeof(a->bad), "thread%d:not-found:i=%d", a->k, i);
            a->ok = 0;
            break;
        }
        int buf[2] = {-1, -1};
        recv_probed(buf, 2, 1, 200 + a->k, &msg, &st);
        if (buf[0] != a->k || buf[1] != i || st.MPI_TAG != 200 + a->k) {
            snprintf(a->bad, sizeof(a->bad), "thread%d:i=%d:got=%d,%d,tag=%d", a->k, i, buf[0], buf[1], st.MPI_TAG);
            a->ok = 0;
        }
        a->got++;
    }
    return NULL;
}

static void threads(int n, int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            report("threads", 0, 0, "no-MPI_THREAD_MULTIPLE");
        return;
    }
    if (rank == 1)
        for (int i = 0; i < 2 * n; i++) {
            int buf[2] = {i % 2, i / 2};
            MPI_Send(buf, 2, MPI_INT, 0, 200 + i % 2, comm);
        }
    if (rank != 0)
        return;
    struct tharg a[2] = {{.k = 0, .n = n, .ok = 1}, {.k = 1, .n = n, .ok = 1}};
    pthread_t t[2];
    for (int k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, poller, &a[k]);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    report("threads", a[0].ok && a[1].ok, a[0].got + a[1].got, a[0].ok ? a[1].bad : a[0].bad);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (argc != 3 && !(argc == 4 && strcmp(argv[3], "improbe") == 0)) {
        fprintf(stderr, "usage: ip_pollprobe <requests per client> <hint> [improbe]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    matched = argc == 4;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    if (strcmp(argv[2], "-") != 0)
        MPI_Info_set(info, "wildcard_used", argv[2]);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    serve(atoi(argv[1]));
    MPI_Barrier(MPI_COMM_WORLD);
    stale();
    MPI_Barrier(MPI_COMM_WORLD);
    once();
    MPI_Barrier(MPI_COMM_WORLD);
    threads(atoi(argv[1]), provided);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
