package spsc

import "golang.org/x/sys/unix"

// osYield gives the CPU to another runnable thread, if there is one.
func osYield() { unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }
