//go:build linux

package mpitest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the reaper of its orphaned
// descendants, so ranks whose mpiexec or proxy died stay findable.
func becomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// descendants returns the pids of all live descendants of pid.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		pp, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[pp] = append(children[pp], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// killDescendants SIGKILLs every live descendant of this process (the
// remains of the job), waits up to 2 s until none is left running (SIGKILL
// takes effect asynchronously: a process just killed can still be listed),
// and returns how many it killed. Zombies (including orphans adopted as
// subreaper) are left for process exit.
func killDescendants() int {
	killed := map[int]bool{}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pids := descendants(os.Getpid())
		if len(pids) == 0 || time.Now().After(deadline) {
			return len(killed)
		}
		for _, p := range pids {
			if !killed[p] && syscall.Kill(p, syscall.SIGKILL) == nil {
				killed[p] = true
			}
		}
	}
}

// liveDescendants reports whether this process has live descendants.
func liveDescendants() bool { return len(descendants(os.Getpid())) > 0 }

// redirectOutput points this process's stdout and stderr (fds 1 and 2) at path.
func redirectOutput(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Dup3(int(f.Fd()), 1, 0); err != nil {
		return err
	}
	return unix.Dup3(int(f.Fd()), 2, 0)
}
