// Command layoutgen writes the Go view of a C shared-memory layout from a
// definitions file (see internal/layoutgen). Each package whose layout is
// defined by a C header runs it through go generate:
//
//	//go:generate go run ../cmd/layoutgen layout_defs.go layout_gen.go
//
// and a test of the package (layoutgen.Check) fails while the checked-in
// output differs from what the header gives now.
package main

import (
	"fmt"
	"os"

	"github.com/casperii/casperii/internal/layoutgen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: layoutgen DEFS.go OUT.go")
		os.Exit(2)
	}
	src, err := layoutgen.Generate(os.Args[1])
	if err == nil {
		err = os.WriteFile(os.Args[2], src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
