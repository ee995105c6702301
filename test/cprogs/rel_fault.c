/*
 * rel_fault: a process of the job dies or aborts mid-run, with offloaded
 * operations outstanding everywhere; the job must end promptly.
 *
 *   rel_fault killghost <wait|test> <return|fatal>
 *       User 0 SIGKILLs the ghost serving it (found through the test hook
 *       csp_test_ghost_pid) in the middle of a ring exchange. Every user of
 *       that ghost must get an error from its next completion call (MPI_Waitall,
 *       or a loop of MPI_Test with "test") instead of hanging. With "return"
 *       (MPI_ERRORS_RETURN on MPI_COMM_WORLD) it prints
 *         result rank=<r> test=ghost-gone ok=1 class=<c> msg=<one_line> t_ms=<ms>
 *       and calls MPI_Abort; with "fatal" (the default handler) MPI aborts by
 *       itself. t_ms is CLOCK_MONOTONIC in ms (the killer prints its own
 *       "test=killed t_ms=<ms>"), so the test can compute the delay.
 *   rel_fault killuser <rank>
 *       User <rank> SIGKILLs itself while it has offloaded receives posted
 *       that nothing will ever match (its ghost holds them); the others wait
 *       in an offloaded receive from it.
 *   rel_fault abort <rank> <world|self>
 *       User <rank> calls MPI_Abort (on MPI_COMM_WORLD, or on MPI_COMM_SELF)
 *       while every other user waits in offloaded receives.
 *
 * Every user prints "result rank=<r> test=ready ok=1 pid=<pid>" once set up.
 */
#define _GNU_SOURCE
#include "rel_hooks.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size;

/* A result line, on stdout and appended to the file $REL_OUT if set: when
 * the launcher is stopped, or tears the job down, stdout may be lost. */
static void result(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fputs(line, stdout);
    fflush(stdout);
    const char *path = getenv("REL_OUT");
    if (path && *path) {
        FILE *f = fopen(path, "a");
        if (f) {
            fputs(line, f);
            fclose(f);
        }
    }
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* The Hydra proxy that launched this process (its parent), or 0. */
static pid_t proxy_pid(void)
{
    char path[64], name[64] = "";
    pid_t pp = getppid();
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pp);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (!fgets(name, sizeof name, f))
        name[0] = 0;
    fclose(f);
    return strncmp(name, "hydra_pmi_proxy", 15) == 0 ? pp : 0;
}

/* Is process pid still running (not gone, not a zombie)? */
static int running(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static pid_t stopped_proxy;

/* Resume the launcher at exit (MPI's fatal error handler exits the
 * process through MPI_Abort). */
static void resume_proxy(void)
{
    if (stopped_proxy)
        kill(stopped_proxy, SIGCONT);
}

static MPI_Comm offloaded_dup(const char *wildcard)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", wildcard);
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    return c;
}

static void report_error(int rc, const char *name)
{
    char msg[MPI_MAX_ERROR_STRING];
    int cls, nl = rel_errstr(rc, msg, &cls);
    result("result rank=%d test=%s ok=%d class=%d newline=%d msg=%s t_ms=%ld\n", rank, name,
           rc != MPI_SUCCESS && !nl, cls, nl, msg, now_ms());
}

