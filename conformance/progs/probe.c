/*
 * probe: the probe family with a named source and tag (no wildcards).
 * MPI_Probe to size a receive (MPI_Get_count, then allocate); MPI_Probe
 * twice finds the same message (probes do not receive); an MPI_Iprobe
 * loop; MPI_Probe called before the message is sent (it must wait for
 * it); MPI_Iprobe of a tag nobody sends (flag false); MPI_Mprobe takes
 * the message off the queue (an MPI_Iprobe of the same source and tag
 * then finds the next one), MPI_Mrecv receives it later, after the next
 * one; MPI_Improbe loop with MPI_Imrecv; sizes up to 100000 ints.
 *
 * Checklist (MPICH test/mpi/pt2pt): probe_unexp, mprobe, isendselfprobe.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_GO 999

static const int sizes[] = {1, 1000, 100000};

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "probe", 2);
    int me = conf_rank;
    int *sb = malloc(sizeof(int) * 200000);
    MPI_Status st;
    char what[96];

    /* Sized by MPI_Probe; probed twice; found by MPI_Iprobe. */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        if (me == 0) {
            conf_fill(sb, n, 10 + k);
            MPI_Send(sb, n, MPI_INT, 1, 10 + k, MPI_COMM_WORLD);
            conf_fill(sb, n, 20 + k);
            MPI_Send(sb, n, MPI_INT, 1, 20 + k, MPI_COMM_WORLD);
        } else if (me == 1) {
            snprintf(what, sizeof(what), "MPI_Probe of %d ints", n);
            CHECK_RC(MPI_Probe(0, 10 + k, MPI_COMM_WORLD, &st), "MPI_Probe");
            int cnt = -1;
            MPI_Get_count(&st, MPI_INT, &cnt);
            conf_check_status(&st, 0, 10 + k, MPI_INT, n, what);
            CHECK_RC(MPI_Probe(0, 10 + k, MPI_COMM_WORLD, &st), "MPI_Probe");
            conf_check_status(&st, 0, 10 + k, MPI_INT, n, "the second MPI_Probe of a message");
            int *rb = malloc(sizeof(int) * (size_t)(cnt > 0 ? cnt : 1));
            CHECK_RC(MPI_Recv(rb, cnt, MPI_INT, 0, 10 + k, MPI_COMM_WORLD, &st), "MPI_Recv");
            if (conf_check_status(&st, 0, 10 + k, MPI_INT, n, what))
                conf_check_data(rb, n, 10 + k, what);
            free(rb);

            snprintf(what, sizeof(what), "MPI_Iprobe of %d ints", n);
            int flag = 0;
            double t0 = MPI_Wtime();
            while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                CHECK_RC(MPI_Iprobe(0, 20 + k, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
            if (CHECK(flag, "%s: never found", what))
                conf_check_status(&st, 0, 20 + k, MPI_INT, n, what);
            rb = malloc(sizeof(int) * (size_t)n);
            MPI_Recv(rb, n, MPI_INT, 0, 20 + k, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, 20 + k, MPI_INT, n, what))
                conf_check_data(rb, n, 20 + k, what);
            free(rb);
        }
    }

    /* MPI_Probe waits for a message sent 200 ms later; MPI_Iprobe of a tag
     * never sent is false. */
    if (me == 0) {
        conf_sleep_ms(200);
        conf_fill(sb, 100000, 30);
        MPI_Send(sb, 100000, MPI_INT, 1, 30, MPI_COMM_WORLD);
    } else if (me == 1) {
        int flag = 1;
        CHECK_RC(MPI_Iprobe(0, 31, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
        CHECK(!flag, "MPI_Iprobe found a message on a tag nobody sent");
        CHECK_RC(MPI_Probe(0, 30, MPI_COMM_WORLD, &st), "MPI_Probe before the send");
        conf_check_status(&st, 0, 30, MPI_INT, 100000, "MPI_Probe before the send");
        int *rb = malloc(sizeof(int) * 100000);
        MPI_Recv(rb, 100000, MPI_INT, 0, 30, MPI_COMM_WORLD, &st);
        conf_check_data(rb, 100000, 30, "MPI_Probe before the send");
        free(rb);
    }

    /* Matched probes: two messages on one tag; MPI_Mprobe takes the first,
     * MPI_Iprobe then sees the second (its size tells), which MPI_Recv
     * takes before MPI_Mrecv receives the first. */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k], tag = 40 + k;
        if (me == 0) {
            /* Nonblocking: the first is received only after the second. */
            MPI_Request r[2];
            conf_fill(sb, n, tag);
            MPI_Isend(sb, n, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[0]);
            conf_fill(sb + n, 7, tag + 100);
            MPI_Isend(sb + n, 7, MPI_INT, 1, tag, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else if (me == 1) {
            MPI_Message m = MPI_MESSAGE_NULL;
            int *rb = malloc(sizeof(int) * (size_t)n), r7[7];
            snprintf(what, sizeof(what), "MPI_Mprobe of %d ints", n);
            CHECK_RC(MPI_Mprobe(0, tag, MPI_COMM_WORLD, &m, &st), "MPI_Mprobe");
            CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "%s: no message handle", what);
            conf_check_status(&st, 0, tag, MPI_INT, n, what);
            int flag = 0;
            double t0 = MPI_Wtime();
            while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, &st);
            if (CHECK(flag, "%s: the second message never seen", what))
                conf_check_status(&st, 0, tag, MPI_INT, 7,
                                  "MPI_Iprobe after MPI_Mprobe sees the next message");
            MPI_Recv(r7, 7, MPI_INT, 0, tag, MPI_COMM_WORLD, &st);
            if (conf_check_status(&st, 0, tag, MPI_INT, 7, "MPI_Recv after MPI_Mprobe"))
                conf_check_data(r7, 7, tag + 100, "MPI_Recv after MPI_Mprobe");
            CHECK_RC(MPI_Mrecv(rb, n, MPI_INT, &m, &st), "MPI_Mrecv");
            CHECK(m == MPI_MESSAGE_NULL, "%s: MPI_Mrecv left the handle set", what);
            if (conf_check_status(&st, 0, tag, MPI_INT, n, what))
                conf_check_data(rb, n, tag, what);
            free(rb);
        }
    }

    /* MPI_Improbe loop, MPI_Imrecv, completed by MPI_Test. */
    for (int k = 0; k < 3; k++) {
        int n = sizes[k], tag = 50 + k;
        if (me == 0) {
            MPI_Recv(NULL, 0, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            conf_fill(sb, n, tag);
            MPI_Send(sb, n, MPI_INT, 1, tag, MPI_COMM_WORLD);
        } else if (me == 1) {
            MPI_Message m;
            MPI_Request r;
            int flag = 1, *rb = malloc(sizeof(int) * (size_t)n);
            snprintf(what, sizeof(what), "MPI_Improbe of %d ints", n);
            CHECK_RC(MPI_Improbe(0, tag, MPI_COMM_WORLD, &flag, &m, &st), "MPI_Improbe");
            CHECK(!flag, "%s: found a message not sent yet", what);
            MPI_Send(NULL, 0, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
            flag = 0;
            double t0 = MPI_Wtime();
            while (!flag && MPI_Wtime() - t0 < CONF_HANG_S)
                CHECK_RC(MPI_Improbe(0, tag, MPI_COMM_WORLD, &flag, &m, &st), "MPI_Improbe");
            if (CHECK(flag, "%s: never found", what)) {
                conf_check_status(&st, 0, tag, MPI_INT, n, what);
                CHECK_RC(MPI_Imrecv(rb, n, MPI_INT, &m, &r), "MPI_Imrecv");
                CHECK(m == MPI_MESSAGE_NULL, "%s: MPI_Imrecv left the handle set", what);
                conf_wait_test(&r, &st, what);
                if (conf_check_status(&st, 0, tag, MPI_INT, n, what))
                    conf_check_data(rb, n, tag, what);
            }
            free(rb);
        }
    }
    free(sb);
    return conf_finish();
}
