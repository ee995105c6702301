//go:build !linux

package mpitest

import (
	"os"
	"syscall"
)

func becomeSubreaper() {}

func killDescendants() int { return 0 }

func liveDescendants() bool { return false }

func redirectOutput(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := syscall.Dup2(int(f.Fd()), 1); err != nil {
		return err
	}
	return syscall.Dup2(int(f.Fd()), 2)
}
