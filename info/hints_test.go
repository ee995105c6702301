package info

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mustParse parses hints written as ParseString text.
func mustParse(t *testing.T, s string) Hints {
	t.Helper()
	m, err := ParseString(s)
	require.NoError(t, err)
	h, err := Parse(m)
	require.NoError(t, err, "%q", s)
	return h
}

func TestParseNothingSet(t *testing.T) {
	for name, g := range map[string]Getter{
		"nil Getter":   nil,
		"nil Map":      Map(nil),
		"empty Map":    Map{},
		"unknown keys": Map{"Wildcard_Used": "bogus", "wildcard": "none", "cb_nodes": "4"},
	} {
		h, err := Parse(g)
		require.NoError(t, err, name)
		assert.Equal(t, Hints{}, h, name)
		assert.Empty(t, h.Pairs(), name)
		assert.Equal(t, "", h.String(), name)

		w, set := h.Wildcard()
		assert.Equal(t, AnySrc, w, "default wildcard_used")
		assert.False(t, set)
		regist, set := h.ShmbufRegist()
		assert.False(t, regist, "default shmbuf_regist")
		assert.False(t, set)
		on, set := h.AsyncConfig()
		assert.True(t, on, "default async_config")
		assert.False(t, set)
		d, set := h.DatatypeUsed()
		assert.Equal(t, PredefinedTypes|DerivedTypes, d, "default datatype_used")
		assert.False(t, set)
		n, set := h.OffloadMinMsgsz()
		assert.Zero(t, n)
		assert.False(t, set)
	}
}

func TestParseEveryKey(t *testing.T) {
	h := mustParse(t, "wildcard_used=anysrc|anytag_notag; shmbuf_regist=TRUE; async_config=Off;"+
		"datatype_used=derived, predefined; offload_min_msgsz= 4096 ;ignored=yes")
	w, set := h.Wildcard()
	assert.True(t, set)
	assert.Equal(t, AnySrc|AnyTagSameTag, w)
	regist, set := h.ShmbufRegist()
	assert.True(t, set)
	assert.True(t, regist)
	on, set := h.AsyncConfig()
	assert.True(t, set)
	assert.False(t, on)
	d, set := h.DatatypeUsed()
	assert.True(t, set)
	assert.Equal(t, PredefinedTypes|DerivedTypes, d)
	n, set := h.OffloadMinMsgsz()
	assert.True(t, set)
	assert.Equal(t, int64(4096), n)

	assert.Equal(t, [][2]string{
		{"wildcard_used", "any_src|any_tag_same_tag"},
		{"shmbuf_regist", "true"},
		{"async_config", "off"},
		{"datatype_used", "predefined|derived"},
		{"offload_min_msgsz", "4096"},
	}, h.Pairs())
	assert.Equal(t, "wildcard_used=any_src|any_tag_same_tag;shmbuf_regist=true;async_config=off;"+
		"datatype_used=predefined|derived;offload_min_msgsz=4096", h.String())
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		key, value, canonical string
	}{
		{KeyShmbufRegist, "true", "true"},
		{KeyShmbufRegist, "false", "false"},
		{KeyShmbufRegist, " False ", "false"},
		{KeyAsyncConfig, "on", "on"},
		{KeyAsyncConfig, "ON", "on"},
		{KeyAsyncConfig, "off", "off"},
		{KeyDatatypeUsed, "predefined", "predefined"},
		{KeyDatatypeUsed, "derived", "derived"},
		{KeyDatatypeUsed, "derived|predefined", "predefined|derived"},
		{KeyDatatypeUsed, "predefined;derived", "predefined|derived"},
		{KeyOffloadMinMsgsz, "0", "0"},
		{KeyOffloadMinMsgsz, "007", "7"},
		{KeyOffloadMinMsgsz, "9223372036854775807", "9223372036854775807"},
		{KeyWildcardUsed, "anytag_notag", "any_tag_same_tag"},
	}
	for _, tt := range tests {
		h, err := Parse(Map{tt.key: tt.value})
		require.NoError(t, err, "%s=%q", tt.key, tt.value)
		assert.Equal(t, [][2]string{{tt.key, tt.canonical}}, h.Pairs(), "%s=%q", tt.key, tt.value)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		key, value, accepted, reason string
	}{
		{KeyShmbufRegist, "yes", "true, false", ""},
		{KeyShmbufRegist, "1", "true, false", ""},
		{KeyShmbufRegist, "", "true, false", "empty value"},
		{KeyShmbufRegist, "true|false", "true, false", ""},
		{KeyAsyncConfig, "automatic", "on, off, auto", ""},
		{KeyAsyncConfig, "onn", "on, off, auto", ""},
		{KeyAsyncConfig, " ", "on, off, auto", "empty value"},
		{KeyDatatypeUsed, "basic", "predefined, derived, predefined|derived", ""},
		{KeyDatatypeUsed, "predefined|", "predefined, derived, predefined|derived", "empty part"},
		{KeyDatatypeUsed, "predefined|any", "predefined, derived, predefined|derived", `unknown part "any"`},
		{KeyDatatypeUsed, "", "predefined, derived, predefined|derived", "empty value"},
		{KeyOffloadMinMsgsz, "-1", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "+1", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "1k", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "1.5", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "0x10", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "1 000", "a non-negative decimal integer (bytes)", ""},
		{KeyOffloadMinMsgsz, "", "a non-negative decimal integer (bytes)", "empty value"},
		{KeyOffloadMinMsgsz, "9223372036854775808", "a non-negative decimal integer (bytes)", "too large"},
		{KeyWildcardUsed, "anysource", "any_src, any_tag_same_tag, any_src|any_tag_same_tag, none", ""},
		{KeyWildcardUsed, "none|any_src", "any_src, any_tag_same_tag, any_src|any_tag_same_tag, none", "none cannot be combined with other values"},
	}
	for _, tt := range tests {
		h, err := Parse(Map{tt.key: tt.value, KeyOffloadMinMsgsz + "_not": "x"})
		require.Error(t, err, "%s=%q", tt.key, tt.value)
		assert.Equal(t, Hints{}, h, "no partial hints")
		var ve *ValueError
		require.True(t, errors.As(err, &ve), "%T", err)
		assert.Equal(t, tt.key, ve.Key)
		assert.Equal(t, tt.value, ve.Value)
		assert.Equal(t, tt.reason, ve.Reason)
		assert.Equal(t, tt.accepted, strings.Join(ve.Accepted, ", "))
		msg := err.Error()
		assert.Contains(t, msg, tt.key+"=")
		assert.Contains(t, msg, "accepted: "+tt.accepted)
		assert.NotContains(t, msg, "\n")
	}
}

