package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casperii/casperii/internal/mpich"
)

// fakeLib compiles a shared library that defines MPI_Init (what
// checkLibELF accepts) and returns its path.
func fakeLib(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to build a stand-in library")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fake.c")
	require.NoError(t, os.WriteFile(src, []byte("int MPI_Init(int *c, char ***v) { (void)c; (void)v; return 0; }\n"), 0o644))
	out := filepath.Join(dir, libName)
	b, err := exec.Command(cc, "-shared", "-fPIC", "-o", out, src).CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// mpiProg compiles a minimal MPI program with MPICH's mpicc and returns
// its path.
func mpiProg(t *testing.T) string {
	t.Helper()
	mpicc, err := mpich.Find("mpicc")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "hello.c")
	require.NoError(t, os.WriteFile(src, []byte(`#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
`), 0o644))
	out := filepath.Join(dir, "hello")
	b, err := exec.Command(mpicc, "-o", out, src).CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

// fakeMpiexec writes an executable named mpiexec (never run: the tests
// stub versionRunner and use -dry-run) and returns its path.
func fakeMpiexec(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mpiexec")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\nexit 99\n"), 0o755))
	return p
}

// stubRunners replaces the ldd and --version runners for one test.
func stubRunners(t *testing.T, ldd func(string) (string, error), version func(string, ...string) (string, error)) {
	t.Helper()
	oldLdd, oldVersion := lddRunner, versionRunner
	if ldd != nil {
		lddRunner = ldd
	}
	if version != nil {
		versionRunner = version
	}
	t.Cleanup(func() { lddRunner, versionRunner = oldLdd, oldVersion })
}

// stubMPICH makes findMPICH answer from tools (name -> path; a name not
// in it is not installed) for one test.
func stubMPICH(t *testing.T, tools map[string]string) {
	t.Helper()
	old := findMPICH
	findMPICH = func(name string) (string, error) {
		if p, ok := tools[name]; ok {
			return p, nil
		}
		return "", fmt.Errorf("MPICH's %s is not on PATH (stub)", name)
	}
	t.Cleanup(func() { findMPICH = old })
}

func hydraVersion(string, ...string) (string, error) {
	return "HYDRA build details:\n    Version:                                 4.0.2\n", nil
}

func buffers() (stdio, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return stdio{bytes.NewReader(nil), &out, &errb}, &out, &errb
}
