package osubench

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/casperii/casperii/internal/mpich"
)

//go:embed csrc/*.c csrc/*.h
var csrc embed.FS

// CacheDir returns the directory the programs are built into:
// $XDG_CACHE_HOME/casperii-osubench (or ~/.cache/...).
func CacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "casperii-osubench")
}

// Programs are the built benchmark programs.
type Programs struct {
	C     map[Bench]string // the C program of each benchmark
	GoAPI string           // the Go-API latency program ("" if not built)
	GoErr error            // why GoAPI is missing
	Dir   string
}

func toolOutput(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = nil
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return string(out), nil
}

// BuildC compiles the embedded C sources with MPICH's mpicc -O2
// (internal/mpich: mpicc.mpich where Open MPI is the default) into a
// directory of cache named by a hash of the sources, of that mpicc's path
// and of its -show, so a rebuild happens only when one of them changes.
func BuildC(cache string) (*Programs, error) {
	mpicc, err := mpich.Find("mpicc")
	if err != nil {
		return nil, err
	}
	show, err := toolOutput("", mpicc, "-show")
	if err != nil {
		return nil, fmt.Errorf("mpicc not usable: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(mpicc + "\x00" + show))
	names, _ := fs.Glob(csrc, "csrc/*")
	sort.Strings(names)
	for _, n := range names {
		b, _ := csrc.ReadFile(n)
		h.Write([]byte(n))
		h.Write(b)
	}
	dir := filepath.Join(cache, "c-"+hex.EncodeToString(h.Sum(nil))[:12])
	srcDir := filepath.Join(dir, "src")
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return nil, err
	}
	for _, n := range names {
		b, _ := csrc.ReadFile(n)
		if err := os.WriteFile(filepath.Join(srcDir, filepath.Base(n)), b, 0o644); err != nil {
			return nil, err
		}
	}
	p := &Programs{C: map[Bench]string{}, Dir: dir}
	for _, b := range KnownBenches {
		out := filepath.Join(dir, "osub-"+b.Program())
		if _, err := os.Stat(out); err != nil {
			tmp := out + ".tmp"
			if _, err := toolOutput(srcDir, mpicc, "-O2", "-Wall", "-o", tmp, b.Program()+".c"); err != nil {
				return nil, err
			}
			if err := os.Rename(tmp, out); err != nil {
				return nil, err
			}
		}
		p.C[b] = out
	}
	return p, nil
}

// RepoRoot finds the root of the casperii module from dir upward ("" if
// dir is not inside it).
func RepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/casperii/casperii")) {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// BuildGoAPI builds ./osubench/goapi/latency of the repository into dir.
func BuildGoAPI(root, dir string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("not inside the casperii repository: the Go-API program needs its sources")
	}
	out := filepath.Join(dir, "osub-goapi-latency")
	if _, err := toolOutput(root, "go", "build", "-o", out, "./osubench/goapi/latency"); err != nil {
		return "", err
	}
	return out, nil
}

// Lib is the CasperII library the preload modes use.
type Lib struct {
	Path   string // the snapshot the jobs preload
	Source string // where it came from
	SHA256 string
	How    string // how it was found or built
	Err    error  // why there is none
	MTime  time.Time
	Stale  string // a source file newer than the library, if any
}

// FindLib returns the library: spec is "auto" (lib/libcasperii.so of the
// repository; if missing, `make build`, then `go build -buildmode=c-shared`
// into the cache), "build" (always go build into the cache, from the current
// sources) or a path.
func FindLib(spec, root, cache string) *Lib {
	l := &Lib{}
	switch spec {
	case "", "auto":
		if root == "" {
			l.Err = fmt.Errorf("not inside the casperii repository and no --lib path given")
			return l
		}
		p := filepath.Join(root, "lib", "libcasperii.so")
		if _, err := os.Stat(p); err == nil {
			l.Path, l.How = p, "existing lib/libcasperii.so"
			break
		}
		if _, err := os.Stat(filepath.Join(root, "Makefile")); err == nil {
			if _, err := toolOutput(root, "make", "build"); err == nil {
				if _, err := os.Stat(p); err == nil {
					l.Path, l.How = p, "built by make build"
					break
				}
			}
		}
		return goBuildLib(l, root, cache)
	case "build":
		if root == "" {
			l.Err = fmt.Errorf("--lib build needs the casperii repository")
			return l
		}
		return goBuildLib(l, root, cache)
	default:
		p, err := filepath.Abs(spec)
		if err == nil {
			_, err = os.Stat(p)
		}
		if err != nil {
			l.Err = fmt.Errorf("--lib %s: %v", spec, err)
			return l
		}
		l.Path, l.How = p, "given with --lib"
	}
	l.inspect(root)
	l.snapshot(cache)
	return l
}

