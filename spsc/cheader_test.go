package spsc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCHeaderStandalone compiles testdata/selftest.c, which includes only
// spsc.h and libc, as strict C11 with warnings as errors and with the
// address and undefined-behaviour sanitizers, and runs it: the header must
// stand on its own, without Go.
func TestCHeaderStandalone(t *testing.T) {
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	strict := []string{"-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror",
		"-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wcast-align"}
	for _, v := range []struct {
		name  string
		flags []string
	}{
		{"O2", []string{"-O2"}},
		{"sanitized", []string{"-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"}},
	} {
		t.Run(v.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "selftest")
			args := append(append(append([]string{}, strict...), v.flags...), "-o", bin, filepath.Join("testdata", "selftest.c"))
			if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
				probe := exec.Command(cc, append(v.flags, "-x", "c", "-o", os.DevNull, "-")...)
				probe.Stdin = strings.NewReader("int main(void) { return 0; }\n")
				if v.name == "sanitized" && probe.Run() != nil {
					t.Skipf("%s cannot build sanitized programs here", cc)
				}
				t.Fatalf("%s %v: %v\n%s", cc, args, err, out)
			}
			if out, err := exec.Command(bin).CombinedOutput(); err != nil {
				t.Fatalf("selftest: %v\n%s", err, out)
			}
		})
	}
}