/* Wait for the two requests with MPI_Waitall or a loop of MPI_Test. */
static int complete(MPI_Request r[2], int poll)
{
    MPI_Status st[2];
    if (!poll)
        return MPI_Waitall(2, r, st);
    for (int i = 0; i < 2; i++) {
        int flag = 0;
        while (!flag) {
            int rc = MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

static void killghost(int poll, int fatal, int stop)
{
    if (!fatal)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = offloaded_dup("none");
    if (!fatal)
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int gpid = ((rel_ghost_pid_fn)rel_hook("csp_test_ghost_pid"))();
    pid_t proxy = stop ? proxy_pid() : 0;
    if (proxy && gpid != 0) {
        stopped_proxy = proxy;
        atexit(resume_proxy);
    }
    result("result rank=%d test=ready ok=1 pid=%d ghost_pid=%d algo=%d proxy=%d\n", rank, (int)getpid(),
           gpid, rel_comm_algo(c), (int)proxy);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    char sbuf[64] = {0}, rbuf[64];
    for (long it = 0;; it++) {
        if (rank == 0 && it == 200) {
            result("result rank=%d test=killed ok=1 ghost_pid=%d t_ms=%ld\n", rank, gpid, now_ms());
            /* A stopped launcher can neither reap the ghost (it stays a
             * zombie) nor tear the job down: only the runtime's own
             * detection ends the waits. */
            if (proxy)
                kill(proxy, SIGSTOP);
            kill(gpid, SIGKILL);
        }
        MPI_Request r[2];
        int rc = MPI_Irecv(rbuf, sizeof rbuf, MPI_BYTE, prev, 1, c, &r[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(sbuf, sizeof sbuf, MPI_BYTE, next, 1, c, &r[1]);
        if (rc == MPI_SUCCESS)
            rc = complete(r, poll);
        if (rc != MPI_SUCCESS) {
            report_error(rc, "ghost-gone");
            pause_ms(rank == 0 ? 600 : 300); /* let the lines out before the job is torn down */
            if (proxy) {
                /* From here the launcher tears the job down: it may kill
                 * the other ghost before that ghost's users. */
                result("result rank=%d test=resumed ok=1 t_ms=%ld\n", rank, now_ms());
                kill(proxy, SIGCONT);
            }
            MPI_Abort(MPI_COMM_WORLD, 9);
        }
    }
}

static void killuser(int victim, int stop)
{
    MPI_Comm c = offloaded_dup("any_src");
    int gpid = ((rel_ghost_pid_fn)rel_hook("csp_test_ghost_pid"))();
    int *gpids = malloc(sizeof(int) * (size_t)size), *pids = malloc(sizeof(int) * (size_t)size);
    int me = (int)getpid();
    MPI_Allgather(&gpid, 1, MPI_INT, gpids, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
    pid_t proxy = stop ? proxy_pid() : 0;
    result("result rank=%d test=ready ok=1 pid=%d ghost_pid=%d proxy=%d\n", rank, me, gpid, (int)proxy);
    int x[16];
    MPI_Request r[16];
    /* Receives nobody sends: the ghosts hold them. */
    for (int i = 0; i < 16; i++)
        MPI_Irecv(&x[i], 1, MPI_INT, MPI_ANY_SOURCE, 100 + i, c, &r[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        pause_ms(100);
        if (proxy)
            kill(proxy, SIGSTOP);
        raise(SIGKILL);
    }
    int y, flag = 0;
    MPI_Request rv;
    MPI_Irecv(&y, 1, MPI_INT, victim, 5, c, &rv);
    int watcher = rank == (victim + 1) % size && proxy;
    long dead_at = -1, t0 = now_ms();
    for (;;) {
        MPI_Test(&rv, &flag, MPI_STATUS_IGNORE);
        if (!watcher) {
            pause_ms(1);
            continue;
        }
        /* The watcher stands in for the launcher: it waits for the
         * victim's ghost to exit on its own, then resumes the launcher
         * (which then ends the job). */
        if (dead_at < 0 && !running(pids[victim]))
            dead_at = now_ms();
        int exited = dead_at >= 0 && !running(gpids[victim]);
        if (exited || now_ms() - t0 > 8000) {
            result("result rank=%d test=ghost-exited ok=%d after_ms=%ld\n", rank, exited,
                   dead_at >= 0 ? now_ms() - dead_at : -1);
            kill(proxy, SIGCONT);
            watcher = 0;
        }
        pause_ms(1);
    }
}

static int abort_job(int who, int self)
{
    MPI_Comm c = offloaded_dup("any_src");
    result("result rank=%d test=ready ok=1 pid=%d\n", rank, (int)getpid());
    int x[16], y;
    MPI_Request r[16];
    for (int i = 0; i < 16; i++)
        MPI_Irecv(&x[i], 1, MPI_INT, MPI_ANY_SOURCE, 100 + i, c, &r[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == who) {
        pause_ms(300); /* mpiexec stops forwarding output once a process aborts */
        MPI_Abort(self ? MPI_COMM_SELF : MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&y, 1, MPI_INT, who, 5, c, MPI_STATUS_IGNORE);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "killghost") == 0 && argc > 3)
        killghost(strcmp(argv[2], "test") == 0, strcmp(argv[3], "fatal") == 0,
                  argc > 4 && strcmp(argv[4], "stop") == 0);
    else if (strcmp(mode, "killuser") == 0 && argc > 2)
        killuser(atoi(argv[2]), argc > 3 && strcmp(argv[3], "stop") == 0);
    else if (strcmp(mode, "abort") == 0 && argc > 3)
        abort_job(atoi(argv[2]), strcmp(argv[3], "self") == 0);
    fprintf(stderr, "rel_fault: bad arguments or fell through\n");
    MPI_Finalize();
    return 2;
}
