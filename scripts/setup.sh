#!/usr/bin/env bash
# Installs what CasperII needs on a Debian machine: MPICH (the MPI it runs
# on), its headers, a Fortran compiler for the Fortran test, pkg-config,
# make, gcc, and valgrind (the memcheck test of the C fast path). Go must
# already be installed (/usr/local/go or on PATH). Safe to run again; does nothing when everything is there.
set -euo pipefail

need=()
command -v mpicc >/dev/null 2>&1 || need+=(mpich libmpich-dev)
pkg-config --exists mpich 2>/dev/null || need+=(libmpich-dev)
command -v mpifort >/dev/null 2>&1 && command -v gfortran >/dev/null 2>&1 || need+=(gfortran)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v make >/dev/null 2>&1 || need+=(make)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends mpich libmpich-dev gfortran pkg-config make gcc valgrind </dev/null
fi

if ! command -v go >/dev/null 2>&1 && [ ! -x /usr/local/go/bin/go ]; then
  echo "setup: Go is not installed; install Go 1.26 (https://go.dev/dl/) into /usr/local/go" >&2
  exit 1
fi

if ! mpichversion 2>/dev/null | grep -q 'MPICH Version:'; then
  echo "setup: mpicc is not MPICH's; CasperII needs MPICH (apt-get install mpich libmpich-dev)" >&2
  exit 1
fi
echo "setup: $(mpichversion | head -1 | tr -s ' \t' ' '), $( (command -v go >/dev/null && go version) || /usr/local/go/bin/go version)"
