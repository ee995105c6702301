/*
 * mr_common.c: the scaffolding shared by the mr_* programs (the matching
 * and completion rules, test/matchrules_test.go). Not a program: each
 * mr_<name>.c includes it and defines run_mode().
 *
 *   mr_<name> <mode>[,<mode>...] [skip=<section>[@<mode>]]...
 *
 * For every wildcard_used value given (comma separated: the values contain
 * '|'), main duplicates MPI_COMM_WORLD with that hint into `comm` (the
 * offloaded communicator), runs run_mode(), prints the number of
 * operations this rank posted on `comm` that the runtime must have
 * offloaded (and how many of them must have bounced through the shared
 * heap, and how many must not have: contiguous data in registered memory),
 * and frees `comm`. `plain` is a duplicate with
 * async_config=off: ordinary MPI, for signalling and for the ordinary
 * requests mixed with offloaded ones.
 *
 * Output: "result rank=<r> test=<name> mode=<wildcard_used> ok=<0|1> ..."
 * lines, and per mode "result rank=<r> test=posts mode=<m> ok=1 isend=<n>
 * irecv=<n> bounce=<n> regist=<n>". The program exits 1 if any check failed (after running the
 * others).
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failed;
static const char *mode = "";
static int anysrc_ok, anytag_ok;
static MPI_Comm comm;  /* offloaded, hinted with the current mode  */
static MPI_Comm plain; /* async_config=off: ordinary MPI            */
static long n_isend, n_irecv; /* posts on comm this mode (offloaded) */
static long n_bounce, n_regist; /* of those: copied through the heap, not */
static char **skips;
static int nskips;

/* A bound on every loop that waits for something MPI promises: a bug
 * reports ok=0 instead of hanging the job. Never reached when correct. */
#define HANG_S 20.0

/* Count posts on comm: the runtime's isend_offloaded / irecv_offloaded
 * must cover them. */
#define POST_S(c) (n_isend += (c) == comm)
#define POST_R(c) (n_irecv += (c) == comm)
/* Of those posts: one that must bounce (data not contiguous, or not in
 * registered memory), one that must not (contiguous, registered). */
#define BOUNCED(c) (n_bounce += (c) == comm)
#define REGISTERED(c) (n_regist += (c) == comm)

static void report(const char *test, int ok, const char *fmt, ...)
{
    char extra[768] = "";
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(extra, sizeof(extra), fmt, ap);
        va_end(ap);
    }
    printf("result rank=%d test=%s mode=%s ok=%d%s%s\n", rank, test, mode, ok, extra[0] ? " " : "",
           extra);
    fflush(stdout);
    if (!ok)
        failed = 1;
}

/* The payload of message (src, tag), element i. */
static int val(int src, int tag, int i) { return src * 1000003 + tag * 1009 + i * 7 + 1; }

static void fill(int *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        b[i] = val(src, tag, i);
}

__attribute__((unused)) static int check(const int *b, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(src, tag, i))
            return 0;
    return 1;
}

static int count_of(const MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    return n;
}

/* Status describes a message from src with tag and n ints. */
__attribute__((unused)) static int status_is(const MPI_Status *st, int src, int tag, int n)
{
    return st->MPI_SOURCE == src && st->MPI_TAG == tag && count_of(st) == n;
}

/* MPI's empty status (null or inactive request): any source, any tag,
 * nothing received. */
__attribute__((unused)) static int status_empty(const MPI_Status *st)
{
    int n = -1, c = 1;
    MPI_Get_count(st, MPI_BYTE, &n);
    MPI_Test_cancelled(st, &c);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0 && !c;
}

static int skipped(const char *section)
{
    size_t l = strlen(section);
    for (int i = 0; i < nskips; i++) {
        const char *s = skips[i];
        if (strncmp(s, section, l) != 0)
            continue;
        if (s[l] == 0 || (s[l] == '@' && strcmp(s + l + 1, mode) == 0))
            return 1;
    }
    return 0;
}

/* Plain-communicator signals: an int, tag 1 (sections are separated by
 * barriers, so signals of different sections never mix). */
static void signal_to(int dst, int v) { MPI_Send(&v, 1, MPI_INT, dst, 1, plain); }
static int signal_from(int src)
{
    int v;
    MPI_Recv(&v, 1, MPI_INT, src, 1, plain, MPI_STATUS_IGNORE);
    return v;
}

__attribute__((unused)) static void sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

static void run_mode(void);

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s <mode>[,<mode>...] [skip=<section>[@<mode>]]...\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    skips = calloc((size_t)argc, sizeof(char *));
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], "skip=", 5) == 0)
            skips[nskips++] = argv[i] + 5;

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", "off");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &plain);
    MPI_Info_free(&info);

    char *modes = strdup(argv[1]), *save = NULL;
    for (char *m = strtok_r(modes, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        mode = m;
        anysrc_ok = strstr(m, "any_src") != NULL;
        anytag_ok = strstr(m, "any_tag_same_tag") != NULL || strcmp(m, "any_src") == 0;
        MPI_Info_create(&info);
        MPI_Info_set(info, "wildcard_used", m);
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
        MPI_Info_free(&info);
        n_isend = n_irecv = n_bounce = n_regist = 0;
        MPI_Barrier(plain);
        run_mode();
        MPI_Barrier(plain);
        report("posts", 1, "isend=%ld irecv=%ld bounce=%ld regist=%ld", n_isend, n_irecv, n_bounce,
               n_regist);
        MPI_Comm_free(&comm);
    }
    free(modes);
    free(skips);
    MPI_Comm_free(&plain);
    MPI_Finalize();
    return failed;
}
