/*
 * dtype_order: types whose data fill one dense block of memory, but in
 * another order than the memory's (MPI 4.1: a message is the sequence of
 * the typemap's entries, in typemap order): an indexed type of blocks at
 * displacements 3, 2, 1, 0; a struct whose entries are listed last
 * field first; an hindexed type of two halves swapped. Sent into
 * contiguous ints and received from contiguous ints.
 *
 * Checklist (MPICH test/mpi/pt2pt): sendrecv2 and the datatype suite's
 * permuted typemaps.
 *
 * np: 2
 */
#include "conf.h"

#define NT 3

static MPI_Datatype make(int k)
{
    MPI_Datatype t;
    if (k == 0) {
        int bl[4] = {1, 1, 1, 1}, d[4] = {3, 2, 1, 0};
        MPI_Type_indexed(4, bl, d, MPI_INT, &t);
    } else if (k == 1) {
        int bl[2] = {1, 3};
        MPI_Aint d[2] = {3 * sizeof(int), 0};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
        MPI_Type_create_struct(2, bl, d, ty, &t);
    } else {
        int bl[2] = {2, 2};
        MPI_Aint d[2] = {2 * sizeof(int), 0};
        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
    }
    MPI_Type_commit(&t);
    return t;
}

/* The order in which type k sends the 4 ints of memory. */
static const int order[NT][4] = {{3, 2, 1, 0}, {3, 0, 1, 2}, {2, 3, 0, 1}};
static const char *tname[NT] = {"indexed 3,2,1,0", "struct listed last field first",
                                "hindexed halves swapped"};

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "dtype_order", 2);
    int me = conf_rank;
    for (int k = 0; k < NT; k++) {
        MPI_Datatype t = make(k);
        int mem[12], flat[12];
        char what[80];
        /* 3 elements of the type (extent 4 ints) */
        if (me == 0) {
            conf_fill(mem, 12, k);
            CHECK_RC(MPI_Send(mem, 3, t, 1, k, MPI_COMM_WORLD), "MPI_Send");
            conf_fill(flat, 12, 10 + k);
            CHECK_RC(MPI_Send(flat, 12, MPI_INT, 1, 10 + k, MPI_COMM_WORLD), "MPI_Send");
        } else if (me == 1) {
            MPI_Request r;
            snprintf(what, sizeof(what), "sent as %s", tname[k]);
            MPI_Irecv(flat, 12, MPI_INT, 0, k, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int i = 0; i < 12; i++) {
                int want = conf_val(k, (i / 4) * 4 + order[k][i % 4]);
                if (!CHECK(flat[i] == want, "%s: int %d of the message is %d, want %d", what, i,
                           flat[i], want))
                    break;
            }
            snprintf(what, sizeof(what), "received as %s", tname[k]);
            MPI_Irecv(mem, 3, t, 0, 10 + k, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            for (int i = 0; i < 12; i++) {
                int m = (i / 4) * 4 + order[k][i % 4]; /* where message int i goes */
                if (!CHECK(mem[m] == conf_val(10 + k, i),
                           "%s: memory int %d is %d, want message int %d (%d)", what,
                           m, mem[m], i, conf_val(10 + k, i)))
                    break;
            }
        }
        MPI_Type_free(&t);
    }
    return conf_finish();
}
