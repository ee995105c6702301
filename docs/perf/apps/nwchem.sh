#!/bin/bash
# nwchem.sh: a real application under the library. NWChem (Debian's
# nwchem-mpich: Global Arrays over ARMCI-MPI, which polls MPI_Iprobe and
# uses passive-target RMA) computes nwchem-bz.nw with 2 application
# processes: plain MPICH (-n 2) against the library (-n 3: 2 users + 1
# ghost) with CSP_ASYNC_CONFIG on, off and auto, interleaved, ROUNDS
# times. Prints the wall time of mpiexec, NWChem's own, the energy and
# rank 0's CSP_STATS counters.
#
#   apt-get install nwchem-mpich
#   docs/perf/apps/nwchem.sh [LIB] [ROUNDS]
#
# BASIS=cc-pvdz computes the same molecule in a larger basis (about 10 s
# under plain MPICH here, against 1 s in 3-21G), where the job's start
# and end weigh ten times less.
#
# ARMCI_USE_WIN_ALLOCATE=0 (MPI_Win_create windows, which the library
# leaves to MPICH) is what Debian's README.Debian asks for: with 1, the
# default, plain MPICH 4.0.2 hangs on this input (nwchemgit/nwchem#633).
# AWA=1 runs the library's modes with MPI_Win_allocate windows instead,
# which it redirects (plain MPICH is then skipped); on one node the users
# apply each other's operations in shared memory (rma_local; no ghost).
set -u
here=$(cd "$(dirname "$0")" && pwd)
lib=$(realpath "${1:-$here/../../../lib/libcasperii.so}") || exit 1
rounds=${2:-3}
awa=${AWA:-0}
command -v nwchem.mpich >/dev/null || { echo "nwchem.sh: no nwchem.mpich (apt-get install nwchem-mpich)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/library 3-21g/library ${BASIS:-3-21g}/" "$here/nwchem-bz.nw" >"$work/bz.nw"
cd "$work" && mkdir -p nwchem-scratch
run() { # mode
    local m=$1 s e out
    rm -f nwchem-scratch/*
    s=$(date +%s.%N)
    if [ "$m" = mpi ]; then
        out=$(mpiexec.mpich -n 2 -genv ARMCI_USE_WIN_ALLOCATE "$awa" nwchem.mpich bz.nw 2>&1)
    else
        out=$(mpiexec.mpich -n 3 -genv ARMCI_USE_WIN_ALLOCATE "$awa" -genv CSP_STATS 1 \
            -genv CSP_ASYNC_CONFIG "$m" -genv LD_PRELOAD "$lib" nwchem.mpich bz.nw 2>&1)
    fi
    e=$(date +%s.%N)
    if [ "$m" != mpi ] && ! echo "$out" | grep -q '^casperii-stats'; then
        echo "nwchem.sh: $m: no casperii-stats line: $lib was not preloaded" >&2
        exit 1
    fi
    printf "%-4s %6.2f s  nwchem %-5s E=%s  %s\n" "$m" "$(echo "$e - $s" | bc)" \
        "$(echo "$out" | awk '/Total times/ {print $NF}')" \
        "$(echo "$out" | awk '/Total SCF energy/ {print $NF}')" \
        "$(echo "$out" | grep 'casperii-stats rank=0' | grep -oE '(sleeps|probes|probes_polled|lends|rma_redirected|rma_local)=[0-9]+' | tr '\n' ' ')"
}
echo "# nwchem.sh: lib $lib, ARMCI_USE_WIN_ALLOCATE=$awa, basis ${BASIS:-3-21g}, $(nproc) CPUs, $(date -u +%FT%TZ)"
for r in $(seq "$rounds"); do
    [ "$awa" = 0 ] && run mpi
    run on
    run off
    run auto
done
