/*
 * bottom: MPI_BOTTOM with absolute addresses (MPI 4.1.12). A struct type
 * built from MPI_Get_address of three separate variables (an int array, a
 * double, a char array) sent and received with buffer MPI_BOTTOM, by
 * MPI_Send/MPI_Recv and MPI_Isend/MPI_Irecv; an hindexed type of absolute
 * addresses into two heap blocks.
 *
 * Checklist (MPICH test/mpi/pt2pt): bottom.
 *
 * np: 2
 */
#include "conf.h"

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "bottom", 2);
    int me = conf_rank;
    int ia[20];
    double d;
    char ca[7];
    MPI_Datatype t;
    int bl[3] = {20, 1, 7};
    MPI_Aint disp[3];
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Get_address(ia, &disp[0]);
    MPI_Get_address(&d, &disp[1]);
    MPI_Get_address(ca, &disp[2]);
    MPI_Type_create_struct(3, bl, disp, ty, &t);
    MPI_Type_commit(&t);

    for (int how = 0; how < 2; how++) {
        char what[48];
        snprintf(what, sizeof(what), "MPI_BOTTOM struct (%s)", how ? "nonblocking" : "blocking");
        if (me == 0) {
            conf_fill(ia, 20, 10 + how);
            d = 2.5 + how;
            memcpy(ca, how ? "bottom" : "BOTTOM", 7);
            if (how) {
                MPI_Request r;
                MPI_Isend(MPI_BOTTOM, 1, t, 1, how, MPI_COMM_WORLD, &r);
                CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), what);
            } else {
                CHECK_RC(MPI_Send(MPI_BOTTOM, 1, t, 1, how, MPI_COMM_WORLD), what);
            }
        } else if (me == 1) {
            MPI_Status st;
            memset(ia, 0, sizeof(ia));
            d = 0;
            memset(ca, 0, sizeof(ca));
            if (how) {
                MPI_Request r;
                MPI_Irecv(MPI_BOTTOM, 1, t, 0, how, MPI_COMM_WORLD, &r);
                CHECK_RC(MPI_Wait(&r, &st), what);
            } else {
                CHECK_RC(MPI_Recv(MPI_BOTTOM, 1, t, 0, how, MPI_COMM_WORLD, &st), what);
            }
            conf_check_status(&st, 0, how, t, 1, what);
            conf_check_data(ia, 20, 10 + how, what);
            CHECK(d == 2.5 + how, "%s: the double is %g", what, d);
            CHECK(memcmp(ca, how ? "bottom" : "BOTTOM", 7) == 0, "%s: the chars are %.6s", what,
                  ca);
        }
    }
    MPI_Type_free(&t);

    /* hindexed of absolute addresses into two heap blocks. */
    int *p1 = malloc(sizeof(int) * 100), *p2 = malloc(sizeof(int) * 100);
    int hb[2] = {100, 100};
    MPI_Aint ha[2];
    MPI_Get_address(p1, &ha[0]);
    MPI_Get_address(p2, &ha[1]);
    MPI_Type_create_hindexed(2, hb, ha, MPI_INT, &t);
    MPI_Type_commit(&t);
    if (me == 0) {
        conf_fill(p1, 100, 20);
        conf_fill(p2, 100, 21);
        CHECK_RC(MPI_Send(MPI_BOTTOM, 1, t, 1, 5, MPI_COMM_WORLD),
                 "MPI_Send of an hindexed at MPI_BOTTOM");
    } else if (me == 1) {
        int all[200];
        MPI_Recv(all, 200, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        conf_check_data(all, 100, 20, "hindexed at MPI_BOTTOM, first block");
        conf_check_data(all + 100, 100, 21, "hindexed at MPI_BOTTOM, second block");
    }
    MPI_Type_free(&t);
    free(p1);
    free(p2);
    return conf_finish();
}
