/*
 * dtype_partial: messages shorter than the receive buffer of a derived
 * type (MPI 3.2.4, 3.3: only the locations of the message are written).
 * Whole elements (2 of a capacity of 10 vectors); a message that ends
 * inside an element (7 ints into vectors of 12: the first 7 locations,
 * MPI_Get_count MPI_UNDEFINED, MPI_Get_elements 7); the same with
 * MPI_Irecv, with MPI_Mprobe/MPI_Mrecv and with a struct type.
 *
 * Checklist (MPICH test/mpi/pt2pt): huge_underflow (the derived-type
 * side).
 *
 * np: 2
 */
#include "conf.h"

/* Check b against a vector(4, 3, 5) receive of the first n ints of the
 * message seed (the gaps and the rest -1). */
static void check_vec(const int *b, int cap, int n, int seed, const char *what)
{
    int k = 0;
    for (int i = 0; i < cap * 20; i++) {
        int inblock = (i % 20) % 5 < 3 && (i % 20) < 18;
        int want = inblock && k < n ? conf_val(seed, k) : -1;
        if (inblock)
            k++;
        if (!CHECK(b[i] == want, "%s: int %d is %d, want %d", what, i, b[i], want))
            return;
    }
}

int main(int argc, char **argv)
{
    conf_init(&argc, &argv, "dtype_partial", 2);
    MPI_Datatype v;
    MPI_Type_vector(4, 3, 5, MPI_INT, &v); /* 12 ints, extent 18 ints */
    MPI_Type_commit(&v);
    MPI_Datatype vr;
    MPI_Type_create_resized(v, 0, 20 * sizeof(int), &vr); /* extent 20: simpler indexing */
    MPI_Type_commit(&vr);
    int cap = 10;
    int *b = malloc(sizeof(int) * (size_t)cap * 20);
    static const int lens[] = {24, 7, 31};
    for (int k = 0; k < 3; k++)
        for (int how = 0; how < 3; how++) {
            int n = lens[k], tag = 10 * k + how;
            char what[96];
            snprintf(what, sizeof(what), "%d ints into %d vectors of 12 (%s)", n, cap,
                     how == 0 ? "MPI_Recv" : how == 1 ? "MPI_Irecv" : "MPI_Mprobe+MPI_Mrecv");
            if (conf_rank == 0) {
                int s[40];
                conf_fill(s, n, tag);
                MPI_Send(s, n, MPI_INT, 1, tag, MPI_COMM_WORLD);
            } else if (conf_rank == 1) {
                MPI_Status st;
                MPI_Request r;
                MPI_Message m;
                for (int i = 0; i < cap * 20; i++)
                    b[i] = -1;
                if (how == 0) {
                    CHECK_RC(MPI_Recv(b, cap, vr, 0, tag, MPI_COMM_WORLD, &st), "MPI_Recv");
                } else if (how == 1) {
                    CHECK_RC(MPI_Irecv(b, cap, vr, 0, tag, MPI_COMM_WORLD, &r), "MPI_Irecv");
                    CHECK_RC(MPI_Wait(&r, &st), "MPI_Wait");
                } else {
                    CHECK_RC(MPI_Mprobe(0, tag, MPI_COMM_WORLD, &m, &st), "MPI_Mprobe");
                    CHECK_RC(MPI_Mrecv(b, cap, vr, &m, &st), "MPI_Mrecv");
                }
                int cnt = -2, el = -2;
                MPI_Get_count(&st, vr, &cnt);
                MPI_Get_elements(&st, vr, &el);
                int want = n % 12 ? MPI_UNDEFINED : n / 12;
                CHECK(cnt == want, "%s: MPI_Get_count %d, want %d", what, cnt, want);
                CHECK(el == n, "%s: MPI_Get_elements %d, want %d", what, el, n);
                check_vec(b, cap, n, tag, what);
            }
        }

    /* A struct {int; double} received 2.5 elements' worth (int, double, int,
     * double, int): the third element's int only. */
    struct s2 {
        int i;
        double d;
    } in[4], out[5];
    MPI_Datatype st2, tmp;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct s2, i), offsetof(struct s2, d)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(struct s2), &st2);
    MPI_Type_commit(&st2);
    MPI_Type_free(&tmp);
    if (conf_rank == 0) {
        /* The same signature as 2.5 elements: int double int double int. */
        MPI_Datatype sig;
        int sbl[5] = {1, 1, 1, 1, 1};
        MPI_Aint sd[5];
        MPI_Datatype sty[5] = {MPI_INT, MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT};
        for (int i = 0; i < 3; i++) {
            in[i].i = 100 + i;
            in[i].d = 0.5 + i;
        }
        MPI_Aint base;
        MPI_Get_address(in, &base);
        for (int i = 0; i < 5; i++) {
            MPI_Aint a;
            MPI_Get_address(i % 2 ? (void *)&in[i / 2].d : (void *)&in[i / 2].i, &a);
            sd[i] = a - base;
        }
        MPI_Type_create_struct(5, sbl, sd, sty, &sig);
        MPI_Type_commit(&sig);
        MPI_Send(in, 1, sig, 1, 50, MPI_COMM_WORLD);
        MPI_Type_free(&sig);
    } else if (conf_rank == 1) {
        MPI_Status st;
        memset(out, 0, sizeof(out));
        for (int i = 0; i < 5; i++) {
            out[i].i = -1;
            out[i].d = -1;
        }
        CHECK_RC(MPI_Recv(out, 5, st2, 0, 50, MPI_COMM_WORLD, &st), "MPI_Recv of 2.5 structs");
        int cnt = -2, el = -2;
        MPI_Get_count(&st, st2, &cnt);
        MPI_Get_elements(&st, st2, &el);
        CHECK(cnt == MPI_UNDEFINED, "2.5 structs: MPI_Get_count %d, want MPI_UNDEFINED", cnt);
        CHECK(el == 5, "2.5 structs: MPI_Get_elements %d, want 5", el);
        CHECK(out[0].i == 100 && out[0].d == 0.5 && out[1].i == 101 && out[1].d == 1.5 && out[2].i == 102,
              "2.5 structs: got %d %g %d %g %d", out[0].i, out[0].d, out[1].i, out[1].d, out[2].i);
        CHECK(out[2].d == -1 && out[3].i == -1, "2.5 structs: wrote past the message");
    }
    MPI_Type_free(&st2);
    MPI_Type_free(&vr);
    MPI_Type_free(&v);
    free(b);
    return conf_finish();
}
