#!/bin/bash
# scalapack.sh: a real numerical library under the library. ScaLAPACK's
# own test drivers (Debian's scalapack-mpi-test, built for MPICH: BLACS
# over MPI, block-cyclic LU, QR/QL/LQ/RQ/QP/TZ, Cholesky and inversion in
# the four precisions) run with 4 application processes on a 2 x 2 and a
# 1 x 4 grid: plain MPICH (-n 4) against the library (-n 8: 4 users + 4
# ghosts, offload on), one after the other. The inputs (scalapack/*.dat)
# are ScaLAPACK's own with fewer sizes: its full inputs take minutes per
# driver on 2 cores. The BLACS tester (xCbtest: point to point,
# broadcasts and combines of every shape) runs whole; it ends in
# BLACS_ABORT, as it should. Prints each driver's count of tests passed
# and failed under both, and the library's offloaded sends; rc=124 is
# the 180 s limit.
#
# xsllt and xslu (single-precision refinement) hang in some runs under
# the library, and under plain MPICH too once MPI_Allreduce's timing
# changes (an LD_PRELOAD shim adding 0-300 us around it: 5 of 6 and 6 of
# 6 runs): the refinement's two process columns each run PSLACON on their
# copy of the residual and must reach bitwise equal results, which
# BLACS's combines do not promise (its tester's "repeatable sum" test).
# docs/design.md section 8. xCbtest ends in BLACS_ABORT, before
# MPI_Finalize would print the library's statistics (offloaded_sends=0).
#
#   apt-get install scalapack-mpi-test
#   docs/perf/apps/scalapack.sh [LIB [DRIVER...]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
lib=$(realpath "${1:-$here/../../../lib/libcasperii.so}") || exit 1
tests=/usr/lib/x86_64-linux-gnu/scalapack/mpich-tests
[ -x "$tests/xdlu" ] || { echo "scalapack.sh: no $tests (apt-get install scalapack-mpi-test)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -L "$tests"/x* "$here"/scalapack/*.dat "$work"/
cp -L "$tests"/BLACS/x* "$tests"/BLACS/*.dat "$work"/
cd "$work" || exit 1
# tally DRIVER FILE: the tests the driver's output says passed and failed
tally() {
    if [ "$1" = xCbtest ]; then
        # "INTEGER SDRV TESTS:   75 TESTS;   50 PASSED,   25 SKIPPED,    0 FAILED."
        grep -h ' TESTS;' "$2" | awk '{p += $(NF-5); f += $(NF-1)} END {printf "passed=%d failed=%d", p, f}'
    else
        awk '/tests completed and passed/ {p += $1} /completed and failed/ {f += $1} END {printf "passed=%d failed=%d", p, f}' "$2"
    fi
}
run() { # driver
    local p=$1 s tp tl rp rl
    s=$(date +%s.%N)
    timeout 180 mpiexec.mpich -n 4 "./$p" </dev/null >"$p.plain" 2>&1
    rp=$? tp=$(echo "$(date +%s.%N) - $s" | bc)
    s=$(date +%s.%N)
    timeout 180 mpiexec.mpich -n 8 -genv CSP_NODE_SIZE 2 -genv CSP_STATS 1 -genv LD_PRELOAD "$lib" "./$p" </dev/null >"$p.lib" 2>&1
    rl=$? tl=$(echo "$(date +%s.%N) - $s" | bc)
    # The library's statistics come at MPI_Finalize: not after a run the
    # limit ended, nor after xCbtest's BLACS_ABORT.
    if [ "$rl" != 124 ] && [ "$p" != xCbtest ] && ! grep -q '^casperii-stats' "$p.lib"; then
        echo "scalapack.sh: $p: no casperii-stats line: $lib was not preloaded" >&2
        exit 1
    fi
    printf "%-8s plain rc=%s %s %5.1f s | library rc=%s %s %5.1f s offloaded_sends=%s\n" \
        "$p" "$rp" "$(tally "$p" "$p.plain")" "$tp" "$rl" "$(tally "$p" "$p.lib")" "$tl" \
        "$(grep -h '^casperii-stats' "$p.lib" | grep -oE 'isend_offloaded=[0-9]+' | awk -F= '{s += $2} END {print s + 0}')"
}
echo "# scalapack.sh: lib $lib, $(nproc) CPUs, $(date -u +%FT%TZ)"
drivers=("${@:2}")
[ ${#drivers[@]} -gt 0 ] || drivers=(xslu xdlu xclu xzlu xsqr xdqr xcqr xzqr xsllt xdllt xcllt xzllt xsinv xdinv xcinv xzinv xCbtest)
for p in "${drivers[@]}"; do
    run "$p"
done
