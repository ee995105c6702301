package info

import (
	"fmt"
	"strings"
)

// A ValueError reports a CasperII hint whose value is not valid. The
// runtime maps it to MPI_ERR_INFO_VALUE. Its message is one line naming the
// key, the value, why it is refused when that is not obvious, and the
// accepted values.
type ValueError struct {
	Key      string
	Value    string
	Reason   string   // why the value is refused; empty when it is simply unknown
	Accepted []string // the canonical accepted values
	Note     string   // more about the accepted values, such as aliases; may be empty
}

func (e *ValueError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "info: %s=%q is not valid", e.Key, e.Value)
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	b.WriteString("; accepted: ")
	b.WriteString(strings.Join(e.Accepted, ", "))
	if e.Note != "" {
		fmt.Fprintf(&b, " (%s)", e.Note)
	}
	return b.String()
}
