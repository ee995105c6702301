/*
 * cancelcost.c: what an MPI_Cancel of an offloaded receive costs, and an
 * MPI_Alloc_mem / MPI_Free_mem pair of registered memory: both end in a
 * control cell the user waits for (internal/user/control.c). Rank 0
 * prints the mean per iteration of 200.
 *
 *   mpicc -O2 -o cancelcost cancelcost.c
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD lib/libcasperii.so ./cancelcost
 *   mpiexec -n 2 ./cancelcost
 */
#include <mpi.h>
#include <stdio.h>
int main(int c, char **v) {
  MPI_Init(&c, &v); int r, n = 200; MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Info info; MPI_Info_create(&info); MPI_Info_set(info, "wildcard_used", "none");
  MPI_Comm comm; MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
  char buf[64]; MPI_Request q; MPI_Status s;
  MPI_Barrier(comm); double t = MPI_Wtime();
  for (int i = 0; i < n; i++) { MPI_Irecv(buf, 64, MPI_CHAR, 1 - r, 99, comm, &q); MPI_Cancel(&q); MPI_Wait(&q, &s); }
  double can = (MPI_Wtime() - t) / n * 1e6;
  MPI_Info_set(info, "shmbuf_regist", "true");
  MPI_Barrier(comm); t = MPI_Wtime();
  for (int i = 0; i < n; i++) { void *p; MPI_Alloc_mem(1 << 20, info, &p); ((char *)p)[0] = 1; MPI_Free_mem(p); }
  double am = (MPI_Wtime() - t) / n * 1e6;
  MPI_Barrier(comm);
  if (r == 0) printf("irecv+cancel+wait %.1f us  alloc_mem(shmbuf_regist,1MiB)+free %.1f us\n", can, am);
  MPI_Comm_free(&comm); MPI_Info_free(&info); MPI_Finalize(); return 0; }
