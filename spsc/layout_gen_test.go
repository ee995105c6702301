package spsc

import (
	"testing"

	"github.com/casperii/casperii/internal/layoutgen"
)

// TestLayoutGenerated regenerates layout_gen.go from spsc.h and fails if
// the checked-in file differs: the header is the one definition.
func TestLayoutGenerated(t *testing.T) { layoutgen.RequireFresh(t) }
