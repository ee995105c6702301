/*
 * conf.h: the scaffolding every conformance program shares (not a program;
 * see conformance/doc.go for what a program must declare).
 *
 * A program calls conf_init(), runs its checks with CHECK() and the
 * conf_check_* helpers (which report their caller's line), and returns
 * conf_finish(), which gathers the failures of every rank and makes rank 0
 * print exactly one line:
 *
 *     ok <name>
 *     FAIL <name>: <n> check(s) failed; first: rank <r> line <l>: <why>
 *
 * and every rank exit 1 if anything failed. Each failed check is also
 * written to stderr (the first 10 per rank). conf_abort() is for a state
 * the program cannot continue from (a wait that never ends): it prints the
 * FAIL line itself and calls MPI_Abort.
 */
#ifndef CONF_H
#define CONF_H

#include <mpi.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A wait for something MPI promises gives up after this many seconds (the
 * runner's own timeout is longer): the program reports what it waited
 * for instead of hanging. */
#define CONF_HANG_S 60.0

#define CONF_MSG 240

/* Helpers a program may leave unused. */
#define CONF_FN static __attribute__((unused))

static const char *conf_name = "?";
static int conf_rank = -1, conf_size = 0, conf_errs = 0;
static char conf_first[CONF_MSG];

static void conf_vnote(int line, const char *fmt, va_list ap)
{
    char msg[CONF_MSG - 40];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (conf_errs == 0)
        snprintf(conf_first, sizeof(conf_first), "rank %d line %d: %s", conf_rank, line, msg);
    conf_errs++;
    if (conf_errs <= 10) {
        fprintf(stderr, "conformance %s: rank %d: line %d: %s\n", conf_name, conf_rank, line, msg);
        fflush(stderr);
    }
}

/* conf_fail records a failed check; returns 0 so that CHECK can be used
 * in conditions. */
CONF_FN int conf_fail(int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conf_vnote(line, fmt, ap);
    va_end(ap);
    return 0;
}

/* CHECK(cond, fmt, ...): record a failure unless cond holds; evaluates to
 * cond's truth. */
#define CHECK(cond, ...) ((cond) ? 1 : conf_fail(__LINE__, __VA_ARGS__))

/* CHECK_RC(rc, what): an MPI call that must succeed. */
#define CHECK_RC(rc, what) CHECK((rc) == MPI_SUCCESS, "%s returned %s", what, conf_errstr(rc))

CONF_FN const char *conf_errstr(int rc)
{
    static char buf[MPI_MAX_ERROR_STRING + 32];
    char s[MPI_MAX_ERROR_STRING] = "";
    int len = 0, cls = -1;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, s, &len);
    snprintf(buf, sizeof(buf), "%d (class %d: %s)", rc, cls, s);
    return buf;
}

/* conf_class returns the error class of rc. */
CONF_FN int conf_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

