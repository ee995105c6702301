// Package conformance owns CasperII's point-to-point conformance run: C
// programs written here from the MPI standard (progs/*.c), each run under
// plain MPICH and under lib/libcasperii.so in every wildcard_used hint
// mode, and the runner that compares the outcomes and prints them as a
// table.
//
//	make conformance                          # every program, every column
//	make conformance PROGS='probe|cancel'     # programs whose name matches (a Go regexp)
//	make conformance MODES=plain,none         # some columns only
//
// The programs cover what MPICH's test/mpi/pt2pt suite covers, its test
// list used as a checklist of cases (each program names the MPICH tests it
// stands for; none of their code is used): the send modes and the
// attached buffer, derived datatypes, empty messages, MPI_PROC_NULL,
// messages to oneself, MPI_Sendrecv(_replace) and MPI_Isendrecv(_replace),
// the probe family, wildcards, cancel, persistent requests, the
// Wait/Test family with null and inactive requests, status fields and
// errors, ordering, large messages and many requests, communicators of
// every kind including inter-communicators. They are ordinary MPI
// programs: nothing in them knows about CasperII, except the two that
// allocate memory with CasperII's shmbuf_regist hint (which MPI lets any
// implementation ignore).
//
// # A program
//
// Each program is self-checking: rank 0 prints one line, "ok <name>" or
// "FAIL <name>: <why>", and every rank exits non-zero on failure (the
// scaffolding is progs/conf.h). The comment that opens the file declares
// what the runner must know, one "key: value" per line:
//
//	np: 2                the processes it runs on (the users: under the library every user gets a ghost)
//	uses: any_src any_tag the wildcards it receives or probes with on MPI_COMM_WORLD and communicators derived from it
//	timeout: 180         seconds per job (default 120): a hang is reported, and its processes killed
//	stats: bounce=0      under the library, every casperii-stats line must show these values
//	known: 18.1 <why>    a difference under the library that an open issue item is fixing
//	mpich-bug: <why>     plain MPICH 4.0.2 fails it, for that reason
//
// A wildcard the program uses and the hint rules out (MPI_ANY_SOURCE
// under none and any_tag_same_tag, MPI_ANY_TAG under none) makes the
// library stop it with its one-line error: that outcome is expected, and
// shown as expected-error. Programs use wildcards only where wildcards
// are their point, so that the other modes still run all of their checks.
//
// # Columns and outcomes
//
// The plain column runs mpiexec -n <np> with nothing preloaded. A library
// column runs mpiexec -n 2*<np> with CSP_NODE_SIZE=2 and CSP_NG=1 (one
// ghost and one user per virtual node, as the integration tests do),
// CSP_STATS=1, LD_PRELOAD=lib/libcasperii.so and CSP_WORLD_HINTS set to
// wildcard_used=<mode>, for the four modes none, any_tag_same_tag,
// any_src|any_tag_same_tag and any_src. Jobs run through the test
// harness (test/harness.go): each has a timeout that kills every process
// of the job, and a job that leaves a process or a /dev/shm entry behind
// is reported.
//
// A cell is one of:
//
//	ok               the program's ok line, exit code 0, nothing left behind; under the library also
//	                 no leak at MPI_Finalize (cells_in_use, ops_live, heap_in_use 0 in every stats line)
//	expected-error   the library stopped a wildcard the program declares and the hint rules out
//	known <item>     not ok under the library, as its known: line says
//	FAIL, crash, timeout, leftover, stats, refused, no-result
//	                 anything else: "(mpich)" after it in the plain column of a program with a
//	                 mpich-bug: line, "(as plain)" in a library column that fails as plain MPICH
//	                 does there, "!" before it when it is an unexpected difference
//
// The plain column is expected to be ok (or to fail as the program's
// mpich-bug: line says); a library column is expected to be ok, an
// expected-error, or, for a program with a mpich-bug: line, the same
// failure as plain. Everything else is an unexpected difference: the run
// lists each with its command line and the program's first lines of
// complaint, and fails. A known difference that no longer shows is noted
// (the fix is in: drop the line).
//
// # MPICH's own tests
//
// mpich-tests.sh runs MPICH's own test programs of test/mpi directories
// (rma, pt2pt, comm, coll, ...; from an MPICH source tree, none of them is
// part of this repository, built with its dtpools) under plain MPICH and
// under the library, and lists the tests that pass under one only
// (docs/design.md sections 8 and 11 have runs' findings):
//
//	conformance/mpich-tests.sh ~/src/mpich rma                              # every rma test
//	conformance/mpich-tests.sh ~/src/mpich pt2pt,comm '' 'large|sendself'   # some
//	CSP_TESTS_LAYOUT=1:2 conformance/mpich-tests.sh ~/src/mpich rma         # two ghosts per user
//	CSP_TESTS_MAXNP=11 conformance/mpich-tests.sh ~/src/mpich coll          # up to 10 processes
//
// mpichtests_test.go runs the script on a made-up tree of one test that
// checks the layout it is given.
//
// The runner is conformance_test.go, built only with the tag conformance
// (it takes minutes, so it is not part of make test); runner_test.go,
// part of make test, runs three small programs (testdata/ and progs/) in
// the plain column and one library column and checks that the runner
// tells a passing program, an expected error and a failure apart.
package conformance
