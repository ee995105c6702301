/*
 * largecount: the MPI-4 large-count (_c) point-to-point calls with a
 * count of 2^20 ints (a count beyond 2^31 needs more memory than a small
 * machine has): MPI_Send_c, MPI_Recv_c, MPI_Isend_c,
 * MPI_Irecv_c, MPI_Ssend_c, MPI_Bsend_c (with MPI_Buffer_attach_c),
 * MPI_Rsend_c, MPI_Sendrecv_c, MPI_Sendrecv_replace_c, MPI_Send_init_c,
 * MPI_Recv_init_c, MPI_Mrecv_c, MPI_Imrecv_c; MPI_Get_count_c and
 * MPI_Get_elements_c; MPI_Status_set_elements_x with a count above 2^31
 * read back by MPI_Get_elements_x and MPI_Get_count_c.
 *
 * Checklist (MPICH test/mpi/pt2pt): pt2pt_large, big_count_status.
 *
 * np: 2
 */
#include "conf.h"

#define TAG_READY 900

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "largecount", 2);
    int me = conf_rank, peer = 1 - me;
    MPI_Count n = 1 << 20;
    int *sb = malloc(sizeof(int) * (size_t)n), *rb = malloc(sizeof(int) * (size_t)n);
    MPI_Count bsize = 4 * n + MPI_BSEND_OVERHEAD;
    char *bb = malloc((size_t)bsize);
    MPI_Buffer_attach_c(bb, bsize);
    MPI_Status st;
    MPI_Request r[2];
    MPI_Message m;
    MPI_Count cnt;

    for (int k = 0; k < 8; k++) {
        char what[48];
        static const char *kn[8] = {"MPI_Send_c",  "MPI_Isend_c", "MPI_Ssend_c", "MPI_Bsend_c",
                                    "MPI_Rsend_c", "MPI_Send_init_c", "MPI_Mrecv_c", "MPI_Imrecv_c"};
        snprintf(what, sizeof(what), "%s", kn[k]);
        if (me == 0) {
            conf_fill(sb, n, k);
            if (k == 4)
                MPI_Recv(NULL, 0, MPI_INT, 1, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            switch (k) {
            case 1:
                MPI_Isend_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD, &r[0]);
                CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE), what);
                break;
            case 2: CHECK_RC(MPI_Ssend_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD), what); break;
            case 3: CHECK_RC(MPI_Bsend_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD), what); break;
            case 4: CHECK_RC(MPI_Rsend_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD), what); break;
            case 5:
                MPI_Send_init_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD, &r[0]);
                MPI_Start(&r[0]);
                CHECK_RC(MPI_Wait(&r[0], MPI_STATUS_IGNORE), what);
                MPI_Request_free(&r[0]);
                break;
            default: CHECK_RC(MPI_Send_c(sb, n, MPI_INT, 1, k, MPI_COMM_WORLD), what); break;
            }
        } else if (me == 1) {
            switch (k) {
            case 1:
                MPI_Irecv_c(rb, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r[0]);
                CHECK_RC(MPI_Wait(&r[0], &st), what);
                break;
            case 4:
                MPI_Irecv_c(rb, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r[0]);
                MPI_Send(NULL, 0, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
                CHECK_RC(MPI_Wait(&r[0], &st), what);
                break;
            case 5:
                MPI_Recv_init_c(rb, n, MPI_INT, 0, k, MPI_COMM_WORLD, &r[0]);
                MPI_Start(&r[0]);
                CHECK_RC(MPI_Wait(&r[0], &st), what);
                MPI_Request_free(&r[0]);
                break;
            case 6:
                MPI_Mprobe(0, k, MPI_COMM_WORLD, &m, &st);
                CHECK_RC(MPI_Mrecv_c(rb, n, MPI_INT, &m, &st), what);
                break;
            case 7:
                MPI_Mprobe(0, k, MPI_COMM_WORLD, &m, &st);
                MPI_Imrecv_c(rb, n, MPI_INT, &m, &r[0]);
                CHECK_RC(MPI_Wait(&r[0], &st), what);
                break;
            default: CHECK_RC(MPI_Recv_c(rb, n, MPI_INT, 0, k, MPI_COMM_WORLD, &st), what); break;
            }
            cnt = -1;
            MPI_Get_count_c(&st, MPI_INT, &cnt);
            CHECK(cnt == n, "%s: MPI_Get_count_c %lld, want %lld", what, (long long)cnt,
                  (long long)n);
            cnt = -1;
            MPI_Get_elements_c(&st, MPI_INT, &cnt);
            CHECK(cnt == n, "%s: MPI_Get_elements_c %lld", what, (long long)cnt);
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == k, "%s: status %d/%d", what, st.MPI_SOURCE,
                  st.MPI_TAG);
            conf_check_data(rb, n, k, what);
        }
    }

    conf_fill(sb, n, 20 + me);
    CHECK_RC(MPI_Sendrecv_c(sb, n, MPI_INT, peer, 20, rb, n, MPI_INT, peer, 20, MPI_COMM_WORLD,
                            &st),
             "MPI_Sendrecv_c");
    MPI_Get_count_c(&st, MPI_INT, &cnt);
    CHECK(cnt == n, "MPI_Sendrecv_c: count %lld", (long long)cnt);
    conf_check_data(rb, n, 20 + peer, "MPI_Sendrecv_c");
    conf_fill(rb, n, 30 + me);
    CHECK_RC(MPI_Sendrecv_replace_c(rb, n, MPI_INT, peer, 30, peer, 30, MPI_COMM_WORLD, &st),
             "MPI_Sendrecv_replace_c");
    conf_check_data(rb, n, 30 + peer, "MPI_Sendrecv_replace_c");

    /* A count above 2^31 in a status. */
    MPI_Count big = ((MPI_Count)1 << 33) + 5, x = -1;
    MPI_Status_set_elements_x(&st, MPI_BYTE, big);
    MPI_Get_elements_x(&st, MPI_BYTE, &x);
    CHECK(x == big, "MPI_Get_elements_x %lld, want %lld", (long long)x, (long long)big);
    x = -1;
    MPI_Get_count_c(&st, MPI_BYTE, &x);
    CHECK(x == big, "MPI_Get_count_c %lld, want %lld", (long long)x, (long long)big);
    int small = 0;
    MPI_Get_count(&st, MPI_BYTE, &small);
    CHECK(small == MPI_UNDEFINED, "MPI_Get_count of 2^33+5 bytes: %d, want MPI_UNDEFINED", small);

    void *a;
    MPI_Count s;
    MPI_Buffer_detach_c(&a, &s);
    free(bb);
    free(sb);
    free(rb);
    return conf_finish();
}
