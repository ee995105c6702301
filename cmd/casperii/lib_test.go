package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeRepo makes a directory that looks like the CasperII source tree.
func fakeRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "cmd", "casperii"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "lib"), 0o755))
	return repo
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.WriteFile(to, b, 0o755))
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindLib(t *testing.T) {
	lib := fakeLib(t)
	noBuild := func(string, string) error { t.Fatal("unexpected build"); return nil }

	t.Run("flag", func(t *testing.T) {
		f := libFinder{getenv: envOf(map[string]string{"CASPERII_LIB": "/nonexistent"}), build: noBuild}
		got, err := f.find(lib)
		require.NoError(t, err)
		require.Equal(t, libFound{path: lib, how: "given with -lib"}, got)
	})
	t.Run("CASPERII_LIB", func(t *testing.T) {
		f := libFinder{getenv: envOf(map[string]string{"CASPERII_LIB": lib}), build: noBuild}
		got, err := f.find("")
		require.NoError(t, err)
		require.Equal(t, libFound{path: lib, how: "from $CASPERII_LIB"}, got)

		f.getenv = envOf(map[string]string{"CASPERII_LIB": "/nonexistent/libcasperii.so"})
		_, err = f.find("")
		require.EqualError(t, err, "casperii: CASPERII_LIB=/nonexistent/libcasperii.so: no such file; point it at lib/libcasperii.so (make build writes it)")
	})
	t.Run("not a library", func(t *testing.T) {
		bogus := filepath.Join(t.TempDir(), libName)
		require.NoError(t, os.WriteFile(bogus, []byte("not ELF"), 0o644))
		_, err := libFinder{getenv: envOf(nil)}.find(bogus)
		require.ErrorContains(t, err, "not a shared library")
		require.ErrorContains(t, err, "rebuild it with make build")
	})
	t.Run("next to the executable", func(t *testing.T) {
		prefix := t.TempDir()
		copyFile(t, lib, filepath.Join(prefix, "lib", libName))
		f := libFinder{getenv: envOf(nil), exe: filepath.Join(prefix, "bin", "casperii"), build: noBuild}
		got, err := f.find("")
		require.NoError(t, err)
		require.Equal(t, filepath.Join(prefix, "lib", libName), got.path)
		require.Equal(t, "next to the executable", got.how)
		require.Empty(t, got.repo)
	})
	t.Run("source tree (go run)", func(t *testing.T) {
		repo := fakeRepo(t)
		copyFile(t, lib, filepath.Join(repo, "lib", libName))
		f := libFinder{getenv: envOf(nil), exe: "/tmp/go-build123/b001/exe/casperii",
			srcFile: filepath.Join(repo, "cmd", "casperii", "lib.go"), build: noBuild}
		got, err := f.find("")
		require.NoError(t, err)
		require.Equal(t, libFound{path: filepath.Join(repo, "lib", libName), how: "in the source tree", repo: repo}, got)

		// Found from the working directory too (a -trimpath build).
		f.srcFile, f.cwd = "", filepath.Join(repo, "cmd")
		got, err = f.find("")
		require.NoError(t, err)
		require.Equal(t, repo, got.repo)
	})
	t.Run("built when missing", func(t *testing.T) {
		repo := fakeRepo(t)
		var log bytes.Buffer
		built := ""
		f := libFinder{getenv: envOf(nil), srcFile: filepath.Join(repo, "cmd", "casperii", "lib.go"), log: &log,
			build: func(r, out string) error { built = r; copyFile(t, lib, out); return nil }}
		got, err := f.find("")
		require.NoError(t, err)
		require.Equal(t, repo, built)
		require.Equal(t, "built from the source tree", got.how)
		require.Contains(t, log.String(), "casperii: "+filepath.Join(repo, "lib", libName)+" is missing; building it: go build -buildmode=c-shared")

		os.Remove(got.path)
		f.build = func(string, string) error { return errors.New("exit status 1: undefined: foo") }
		_, err = f.find("")
		require.ErrorContains(t, err, "building "+got.path+" failed: exit status 1: undefined: foo; fix the build, or run make build in "+repo)

		f.build = nil // env and version do not build
		_, err = f.find("")
		require.ErrorContains(t, err, "is missing; run make build in "+repo)
	})
	t.Run("nowhere", func(t *testing.T) {
		f := libFinder{getenv: envOf(nil), exe: "/nonexistent/bin/casperii", cwd: t.TempDir(), build: noBuild}
		_, err := f.find("")
		require.EqualError(t, err, "casperii: libcasperii.so not found (looked at /nonexistent/lib/libcasperii.so, /nonexistent/bin/libcasperii.so); set CASPERII_LIB to its path, or run make build in the CasperII source tree")
	})
}

func TestStaleSource(t *testing.T) {
	repo := fakeRepo(t)
	lib := filepath.Join(repo, "lib", libName)
	copyFile(t, fakeLib(t), lib)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lib, old, old))
	src := filepath.Join(repo, "internal", "user", "post.c")
	copyFile(t, lib, src)
	require.NoError(t, os.Chtimes(src, old.Add(-time.Minute), old.Add(-time.Minute)))
	require.Empty(t, staleSource(repo, lib))
	// Tests and other commands do not count; library sources do.
	copyFile(t, lib, filepath.Join(repo, "internal", "user", "post_test.go"))
	copyFile(t, lib, filepath.Join(repo, "cmd", "casperii", "main.go"))
	copyFile(t, lib, filepath.Join(repo, "osubench", "bench.go"))
	require.Empty(t, staleSource(repo, lib))
	require.NoError(t, os.Chtimes(src, time.Now(), time.Now()))
	require.Equal(t, filepath.Join("internal", "user", "post.c"), staleSource(repo, lib))
}

// libSourceDirs covers every package the library is built from.
func TestLibSourceDirs(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "../libcasperii").Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, modulePath+"/")
		if !ok {
			continue // another module's package: not in the source tree
		}
		covered := false
		for _, d := range libSourceDirs {
			if rel == d || strings.HasPrefix(rel, d+"/") {
				covered = true
			}
		}
		require.True(t, covered, "%s is part of the library: add its directory to libSourceDirs", rel)
	}
}
