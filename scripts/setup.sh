#!/usr/bin/env bash
# Installs what CasperII needs on a Debian machine: MPICH (the MPI it runs
# on), its headers, a Fortran compiler for the Fortran test, pkg-config,
# make, gcc, and valgrind (the memcheck test of the C fast path). Go must
# already be installed (/usr/local/go or on PATH). Safe to run again; does nothing when everything is there.
#
# MPICH is used explicitly, whatever MPI the plain mpicc, mpiexec and mpirun
# run: installing any package that pulls in Open MPI makes Debian's
# alternatives point them at Open MPI. Builds, tests and the launcher take
# MPICH's commands (mpicc.mpich, mpiexec.mpich, ...; internal/mpich) and
# cgo takes `pkg-config mpich`. The report at the end says which MPI the
# plain commands run and which commands CasperII uses.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
# MPICH's own markers, not the plain mpicc (which may be Open MPI's).
command -v mpichversion >/dev/null 2>&1 || need+=(mpich)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists mpich 2>/dev/null || need+=(libmpich-dev)
command -v gfortran >/dev/null 2>&1 || need+=(gfortran)
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

GO=go
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    GO=/usr/local/go/bin/go
  else
    echo "setup: Go is not installed; install Go 1.26 (https://go.dev/dl/) into /usr/local/go" >&2
    exit 1
  fi
fi

# Which MPI the plain commands run, and MPICH's that CasperII uses.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GO" build -o "$tmp/mpichtools" ./cmd/mpichtools
if ! "$tmp/mpichtools" | sed 's/^/setup: /'; then
  echo "setup: part of MPICH is missing (above); CasperII needs MPICH's commands and pkg-config file (apt-get install mpich libmpich-dev)" >&2
  exit 1
fi
echo "setup: $("$GO" version)"
