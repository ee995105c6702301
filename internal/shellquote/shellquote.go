// Package shellquote writes command lines the way a POSIX shell reads
// them back: for logs and reports that a user can copy and run.
package shellquote

import "strings"

// Join joins args into a command line a POSIX shell splits back into args:
// words made only of letters, digits and -_./=:,+@% stay bare; every other
// word (the empty one included) is single-quoted.
func Join(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
		}) < 0 {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
