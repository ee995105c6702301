/*
 * truncate: a message longer than the receive buffer (MPI 3.2.4:
 * MPI_ERR_TRUNCATE) under MPI_ERRORS_RETURN (on a duplicate of
 * MPI_COMM_WORLD, and on MPI_COMM_WORLD and MPI_COMM_SELF): MPI_Recv,
 * MPI_Irecv with MPI_Wait and with MPI_Test, MPI_Mprobe with MPI_Mrecv,
 * MPI_Sendrecv, a persistent receive, a receive of a vector type; 40
 * ints into 10 and 1 MiB into 256 KiB. The
 * error is returned (class MPI_ERR_TRUNCATE) and the communicator works
 * afterwards: the next message on the tag arrives whole. (That the
 * status names the message's source and tag, as MPICH's does:
 * truncate_status, which builds this file with TRUNCATE_STATUS.)
 *
 * Checklist (MPICH test/mpi/pt2pt): huge_underflow (the other side),
 * the truncation cases of the errors suite.
 *
 * np: 2
 */
#include "conf.h"

#ifndef TRUNCATE_STATUS
#define TRUNCATE_STATUS 0
#define NAME "truncate"
#else
#define NAME "truncate_status"
#endif

enum { RECV, IRECV_WAIT, IRECV_TEST, MRECV, SENDRECV, PERSIST, VECTOR, NHOW };
static const char *hname[NHOW] = {"MPI_Recv",  "MPI_Irecv+MPI_Wait", "MPI_Irecv+MPI_Test",
                                  "MPI_Mrecv",
                                  "MPI_Sendrecv", "MPI_Recv_init", "MPI_Recv of a vector"};

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, NAME, 2);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* MPICH raises the error of a completion call on MPI_COMM_WORLD. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int me = conf_rank;
    int big = 1 << 18;
    int *sb = malloc(sizeof(int) * (size_t)big), *rb = malloc(sizeof(int) * (size_t)big);
    MPI_Datatype vec;
    MPI_Type_vector(5, 1, 2, MPI_INT, &vec); /* 5 ints, every other */
    MPI_Type_commit(&vec);

    for (int sz = 0; sz < 2; sz++)
        for (int how = 0; how < NHOW; how++) {
            int n = sz ? big : 40, cap = sz ? big / 4 : 10, tag = 100 * sz + how;
            char what[96];
            snprintf(what, sizeof(what), "%s of %d ints into %d", hname[how], n, cap);
            if (me == 0) {
                conf_fill(sb, n, tag);
                if (how == SENDRECV)
                    MPI_Sendrecv(sb, n, MPI_INT, 1, tag, NULL, 0, MPI_INT, 1, tag, comm,
                                 MPI_STATUS_IGNORE);
                else
                    MPI_Send(sb, n, MPI_INT, 1, tag, comm);
                conf_fill(sb, 8, tag + 50);
                MPI_Send(sb, 8, MPI_INT, 1, tag, comm);
                continue;
            }
            MPI_Status st;
            MPI_Request r;
            MPI_Message m;
            int rc = MPI_SUCCESS, flag = 0;
            st.MPI_SOURCE = st.MPI_TAG = -55;
            switch (how) {
            case RECV:
                rc = MPI_Recv(rb, cap, MPI_INT, 0, tag, comm, &st);
                break;
            case IRECV_WAIT:
                MPI_Irecv(rb, cap, MPI_INT, 0, tag, comm, &r);
                rc = MPI_Wait(&r, &st);
                break;
            case IRECV_TEST: {
                MPI_Irecv(rb, cap, MPI_INT, 0, tag, comm, &r);
                double t0 = MPI_Wtime();
                do
                    rc = MPI_Test(&r, &flag, &st);
                while (rc == MPI_SUCCESS && !flag && MPI_Wtime() - t0 < CONF_HANG_S);
                break;
            }
            case MRECV:
                MPI_Mprobe(0, tag, comm, &m, &st);
                conf_check_status(&st, 0, tag, MPI_INT, n, what);
                rc = MPI_Mrecv(rb, cap, MPI_INT, &m, &st);
                break;
            case SENDRECV:
                rc = MPI_Sendrecv(NULL, 0, MPI_INT, 0, tag, rb, cap, MPI_INT, 0, tag, comm, &st);
                break;
            case PERSIST:
                MPI_Recv_init(rb, cap, MPI_INT, 0, tag, comm, &r);
                MPI_Start(&r);
                rc = MPI_Wait(&r, &st);
                MPI_Request_free(&r);
                break;
            default:
                rc = MPI_Recv(rb, cap / 5, vec, 0, tag, comm, &st);
                break;
            }
            CHECK(conf_class(rc) == MPI_ERR_TRUNCATE, "%s returned %s, want MPI_ERR_TRUNCATE", what,
                  conf_errstr(rc));
            if (TRUNCATE_STATUS)
                CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == tag,
                      "%s: status source %d tag %d, want 0 and %d", what,
                        st.MPI_SOURCE, st.MPI_TAG, tag);
            rc = MPI_Recv(rb, cap, MPI_INT, 0, tag, comm, &st);
            snprintf(what, sizeof(what), "the message after a truncated %s", hname[how]);
            CHECK_RC(rc, what);
            if (conf_check_status(&st, 0, tag, MPI_INT, 8, what))
                conf_check_data(rb, 8, tag + 50, what);
        }
    MPI_Type_free(&vec);
    MPI_Comm_free(&comm);
    free(sb);
    free(rb);
    return conf_finish();
}
