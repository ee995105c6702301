/*
 * overlap_probe.c: how often a 1 MiB exchange offloaded to the ghosts is
 * finished when the compute ends. Each iteration posts MPI_Isend+MPI_Irecv
 * of 1 MiB to the peer, sleeps <compute us>, then MPI_Testall (counted as
 * "done at compute end") or MPI_Waitall. Diagnostic for the stall noted
 * in docs/perf (not a benchmark: see osubench).
 *
 *   mpicc -O2 -o overlap_probe overlap_probe.c
 *   mpiexec -n 4 -genv CSP_NODE_SIZE 2 -genv LD_PRELOAD $PWD/lib/libcasperii.so ./overlap_probe 1000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int r,n; MPI_Comm_rank(MPI_COMM_WORLD,&r); MPI_Comm_size(MPI_COMM_WORLD,&n);
  MPI_Info in; MPI_Info_create(&in); MPI_Info_set(in,"wildcard_used","none");
  MPI_Info ai; MPI_Info_create(&ai); MPI_Info_set(ai,"shmbuf_regist","true");
  MPI_Comm c; MPI_Comm_dup_with_info(MPI_COMM_WORLD,in,&c);
  long sz=1<<20; char *sb,*rb; MPI_Alloc_mem(sz,ai,&sb); MPI_Alloc_mem(sz,ai,&rb);
  int iters=300, done_at_end=0; double tw=0; long us=atol(argv[1]);
  for(int i=0;i<iters;i++){
    MPI_Request q[2]; MPI_Status sts[2]; MPI_Isend(sb,sz,MPI_BYTE,1-r,1,c,&q[0]); MPI_Irecv(rb,sz,MPI_BYTE,1-r,1,c,&q[1]);
    struct timespec ts={0,us*1000}; nanosleep(&ts,0);
    int f=0; double t0=now(); MPI_Testall(2,q,&f,sts); if(f) done_at_end++; else MPI_Waitall(2,q,sts); tw+=now()-t0;
  }
  printf("rank %d compute %ld us: done at compute end %d/%d, mean wait %.1f us\n",r,us,done_at_end,iters,tw/iters);
  MPI_Finalize();
}
