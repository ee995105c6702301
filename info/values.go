package info

import (
	"strconv"
	"strings"
)

// parseChoice parses a value that must be one of two words, matched
// ignoring ASCII case after trimming spaces; it returns true for yes.
func parseChoice(key, value, yes, no string) (bool, error) {
	switch v := strings.TrimSpace(value); {
	case equalFold(v, yes):
		return true, nil
	case equalFold(v, no):
		return false, nil
	case v == "":
		return false, &ValueError{Key: key, Value: value, Reason: "empty value", Accepted: []string{yes, no}}
	}
	return false, &ValueError{Key: key, Value: value, Accepted: []string{yes, no}}
}

// parseSize parses a non-negative decimal integer: digits only, after
// trimming spaces, no sign.
func parseSize(key, value string) (int64, error) {
	accepted := []string{"a non-negative decimal integer (bytes)"}
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, &ValueError{Key: key, Value: value, Reason: "empty value", Accepted: accepted}
	}
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return 0, &ValueError{Key: key, Value: value, Accepted: accepted}
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil { // only a range error is possible here
		return 0, &ValueError{Key: key, Value: value, Reason: "too large", Accepted: accepted}
	}
	return n, nil
}
