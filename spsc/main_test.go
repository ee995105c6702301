package spsc

import (
	"fmt"
	"os"
	"testing"
)

// childEnv selects a child role when the test binary re-executes itself.
const childEnv = "SPSC_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		if err := runChild(role); err != nil {
			fmt.Fprintln(os.Stderr, "spsc test child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
