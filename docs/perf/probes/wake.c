/*
 * wake.c: futex wake-to-run latency on this machine, with and without
 * processes spinning on the other cores (as polling ghosts do). A waker
 * stamps the time and wakes a sleeper; the sleeper reads the time when it
 * runs. Prints the median and the 90th percentile.
 *
 *   gcc -O2 -o wake wake.c && ./wake 0 && ./wake 2
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
struct sh { volatile uint32_t word, stop; volatile double t0; volatile uint32_t asleep; };
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  int spinners=argc>1?atoi(argv[1]):0, N=2000;
  struct sh *s=mmap(0,4096,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  for(int i=0;i<spinners;i++) if(!fork()){ while(!s->stop); _exit(0);} 
  if(!fork()){ /* waker */
    for(int i=0;i<N;i++){ while(!s->asleep); usleep(50); s->asleep=0; s->t0=now(); __atomic_add_fetch(&s->word,1,__ATOMIC_SEQ_CST); syscall(SYS_futex,&s->word,FUTEX_WAKE,1,0,0,0);} _exit(0);}
  double *d=malloc(N*sizeof(double));
  for(int i=0;i<N;i++){ uint32_t w=s->word; s->asleep=1; syscall(SYS_futex,&s->word,FUTEX_WAIT,w,0,0,0); while(s->word==w); d[i]=now()-s->t0; }
  s->stop=1; while(wait(0)>0);
  qsort(d,N,sizeof(double),cmp); printf("spinners=%d wake-to-run median %.1f us p90 %.1f us\n",spinners,d[N/2],d[N*9/10]);
}
