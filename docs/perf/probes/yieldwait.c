/*
 * yieldwait.c: what MPICH's spin in its waits costs where users share
 * cores. Preloaded over plain MPICH (no CasperII), it replaces MPI_Wait
 * and MPI_Waitall by a loop of MPI_Test / MPI_Testall and sched_yield:
 * a waiting process then leaves its core to the others on it between
 * polls. MPICH 4's ch4 device never yields in its own waits
 * (MPIR_CVAR_POLLS_BEFORE_YIELD is read by ch3 only). Errors aside (a
 * MPI_Testall poll completes what is done once a request failed, which
 * MPI_Waitall does not: internal/user/coop.c polls with
 * MPI_Request_get_status instead), this is the library's direct wait
 * where users outnumber cores (CSP_DIRECT_YIELD).
 *
 *   mpicc -O2 -shared -fPIC -o libyieldwait.so yieldwait.c
 *   osub=$(ls -d ~/.cache/casperii-osubench/c-*)/osub-halo
 *   mpiexec -n 4 $osub -s 1024,65536,1048576 -c busy -t -b 500 -m 5 -i 100000 -H none -u 300
 *   mpiexec -n 4 -genv LD_PRELOAD $PWD/libyieldwait.so $osub -s 1024,65536,1048576 -c busy \
 *           -t -b 500 -m 5 -i 100000 -H none -u 300
 *
 * (4 users on 2 cores; -c sleep for nanosleep compute.) Measured here,
 * time per iteration, plain MPICH's spin -> this loop: busy compute
 * 1 KiB 3975 -> 725 us, 64 KiB 7875 -> 958, 1 MiB 8224 -> 6045; sleep
 * compute 737 -> 363, 4125 -> 519, 8713 -> 6089 (two runs each, the
 * second within 10%).
 */
#include <mpi.h>
#include <sched.h>

int MPI_Waitall(int n, MPI_Request r[], MPI_Status s[])
{
    for (;;) {
        int flag = 0, rc = PMPI_Testall(n, r, &flag, s);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        sched_yield();
    }
}

int MPI_Wait(MPI_Request *r, MPI_Status *s)
{
    for (;;) {
        int flag = 0, rc = PMPI_Test(r, &flag, s);
        if (rc != MPI_SUCCESS || flag)
            return rc;
        sched_yield();
    }
}