func TestParseAllOrNothing(t *testing.T) {
	// Two bad keys: the error names the first in Keys order, whatever
	// the map order; the valid keys are not returned.
	for range 20 {
		h, err := Parse(Map{
			KeyOffloadMinMsgsz: "-1",
			KeyShmbufRegist:    "maybe",
			KeyWildcardUsed:    "none",
		})
		require.Error(t, err)
		assert.Equal(t, Hints{}, h)
		var ve *ValueError
		require.True(t, errors.As(err, &ve))
		assert.Equal(t, KeyShmbufRegist, ve.Key)
	}
}

func TestKeys(t *testing.T) {
	assert.Equal(t, []string{"wildcard_used", "shmbuf_regist", "async_config", "datatype_used", "offload_min_msgsz", "symmetric"}, Keys())
	k := Keys()
	k[0] = "changed"
	assert.Equal(t, "wildcard_used", Keys()[0], "Keys returns a copy")
}

func TestInherit(t *testing.T) {
	parent := mustParse(t, "wildcard_used=none;shmbuf_regist=true;offload_min_msgsz=100")
	child := mustParse(t, "wildcard_used=any_tag_same_tag;async_config=off")

	got := child.Inherit(parent)
	assert.Equal(t, mustParse(t, "wildcard_used=any_tag_same_tag;shmbuf_regist=true;async_config=off;offload_min_msgsz=100"), got)

	// Unset keys stay unset; the zero Hints is neutral on both sides.
	assert.Equal(t, parent, Hints{}.Inherit(parent))
	assert.Equal(t, child, child.Inherit(Hints{}))
	assert.Equal(t, Hints{}, Hints{}.Inherit(Hints{}))

	// A child setting a key to the zero value (false, 0) still overrides.
	off := mustParse(t, "shmbuf_regist=false;offload_min_msgsz=0")
	got = off.Inherit(parent)
	regist, set := got.ShmbufRegist()
	assert.True(t, set)
	assert.False(t, regist)
	n, set := got.OffloadMinMsgsz()
	assert.True(t, set)
	assert.Zero(t, n)
	w, _ := got.Wildcard()
	assert.Equal(t, WildcardNone, w)

	// Inheriting twice changes nothing more.
	assert.Equal(t, got, got.Inherit(parent))
	assert.Equal(t, got, off.Inherit(got))
}

// TestPairsRoundTrip: Pairs and String give canonical text that parses
// back to the same Hints, and canonical text is a fixed point.
func TestPairsRoundTrip(t *testing.T) {
	inputs := []string{
		"",
		"wildcard_used=none",
		"wildcard_used=ANYSRC , anytag_notag",
		"shmbuf_regist=false",
		"async_config=ON;datatype_used=Derived",
		"offload_min_msgsz=0000",
		"wildcard_used=any_tag_same_tag;shmbuf_regist=true;async_config=on;datatype_used=predefined,derived;offload_min_msgsz=65536;x=y",
	}
	for _, in := range inputs {
		h := mustParse(t, in)

		m := Map{}
		for _, p := range h.Pairs() {
			m[p[0]] = p[1]
		}
		back, err := Parse(m)
		require.NoError(t, err)
		assert.Equal(t, h, back, "%q via Pairs", in)

		back = mustParse(t, h.String())
		assert.Equal(t, h, back, "%q via String", in)
		assert.Equal(t, h.String(), back.String(), "canonical text is a fixed point")
	}
}

func TestTakeSymmetric(t *testing.T) {
	h := mustParse(t, "wildcard_used=none;symmetric=true")
	rest, sym := h.TakeSymmetric()
	assert.True(t, sym)
	assert.Equal(t, mustParse(t, "wildcard_used=none"), rest, "the assertion is not kept")

	_, sym = mustParse(t, "symmetric=false").TakeSymmetric()
	assert.False(t, sym)
	_, sym = mustParse(t, "wildcard_used=none").TakeSymmetric()
	assert.False(t, sym)

	_, err := Parse(Map{"symmetric": "maybe"})
	assert.Error(t, err, "a bad value is an error (MPI_ERR_INFO_VALUE)")
}

func TestAsyncAuto(t *testing.T) {
	h := mustParse(t, "async_config=Auto")
	on, set := h.AsyncConfig()
	assert.True(t, on && set, "auto offloads where the hints allow it")
	assert.True(t, h.AsyncAuto())
	assert.Equal(t, [][2]string{{"async_config", "auto"}}, h.Pairs())
	assert.False(t, mustParse(t, "async_config=on").AsyncAuto())
	assert.False(t, Hints{}.AsyncAuto(), "unset is not auto")
	assert.False(t, mustParse(t, "async_config=off").Inherit(h).AsyncAuto(), "a later value replaces auto")
	assert.True(t, Hints{}.Inherit(h).AsyncAuto(), "inherited")
}
