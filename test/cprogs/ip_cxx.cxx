// ip_cxx: a C++ program using MPICH's C++ bindings under the interposer.
//
// MPICH's C++ bindings call the C MPI_* functions, so the program gets
// the user world and offload like a C one. Its error handlers are the
// exception: MPICH calls a handler made with MPI::Comm::Create_errhandler
// through its C++ dispatch, with an MPI::Comm object, and the interposer's
// trampolines take C handles (internal/interpose/errhandler.c). Checks,
// one result line each:
//
//   size     MPI::COMM_WORLD's size is argv[1] (the users)
//   ring     4096 ints around the ring with Isend/Irecv/Waitall on a
//            duplicate with wildcard_used=none: values, source, tag, count
//   eh-world a C++ handler set on MPI::COMM_WORLD, Call_errhandler: called
//            once, with MPI::COMM_WORLD and the code
//   eh-dup   the same on a duplicate and on the duplicate's duplicate,
//            which inherits the handler: called with each
//
// Output: "result rank=<r> test=<name> ok=<0|1>"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int calls, bad;
static MPI::Comm *expect;

static void eh(MPI::Comm &comm, int *code, ...)
{
    calls++;
    if (*code != MPI_ERR_OTHER || comm != *expect)
        bad++;
}

static void report(int rank, const char *name, int ok)
{
    printf("result rank=%d test=%s ok=%d\n", rank, name, ok ? 1 : 0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    int rank = MPI::COMM_WORLD.Get_rank(), size = MPI::COMM_WORLD.Get_size();
    report(rank, "size", argc > 1 && size == atoi(argv[1]));

    // The C++ bindings predate communicator hints: the duplicate with them
    // is made in C.
    MPI::Info info = MPI::Info::Create();
    info.Set("wildcard_used", "none");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)info, &c);
    MPI::Intracomm comm(c);
    info.Free();
    const int n = 4096;
    int *sbuf = new int[n], *rbuf = new int[n];
    int nxt = (rank + 1) % size, prv = (rank + size - 1) % size;
    for (int i = 0; i < n; i++) {
        sbuf[i] = rank * 100000 + i;
        rbuf[i] = -1;
    }
    MPI::Request reqs[2];
    MPI::Status st[2];
    reqs[0] = comm.Irecv(rbuf, n, MPI::INT, prv, 5);
    reqs[1] = comm.Isend(sbuf, n, MPI::INT, nxt, 5);
    MPI::Request::Waitall(2, reqs, st);
    int ok = st[0].Get_source() == prv && st[0].Get_tag() == 5 && st[0].Get_count(MPI::INT) == n;
    for (int i = 0; i < n; i++)
        ok = ok && rbuf[i] == prv * 100000 + i;
    report(rank, "ring", ok);

    MPI::Errhandler h = MPI::Comm::Create_errhandler(eh);
    MPI::COMM_WORLD.Set_errhandler(h);
    expect = &MPI::COMM_WORLD;
    calls = bad = 0;
    MPI::COMM_WORLD.Call_errhandler(MPI_ERR_OTHER);
    report(rank, "eh-world", calls == 1 && bad == 0);
    MPI::COMM_WORLD.Set_errhandler(MPI::ERRORS_ARE_FATAL);

    calls = bad = 0;
    MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
    dup.Set_errhandler(h);
    expect = &dup;
    dup.Call_errhandler(MPI_ERR_OTHER);
    MPI::Intracomm dup2 = dup.Dup();
    expect = &dup2;
    dup2.Call_errhandler(MPI_ERR_OTHER);
    report(rank, "eh-dup", calls == 2 && bad == 0);
    h.Free();
    dup2.Free();
    dup.Free();
    comm.Free();
    delete[] sbuf;
    delete[] rbuf;
    MPI::Finalize();
    return 0;
}
