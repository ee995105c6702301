/*
 * regwin: messages from and into the memory of shared windows created
 * with the info shmbuf_regist=true: MPI_Win_allocate_shared over
 * MPI_COMM_SELF of an odd size (100003 bytes) and of 64 KiB, and over the
 * processes of the node (MPI_Comm_split_type SHARED); exchanges between
 * two ranks of 4 bytes to 64 KiB from one window into another. Under the
 * library window memory with the hint is shared with the ghost whatever
 * the communicator and alignment: no bounce copies (the runner checks
 * bounce=0).
 *
 * Checklist (MPICH test/mpi/pt2pt): none (CasperII's registered windows).
 *
 * np: 2
 * stats: bounce=0
 */
#include "conf.h"

static void exchange(char *sb, char *rb, MPI_Aint cap, const char *what)
{
    int peer = 1 - conf_rank;
    for (int n = 1; n * (MPI_Aint)sizeof(int) <= cap && n <= 16384; n *= 8) {
        MPI_Request r[2];
        MPI_Status st[2];
        char w[96];
        snprintf(w, sizeof(w), "%s, %d ints", what, n);
        int tmp[16384];
        conf_fill(tmp, n, n + conf_rank);
        memcpy(sb, tmp, sizeof(int) * (size_t)n);
        MPI_Irecv(rb, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sb, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);
        CHECK_RC(MPI_Waitall(2, r, st), w);
        memcpy(tmp, rb, sizeof(int) * (size_t)n);
        if (conf_check_status(&st[0], peer, 1, MPI_INT, n, w))
            conf_check_data(tmp, n, n + peer, w);
    }
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "regwin", 2);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    static const MPI_Aint sizes[2] = {100003, 65536};
    for (int k = 0; k < 2; k++) {
        MPI_Win ws, wr;
        char *sb, *rb;
        char what[64];
        CHECK_RC(MPI_Win_allocate_shared(sizes[k], 1, info, MPI_COMM_SELF, &sb, &ws),
                 "MPI_Win_allocate_shared");
        CHECK_RC(MPI_Win_allocate_shared(sizes[k], 1, info, MPI_COMM_SELF, &rb, &wr),
                 "MPI_Win_allocate_shared");
        snprintf(what, sizeof(what), "windows of %ld bytes over MPI_COMM_SELF", (long)sizes[k]);
        exchange(sb, rb, sizes[k], what);
        MPI_Win_free(&ws);
        MPI_Win_free(&wr);
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Win ws, wr;
    char *sb, *rb;
    MPI_Win_allocate_shared(65536, 1, info, node, &sb, &ws);
    MPI_Win_allocate_shared(65536, 1, info, node, &rb, &wr);
    exchange(sb, rb, 65536, "windows over the node");
    MPI_Win_free(&ws);
    MPI_Win_free(&wr);
    MPI_Comm_free(&node);
    MPI_Info_free(&info);
    return conf_finish();
}
