/*
 * ip_lend: legal programs in which a user waits on something only MPICH
 * finishes while its offloaded receive is in flight, and its peer needs
 * that receive's progress (internal/user/coop.c). On a host where ghosts
 * share cores with users at a lowered priority, these would starve the
 * ghost unless the waiting user lends it the core.
 *
 * Users pair up: user r < n/2 receives from r + n/2, which sends. Each
 * section runs <iters> times with <bytes> messages on a communicator
 * with wildcard_used=none (offloaded), checking every word:
 *
 *   barrier  the receiver posts MPI_Irecv, enters MPI_Barrier, then waits;
 *            the sender's blocking MPI_Send comes before its barrier
 *   colls    the receiver posts MPI_Irecv; everyone runs Allreduce, Bcast,
 *            Allgather, Alltoall, Reduce, Scan, Gather, Scatter,
 *            Reduce_scatter_block (results checked); then the sender sends
 *   test     the receiver polls MPI_Test in a loop; the sender sends after
 *            2 ms
 *   direct   the receiver posts MPI_Irecv on the offloaded communicator,
 *            then a blocking MPI_Recv on one with async_config=off; the
 *            sender's blocking MPI_Send on the offloaded one comes first
 *
 *   ip_lend <iters> <bytes>
 *
 * Output: "result rank=<r> test=<section> ok=<0|1> iters=<n>", then
 * "threads rank=<r> main=<nice> other=<nice,...> named=<name:nice,...>":
 * the nice values of this process's threads after the sections (main:
 * the thread that called MPI_Init; other: every other thread not named
 * "async"; named: those, MPICH's transport's own).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int rank, size, peer, recvr;
static long n;
static uint64_t *buf;
static MPI_Comm comm, off;

static inline uint64_t word(long it, long i) { return ((uint64_t)it << 32) ^ (uint64_t)i * 2654435761u; }

static void fill(long it)
{
    for (long i = 0; i < n; i++)
        buf[i] = word(it, i);
}

static int check(long it)
{
    for (long i = 0; i < n; i++)
        if (buf[i] != word(it, i))
            return 0;
    return 1;
}

static void report(const char *test, int ok, long iters)
{
    printf("result rank=%d test=%s ok=%d iters=%ld\n", rank, test, ok, iters);
    fflush(stdout);
}

static int colls(void)
{
    int ok = 1, v = rank + 1, sum = 0, all[64], got[64], x = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok &= sum == size * (size + 1) / 2;
    x = rank == 0 ? 4242 : 0;
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ok &= x == 4242;
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        ok &= all[i] == i + 1;
    int out[64];
    for (int i = 0; i < size; i++)
        out[i] = rank * 100 + i;
    MPI_Alltoall(out, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        ok &= got[i] == i * 100 + rank;
    sum = -1;
    MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    ok &= rank != 0 || sum == size;
    MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok &= sum == (rank + 1) * (rank + 2) / 2;
    MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, size - 1, MPI_COMM_WORLD);
    for (int i = 0; rank == size - 1 && i < size; i++)
        ok &= all[i] == i + 1;
    for (int i = 0; i < size; i++)
        out[i] = 7 * i;
    MPI_Scatter(out, 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ok &= x == 7 * rank;
    for (int i = 0; i < size; i++)
        out[i] = i + rank;
    MPI_Reduce_scatter_block(out, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ok &= x == size * rank + size * (size - 1) / 2;
    return ok;
}

/* threads prints the nice value of every thread of the process. */
static void threads(void)
{
    char other[1024] = "", named[1024] = "", path[300], line[1024], name[64];
    int main_nice = 99;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(line, 1, sizeof line - 1, f);
        fclose(f);
        line[len] = 0;
        char *p = strrchr(line, ')'); /* after the name: state ppid ... nice is field 19 */
        int nice = 99;
        for (int field = 2; p && *p; p++)
            if (*p == ' ' && ++field == 19) {
                nice = atoi(p + 1);
                break;
            }
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        f = fopen(path, "r");
        name[0] = 0;
        if (f) {
            if (fgets(name, sizeof name, f))
                name[strcspn(name, "\n")] = 0;
            fclose(f);
        }
        char *to = other;
        char item[96];
        if (atoi(e->d_name) == (int)syscall(SYS_gettid)) {
            main_nice = nice;
            continue;
        }
        if (strcmp(name, "async") == 0) {
            to = named;
            snprintf(item, sizeof item, "%s%s:%d", *to ? "," : "", name, nice);
        } else
            snprintf(item, sizeof item, "%s%d", *to ? "," : "", nice);
        strncat(to, item, 1023 - strlen(to));
    }
    if (d)
        closedir(d);
    printf("threads rank=%d main=%d other=%s named=%s\n", rank, main_nice, other, named);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = argc > 1 ? atol(argv[1]) : 20;
    long bytes = argc > 2 ? atol(argv[2]) : 1 << 20;
    n = bytes / (long)sizeof(uint64_t);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 || size > 64) {
        fprintf(stderr, "ip_lend needs an even number of users, at most 64\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    recvr = rank < size / 2;
    peer = recvr ? rank + size / 2 : rank - size / 2;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_set(info, "async_config", "off");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &off);
    MPI_Info_free(&info);
    buf = malloc((size_t)n * sizeof *buf);

    int ok = 1;
    for (long it = 0; it < iters; it++) {
        if (recvr) {
            MPI_Request r;
            memset(buf, 0, (size_t)n * sizeof *buf);
            MPI_Irecv(buf, (int)n, MPI_UINT64_T, peer, 1, comm, &r);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            ok &= check(it);
        } else {
            fill(it);
            MPI_Send(buf, (int)n, MPI_UINT64_T, peer, 1, comm);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    report("barrier", ok, iters);

    ok = 1;
    for (long it = 0; it < iters; it++) {
        MPI_Request r = MPI_REQUEST_NULL;
        if (recvr) {
            memset(buf, 0, (size_t)n * sizeof *buf);
            MPI_Irecv(buf, (int)n, MPI_UINT64_T, peer, 2, comm, &r);
        }
        ok &= colls();
        if (recvr) {
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            ok &= check(it);
        } else {
            fill(it);
            MPI_Send(buf, (int)n, MPI_UINT64_T, peer, 2, comm);
        }
    }
    report("colls", ok, iters);

    ok = 1;
    for (long it = 0; it < iters; it++) {
        if (recvr) {
            MPI_Request r;
            int flag = 0;
            memset(buf, 0, (size_t)n * sizeof *buf);
            MPI_Irecv(buf, (int)n, MPI_UINT64_T, peer, 3, comm, &r);
            while (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            ok &= check(it);
        } else {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            fill(it);
            MPI_Send(buf, (int)n, MPI_UINT64_T, peer, 3, comm);
        }
    }
    report("test", ok, iters);

    ok = 1;
    for (long it = 0; it < iters; it++) {
        int token = (int)it;
        if (recvr) {
            MPI_Request r;
            memset(buf, 0, (size_t)n * sizeof *buf);
            MPI_Irecv(buf, (int)n, MPI_UINT64_T, peer, 4, comm, &r);
            token = -1;
            MPI_Recv(&token, 1, MPI_INT, peer, 5, off, MPI_STATUS_IGNORE);
            ok &= token == (int)it;
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            ok &= check(it);
        } else {
            fill(it);
            MPI_Send(buf, (int)n, MPI_UINT64_T, peer, 4, comm);
            MPI_Send(&token, 1, MPI_INT, peer, 5, off);
        }
    }
    report("direct", ok, iters);
    threads();

    free(buf);
    MPI_Comm_free(&off);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
