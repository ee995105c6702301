/*
 * completion: the Wait/Test family on edge cases. Empty lists (count 0)
 * and lists of MPI_REQUEST_NULL only: MPI_Waitany gives MPI_UNDEFINED and
 * an empty status, MPI_Testany flag true and MPI_UNDEFINED, MPI_Waitsome
 * and MPI_Testsome outcount MPI_UNDEFINED, MPI_Waitall/MPI_Testall succeed
 * (flag true); MPI_Wait/MPI_Test on MPI_REQUEST_NULL give an empty status.
 * Nulls mixed with live requests: the live one's index is returned and
 * the nulls are left alone. MPI_Testany and MPI_Testsome with nothing
 * complete (flag false, index MPI_UNDEFINED; outcount 0); MPI_Testall with
 * part complete leaves every request in place. Offloaded requests (on
 * MPI_COMM_WORLD) mixed with requests of MPI_COMM_SELF in one call; and
 * MPI_STATUSES_IGNORE.
 *
 * Checklist (MPICH test/mpi/pt2pt): waittestnull, waitany_null,
 * inactivereq.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_GO 999

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "completion", 2);
    int me = conf_rank, peer = 1 - me;
    MPI_Request rs[4];
    MPI_Status st, sts[4];
    int idx, flag, out, idxs[4];

    /* Empty lists and null lists. */
    for (int n = 0; n <= 3; n += 3) {
        char what[64];
        for (int i = 0; i < 4; i++)
            rs[i] = MPI_REQUEST_NULL;
        snprintf(what, sizeof(what), "MPI_Waitany over %d null requests", n);
        idx = -5;
        CHECK_RC(MPI_Waitany(n, rs, &idx, &st), what);
        CHECK(idx == MPI_UNDEFINED, "%s: index %d", what, idx);
        conf_check_empty(&st, what);
        snprintf(what, sizeof(what), "MPI_Testany over %d null requests", n);
        idx = -5;
        flag = 0;
        CHECK_RC(MPI_Testany(n, rs, &idx, &flag, &st), what);
        CHECK(flag && idx == MPI_UNDEFINED, "%s: flag %d index %d", what, flag, idx);
        conf_check_empty(&st, what);
        snprintf(what, sizeof(what), "MPI_Waitsome over %d null requests", n);
        out = -5;
        CHECK_RC(MPI_Waitsome(n, rs, &out, idxs, sts), what);
        CHECK(out == MPI_UNDEFINED, "%s: outcount %d", what, out);
        snprintf(what, sizeof(what), "MPI_Testsome over %d null requests", n);
        out = -5;
        CHECK_RC(MPI_Testsome(n, rs, &out, idxs, sts), what);
        CHECK(out == MPI_UNDEFINED, "%s: outcount %d", what, out);
        snprintf(what, sizeof(what), "MPI_Waitall over %d null requests", n);
        CHECK_RC(MPI_Waitall(n, rs, sts), what);
        for (int i = 0; i < n; i++)
            conf_check_empty(&sts[i], what);
        snprintf(what, sizeof(what), "MPI_Testall over %d null requests", n);
        flag = 0;
        CHECK_RC(MPI_Testall(n, rs, &flag, MPI_STATUSES_IGNORE), what);
        CHECK(flag, "%s: flag false", what);
    }
    MPI_Request nr = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Wait(&nr, &st), "MPI_Wait on MPI_REQUEST_NULL");
    conf_check_empty(&st, "MPI_Wait on MPI_REQUEST_NULL");
    flag = 0;
    CHECK_RC(MPI_Test(&nr, &flag, &st), "MPI_Test on MPI_REQUEST_NULL");
    CHECK(flag, "MPI_Test on MPI_REQUEST_NULL: flag false");
    conf_check_empty(&st, "MPI_Test on MPI_REQUEST_NULL");

    /* Nothing complete yet: receives the peer satisfies only when told. */
    int b[4][10], s[10];
    rs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(b[1], 10, MPI_INT, peer, 1, MPI_COMM_WORLD, &rs[1]);
    rs[2] = MPI_REQUEST_NULL;
    MPI_Irecv(b[3], 10, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[3]);
    flag = 1;
    idx = -5;
    CHECK_RC(MPI_Testany(4, rs, &idx, &flag, &st), "MPI_Testany");
    CHECK(!flag && idx == MPI_UNDEFINED, "MPI_Testany with nothing complete: flag %d index %d",
          flag, idx);
    out = -5;
    CHECK_RC(MPI_Testsome(4, rs, &out, idxs, sts), "MPI_Testsome");
    CHECK(out == 0, "MPI_Testsome with nothing complete: outcount %d", out);
    flag = 1;
    CHECK_RC(MPI_Testall(4, rs, &flag, sts), "MPI_Testall");
    CHECK(!flag, "MPI_Testall with nothing complete: flag true");
    CHECK(rs[1] != MPI_REQUEST_NULL && rs[3] != MPI_REQUEST_NULL,
          "MPI_Testall freed incomplete requests");

    /* The peer sends tag 1 only: MPI_Waitany returns it, nulls stay. */
    conf_sync(me, peer, TAG_GO, MPI_COMM_WORLD); /* each tells the other in turn */
    conf_sync(peer, me, TAG_GO, MPI_COMM_WORLD);
    conf_fill(s, 10, 100 + me);
    MPI_Send(s, 10, MPI_INT, peer, 1, MPI_COMM_WORLD);
    CHECK_RC(MPI_Waitany(4, rs, &idx, &st), "MPI_Waitany");
    CHECK(idx == 1, "MPI_Waitany over nulls and two receives: index %d, want 1", idx);
    CHECK(rs[1] == MPI_REQUEST_NULL && rs[3] != MPI_REQUEST_NULL,
          "MPI_Waitany: requests not as expected");
    if (conf_check_status(&st, peer, 1, MPI_INT, 10, "MPI_Waitany among nulls"))
        conf_check_data(b[1], 10, 100 + peer, "MPI_Waitany among nulls");

    /* MPI_Testall with one of two complete leaves both. Tag 3 is sent
     * only after the peer's MPI_Testall. */
    MPI_Irecv(b[0], 10, MPI_INT, peer, 0, MPI_COMM_WORLD, &rs[0]);
    MPI_Send(s, 10, MPI_INT, peer, 0, MPI_COMM_WORLD);
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
        MPI_Request_get_status(rs[0], &flag, MPI_STATUS_IGNORE);
    flag = 1;
    CHECK_RC(MPI_Testall(4, rs, &flag, sts), "MPI_Testall");
    CHECK(!flag && rs[0] != MPI_REQUEST_NULL && rs[3] != MPI_REQUEST_NULL,
          "MPI_Testall with part complete: flag %d, requests freed", flag);
    conf_sync(me, peer, TAG_GO, MPI_COMM_WORLD);
    conf_sync(peer, me, TAG_GO, MPI_COMM_WORLD);
    MPI_Send(s, 10, MPI_INT, peer, 3, MPI_COMM_WORLD);
    CHECK_RC(MPI_Waitall(4, rs, sts), "MPI_Waitall");
    for (int i = 0; i < 4; i += 3)
        if (conf_check_status(&sts[i], peer, i, MPI_INT, 10, "MPI_Waitall among nulls"))
            conf_check_data(b[i], 10, 100 + peer, "MPI_Waitall among nulls");
    conf_check_empty(&sts[1], "MPI_Waitall: a null request's status");

    /* Offloaded and MPI_COMM_SELF requests in one call. */
    int sf[10], rf[10];
    for (int how = 0; how < 3; how++) {
        conf_fill(sf, 10, 200 + how);
        MPI_Irecv(b[0], 10, MPI_INT, peer, 50 + how, MPI_COMM_WORLD, &rs[0]);
        MPI_Irecv(rf, 10, MPI_INT, 0, 60 + how, MPI_COMM_SELF, &rs[1]);
        MPI_Isend(s, 10, MPI_INT, peer, 50 + how, MPI_COMM_WORLD, &rs[2]);
        MPI_Isend(sf, 10, MPI_INT, 0, 60 + how, MPI_COMM_SELF, &rs[3]);
        if (how == 0) {
            CHECK_RC(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE), "MPI_Waitall, world and self");
        } else {
            int done = 0;
            t0 = MPI_Wtime();
            while (done < 4 && MPI_Wtime() - t0 < CONF_HANG_S) {
                if (how == 1)
                    CHECK_RC(MPI_Waitsome(4, rs, &out, idxs, MPI_STATUSES_IGNORE), "MPI_Waitsome");
                else
                    CHECK_RC(MPI_Testsome(4, rs, &out, idxs, MPI_STATUSES_IGNORE), "MPI_Testsome");
                if (!CHECK(out != MPI_UNDEFINED, "some: MPI_UNDEFINED with %d requests left",
                           4 - done))
                    break;
                done += out;
            }
            CHECK(done == 4, "some, world and self: %d of 4 completed", done);
        }
        conf_check_data(b[0], 10, 100 + peer, "world and self: the world message");
        conf_check_data(rf, 10, 200 + how, "world and self: the self message");
    }
    return conf_finish();
}
