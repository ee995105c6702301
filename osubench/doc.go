// Package osubench reproduces the CasperII paper's experiments (section V)
// side by side on one machine: plain MPICH (mode mpi), MPICH's progress
// thread (thread), and CasperII through the preloaded interposer, with tag
// encoding (cspii-tag, wildcard_used=none) and communicator duplication
// (cspii-dup, wildcard_used=any_tag_same_tag), both static offload
// (CSP_ASYNC_CONFIG=on); and issue 15's cspii-off (the library present,
// CSP_ASYNC_CONFIG=off), cspii-auto (CSP_ASYNC_CONFIG=auto, adaptive) and
// cspii-hint (phases only: the program switches async_config per phase);
// and issue 16's cspii (CSP_ASYNC_MODE=rma|pt2pt: MPI_Win_allocate windows
// redirected to the ghosts) and cspii-pt2pt (CSP_ASYNC_MODE=pt2pt: the
// library present, windows MPICH's).
//
// The benchmarks are small C MPI programs (csrc/, embedded, compiled with
// MPICH's mpicc into a cache directory and run with MPICH's mpiexec, both
// found by internal/mpich), so the CasperII modes exercise the real
// LD_PRELOAD path an application uses:
//
//	latency  nonblocking ping-pong: Isend + Irecv (post time), Waitall (wait time); Fig. 3(a,b)
//	overlap  touch, post, compute, wait, compute = plain MPI's latency per size; overlap %; Fig. 4/5
//	rate     osu_mbw_mr: a window of 64 Isend then Waitall, Irecv window, 4-byte ack; Fig. 3(c)
//	halo     periodic 2D Cartesian grid, 4 neighbours, 300 us compute between post and wait; Fig. 6
//	phases   rounds of a small-message phase (ping-pongs, rate windows) and an overlapped exchange; issue 15
//	probe    a server polling MPI_Iprobe(MPI_ANY_SOURCE) between compute slices, clients' round trips; issue 15
//	rma      lock(SHARED) + put/get/accumulate (contiguous, strided) + flush + unlock while the target computes; issue 16
//	rma-ga   many origins lock, accumulate 8 KiB and unlock into user 0 while it computes; sums checked; issue 16
//
// `run all` runs the first four; phases and probe run on their own or in a
// list; `run rma` runs rma and rma-ga (one program, rma.c, -w flush|ga).
// probe's communicator allows MPI_ANY_SOURCE in every CasperII mode
// (Mode.HintFor).
//
// Every benchmark runs in series (Series): touched buffers (the default,
// as applications do: every byte of the send buffers written before each
// post, every byte of the receive buffers read after each wait) or
// untouched (secondary), busy or sleep compute (overlap, halo, phases,
// probe, rma; rma also idle: the target waits in MPI, the reference), shm
// or tcp transport (MPIR_CVAR_NOLOCAL=1, UCX_TLS=tcp,self), and for rma
// the placement (auto, or ghost-cores: mpiexec -bind-to user: gives the
// ghosts CPUs of their own, the users the others, in fewer virtual nodes
// where the CPUs do not give every ghost one). Every mode runs every
// series; ratios compare modes within one series of one run, and every
// table, CSV row, plot and target is labelled with its series.
//
// Every program allocates its buffers with MPI_Alloc_mem(shmbuf_regist=true)
// and communicates on MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints) (the
// halo's Cartesian communicator is created from it and inherits the hint).
// goapi/latency is the latency test written against the Go API (modes
// go-tag, go-dup).
//
// A Runner interleaves the series and modes over repetitions (rep 1: each
// series in turn, in each mpi, thread, cspii-tag, cspii-dup; rep 2: ...),
// runs each job under mpiexec with stdin
// closed and a timeout, kills what a job leaves behind and removes its
// orphaned /dev/shm entries, and summarizes every metric by the median and
// spread over repetitions. Tables go to stdout, CSV, JSON and PNG plots to
// the output directory. The command is osubench/cmd/osubench.
//
// Measurement details:
//
//   - Each program adapts its iteration count per size to a time budget
//     (-b, ms): a warm-up runs twice, the second pass is timed, and all users
//     agree (Allreduce max) on budget / time per iteration, clamped to
//     [min, max] iterations. Per-size values are means over the iterations
//     and over the users.
//   - Compute is emulated by nanosleep (sleep: leaves the core, with the
//     timer slack set to 1 ns) or by spinning on the clock (busy: the user
//     keeps its core, as CPU-bound code does). On a machine with fewer
//     cores than processes only sleep lets the ghosts (or the progress
//     thread) run while the user computes; both are measured.
//   - Touching (-t) writes the send buffer 8 bytes at a time with a value
//     that changes every iteration and sums the receive buffer into a
//     volatile sink; its time counts in the iteration and is reported apart
//     (touch_us).
//   - overlap measures, per size and in one job, T_comm (the ping-pong
//     alone, touching included), T_comp (the compute alone, as measured,
//     not as asked) and T_total (touch, post, compute, wait, touch), and
//     reports overlap = 100 (T_comm + T_comp - T_total) / min(T_comm, T_comp).
//     The compute asked for is plain MPI's latency (--overlap-compute mpi,
//     the default), the same for every mode, compute kind and touch setting
//     of a repetition in a transport: in rep 1 what the transport's first
//     mpi job calibrated and computed, from rep 2 on the median over the
//     earlier mpi jobs of the transport of their median exchange time
//     (post + wait, touching excluded; passed with -x to every mode, mpi
//     included); with --overlap-compute self each job uses its own.
//   - The targets (targets.go) are issue 14's (busy and sleep compute with
//     touched buffers, and the cost of touching against plain MPICH's) and
//     issue 5/6's latency and message-rate targets for static offload, and
//     issue 15's for cspii-auto, cspii-hint and cspii-off (at most 1.10x
//     and 1.05x mpi, 80% of static offload's gain kept, phases 20% faster
//     than both mpi and cspii-tag), and issue 16's for cspii (the 8 KiB
//     accumulate epoch on a target computing 20 ms: at most 0.10x mpi's,
//     and with the ghosts on cores of their own at most 1.5x mpi's with
//     an idle target), per transport.
//   - rma's busy compute spins on the target's CPU-time clock (a fixed
//     amount of work), so what others take from its core shows as its
//     stretch; rma-ga prints ok=0 when a sum is wrong, which fails the job.
//   - CPU use: the programs report the users' CPU time over the wall time of
//     the timed loop (getrusage, all threads); the driver samples every
//     process of a job from /proc (users and ghosts apart) and the host's
//     busy time from /proc/stat, so the report shows how much of the machine
//     other processes took meanwhile.
//
// osubench owns the benchmark suite: its programs, jobs, tables and
// plots. It runs the library from outside, as an application does (a
// preloaded lib/libcasperii.so under mpiexec), so it may import only the
// process and MPICH helpers (internal/mpich, internal/proc,
// internal/shellquote), its Go programs (osubench/goapi) the Go API
// casperii, and never the runtime (internal/core, internal/user,
// internal/ghost, internal/interpose).
package osubench
