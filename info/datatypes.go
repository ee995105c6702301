package info

import "fmt"

// Datatypes is the value of Casper's datatype_used hint: the kinds of MPI
// datatypes the application's messages use on a communicator. CasperII
// parses and validates it but does not act on it.
type Datatypes uint8

const (
	PredefinedTypes Datatypes = 1 << iota // predefined: MPI_INT, MPI_DOUBLE, ...
	DerivedTypes                          // derived: vector, struct, ...
)

var (
	datatypeSpellings = []spelling{{"predefined", uint8(PredefinedTypes)}, {"derived", uint8(DerivedTypes)}}
	datatypeAccepted  = []string{"predefined", "derived", "predefined|derived"}
)

// ParseDatatypes parses a datatype_used value: "predefined", "derived", or
// both joined by '|', ',' or ';'. Spaces around the value and its parts are
// ignored, and words match ignoring ASCII case. The error is a *ValueError.
func ParseDatatypes(s string) (Datatypes, error) {
	bits, err := parseParts(KeyDatatypeUsed, s, datatypeSpellings, datatypeAccepted, "")
	return Datatypes(bits), err
}

// String returns the canonical spelling of d, which ParseDatatypes accepts:
// "predefined", "derived" or "predefined|derived". Other values print as
// "Datatypes(n)".
func (d Datatypes) String() string {
	if d != 0 {
		if s := joinParts(uint8(d), datatypeSpellings); s != "" {
			return s
		}
	}
	return fmt.Sprintf("Datatypes(%d)", uint8(d))
}
