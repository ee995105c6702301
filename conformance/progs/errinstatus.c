/*
 * errinstatus: errors of one operation among several, under the error
 * handler MPI_ERRORS_RETURN (on a duplicate of MPI_COMM_WORLD, and on
 * MPI_COMM_WORLD and MPI_COMM_SELF). Two
 * receives of which the second is too short for its message: MPI_Waitall,
 * MPI_Testall, MPI_Waitsome and MPI_Testsome return MPI_ERR_IN_STATUS with
 * MPI_ERROR MPI_SUCCESS in the good receive's status and an
 * MPI_ERR_TRUNCATE-class code in the bad one's; MPI_Waitany and
 * MPI_Testany return the MPI_ERR_TRUNCATE-class code itself. The
 * communicator works normally afterwards.
 *
 * Checklist (MPICH test/mpi/pt2pt): truncmult-like cases of the errors
 * suite (MPI_ERR_IN_STATUS), rqstatus.
 *
 * np: 2
 */
#include "conf.h"

enum { WAITALL, TESTALL, WAITSOME, TESTSOME, WAITANY, TESTANY, NHOW };
static const char *hname[NHOW] = {"MPI_Waitall",  "MPI_Testall", "MPI_Waitsome",
                                  "MPI_Testsome", "MPI_Waitany", "MPI_Testany"};

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "errinstatus", 2);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* A multiple-completion call may raise its error on MPI_COMM_WORLD or
     * MPI_COMM_SELF (MPICH does) rather than on the requests' communicator. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int me = conf_rank;
    int sb[40], rb[40];

    for (int how = 0; how < NHOW; how++) {
        int t1 = 10 * how + 1, t2 = 10 * how + 2;
        if (me == 0) {
            conf_fill(sb, 10, t1);
            MPI_Send(sb, 10, MPI_INT, 1, t1, comm);
            conf_fill(sb, 20, t2);
            MPI_Send(sb, 20, MPI_INT, 1, t2, comm);
            conf_fill(sb, 30, t2 + 5);
            MPI_Send(sb, 30, MPI_INT, 1, t2, comm); /* after the error: received whole */
            continue;
        }
        if (me != 1)
            continue;
        MPI_Request rs[2];
        MPI_Status sts[2];
        int idx[2], out = 0, rc = MPI_SUCCESS, flag = 0, seen_trunc = 0, seen_ok = 0;
        MPI_Irecv(rb, 10, MPI_INT, 0, t1, comm, &rs[0]);
        MPI_Irecv(rb + 10, 5, MPI_INT, 0, t2, comm, &rs[1]);
        sts[0].MPI_ERROR = sts[1].MPI_ERROR = -77;
        double t0 = MPI_Wtime();
        switch (how) {
        case WAITALL:
            rc = MPI_Waitall(2, rs, sts);
            break;
        case TESTALL:
            while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                rc = MPI_Testall(2, rs, &flag, sts);
            break;
        default:
            /* The some and any calls, until both are done. */
            for (int done = 0; done < 2 && MPI_Wtime() - t0 < CONF_HANG_S;) {
                MPI_Status s1[2];
                s1[0].MPI_ERROR = s1[1].MPI_ERROR = -77;
                out = 0;
                if (how == WAITSOME)
                    rc = MPI_Waitsome(2, rs, &out, idx, s1);
                else if (how == TESTSOME)
                    rc = MPI_Testsome(2, rs, &out, idx, s1);
                else {
                    flag = 1;
                    rc = how == WAITANY ? MPI_Waitany(2, rs, &idx[0], &s1[0])
                                        : MPI_Testany(2, rs, &idx[0], &flag, &s1[0]);
                    out = flag && idx[0] != MPI_UNDEFINED ? 1 : 0;
                    if (out && how >= WAITANY) {
                        /* any: the error is the return code; the status's
                         * MPI_ERROR is not set. */
                        s1[0].MPI_ERROR = rc == MPI_SUCCESS ? MPI_SUCCESS : rc;
                    }
                }
                for (int i = 0; i < out; i++) {
                    sts[idx[i]] = s1[i];
                    if (how <= TESTSOME && rc == MPI_SUCCESS)
                        s1[i].MPI_ERROR = MPI_SUCCESS; /* untouched on success */
                    int e = how <= TESTSOME && rc == MPI_SUCCESS ? MPI_SUCCESS : s1[i].MPI_ERROR;
                    if (idx[i] == 1)
                        seen_trunc = conf_class(e) == MPI_ERR_TRUNCATE;
                    else
                        seen_ok = e == MPI_SUCCESS;
                }
                if (how <= TESTSOME && out > 0 && rc != MPI_SUCCESS)
                    CHECK(conf_class(rc) == MPI_ERR_IN_STATUS,
                          "%s returned %s, want MPI_ERR_IN_STATUS",
                          hname[how], conf_errstr(rc));
                if (how >= WAITANY && out > 0)
                    CHECK(idx[0] == 1 ? conf_class(rc) == MPI_ERR_TRUNCATE : rc == MPI_SUCCESS,
                          "%s on request %d returned %s", hname[how], idx[0], conf_errstr(rc));
                done += out;
            }
            CHECK(seen_ok, "%s: the good receive did not complete with MPI_SUCCESS", hname[how]);
            CHECK(seen_trunc, "%s: the short receive did not complete with MPI_ERR_TRUNCATE",
                  hname[how]);
            break;
        }
        if (how == WAITALL || how == TESTALL) {
            CHECK(how != TESTALL || flag, "MPI_Testall never completed");
            CHECK(conf_class(rc) == MPI_ERR_IN_STATUS, "%s returned %s, want MPI_ERR_IN_STATUS",
                  hname[how],
                  conf_errstr(rc));
            CHECK(sts[0].MPI_ERROR == MPI_SUCCESS, "%s: MPI_ERROR of the good receive is %s",
                  hname[how],
                  conf_errstr(sts[0].MPI_ERROR));
            CHECK(conf_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE,
                  "%s: MPI_ERROR of the short receive is %s, want MPI_ERR_TRUNCATE", hname[how],
                  conf_errstr(sts[1].MPI_ERROR));
        }
        CHECK(sts[0].MPI_SOURCE == 0 && sts[0].MPI_TAG == t1, "%s: the good receive's status %d/%d",
              hname[how], sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        if (sts[0].MPI_SOURCE == 0)
            conf_check_data(rb, 10, t1, hname[how]);
        /* The next message on the tag is whole: nothing of the truncated
         * one is left over. */
        MPI_Status st;
        int rc2 = MPI_Recv(rb, 40, MPI_INT, 0, t2, comm, &st);
        CHECK_RC(rc2, "MPI_Recv after a truncation");
        if (conf_check_status(&st, 0, t2, MPI_INT, 30, "the message after a truncation"))
            conf_check_data(rb, 30, t2 + 5, "the message after a truncation");
    }
    MPI_Comm_free(&comm);
    return conf_finish();
}
