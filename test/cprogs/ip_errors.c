/*
 * ip_errors: errors reach the application as MPI error codes once it set
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD.
 *
 * Checks: a bad hint value in MPI_Comm_dup_with_info (and in
 * MPI_Comm_set_info) returns an MPI_ERR_INFO_VALUE-class code whose string
 * names the key and the value; a tag above MPI_TAG_UB on an offloaded
 * communicator returns an MPI_ERR_TAG-class code; a bad tag on the world
 * returns an error; MPI_Comm_free(MPI_COMM_WORLD) returns an error.
 *
 *   ip_errors truncate: a truncated offloaded MPI_Irecv: MPI_ERR_TRUNCATE
 *   from MPI_Wait.
 *   ip_errors element: three MPI_CHARs received on the offloaded
 *   communicator as an indexed type of MPI_INTs (MPICH's
 *   errors/pt2pt/truncmsg2), from the peer user: MPI_ERR_TRUNCATE from
 *   MPI_Wait and from MPI_Recv, as plain MPICH gives (which leaves the
 *   status unwritten); and MPI_Sendrecv truncated with the world's
 *   handler fatal and the communicator's returning: MPI_ERR_TRUNCATE; then
 *   a handler of the program's on both is called once per truncated call,
 *   with MPI_COMM_WORLD for MPI_Wait and the communicator for MPI_Recv.
 *   ip_errors fatal-wait | fatal-recv: the truncated receive under
 *   MPI_ERRORS_ARE_FATAL (on the world and the communicator), completed by
 *   MPI_Wait or made by MPI_Recv: the job aborts, as under plain MPICH;
 *   "survived" is printed only if the call returned.
 *
 * Output: "result rank=<r> test=<name> ok=<0|1> ..." lines.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank, bad;

static int check_code(const char *name, int rc, int want_class, const char *need1,
                      const char *need2)
{
    int cls = -1, len = 0;
    char msg[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
    }
    int ok = rc != MPI_SUCCESS && (want_class < 0 || cls == want_class) &&
             (!need1 || strstr(msg, need1)) && (!need2 || strstr(msg, need2));
    for (char *p = msg; *p; p++)
        if (*p == ' ')
            *p = '_';
    printf("result rank=%d test=%s ok=%d class=%d msg=%s\n", rank, name, ok, cls, msg);
    bad += !ok;
    return ok;
}

/* The handler calls of the "element" case's user error handler. */
static MPI_Comm handled_comm[4];
static int handled_class[4], nhandled;

static void record_error(MPI_Comm *comm, int *code, ...)
{
    if (nhandled < 4) {
        handled_comm[nhandled] = *comm;
        MPI_Error_class(*code, &handled_class[nhandled]);
    }
    nhandled++;
}

/* Receive (in, n, t) from peer while sending (out, m, ot) to it on c;
 * returns MPI_Wait's code for the receive. */
