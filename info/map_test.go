package info

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseString(t *testing.T) {
	tests := []struct {
		in   string
		want Map
	}{
		{"", Map{}},
		{"   ", Map{}},
		{";;\n;", Map{}},
		{"wildcard_used=none", Map{"wildcard_used": "none"}},
		{"wildcard_used=none;shmbuf_regist=true", Map{"wildcard_used": "none", "shmbuf_regist": "true"}},
		{"wildcard_used=none\nshmbuf_regist=true\n", Map{"wildcard_used": "none", "shmbuf_regist": "true"}},
		{"wildcard_used=none\r\nshmbuf_regist=true\r\n", Map{"wildcard_used": "none", "shmbuf_regist": "true"}},
		{"  wildcard_used =  any_src|any_tag_same_tag ; ", Map{"wildcard_used": "any_src|any_tag_same_tag"}},
		{"wildcard_used=any_src,any_tag_same_tag", Map{"wildcard_used": "any_src,any_tag_same_tag"}},
		{"k=a=b", Map{"k": "a=b"}}, // split at the first '='
		{"k=", Map{"k": ""}},       // an empty value is Parse's business
		{"unknown_key=whatever;wildcard_used=none", Map{"unknown_key": "whatever", "wildcard_used": "none"}},
		{"a b=c d", Map{"a b": "c d"}},
	}
	for _, tt := range tests {
		got, err := ParseString(tt.in)
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestParseStringRejects(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"wildcard_used", `info: "wildcard_used" is not a key=value pair`},
		{"wildcard_used=none;shmbuf_regist", `"shmbuf_regist" is not a key=value pair`},
		{"wildcard_used=any_src;any_tag_same_tag", `"any_tag_same_tag" is not a key=value pair (pairs are separated by ';' or newlines, so a value joins its parts with '|' or ',')`},
		{"=none", `info: "=none" has an empty key`},
		{" = x", `"= x" has an empty key`},
		{"wildcard_used=none;wildcard_used=any_src", `info: key "wildcard_used" is given twice`},
		{"k=1\n k =2", `key "k" is given twice`},
	}
	for _, tt := range tests {
		m, err := ParseString(tt.in)
		require.Error(t, err, "%q", tt.in)
		assert.Contains(t, err.Error(), tt.want)
		assert.NotContains(t, err.Error(), "\n")
		assert.Nil(t, m)
	}
}

func TestMapGet(t *testing.T) {
	m := Map{"a": "1", "empty": ""}
	v, ok := m.Get("a")
	assert.True(t, ok)
	assert.Equal(t, "1", v)
	v, ok = m.Get("empty")
	assert.True(t, ok, "a key set to the empty string is set")
	assert.Equal(t, "", v)
	_, ok = m.Get("b")
	assert.False(t, ok)
	_, ok = Map(nil).Get("a")
	assert.False(t, ok)
}
