//go:build linux

package mpitest

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/casperii/casperii/internal/proc"
)

// becomeSubreaper makes this process the reaper of its orphaned
// descendants, so ranks whose mpiexec or proxy died stay findable.
func becomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// killDescendants SIGKILLs every live descendant of this process (the
// remains of the job), waits up to 2 s until none is left running (SIGKILL
// takes effect asynchronously: a process just killed can still be listed),
// and returns how many it killed. Zombies (including orphans adopted as
// subreaper) are left for process exit.
func killDescendants() int {
	killed := map[int]bool{}
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pids := proc.Descendants(os.Getpid())
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
func liveDescendants() bool { return len(proc.Descendants(os.Getpid())) > 0 }

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
