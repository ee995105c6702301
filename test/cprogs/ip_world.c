/*
 * ip_world: group and error-handler calls on MPI_COMM_WORLD under the
 * interposer behave as under plain MPI, with the ghosts hidden.
 *
 *   ip_world <expected user count>
 *
 * Groups: the world's group holds the users in rank order, is identical to
 * a duplicate's, translates to and from a split's, and MPI_Comm_create and
 * MPI_Comm_create_group over it build the right communicators.
 *
 * Error handlers: the world starts with MPI_ERRORS_ARE_FATAL; a handler set
 * on it is what MPI_Comm_get_errhandler returns; MPI_ERRORS_RETURN makes a
 * send to an invalid rank return MPI_ERR_RANK; an application handler is
 * called with MPI_COMM_WORLD itself (for an error, and for
 * MPI_Comm_call_errhandler) and, on a duplicate, with the duplicate.
 *
 * Output: "result rank=<r> test=<name> ok=<0|1> [details]" lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, bad;

static void check(const char *name, int ok, const char *details)
{
    printf("result rank=%d test=%s ok=%d%s%s\n", rank, name, ok, details ? " " : "",
           details ? details : "");
    bad += !ok;
}

/* What the application's handler saw. */
static int eh_calls, eh_code;
static MPI_Comm eh_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
    eh_calls++;
    eh_comm = *comm;
    eh_code = *code;
}

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

static void groups(void)
{
    char d[128];
    MPI_Group wg, dg, sg;
    int gsize, grank, cmp;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_size(wg, &gsize);
    MPI_Group_rank(wg, &grank);
    snprintf(d, sizeof d, "size=%d grank=%d", gsize, grank);
    check("group", gsize == size && grank == rank, d);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_group(dup, &dg);
    MPI_Group_compare(wg, dg, &cmp);
    check("group-compare", cmp == MPI_IDENT, NULL);
    MPI_Group_free(&dg);
    MPI_Comm_free(&dup);

    /* A split by parity: its ranks translate to the world ranks of the
     * same parity, in order, and back. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_group(half, &sg);
    int hsize, ok = 1;
    MPI_Group_size(sg, &hsize);
    int *in = malloc(sizeof(int) * (hsize + size)), *out = malloc(sizeof(int) * (hsize + size));
    for (int i = 0; i < hsize; i++)
        in[i] = i;
    MPI_Group_translate_ranks(sg, hsize, in, wg, out);
    for (int i = 0; i < hsize; i++)
        ok &= out[i] == 2 * i + rank % 2;
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Group_translate_ranks(wg, size, in, sg, out);
    for (int i = 0; i < size; i++)
        ok &= out[i] == (i % 2 == rank % 2 ? i / 2 : MPI_UNDEFINED);
    check("group-translate", ok, NULL);
    free(in);
    free(out);
    MPI_Group_free(&sg);
    MPI_Comm_free(&half);

    /* MPI_Comm_create and MPI_Comm_create_group over the even ranks. */
    int range[1][3] = {{0, size - 1, 2}};
    MPI_Group even;
    MPI_Group_range_incl(wg, 1, range, &even);
    MPI_Comm c1, c2 = MPI_COMM_NULL;
    MPI_Comm_create(MPI_COMM_WORLD, even, &c1);
    if (rank % 2 == 0)
        MPI_Comm_create_group(MPI_COMM_WORLD, even, 7, &c2);
    int s1 = -1, r1 = -1, s2 = -1, r2 = -1, sum = 0;
    if (c1 != MPI_COMM_NULL) {
        MPI_Comm_size(c1, &s1);
        MPI_Comm_rank(c1, &r1);
        int one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c1);
    }
    if (c2 != MPI_COMM_NULL) {
        MPI_Comm_size(c2, &s2);
        MPI_Comm_rank(c2, &r2);
    }
    int evens = (size + 1) / 2;
    if (rank % 2 == 0)
        ok = s1 == evens && r1 == rank / 2 && sum == evens && s2 == evens && r2 == rank / 2;
    else
        ok = c1 == MPI_COMM_NULL;
    snprintf(d, sizeof d, "create_size=%d create_group_size=%d", s1, s2);
    check("comm-create", ok, d);
    if (c1 != MPI_COMM_NULL)
        MPI_Comm_free(&c1);
    if (c2 != MPI_COMM_NULL)
        MPI_Comm_free(&c2);
    MPI_Group_free(&even);
    MPI_Group_free(&wg);
}

static void errhandlers(void)
{
    char d[128];
    MPI_Errhandler eh, got;
    int x = 1;

    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    check("eh-default", got == MPI_ERRORS_ARE_FATAL, NULL);
    MPI_Errhandler_free(&got);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    int rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    snprintf(d, sizeof d, "class=%d", error_class(rc));
    check("eh-return", got == MPI_ERRORS_RETURN && error_class(rc) == MPI_ERR_RANK, d);
    MPI_Errhandler_free(&got);

    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    check("eh-get", got == eh, NULL);
    MPI_Errhandler_free(&got);

    rc = MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    snprintf(d, sizeof d, "calls=%d world=%d class=%d", eh_calls, eh_comm == MPI_COMM_WORLD,
             error_class(eh_code));
    check("eh-user", eh_calls == 1 && eh_comm == MPI_COMM_WORLD && eh_code == rc &&
                         error_class(rc) == MPI_ERR_RANK,
          d);

    eh_calls = 0;
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    snprintf(d, sizeof d, "calls=%d world=%d", eh_calls, eh_comm == MPI_COMM_WORLD);
    check("eh-call", eh_calls == 1 && eh_comm == MPI_COMM_WORLD && eh_code == MPI_ERR_OTHER, d);

    /* A duplicate inherits the handler, which then sees the duplicate. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    eh_calls = 0;
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, dup);
    snprintf(d, sizeof d, "calls=%d dup=%d", eh_calls, eh_comm == dup);
    check("eh-dup", eh_calls == 1 && eh_comm == dup && error_class(rc) == MPI_ERR_RANK, d);
    MPI_Comm_free(&dup);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int want = argc > 1 ? atoi(argv[1]) : -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check("size", want < 0 || size == want, NULL);
    groups();
    errhandlers();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return bad != 0;
}
