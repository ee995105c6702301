/*
 * allocmem: messages from and into memory of MPI_Alloc_mem, with the
 * info shmbuf_regist=true (a hint MPI lets any implementation ignore):
 * MPI_Isend/MPI_Irecv both ways at 8 bytes to 1 MiB, MPI_Send/MPI_Recv,
 * and odd offsets into the block; then MPI_Free_mem. Under the library
 * such memory is shared with the ghost: no operation may need a bounce
 * copy (the runner checks bounce=0 in every casperii-stats line).
 *
 * Checklist (MPICH test/mpi/pt2pt): none (CasperII's registered memory).
 *
 * np: 2
 * stats: bounce=0
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "allocmem", 2);
    int me = conf_rank, peer = 1 - me;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "shmbuf_regist", "true");
    MPI_Aint bytes = 2 << 20;
    char *sb, *rb;
    CHECK_RC(MPI_Alloc_mem(bytes, info, &sb), "MPI_Alloc_mem");
    CHECK_RC(MPI_Alloc_mem(bytes, info, &rb), "MPI_Alloc_mem");
    MPI_Info_free(&info);

    for (int n = 2; n <= (1 << 18); n *= 4) {
        char what[48];
        MPI_Request r[2];
        MPI_Status st[2];
        snprintf(what, sizeof(what), "%d ints of MPI_Alloc_mem memory", n);
        conf_fill((int *)sb, n, n + me);
        MPI_Irecv(rb, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sb, n, MPI_INT, peer, 1, MPI_COMM_WORLD, &r[1]);
        CHECK_RC(MPI_Waitall(2, r, st), what);
        if (conf_check_status(&st[0], peer, 1, MPI_INT, n, what))
            conf_check_data((int *)rb, n, n + peer, what);
    }
    /* Odd offsets, blocking. */
    for (int off = 1; off < 8; off += 3) {
        int n = 1000;
        if (me == 0) {
            int tmp[1000];
            conf_fill(tmp, n, off);
            memcpy(sb + off, tmp, sizeof(tmp));
            CHECK_RC(MPI_Send(sb + off, n * (int)sizeof(int), MPI_BYTE, 1, 2, MPI_COMM_WORLD),
                     "MPI_Send");
        } else {
            int tmp[1000];
            CHECK_RC(MPI_Recv(rb + off, n * (int)sizeof(int), MPI_BYTE, 0, 2, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE),
                     "MPI_Recv");
            memcpy(tmp, rb + off, sizeof(tmp));
            conf_check_data(tmp, n, off, "an odd offset into MPI_Alloc_mem memory");
        }
    }
    CHECK_RC(MPI_Free_mem(sb), "MPI_Free_mem");
    CHECK_RC(MPI_Free_mem(rb), "MPI_Free_mem");
    return conf_finish();
}
