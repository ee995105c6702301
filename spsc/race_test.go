//go:build race

package spsc

const raceEnabled = true
