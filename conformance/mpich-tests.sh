#!/bin/bash
# mpich-tests.sh: MPICH's own tests (test/mpi/DIR of an MPICH source
# tree, not part of this repository: rma, pt2pt, comm, coll, ...) under
# plain MPICH and under the library, side by side. Each test of a
# directory's testlist.in runs with its process count under plain MPICH,
# then with twice as many under the library (CSP_NODE_SIZE=2, CSP_NG=1:
# a ghost per user, as the conformance run does; CSP_TESTS_LAYOUT below).
# A test passes when it prints "No Errors" and exits 0. Prints one line
# per test and, at the end, the tests that pass under only one of the
# two; exits 1 if one passes under plain MPICH only.
#
#   conformance/mpich-tests.sh MPICH_SRC DIRS [LIB] [REGEX]
#
# DIRS is a comma-separated list of test/mpi directories (rma,pt2pt);
# Fortran's (f77/pt2pt, f08/coll, ...) build with mpifort.mpich, C++'s
# (cxx/errhan, ...) with mpicxx.mpich.
# MPICH_SRC is a checkout of pmodels/mpich (for example the `fetch` of
# github:pmodels/mpich, `git archive HEAD test/mpi | tar -x`); LIB
# defaults to lib/libcasperii.so; REGEX selects tests by name. Tests of 8
# or more processes (CSP_TESTS_MAXNP below), of more than 120 s, or
# marked xfail are skipped; a test's env=K=V settings go to both runs. A plain run gets 60 s, a
# library run 120 s, from when it holds /tmp/casperii-mpi.lock, which MPI
# jobs take, as the other benchmarks do.
#
# CSP_TESTS_LAYOUT=U:G runs each virtual node of the library's runs with U
# users and G ghosts (default 1:1): 1:2 gives every user two ghosts, so
# that accumulates to one location and plain puts are spread over several
# (issue 16's static binding). A test of np processes runs only where U
# divides np, under the library with np / U * (U + G) processes.
# CSP_TESTS_MAXNP=N runs tests of fewer than N processes (default 8).
set -u
usage="usage: mpich-tests.sh MPICH_SRC DIRS [LIB] [REGEX]"
src=$(realpath "${1:?$usage}") || exit 2
dirs=${2:?$usage}
here=$(cd "$(dirname "$0")/.." && pwd)
lib=$(realpath "${3:-$here/lib/libcasperii.so}") || exit 2
pick=${4:-.}
t=$src/test/mpi
layout=${CSP_TESTS_LAYOUT:-1:1}
maxnp=${CSP_TESTS_MAXNP:-8}
case "$layout" in
[1-9]:[1-9] | [1-9]:[1-9][0-9]) ;;
*) echo "mpich-tests.sh: CSP_TESTS_LAYOUT=$layout: use U:G, users and ghosts per node (1:1)" >&2; exit 2 ;;
esac
lu=${layout%%:*} lg=${layout#*:}
# A directory's list of tests: testlist.in, or testlist where configure
# makes nothing of it.
testlist() { # dir
    if [ -f "$t/$1/testlist.in" ]; then echo "$t/$1/testlist.in"; else echo "$t/$1/testlist"; fi
}
for d in ${dirs//,/ }; do
    [ -f "$(testlist "$d")" ] || { echo "mpich-tests.sh: no $t/$d/testlist(.in)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/inc" "$work/bin"
# The configure-made header the tests include, for this machine.
cat >"$work/inc/mpitestconf.h" <<'EOF'
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define F77_NAME_LOWER_USCORE 1
#define HAVE_IOSTREAM 1
#define HAVE_NAMESPACE_STD 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_FORTRAN_BINDING 1
EOF
: >"$work/inc/mtest_mpix.h"
# The Fortran tests' C parts include it as "../../include/mpitestconf.h":
# found from $work/up/up.
mkdir -p "$work/include" "$work/up/up" && cp "$work/inc/mpitestconf.h" "$work/include/"
cc="mpicc.mpich -O1 -w -I$work/inc -I$t/include -I$work/dtp/inc -I$t/dtpools/include -I$work/up/up"
for u in mtest mtest_common mtest_thread; do
    $cc -c "$t/util/$u.c" -o "$work/$u.o" || exit 1
done
# dtpools, the pools of derived datatypes many tests draw from, with the
# configure-made header it includes as ../dtpoolsconf.h (found through
# $work/dtp/inc).
mkdir -p "$work/dtp/inc"
printf '#define HAVE_%s 1\n' STDLIB_H STRING_H LIMITS_H STDINT_H STRDUP MEMSET >"$work/dtp/dtpoolsconf.h"
for f in "$t"/dtpools/src/*.c; do
    $cc -c "$f" -o "$work/dtp_$(basename "$f" .c).o" || exit 1
done
# Tests written as run(args), for MPICH's runner that links many into one
# program, get its main one at a time (util/run_mpitests.c); some link
# MPICH's library of test datatypes too (util/dtypes.c).
mkdir -p "$work/main"
$cc -c "$t/util/run_mpitests.c" -o "$work/main/run_mpitests.o" || exit 1
$cc -c "$t/util/dtypes.c" -o "$work/main/dtypes.o" || exit 1
# Fortran tests (f77/*: mpif.h, fixed form; f08/*: use mpi_f08) get
# MPICH's Fortran helpers (util/mtest_f77.f or util/mtest_f08.f90, which
# define the same subroutines) and the headers configure makes from
# f77's *.h.in (the kinds of MPI_Aint and MPI_Offset).
fc="mpifort.mpich -O1 -w -fallow-argument-mismatch"
case ",$dirs" in
*,f77* | *,f08*)
    for k in f77 f08; do
        mkdir -p "$work/$k"
        src=$(ls "$t"/util/mtest_$k.f* 2>/dev/null | head -1)
        [ -z "$src" ] || (cd "$work/$k" && $fc -c "$src" -o mtest.o) || exit 1
    done
    # One directory for them all: f77/rma's tests include f77/attr's.
    mkdir -p "$work/finc"
    for h in "$t"/f77/*/*.h.in; do
        [ -f "$h" ] || continue
        sed -e 's/@F77_MPI_ADDRESS@/integer*8/g' -e 's/@F77_MPI_OFFSET@/integer*8/g' "$h" \
            >"$work/finc/$(basename "$h" .in)"
    done
    for d in ${dirs//,/ }; do
        # io's tests generated from its harness (writef.f, ...), next to
        # the sources as make writes them.
        if [ -f "$t/$d/ioharness.defn" ] && [ -f "$t/maint/testmerge.in" ]; then
            sed '1s|.*|#!/usr/bin/perl|' "$t/maint/testmerge.in" >"$work/testmerge"
            (cd "$t/$d" && perl "$work/testmerge" -defn="$t/maint/common.defn" ioharness.defn ioharness.tlt) >/dev/null
        fi
    done
    ;;
esac
# C++ tests (cxx/*, MPICH's C++ bindings) get util/mtest_cxx.cxx and the
# C helpers it calls; the configure-made header comes first, as MPICH's
# build gives it.
cxx="mpicxx.mpich -O1 -w -include $work/inc/mpitestconf.h -I$work/inc -I$t/include -I$t/dtpools/include"
mkdir -p "$work/cxx"
case ",$dirs" in
*,cxx*) $cxx -c "$t/util/mtest_cxx.cxx" -o "$work/cxx/mtest_cxx.o" || exit 1 ;;
esac
# A Fortran program: its C sources compiled apart, linked with mpifort. A
# source the directory copies from another (a make rule "x.c:
# $(srcdir)/../../f77/ext/x.c") is taken from there.
fbuild() { # dir name sources...
    local d=$1 n=$2 k=f77 objs=() s from o
    shift 2
    case $d in f08* | f90*) k=f08 ;; esac
    for s in "$@"; do
        if [ ! -f "$s" ]; then
            from=$(sed -n "s|^$s: *\$(srcdir)/||p" Makefile.am | head -1)
            [ -n "$from" ] && [ -f "$from" ] && s=$from
        fi
        case $s in
        *.c)
            o="$work/bin/$d/$n-$(basename "${s%.c}").o"
            $cc -c "$s" -o "$o" && objs+=("$o") || return 1
            ;;
        *) objs+=("$s") ;;
        esac
    done
    $fc -I"$work/finc" -I"$work/bin/$d" -J"$work/bin/$d" "${objs[@]}" "$work/$k/mtest.o" "$work"/*.o \
        -lm -lpthread -o "$work/bin/$d/$n"
}
# Per-program sources and flags from the directory's Makefile.am
# (variants of one file).
build() { # dir name
    local d=$1 n=$2 mk srcs flags ext
    mk=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$t/$d/Makefile.am")
    srcs=$(echo "$mk" | sed -n "s/^${n}_SOURCES *= *//p")
    flags=$(echo "$mk" | sed -n "s/^${n}_CPPFLAGS *= *//p" | sed 's/\$(AM_CPPFLAGS)//')
    ext=$(echo "$mk" | sed -n 's/^AM_DEFAULT_SOURCE_EXT *= *//p')
    [ -n "$srcs" ] || srcs=$n${ext:-.c}
    mkdir -p "$work/bin/$d"
    if echo " $srcs " | grep -q '\.cxx '; then
        # shellcheck disable=SC2086 # the sources are words
        (cd "$t/$d" && $cxx $srcs "$work/cxx/mtest_cxx.o" "$work/mtest_common.o" "$work"/dtp_*.o \
            -lm -lpthread -o "$work/bin/$d/$n") 2>/dev/null
        return
    fi
    if echo " $srcs " | grep -Eq '\.(f|f90|F90) '; then
        # shellcheck disable=SC2086 # the sources are words
        (cd "$t/$d" && fbuild "$d" "$n" $srcs) 2>/dev/null
        return
    fi
    (cd "$t/$d" && { $cc $flags $srcs "$work"/*.o -lm -lpthread -o "$work/bin/$d/$n" ||
        $cc $flags $srcs "$work"/*.o "$work/main/run_mpitests.o" -lm -lpthread -o "$work/bin/$d/$n" ||
        $cc $flags $srcs "$work"/*.o "$work/main/dtypes.o" -lm -lpthread -o "$work/bin/$d/$n"; }) 2>/dev/null
}
run() { # seconds cmd...: prints ok, timeout or the exit code
    local s=$1 out rc
    shift
    # The time limit starts once the lock is taken, not while waiting for it.
    out=$(flock /tmp/casperii-mpi.lock timeout -k 5 "$s" "$@" </dev/null 2>&1)
    rc=$?
    pkill -9 -f "$work/bin/" 2>/dev/null
    if [ $rc = 0 ] && echo "$out" | grep -q "No Errors"; then echo ok
    elif [ $rc = 124 ] || [ $rc = 137 ]; then echo timeout
    else echo "rc=$rc"; fi
}
# Tests run in the work directory: some write files in their current
# directory (io's testfile*).
mkdir -p "$work/run" && cd "$work/run" || exit 2
worse=() better=()
for d in ${dirs//,/ }; do
while read -r name np rest; do
    case "$name" in '' | '#'* | *@*) continue ;; esac
    [ -n "$np" ] || { echo "$d/$name: a subdirectory, not run (name it in DIRS)"; continue; }
    echo "$d/$name" | grep -Eq "$pick" || continue
    args=() genv=() skip=
    for kv in $rest; do
        case "$kv" in
        arg=*) args+=("${kv#arg=}") ;;
        env=*=*) kv=${kv#env=}; genv+=(-genv "${kv%%=*}" "${kv#*=}") ;;
        timeLimit=*) [ "${kv#timeLimit=}" -gt 120 ] && skip=long ;;
        xfail=* | mpiversion=* | env=*) skip=${kv%%=*} ;;
        esac
    done
    [ "$np" -ge "$maxnp" ] && skip="np>=$maxnp"
    [ $((np % lu)) = 0 ] || skip="np=$np is not a multiple of $lu users per node"
    if [ -z "$skip" ] && [ ! -x "$work/bin/$d/$name" ] && ! build "$d" "$name"; then skip="does not build"; fi
    if [ -n "$skip" ]; then
        echo "$d/$name ${args[*]} np=$np: skipped ($skip)"
        continue
    fi
    p=$(run 60 mpiexec.mpich -n "$np" "${genv[@]}" "$work/bin/$d/$name" "${args[@]}")
    l=$(run 120 mpiexec.mpich -n $((np / lu * (lu + lg))) "${genv[@]}" -genv CSP_NODE_SIZE $((lu + lg)) -genv CSP_NG "$lg" \
        -genv LD_PRELOAD "$lib" "$work/bin/$d/$name" "${args[@]}")
    echo "$d/$name ${args[*]} np=$np: plain $p, library $l"
    if [ "$p" = ok ] && [ "$l" != ok ]; then
        worse+=("$d/$name ${args[*]} np=$np: plain $p, library $l")
    elif [ "$p" != ok ] && [ "$l" = ok ]; then
        better+=("$d/$name ${args[*]} np=$np: plain $p, library $l")
    fi
done <"$(testlist "$d")"
done
echo "# ${#worse[@]} pass under plain MPICH only"
for d in "${worse[@]}"; do echo "  $d"; done
echo "# ${#better[@]} pass under the library only (plain MPICH fails or times out)"
for d in "${better[@]}"; do echo "  $d"; done
leftover=$(ls /dev/shm | grep -ci casperii)
[ "$leftover" = 0 ] || echo "# $leftover casperii entries left in /dev/shm"
[ ${#worse[@]} = 0 ]
