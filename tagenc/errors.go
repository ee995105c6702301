package tagenc

import (
	"errors"
	"fmt"
)

// ErrNoTagSpace is wrapped by the error New returns when the tag bits left
// for the application would give an exposed MPI_TAG_UB below 32767, the
// minimum MPI guarantees.
var ErrNoTagSpace = errors.New("tagenc: tag layout impossible")

// errZeroLayout is returned by Encode and Decode called on the zero Layout.
var errZeroLayout = errors.New("tagenc: zero Layout: build one with New")

// A FieldError reports a Fields member given to Encode outside its range.
type FieldError struct {
	Field string // "flags", "ctx", "src offset", "dst offset" or "user tag"
	Value int
	Max   int // the largest valid value; the smallest is always 0
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("tagenc: %s %d out of range [0, %d]", e.Field, e.Value, e.Max)
}

// A DecodeError reports a tag Decode rejects: outside [0, MPITagUB], or
// not produced by Encode with Layout.
type DecodeError struct {
	Tag    int
	Layout Layout
}

// Error says which check the tag fails. The message is built here rather
// than in Decode, so that rejecting a tag costs one small allocation.
func (e *DecodeError) Error() string {
	l, t := e.Layout, e.Tag
	if t < 0 || t > l.mpiTagUB {
		return fmt.Sprintf("tagenc: tag %d out of range [0, %d]", t, l.mpiTagUB)
	}
	if t>>l.bits != 0 {
		return fmt.Sprintf("tagenc: tag %d sets bits above the %d bits of the layout: not an encoded tag", t, l.bits)
	}
	s := l.Shifts()
	return fmt.Sprintf("tagenc: tag %d holds offsets src %d, dst %d, above the maximum %d: not an encoded tag",
		t, t>>s.Src.Shift&s.Src.Mask, t>>s.Dst.Shift&s.Dst.Mask, l.MaxOffset())
}