CONF_FN void conf_abort_at(int line, const char *fmt, ...)
{
    char msg[CONF_MSG - 40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    printf("FAIL %s: rank %d line %d: %s (aborting)\n", conf_name, conf_rank, line, msg);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

#define conf_abort(...) conf_abort_at(__LINE__, __VA_ARGS__)

/* conf_init initializes MPI and checks that the job has np processes
 * (the program's "np:" line). */
static void conf_init(int *argc, char ***argv, const char *name, int np)
{
    conf_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &conf_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &conf_size);
    if (conf_size != np) {
        if (conf_rank == 0)
            printf("FAIL %s: runs on %d processes, MPI_COMM_WORLD has %d\n", name, np, conf_size);
        fflush(stdout);
        MPI_Finalize();
        exit(1);
    }
}

/* conf_finish gathers every rank's failures, prints the program's line
 * at rank 0, finalizes, and returns the exit code. */
static int conf_finish(void)
{
    int total = 0;
    MPI_Allreduce(&conf_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char *all = conf_rank == 0 ? calloc((size_t)conf_size, CONF_MSG) : NULL;
    MPI_Gather(conf_first, CONF_MSG, MPI_CHAR, all, CONF_MSG, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (conf_rank == 0) {
        if (total == 0) {
            printf("ok %s\n", conf_name);
        } else {
            const char *first = "";
            for (int r = 0; r < conf_size; r++)
                if (all[(size_t)r * CONF_MSG]) {
                    first = all + (size_t)r * CONF_MSG;
                    break;
                }
            printf("FAIL %s: %d check(s) failed; first: %s\n", conf_name, total, first);
        }
        fflush(stdout);
    }
    free(all);
    MPI_Finalize();
    return total ? 1 : 0;
}

/* ---- data ---- */

/* The value of element i of the message identified by seed. */
static inline int conf_val(int seed, long i)
{
    return (int)((uint32_t)seed * 2654435761u + (uint32_t)i * 40503u + 17u);
}

CONF_FN void conf_fill(int *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = conf_val(seed, i);
}

/* The checks below report the line of their caller. */
#define CHECK_AT(line, cond, ...) ((cond) ? 1 : conf_fail(line, __VA_ARGS__))

/* conf_check_data(b, n, seed, what) checks n elements of b against the
 * message seed; what names the check. Returns 1 if they match. */
#define conf_check_data(...) conf_check_data_at(__LINE__, __VA_ARGS__)
CONF_FN int conf_check_data_at(int line, const int *b, long n, int seed, const char *what)
{
    for (long i = 0; i < n; i++)
        if (b[i] != conf_val(seed, i))
            return CHECK_AT(line, 0, "%s: element %ld is %d, want %d", what, i, b[i],
                            conf_val(seed, i));
    return 1;
}

/* conf_check_status(st, src, tag, dt, count, what) checks source, tag and
 * the count of elements of dt (count < 0: not checked) of a status. */
#define conf_check_status(...) conf_check_status_at(__LINE__, __VA_ARGS__)
CONF_FN int conf_check_status_at(int line, const MPI_Status *st, int src, int tag,
                                 MPI_Datatype dt, int count, const char *what)
{
    int ok = CHECK_AT(line, st->MPI_SOURCE == src, "%s: MPI_SOURCE %d, want %d", what,
                      st->MPI_SOURCE, src);
    ok &= CHECK_AT(line, st->MPI_TAG == tag, "%s: MPI_TAG %d, want %d", what, st->MPI_TAG, tag);
    if (count >= 0) {
        int n = -1;
        MPI_Get_count(st, dt, &n);
        ok &= CHECK_AT(line, n == count, "%s: MPI_Get_count %d, want %d", what, n, count);
    }
    return ok;
}

/* conf_check_empty(st, what) checks that st is an empty status (MPI
 * 3.7.3: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0, not cancelled). */
#define conf_check_empty(...) conf_check_empty_at(__LINE__, __VA_ARGS__)
CONF_FN int conf_check_empty_at(int line, const MPI_Status *st, const char *what)
{
    int n = -1, canc = -1;
    MPI_Get_count(st, MPI_INT, &n);
    MPI_Test_cancelled(st, &canc);
    return CHECK_AT(line,
                    st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0 && !canc,
                    "%s: not an empty status: source %d tag %d count %d cancelled %d", what,
                    st->MPI_SOURCE, st->MPI_TAG, n, canc);
}

/* conf_check_procnull(st, what) checks the status of a receive from
 * MPI_PROC_NULL (MPI 3.11: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0). */
#define conf_check_procnull(...) conf_check_procnull_at(__LINE__, __VA_ARGS__)
CONF_FN int conf_check_procnull_at(int line, const MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    return CHECK_AT(line, st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
                    "%s: status of MPI_PROC_NULL: source %d tag %d count %d", what,
                    st->MPI_SOURCE, st->MPI_TAG, n);
}

/* conf_wait_test completes *req by polling MPI_Test (at most CONF_HANG_S). */
CONF_FN int conf_wait_test(MPI_Request *req, MPI_Status *st, const char *what)
{
    double t0 = MPI_Wtime();
    int flag = 0, rc;
    while ((rc = MPI_Test(req, &flag, st)) == MPI_SUCCESS && !flag) {
        if (MPI_Wtime() - t0 > CONF_HANG_S)
            conf_abort("%s: MPI_Test never completed the request", what);
    }
    return rc;
}

/* conf_sync: an ordinary zero-byte handshake from rank `from` to rank `to`
 * on comm with tag (to wait until `from` reached a point). */
CONF_FN void conf_sync(int from, int to, int tag, MPI_Comm comm)
{
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == from)
        MPI_Send(NULL, 0, MPI_INT, to, tag, comm);
    else if (me == to)
        MPI_Recv(NULL, 0, MPI_INT, from, tag, comm, MPI_STATUS_IGNORE);
}

CONF_FN void conf_sleep_ms(int ms)
{
    usleep((useconds_t)ms * 1000);
}

#endif
