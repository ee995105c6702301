package info

import (
	"fmt"
	"strings"
)

// A Getter looks up info values by key, as MPI_Info_get does: ok reports
// whether key is set. MPI info objects implement it.
type Getter interface {
	Get(key string) (value string, ok bool)
}

// A Map is a Getter backed by a Go map, for tests and for hints given as
// strings (see ParseString). The nil Map has no keys.
type Map map[string]string

// Get returns the value of key and whether it is set.
func (m Map) Get(key string) (string, bool) {
	v, ok := m[key]
	return v, ok
}

// ParseString parses hints written as text, for example
// "wildcard_used=none; shmbuf_regist=true". Pairs are separated by ';' or
// newlines, and each is key=value, split at the first '='; spaces around
// keys and values are trimmed, and blank pairs are skipped. A value may
// contain '|', ',' and '=' but not ';', so a multi-part value must join its
// parts with '|' or ','. A pair without '=', an empty key or a key given
// twice is an error. Keys and values are not checked otherwise: Parse does
// that.
func ParseString(s string) (Map, error) {
	m := Map{}
	for _, pair := range splitAny(s, ";\n") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case !ok:
			return nil, fmt.Errorf("info: %q is not a key=value pair (pairs are separated by ';' or newlines, so a value joins its parts with '|' or ',')", pair)
		case k == "":
			return nil, fmt.Errorf("info: %q has an empty key", pair)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("info: key %q is given twice", k)
		}
		m[k] = v
	}
	return m, nil
}
