//go:build conformance

package conformance

import (
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConformance runs every program of progs/ (those matching
// CONFORMANCE_PROGS, a Go regexp, when set) in every column
// (CONFORMANCE_MODES, comma separated, when set), prints the table and
// fails if any difference is unexpected. make conformance runs it.
func TestConformance(t *testing.T) {
	var match *regexp.Regexp
	if p := os.Getenv("CONFORMANCE_PROGS"); p != "" {
		var err error
		match, err = regexp.Compile(p)
		require.NoError(t, err, "CONFORMANCE_PROGS")
	}
	modes, err := ParseModes(os.Getenv("CONFORMANCE_MODES"))
	require.NoError(t, err, "CONFORMANCE_MODES")
	specs, err := Programs("progs", match)
	require.NoError(t, err)
	require.NotEmpty(t, specs, "no program matches CONFORMANCE_PROGS=%q", os.Getenv("CONFORMANCE_PROGS"))
	rows := runAll(t, specs, modes)
	text, unexpected := Report(modes, rows)
	fmt.Print("\n" + text)
	if unexpected > 0 {
		t.Errorf("%d unexpected differences from plain MPICH (listed above)", unexpected)
	}
}
