//go:build !linux

package spsc

import "runtime"

func osYield() { runtime.Gosched() }
