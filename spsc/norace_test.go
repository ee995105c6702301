//go:build !race

package spsc

const raceEnabled = false
