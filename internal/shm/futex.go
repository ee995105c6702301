package shm

import (
	"errors"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Futex operations on shared mappings (no FUTEX_PRIVATE_FLAG: the waiter
// and the waker are different processes).
const (
	futexWait = 0
	futexWake = 1
)

// Wait blocks while *addr == val, until a Wake on addr, the timeout
// (0 means none), or a signal. It returns at once if *addr != val. Callers
// re-check their condition after every return: wakeups may be spurious.
func Wait(addr *uint32, val uint32, timeout time.Duration) {
	var ts *unix.Timespec
	if timeout > 0 {
		t := unix.NsecToTimespec(int64(timeout))
		ts = &t
	}
	_, _, errno := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWait,
		uintptr(val), uintptr(unsafe.Pointer(ts)), 0, 0)
	_ = errno // EAGAIN (value changed), ETIMEDOUT and EINTR all mean: re-check
}

// Wake wakes up to n waiters on addr and returns how many were woken.
// FUTEX_WAKE never blocks, so it is a raw system call: the Go runtime is
// not told (no entersyscall), and cannot hand this thread's processor to
// another runtime thread, which on a core shared with a user would cost
// two context switches.
func Wake(addr *uint32, n int) int {
	r, _, errno := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWake,
		uintptr(n), 0, 0, 0)
	if errno != 0 {
		return 0
	}
	return int(r)
}

// Bell is an event count in shared memory: waiters sleep on it, notifiers
// bump it and wake them. A waiter reads the count (Seq) before checking its
// condition and sleeps with that value, so a notification between the check
// and the sleep is never lost.
type Bell struct{ word *uint32 }

// NewBell uses the 32-bit word at addr, which must be 4-byte aligned and in
// memory shared by all parties.
func NewBell(addr unsafe.Pointer) (Bell, error) {
	if uintptr(addr)%4 != 0 {
		return Bell{}, errors.New("shm: bell word is not 4-byte aligned")
	}
	return Bell{word: (*uint32)(addr)}, nil
}

// Seq returns the current count.
func (b Bell) Seq() uint32 { return atomic.LoadUint32(b.word) }

// Sleep blocks while the count is still seq, at most timeout (0: no limit).
func (b Bell) Sleep(seq uint32, timeout time.Duration) { Wait(b.word, seq, timeout) }

// Ring bumps the count and wakes every sleeper.
func (b Bell) Ring() {
	atomic.AddUint32(b.word, 1)
	Wake(b.word, 1<<30)
}
