package tagenc

import (
	"testing"

	"github.com/casperii/casperii/internal/layoutgen"
)

// TestLayoutGenerated regenerates layout_gen.go from tagenc.h and fails if
// the checked-in file differs: the header is the one definition.
func TestLayoutGenerated(t *testing.T) {
	if err := layoutgen.Available(); err != nil {
		t.Skipf("cannot run cgo -godefs here: %v", err)
	}
	if err := layoutgen.Check("layout_defs.go", "layout_gen.go"); err != nil {
		t.Fatal(err)
	}
}
