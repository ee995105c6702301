/*
 * ip_park: the CPU a parked ghost uses. Users exchange offloaded messages
 * (so the ghosts have worked), then every user sleeps for <sleep seconds>
 * with nothing posted, while user 0 measures the CPU time its node's ghost
 * (and every other process of this job on the host) consumes meanwhile,
 * from /proc/<pid>/stat. Ghosts are found as the processes with the same
 * parent (Hydra's proxy) whose PMI_RANK is not a user's.
 *
 *   ip_park <sleep seconds>
 *
 * Output: "park rank=0 pid=<p> pmi_rank=<r> cpu_ms=<ms> wall_ms=<ms>" per
 * other process of the job, then "result rank=<r> test=<name> ok=<0|1>".
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank;

static void check(const char *name, int ok)
{
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* cpu_ticks returns utime+stime of pid, and its parent. */
static long cpu_ticks(int pid, int *ppid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p)
        return -1;
    char state;
    long pp, utime, stime;
    if (sscanf(p + 2, "%c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &state, &pp, &utime,
               &stime) != 4)
        return -1;
    if (ppid)
        *ppid = (int)pp;
    return utime + stime;
}

static int pmi_rank(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
        if (strncmp(buf + i, "PMI_RANK=", 9) == 0)
            return atoi(buf + i + 9);
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double sleep_s = argc > 1 ? atof(argv[1]) : 3;
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);

    /* Work for the ghosts first. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, ok = 1;
    for (int i = 0; i < 200; i++) {
        int out = rank * 1000 + i, in = -1;
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_Irecv(&in, 1, MPI_INT, prev, i, comm, &r[0]);
        MPI_Isend(&out, 1, MPI_INT, next, i, comm, &r[1]);
        MPI_Waitall(2, r, st);
        ok &= in == prev * 1000 + i;
    }
    check("exchange", ok);
    MPI_Barrier(comm);

    /* Idle: every user sleeps; user 0 watches the other processes. */
    int pids[64], ranks[64], n = 0;
    long before[64];
    if (rank == 0) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) && n < 64) {
            int pid = atoi(e->d_name), pp;
            if (pid <= 0 || pid == getpid())
                continue;
            if (cpu_ticks(pid, &pp) < 0 || pp != getppid())
                continue;
            pids[n] = pid;
            ranks[n] = pmi_rank(pid);
            n++;
        }
        if (d)
            closedir(d);
        for (int i = 0; i < n; i++)
            before[i] = cpu_ticks(pids[i], NULL);
    }
    double t0 = now();
    struct timespec ts = {(time_t)sleep_s, (long)((sleep_s - (time_t)sleep_s) * 1e9)};
    nanosleep(&ts, NULL);
    double wall = now() - t0;
    if (rank == 0) {
        long hz = sysconf(_SC_CLK_TCK);
        for (int i = 0; i < n; i++) {
            long after = cpu_ticks(pids[i], NULL);
            printf("park rank=0 pid=%d pmi_rank=%d cpu_ms=%.0f wall_ms=%.0f\n", pids[i], ranks[i],
                   (after - before[i]) * 1000.0 / hz, wall * 1000);
        }
        check("watched", n > 0);
    }
    MPI_Barrier(comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
