package shm

import "golang.org/x/sys/unix"

// membarrier(2) commands (linux/membarrier.h).
const (
	membarrierQuery            = 0
	membarrierGlobalExpedited  = 1 << 1
	membarrierRegisterGlobalEx = 1 << 2
)

// GlobalBarrierWorks reports whether GlobalBarrier is available here: the
// kernel supports MEMBARRIER_CMD_GLOBAL_EXPEDITED and a trial call
// succeeds (a seccomp filter may refuse it).
func GlobalBarrierWorks() bool {
	mask, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierQuery, 0, 0)
	if errno != 0 || mask&membarrierGlobalExpedited == 0 || mask&membarrierRegisterGlobalEx == 0 {
		return false
	}
	return GlobalBarrier() == nil
}

// GlobalBarrier runs a full memory barrier on every CPU currently running
// a thread of a process registered for it (MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED);
// threads not running pass a barrier when they are scheduled. It pairs
// with a compiler barrier on the registered side: the asymmetric form of
// Dekker's store-fence-load on both sides, for a side that runs rarely
// (a ghost about to park) against one that runs on every post.
func GlobalBarrier() error {
	if _, _, errno := unix.Syscall(unix.SYS_MEMBARRIER, membarrierGlobalExpedited, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