static int irecv_isend(void *in, int n, MPI_Datatype t, const void *out, int m, MPI_Datatype ot, int peer,
                       int tag, MPI_Comm c, MPI_Status *st)
{
    MPI_Request r[2];
    MPI_Irecv(in, n, t, peer, tag, c, &r[0]);
    MPI_Isend(out, m, ot, peer, tag, c, &r[1]);
    int rc = MPI_Wait(&r[0], st);
    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "wildcard_used", "bogus");
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    check_code("badhint", rc, MPI_ERR_INFO_VALUE, "wildcard_used", "bogus");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);

    MPI_Info_set(info, "wildcard_used", "none");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);

    int *ub, flag, x[8] = {0};
    MPI_Comm_get_attr(c, MPI_TAG_UB, &ub, &flag);
    rc = MPI_Send(x, 1, MPI_INT, rank, *ub + 1, c);
    check_code("badtag-offloaded", rc, MPI_ERR_TAG, "MPI_TAG_UB", NULL);
    rc = MPI_Send(x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD);
    check_code("badtag-world", rc, MPI_ERR_TAG, NULL, NULL);

    if (argc > 1 && strcmp(argv[1], "truncate") == 0) {
        MPI_Status st;
        rc = irecv_isend(x, 2, MPI_INT, x, 8, MPI_INT, rank, 3, c, &st);
        check_code("truncate", rc == MPI_SUCCESS ? st.MPI_ERROR : rc, MPI_ERR_TRUNCATE, NULL, NULL);
    }

    if (argc > 1 && strcmp(argv[1], "element") == 0) {
        int bl[3] = {1, 2, 1}, ix[3] = {4, 8, 16}, size;
        MPI_Comm_size(c, &size);
        int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
        MPI_Datatype idx;
        MPI_Type_indexed(3, bl, ix, MPI_INT, &idx);
        MPI_Type_commit(&idx);
        char three[3] = {1, 2, 3};
        int in[32];
        MPI_Request r[2];
        MPI_Status st;
        rc = irecv_isend(in, 1, idx, three, 3, MPI_CHAR, peer, 4, c, &st);
        check_code("element-wait", rc, MPI_ERR_TRUNCATE, NULL, NULL);
        MPI_Isend(three, 3, MPI_CHAR, peer, 5, c, &r[1]);
        rc = MPI_Recv(in, 1, idx, peer, 5, c, &st);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        check_code("element-recv", rc, MPI_ERR_TRUNCATE, NULL, NULL);
        MPI_Type_free(&idx);
        /* MPI_Sendrecv raises on its communicator's handler, not the world's */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        int big[8] = {0}, small[2];
        rc = MPI_Sendrecv(big, 8, MPI_INT, peer, 6, small, 2, MPI_INT, peer, 6, c, &st);
        check_code("element-sendrecv", rc, MPI_ERR_TRUNCATE, NULL, NULL);
        /* A handler of the application's: called once per failed call, with
         * the world for MPI_Wait and with c for MPI_Recv (MPICH's choice) */
        MPI_Errhandler eh;
        MPI_Comm_create_errhandler(record_error, &eh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
        MPI_Comm_set_errhandler(c, eh);
        irecv_isend(small, 2, MPI_INT, big, 8, MPI_INT, peer, 7, c, &st);
        MPI_Isend(big, 8, MPI_INT, peer, 8, c, &r[1]);
        MPI_Recv(small, 2, MPI_INT, peer, 8, c, &st);
        MPI_Wait(&r[1], MPI_STATUS_IGNORE);
        int ok = nhandled == 2 && handled_comm[0] == MPI_COMM_WORLD && handled_class[0] == MPI_ERR_TRUNCATE &&
                 handled_comm[1] == c && handled_class[1] == MPI_ERR_TRUNCATE;
        printf("result rank=%d test=element-handler ok=%d calls=%d first=%s/%d second=%s/%d\n", rank, ok, nhandled,
               handled_comm[0] == MPI_COMM_WORLD ? "world" : "other", handled_class[0],
               handled_comm[1] == c ? "comm" : "other", handled_class[1]);
        bad += !ok;
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&eh);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }

    if (argc > 1 && strncmp(argv[1], "fatal-", 6) == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        MPI_Comm_set_errhandler(c, MPI_ERRORS_ARE_FATAL);
        MPI_Request r[2];
        MPI_Isend(x, 8, MPI_INT, rank, 6, c, &r[1]);
        if (strcmp(argv[1], "fatal-wait") == 0) {
            MPI_Irecv(x, 2, MPI_INT, rank, 6, c, &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(x, 2, MPI_INT, rank, 6, c, MPI_STATUS_IGNORE);
        }
        printf("result rank=%d test=%s survived\n", rank, argv[1]);
        fflush(stdout);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }

    /* A bad value in MPI_Comm_set_info (offload is then off on c). */
    MPI_Info_set(info, "shmbuf_regist", "maybe");
    rc = MPI_Comm_set_info(c, info);
    check_code("badsetinfo", rc, MPI_ERR_INFO_VALUE, "shmbuf_regist", "maybe");
    MPI_Info_free(&info);

    MPI_Comm w = MPI_COMM_WORLD;
    rc = MPI_Comm_free(&w);
    check_code("free-world", rc, MPI_ERR_COMM, NULL, NULL);

    MPI_Comm_free(&c);
    MPI_Finalize();
    return bad != 0;
}
