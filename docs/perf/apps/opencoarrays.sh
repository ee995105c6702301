#!/bin/bash
# opencoarrays.sh: a PGAS runtime built on MPI one-sided communication
# under the library. OpenCoarrays (Debian's libcoarrays-mpich-dev: the
# runtime of gfortran's -fcoarray=lib, over MPICH) keeps every coarray in
# an MPI_Win_allocate window and turns each remote access into an epoch
# (MPI_Win_lock, MPI_Get or MPI_Put or an atomic, MPI_Win_unlock); its own
# test programs (opencoarrays/tests.txt: each with the image count of
# OpenCoarrays' CMakeLists.txt; the two it disables are left out) run
# under plain MPICH (-n N) and under the library (-n N+1: one node of N
# users and 1 ghost, the layout a user gets on one host), one after the
# other. A test passes when it prints "Test passed." (OpenCoarrays' own
# criterion, "Test passed.", with any character after it) and exits 0. Prints per test both results and times, and the
# library's RMA operations applied in shared memory (rma_local) and
# carried by ghosts (rma_redirected), summed over the users; rc=124 is the
# 120 s limit.
#
# OpenCoarrays tags the messages announcing an image's end with 424242
# without consulting MPI_TAG_UB (MPICH's is 268435455); offloading
# messages with 2 or more users per ghost lowers MPI_TAG_UB below that
# (262143 for 2), so at exit those programs stop with MPI_ERR_TAG naming
# the bound. CSP_ASYNC_MODE=rma (coarray work is one-sided; no message is
# offloaded then, and MPI_TAG_UB is MPICH's) avoids it, and so does
# CSP_TAG_UB=424242 (messages stay offloaded; tag encoding keeps 19 bits
# for user tags, with fewer contexts): EXTRA below. isend_offloaded sums
# the users' offloaded sends.
#
#   apt-get install libcoarrays-mpich-dev
#   EXTRA="CSP_ASYNC_MODE=rma" docs/perf/apps/opencoarrays.sh [LIB [TEST...]]
#   EXTRA="CSP_TAG_UB=424242" docs/perf/apps/opencoarrays.sh [LIB [TEST...]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
lib=$(realpath "${1:-$here/../../../lib/libcasperii.so}") || exit 1
shift $(($# > 0 ? 1 : 0))
bins=/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests
[ -x "$bins/get_array" ] || { echo "opencoarrays.sh: no $bins (apt-get install libcoarrays-mpich-dev)" >&2; exit 1; }
genv=()
for kv in ${EXTRA:-}; do
    genv+=(-genv "${kv%%=*}" "${kv#*=}")
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
echo "# $(date -u +%FT%TZ) lib=$lib EXTRA=${EXTRA:-} $(nproc) CPUs"
# passed FILE RC: 1 if the output says so and the job exited 0
passed() { grep -q 'Test passed' "$1" && [ "$2" = 0 ] && echo 1 || echo 0; }
# sum FIELD FILE: the field summed over the casperii-stats lines
sum() { grep -o " $1=[0-9]*" "$2" | awk -F= '{s += $2} END {print s + 0}'; }
np=0 nl=0 n=0
while read -r t imgs args; do
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$t"; then
        continue
    fi
    s=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout 120 mpiexec.mpich -n "$imgs" "$bins/$t" $args </dev/null >"$t.plain" 2>&1
    rp=$? tp=$(echo "$(date +%s.%N) - $s" | bc)
    s=$(date +%s.%N)
    # shellcheck disable=SC2086
    timeout 120 mpiexec.mpich -n $((imgs + 1)) -genv CSP_STATS 1 "${genv[@]}" -genv LD_PRELOAD "$lib" \
        "$bins/$t" $args </dev/null >"$t.lib" 2>&1
    rl=$? tl=$(echo "$(date +%s.%N) - $s" | bc)
    pp=$(passed "$t.plain" $rp) pl=$(passed "$t.lib" $rl)
    n=$((n + 1)) np=$((np + pp)) nl=$((nl + pl))
    why=""
    if [ "$pl" = 0 ]; then
        why=" | $(grep -m1 -E 'casperii: |Fatal error|ERROR|STOP' "$t.lib" | cut -c1-150)"
    fi
    printf "%-45s n=%s plain rc=%s passed=%s %6.2f s | library rc=%s passed=%s %6.2f s rma_local=%s rma_redirected=%s isend_offloaded=%s%s\n" \
        "$t${args:+ $args}" "$imgs" "$rp" "$pp" "$tp" "$rl" "$pl" "$tl" \
        "$(sum rma_local "$t.lib")" "$(sum rma_redirected "$t.lib")" "$(sum isend_offloaded "$t.lib")" "$why"
done <"$here/opencoarrays/tests.txt"
echo "# $n tests: passed $np under plain MPICH, $nl under the library"
