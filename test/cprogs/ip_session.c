/*
 * ip_session: MPI-4 sessions beside MPI_Init under the library. After
 * MPI_Init, the process opens a session and builds a communicator from
 * its "mpi://WORLD" process set (MPI_Group_from_session_pset,
 * MPI_Comm_create_from_group), and reads the set's "mpi_size"
 * (MPI_Session_get_pset_info): both must be the application's world, as
 * MPI_COMM_WORLD is, not every process mpiexec started (ghosts would never
 * join the communicator). A ring of MPI_Sendrecv and an MPI_Allreduce run
 * over the new communicator; "mpi://SELF" gives a communicator of one.
 *
 * Output, per process of the application:
 *   result rank=<r> test=session ok=<0|1> world=<n> pset_size=<n>
 *          comm_size=<n> self_size=<n> bad=<n>
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, world, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);

    MPI_Session s;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
    MPI_Info pinfo;
    char v[32] = "";
    int flag = 0, pset_size = -1;
    if (MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo) == MPI_SUCCESS) {
        int len = sizeof v;
        MPI_Info_get_string(pinfo, "mpi_size", &len, v, &flag);
        MPI_Info_free(&pinfo);
        if (flag)
            pset_size = atoi(v);
    }
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    int comm_size = -1, self_size = -1;
    if (MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS) {
        MPI_Comm_create_from_group(g, "org.casperii.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
        MPI_Group_free(&g);
    }
    if (c != MPI_COMM_NULL) {
        int r;
        MPI_Comm_size(c, &comm_size);
        MPI_Comm_rank(c, &r);
        int out = r * 7 + 1, in = -1, next = (r + 1) % comm_size, prev = (r + comm_size - 1) % comm_size;
        MPI_Status st;
        int rc = MPI_Sendrecv(&out, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, c, &st);
        bad += rc != MPI_SUCCESS || in != prev * 7 + 1 || st.MPI_SOURCE != prev;
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        bad += sum != comm_size;
        MPI_Comm_free(&c);
    }
    if (MPI_Group_from_session_pset(s, "mpi://SELF", &g) == MPI_SUCCESS) {
        MPI_Comm self;
        if (MPI_Comm_create_from_group(g, "org.casperii.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &self) ==
            MPI_SUCCESS) {
            MPI_Comm_size(self, &self_size);
            MPI_Comm_free(&self);
        }
        MPI_Group_free(&g);
    }
    MPI_Session_finalize(&s);
    printf("result rank=%d test=session ok=%d world=%d pset_size=%d comm_size=%d self_size=%d bad=%d\n", rank,
           bad == 0 && pset_size == world && comm_size == world && self_size == 1, world, pset_size, comm_size,
           self_size, bad);
    MPI_Finalize();
    return 0;
}