// snapshot copies the library into the cache under its hash and preloads
// the copy, so a rebuild of lib/libcasperii.so during a long run cannot mix
// two versions in one comparison.
func (l *Lib) snapshot(cache string) {
	b, err := os.ReadFile(l.Path)
	if err != nil {
		l.Err = err
		return
	}
	sum := sha256.Sum256(b)
	l.SHA256 = hex.EncodeToString(sum[:])
	l.Source = l.Path
	dst := filepath.Join(cache, "libcasperii-"+l.SHA256[:12]+".so")
	if _, err := os.Stat(dst); err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			l.Err = err
			return
		}
		tmp := dst + ".tmp"
		if err := os.WriteFile(tmp, b, 0o755); err != nil {
			l.Err = err
			return
		}
		if err := os.Rename(tmp, dst); err != nil {
			l.Err = err
			return
		}
	}
	now := time.Now()
	_ = os.Chtimes(dst, now, now) // in use: pruneSnapshots keeps it
	l.Path = dst
	pruneSnapshots(cache, now)
}

// Library snapshots kept in the cache: the newest keepSnapshots, and any
// used within snapshotTTL (another run may be using it).
const (
	keepSnapshots = 4
	snapshotTTL   = 24 * time.Hour
)

// pruneSnapshots removes the cache's older library snapshots, 4 MB each,
// one per library version ever benchmarked otherwise.
func pruneSnapshots(cache string, now time.Time) {
	paths, _ := filepath.Glob(filepath.Join(cache, "libcasperii-*.so"))
	type snap struct {
		path string
		used time.Time
	}
	var snaps []snap
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			snaps = append(snaps, snap{p, st.ModTime()})
		}
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].used.After(snaps[j].used) })
	for i, s := range snaps {
		if i >= keepSnapshots && now.Sub(s.used) > snapshotTTL {
			_ = os.Remove(s.path)
		}
	}
}

func goBuildLib(l *Lib, root, cache string) *Lib {
	if _, err := os.Stat(filepath.Join(root, "cmd", "libcasperii")); err != nil {
		l.Err = fmt.Errorf("the library is not written yet: %s/cmd/libcasperii does not exist", root)
		return l
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		l.Err = err
		return l
	}
	p := filepath.Join(cache, "libcasperii.so")
	if _, err := toolOutput(root, "go", "build", "-buildmode=c-shared", "-o", p, "./cmd/libcasperii"); err != nil {
		l.Err = fmt.Errorf("building the library: %w", err)
		return l
	}
	l.Path, l.How = p, "go build -buildmode=c-shared ./cmd/libcasperii (into the cache)"
	l.inspect(root)
	l.snapshot(cache)
	return l
}

// inspect records the library's time and the newest runtime source newer
// than it (a stale library measures old code).
func (l *Lib) inspect(root string) {
	st, err := os.Stat(l.Path)
	if err != nil {
		return
	}
	l.MTime = st.ModTime()
	if root == "" {
		return
	}
	var newest string
	var nt time.Time
	for _, d := range []string{"internal", "cmd/libcasperii", "casperii", "spsc", "postcell", "tagenc", "commexpand", "greq", "info"} {
		_ = filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			if ext := filepath.Ext(p); ext != ".go" && ext != ".c" && ext != ".h" || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			if fi, err := e.Info(); err == nil && fi.ModTime().After(nt) {
				nt, newest = fi.ModTime(), p
			}
			return nil
		})
	}
	if nt.After(l.MTime) {
		rel, _ := filepath.Rel(root, newest)
		l.Stale = fmt.Sprintf("%s is newer than the library (%s > %s)", rel, nt.Format(time.TimeOnly), l.MTime.Format(time.TimeOnly))
	}
}
