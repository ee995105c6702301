/*
 * status_error: MPI_ERROR is left as the caller set it by the calls that
 * complete one operation (MPI 3.2.5: the field is set only by the
 * multiple-completion calls, and only when they return
 * MPI_ERR_IN_STATUS): MPI_Recv, MPI_Wait, MPI_Test, MPI_Waitany,
 * MPI_Testany, MPI_Sendrecv, MPI_Request_get_status, and MPI_Testall,
 * MPI_Waitsome, MPI_Testsome that succeed; for sends and receives, with
 * a real peer and with MPI_PROC_NULL. (The matched probes: mprobe_error.)
 * Not checked, because MPICH 4.0.2 itself sets the field there:
 * MPI_Sendrecv_replace, MPI_Probe, MPI_Iprobe, and MPI_Waitall that
 * succeeds.
 *
 * Checklist (MPICH test/mpi/pt2pt): mprobe (the MPI_ERROR part), rqstatus.
 *
 * np: 2
 */
#include "conf.h"

#define MARK 4321

static void mark(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        st[i].MPI_ERROR = MARK;
}

static void kept(const MPI_Status *st, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(st[i].MPI_ERROR == MARK, "%s wrote MPI_ERROR (%d) of status %d", what,
              st[i].MPI_ERROR, i);
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "status_error", 2);
    int me = conf_rank, peer = 1 - me;
    int sb[100], rb[100];
    MPI_Status st, sts[2];
    MPI_Request r, rs[2];
    int flag, idx, out, idxs[2];
    conf_fill(sb, 100, me);

    for (int pn = 0; pn < 2; pn++) {
        int p = pn ? MPI_PROC_NULL : peer;
        char what[80];
#define W(s) (snprintf(what, sizeof(what), "%s%s", s, pn ? " (MPI_PROC_NULL)" : ""), what)
        /* Blocking: each side sends first to the other (small: eager). */
        MPI_Request s0;
        MPI_Isend(sb, 100, MPI_INT, p, 1, MPI_COMM_WORLD, &s0);
        mark(&st, 1);
        CHECK_RC(MPI_Recv(rb, 100, MPI_INT, p, 1, MPI_COMM_WORLD, &st), "MPI_Recv");
        kept(&st, 1, W("MPI_Recv"));
        mark(&st, 1);
        CHECK_RC(MPI_Wait(&s0, &st), "MPI_Wait");
        kept(&st, 1, W("MPI_Wait on a send"));

        MPI_Irecv(rb, 100, MPI_INT, p, 2, MPI_COMM_WORLD, &r);
        MPI_Send(sb, 100, MPI_INT, p, 2, MPI_COMM_WORLD);
        mark(&st, 1);
        CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
        kept(&st, 1, W("MPI_Wait on a receive"));

        MPI_Irecv(rb, 100, MPI_INT, p, 3, MPI_COMM_WORLD, &r);
        MPI_Send(sb, 100, MPI_INT, p, 3, MPI_COMM_WORLD);
        mark(&st, 1);
        conf_wait_test(&r, &st, "MPI_Test");
        kept(&st, 1, W("MPI_Test"));

        MPI_Irecv(rb, 100, MPI_INT, p, 4, MPI_COMM_WORLD, &rs[0]);
        rs[1] = MPI_REQUEST_NULL;
        MPI_Send(sb, 100, MPI_INT, p, 4, MPI_COMM_WORLD);
        mark(&st, 1);
        CHECK_RC(MPI_Waitany(2, rs, &idx, &st), "MPI_Waitany");
        kept(&st, 1, W("MPI_Waitany"));

        MPI_Irecv(rb, 100, MPI_INT, p, 5, MPI_COMM_WORLD, &rs[0]);
        MPI_Send(sb, 100, MPI_INT, p, 5, MPI_COMM_WORLD);
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S) {
            mark(&st, 1);
            CHECK_RC(MPI_Testany(2, rs, &idx, &flag, &st), "MPI_Testany");
        }
        kept(&st, 1, W("MPI_Testany"));

        mark(&st, 1);
        CHECK_RC(MPI_Sendrecv(sb, 100, MPI_INT, p, 6, rb, 100, MPI_INT, p, 6, MPI_COMM_WORLD, &st),
                 "MPI_Sendrecv");
        kept(&st, 1, W("MPI_Sendrecv"));

        MPI_Irecv(rb, 100, MPI_INT, p, 9, MPI_COMM_WORLD, &r);
        MPI_Send(sb, 100, MPI_INT, p, 9, MPI_COMM_WORLD);
        flag = 0;
        t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S) {
            mark(&st, 1);
            CHECK_RC(MPI_Request_get_status(r, &flag, &st), "MPI_Request_get_status");
        }
        kept(&st, 1, W("MPI_Request_get_status"));
        MPI_Wait(&r, MPI_STATUS_IGNORE);

        /* Multiple completion, succeeding. */
        MPI_Irecv(rb, 50, MPI_INT, p, 12, MPI_COMM_WORLD, &rs[0]);
        MPI_Isend(sb, 50, MPI_INT, p, 12, MPI_COMM_WORLD, &rs[1]);
        flag = 0;
        t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < CONF_HANG_S) {
            mark(sts, 2);
            CHECK_RC(MPI_Testall(2, rs, &flag, sts), "MPI_Testall");
        }
        kept(sts, 2, W("MPI_Testall that succeeds"));

        MPI_Irecv(rb, 50, MPI_INT, p, 13, MPI_COMM_WORLD, &rs[0]);
        MPI_Send(sb, 50, MPI_INT, p, 13, MPI_COMM_WORLD);
        mark(sts, 1);
        CHECK_RC(MPI_Waitsome(1, rs, &out, idxs, sts), "MPI_Waitsome");
        kept(sts, 1, W("MPI_Waitsome that succeeds"));

        MPI_Irecv(rb, 50, MPI_INT, p, 14, MPI_COMM_WORLD, &rs[0]);
        MPI_Send(sb, 50, MPI_INT, p, 14, MPI_COMM_WORLD);
        out = 0;
        t0 = MPI_Wtime();
        while (out == 0 && MPI_Wtime() - t0 < CONF_HANG_S) {
            mark(sts, 1);
            CHECK_RC(MPI_Testsome(1, rs, &out, idxs, sts), "MPI_Testsome");
        }
        kept(sts, 1, W("MPI_Testsome that succeeds"));
#undef W
    }
    return conf_finish();
}
