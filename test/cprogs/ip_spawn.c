/*
 * ip_spawn: MPI_Comm_spawn from a job under the library. The job's users
 * spawn <children> copies of this program (argument "child") with
 * MPI_COMM_WORLD as the parent communicator, then:
 *
 *   1. user 0 and child 0 exchange a message over the intercommunicator
 *      (each of the others, too, with the child of its rank modulo the
 *      children), checked;
 *   2. both sides merge it (MPI_Intercomm_merge, parents first) and run an
 *      MPI_Allreduce and a ring of MPI_Sendrecv over the merged
 *      communicator, checked;
 *   3. the children run a ring among themselves on their own world;
 *   4. the parents, after all that, exchange messages among themselves on
 *      a duplicate of MPI_COMM_WORLD with wildcard_used=none, checked, and
 *      report whether that duplicate went through the ghosts.
 *
 *   ip_spawn <children>
 *
 * Output: one line per parent user and per child:
 *   result rank=<r> test=spawn role=parent|child ok=<0|1> bad=<n>
 *          merged_size=<n> algo=<a>
 * algo: the parents' duplicate's algorithm (test hook csp_test_comm_algo;
 * -1 without the library or in a child).
 */
#include "rel_hooks.h"

#include <string.h>

static long bad;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (bad++ < 5)                                                                         \
                fprintf(stderr, __VA_ARGS__);                                                      \
        }                                                                                          \
    } while (0)

/* A ring over comm: send rank*10+tag to the next, check the previous's. */
static void ring(MPI_Comm comm, int tag, const char *who)
{
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int out = r * 10 + tag, in = -1;
    MPI_Status st;
    int rc = MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, tag, &in, 1, MPI_INT, (r + n - 1) % n, tag, comm, &st);
    int prev = (r + n - 1) % n;
    CHECK(rc == MPI_SUCCESS && in == prev * 10 + tag && st.MPI_SOURCE == prev && st.MPI_TAG == tag,
          "ip_spawn %s: ring %d: rc %d got %d from %d tag %d\n", who, tag, rc, in, st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    int child = parent != MPI_COMM_NULL;
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm inter = parent;
    int nchildren = argc > 1 && !child ? atoi(argv[1]) : 0;
    if (!child) {
        char *cargs[] = {"child", NULL};
        int errs[64];
        int rc = MPI_Comm_spawn(argv[0], cargs, nchildren, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        CHECK(rc == MPI_SUCCESS, "ip_spawn parent %d: MPI_Comm_spawn: rc %d\n", wrank, rc);
        for (int i = 0; rc == MPI_SUCCESS && i < nchildren; i++)
            CHECK(errs[i] == MPI_SUCCESS, "ip_spawn parent %d: child %d: error %d\n", wrank, i, errs[i]);
    }
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);

    /* 1. Over the intercommunicator: parent p talks to child p % children;
     * child c answers every parent p with p % children == c. */
    if (!child) {
        int peer = wrank % rsize, out = 1000 + wrank, in = -1;
        MPI_Status st;
        int rc = MPI_Sendrecv(&out, 1, MPI_INT, peer, 5, &in, 1, MPI_INT, peer, 6, inter, &st);
        CHECK(rc == MPI_SUCCESS && in == 2000 + wrank && st.MPI_SOURCE == peer,
              "ip_spawn parent %d: intercomm: rc %d got %d from %d\n", wrank, rc, in, st.MPI_SOURCE);
    } else {
        for (int p = wrank; p < rsize; p += wsize) {
            int in = -1;
            MPI_Status st;
            int rc = MPI_Recv(&in, 1, MPI_INT, p, 5, inter, &st);
            CHECK(rc == MPI_SUCCESS && in == 1000 + p && st.MPI_SOURCE == p,
                  "ip_spawn child %d: intercomm: rc %d got %d from %d\n", wrank, rc, in, st.MPI_SOURCE);
            int out = 2000 + p;
            MPI_Send(&out, 1, MPI_INT, p, 6, inter);
        }
    }

    /* 2. Merged: parents first. */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, child, &merged);
    int msize, mrank;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize, "ip_spawn %d: merged allreduce %d, size %d\n", mrank, sum, msize);
    ring(merged, 3, child ? "child" : "parent");
    MPI_Comm mdup;
    MPI_Comm_dup(merged, &mdup); /* a communicator made from the merged one */
    ring(mdup, 4, child ? "child" : "parent");
    MPI_Comm_free(&mdup);

    /* 3 and 4: each job on its own. */
    int algo = -1;
    if (child) {
        ring(MPI_COMM_WORLD, 7, "child");
    } else {
        MPI_Comm c = rel_dup_hint(MPI_COMM_WORLD, "wildcard_used", "none");
        algo = rel_comm_algo(c);
        for (int k = 0; k < 20; k++)
            ring(c, 8, "parent");
        MPI_Comm_free(&c);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    printf("result rank=%d test=spawn role=%s ok=%d bad=%ld merged_size=%d algo=%d\n", wrank,
           child ? "child" : "parent", bad == 0, bad, msize, algo);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
