package info

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParseWildcard(f *testing.F) {
	for _, s := range []string{
		"any_src", "anysrc", "any_tag_same_tag", "anytag_notag", "none",
		"any_src|any_tag_same_tag", " anytag_notag ; ANYSRC ", "none|any_src",
		"", "|", "any_src||none", "anysource", "none,none", "\xff|any_src",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWildcard(s)
		if err != nil {
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Key != KeyWildcardUsed || ve.Value != s {
				t.Fatalf("%q: error %v (%T) does not name the key and value", s, err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error message spans lines: %q", s, err)
			}
			if w != 0 {
				t.Fatalf("%q: error %v, but value %v", s, err, w)
			}
			return
		}
		if !w.valid() {
			t.Fatalf("%q: accepted as invalid %v", s, w)
		}
		canon := w.String()
		back, err := ParseWildcard(canon)
		if err != nil || back != w {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, w, canon, back, err)
		}
	})
}

func FuzzParseString(f *testing.F) {
	for _, s := range []string{
		"", "wildcard_used=none;shmbuf_regist=true", "wildcard_used=any_src|any_tag_same_tag\nasync_config=off",
		"k=a=b", "=x", "k", "k=1;k=2", " ; \n ", "datatype_used=predefined,derived;offload_min_msgsz=12",
		"offload_min_msgsz=-1", "wildcard_used=\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseString(s)
		if err != nil {
			if m != nil {
				t.Fatalf("%q: error %v, but map %v", s, err, m)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: error message spans lines: %q", s, err)
			}
			return
		}
		for k, v := range m {
			if k == "" || k != strings.TrimSpace(k) || v != strings.TrimSpace(v) ||
				strings.ContainsAny(k, "=;\n") || strings.ContainsAny(v, ";\n") {
				t.Fatalf("%q: bad pair %q=%q", s, k, v)
			}
		}
		h, err := Parse(m)
		if err != nil {
			var ve *ValueError
			if !errors.As(err, &ve) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: Parse error %v (%T)", s, err, err)
			}
			if h != (Hints{}) {
				t.Fatalf("%q: Parse error %v, but hints %v", s, err, h)
			}
			return
		}
		// The canonical text parses back to the same hints, and is a
		// fixed point.
		canon := h.String()
		m2, err := ParseString(canon)
		if err != nil {
			t.Fatalf("%q: canonical %q does not parse: %v", s, canon, err)
		}
		h2, err := Parse(m2)
		if err != nil || h2 != h || h2.String() != canon {
			t.Fatalf("%q: canonical %q parses to %v, %v", s, canon, h2, err)
		}
		_ = h.Algorithm(Policy{})
		_ = h.Inherit(h2)
	})
}
