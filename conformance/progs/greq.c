/*
 * greq: generalized requests (MPI 13.2) beside point-to-point requests.
 * A request started with MPI_Grequest_start and completed with
 * MPI_Grequest_complete before and after the wait starts; MPI_Wait and
 * MPI_Test return the status its query function sets (source, tag,
 * count through MPI_Status_set_elements, cancelled), and its free
 * function runs once; MPI_Waitall and MPI_Waitany over a generalized
 * request together with offloaded MPI_Irecv/MPI_Isend; MPI_Cancel calls
 * the cancel function with complete=0 before completion.
 *
 * Checklist (MPICH test/mpi/pt2pt): greq1.
 *
 * np: 2
 */
#include "conf.h"

struct gstate {
    int freed, cancelled_with, queried;
    int done;
};

static int query_fn(void *extra, MPI_Status *st)
{
    struct gstate *g = extra;
    g->queried++;
    MPI_Status_set_elements(st, MPI_INT, 42);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 17;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    ((struct gstate *)extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    ((struct gstate *)extra)->cancelled_with = complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "greq", 2);
    int me = conf_rank, peer = 1 - me;
    struct gstate g;
    MPI_Request r, rs[3];
    MPI_Status st, sts[3];
    int n, flag;

    /* Completed before MPI_Wait. */
    memset(&g, 0, sizeof(g));
    g.cancelled_with = -1;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &r), "MPI_Grequest_start");
    flag = 1;
    MPI_Test(&r, &flag, &st);
    CHECK(!flag, "MPI_Test of an incomplete generalized request: flag true");
    MPI_Grequest_complete(r);
    CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait on a generalized request");
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 17 && n == 42,
          "generalized request status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);
    CHECK(g.freed == 1 && g.queried >= 1, "generalized request: free_fn ran %d times, query_fn %d",
          g.freed,
          g.queried);
    CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left a generalized request set");

    /* MPI_Cancel before completion calls cancel_fn(complete=0). */
    memset(&g, 0, sizeof(g));
    g.cancelled_with = -1;
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &r);
    MPI_Cancel(&r);
    CHECK(g.cancelled_with == 0, "MPI_Cancel: cancel_fn got complete=%d, want 0", g.cancelled_with);
    MPI_Grequest_complete(r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(g.freed == 1, "generalized request: free_fn ran %d times", g.freed);

    /* Beside point-to-point requests in MPI_Waitall and MPI_Waitany. */
    int sb[64], rb[64];
    for (int how = 0; how < 2; how++) {
        memset(&g, 0, sizeof(g));
        conf_fill(sb, 64, 10 * how + me);
        MPI_Irecv(rb, 64, MPI_INT, peer, how, MPI_COMM_WORLD, &rs[0]);
        MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g, &rs[1]);
        MPI_Isend(sb, 64, MPI_INT, peer, how, MPI_COMM_WORLD, &rs[2]);
        MPI_Grequest_complete(rs[1]);
        if (how == 0) {
            CHECK_RC(MPI_Waitall(3, rs, sts), "MPI_Waitall with a generalized request");
            MPI_Get_count(&sts[1], MPI_INT, &n);
            CHECK(sts[1].MPI_TAG == 17 && n == 42, "MPI_Waitall: the generalized request's status");
        } else {
            int seen = 0, idx;
            for (int k = 0; k < 3; k++) {
                CHECK_RC(MPI_Waitany(3, rs, &idx, &st), "MPI_Waitany with a generalized request");
                if (idx >= 0 && idx < 3)
                    seen |= 1 << idx;
                if (idx == 0)
                    sts[0] = st;
            }
            CHECK(seen == 7, "MPI_Waitany: completed set %#x", seen);
        }
        if (conf_check_status(&sts[0], peer, how, MPI_INT, 64, "beside a generalized request"))
            conf_check_data(rb, 64, 10 * how + peer, "beside a generalized request");
        CHECK(g.freed == 1, "generalized request in a list: free_fn ran %d times", g.freed);
    }
    return conf_finish();
}
