package info

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wildcardAcceptedText = "accepted: any_src, any_tag_same_tag, any_src|any_tag_same_tag, none (Casper spellings anysrc, anytag_notag also accepted)"

func TestParseWildcardAccepted(t *testing.T) {
	both := AnySrc | AnyTagSameTag
	tests := []struct {
		in   string
		want Wildcard
	}{
		{"any_src", AnySrc},
		{"anysrc", AnySrc},
		{"any_tag_same_tag", AnyTagSameTag},
		{"anytag_notag", AnyTagSameTag},
		{"none", WildcardNone},
		{"any_src|any_tag_same_tag", both},
		{"any_tag_same_tag|any_src", both},
		{"any_src,any_tag_same_tag", both},
		{"any_src;any_tag_same_tag", both},
		{"anysrc|anytag_notag", both},
		{"anytag_notag,any_src", both},
		{"any_src | any_tag_same_tag", both},
		{"  any_src  ;\tany_tag_same_tag\n", both},
		{" none ", WildcardNone},
		{"NONE", WildcardNone},
		{"Any_Src|ANY_TAG_SAME_TAG", both},
		{"AnySrc", AnySrc},
		{"any_src|any_src", AnySrc}, // the parts are a set
		{"any_src|anysrc|any_tag_same_tag", both},
		{"none|none", WildcardNone},
	}
	for _, tt := range tests {
		got, err := ParseWildcard(tt.in)
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestParseWildcardRejected(t *testing.T) {
	tests := []struct {
		in, reason string
	}{
		{"", "empty value"},
		{"   ", "empty value"},
		{"anysource", ""},
		{"any", ""},
		{"any_source", ""},
		{"ANY_SOURCE", ""},
		{"all", ""},
		{"true", ""},
		{"nonee", ""},
		{"any_srcany_tag_same_tag", ""},
		{"any_src+any_tag_same_tag", ""},
		{"any_src any_tag_same_tag", ""},
		{"any_ſrc", ""}, // U+017F folds to 's' in Unicode, not in ASCII
		{"nonÉ", ""},
		{"any_src|", "empty part"},
		{"|any_src", "empty part"},
		{"any_src||any_tag_same_tag", "empty part"},
		{"any_src| |any_tag_same_tag", "empty part"},
		{"|", "empty part"},
		{"any_src|bogus", `unknown part "bogus"`},
		{"bogus,none", `unknown part "bogus"`},
		{"any_src|a\nb", `unknown part "a\nb"`},
		{"none|any_src", "none cannot be combined with other values"},
		{"any_src|none", "none cannot be combined with other values"},
		{"none,any_tag_same_tag", "none cannot be combined with other values"},
		{"anytag_notag;none", "none cannot be combined with other values"},
		{"none|any_src|any_tag_same_tag", "none cannot be combined with other values"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			w, err := ParseWildcard(tt.in)
			require.Error(t, err)
			assert.Zero(t, w)
			var ve *ValueError
			require.True(t, errors.As(err, &ve), "error type %T", err)
			assert.Equal(t, KeyWildcardUsed, ve.Key)
			assert.Equal(t, tt.in, ve.Value)
			assert.Equal(t, tt.reason, ve.Reason)
			msg := err.Error()
			assert.NotContains(t, msg, "\n", "one line")
			assert.True(t, strings.HasPrefix(msg, fmt.Sprintf("info: wildcard_used=%q is not valid", tt.in)), msg)
			assert.True(t, strings.HasSuffix(msg, "; "+wildcardAcceptedText), msg)
			if tt.reason != "" {
				assert.Contains(t, msg, ": "+tt.reason+"; ")
			}
		})
	}
}

func TestValueErrorDoesNotShareAccepted(t *testing.T) {
	_, err := ParseWildcard("x")
	var ve *ValueError
	require.ErrorAs(t, err, &ve)
	ve.Accepted[0] = "changed"
	_, err = ParseWildcard("x")
	assert.Contains(t, err.Error(), "accepted: any_src, ")
}

func TestWildcardErrorMessage(t *testing.T) {
	_, err := ParseWildcard("anysource")
	assert.EqualError(t, err, `info: wildcard_used="anysource" is not valid; `+wildcardAcceptedText)
	_, err = ParseWildcard("none|any_src")
	assert.EqualError(t, err, `info: wildcard_used="none|any_src" is not valid: none cannot be combined with other values; `+wildcardAcceptedText)
}

func TestWildcardString(t *testing.T) {
	tests := []struct {
		w    Wildcard
		want string
	}{
		{AnySrc, "any_src"},
		{AnyTagSameTag, "any_tag_same_tag"},
		{AnySrc | AnyTagSameTag, "any_src|any_tag_same_tag"},
		{WildcardNone, "none"},
		{0, "Wildcard(0)"},
		{WildcardNone | AnySrc, "Wildcard(5)"},
		{8, "Wildcard(8)"},
		{255, "Wildcard(255)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.w.String())
		if !strings.HasPrefix(tt.want, "Wildcard(") {
			back, err := ParseWildcard(tt.w.String())
			require.NoError(t, err)
			assert.Equal(t, tt.w, back)
		}
	}
}

func TestWildcardAllows(t *testing.T) {
	tests := []struct {
		w                 Wildcard
		anySource, anyTag bool
	}{
		{WildcardNone, false, false},
		{AnyTagSameTag, false, true},
		{AnySrc | AnyTagSameTag, true, true},
		{AnySrc, true, true},
		{0, true, true},                     // unset: the default, any_src
		{WildcardNone | AnySrc, true, true}, // not a valid promise: promises nothing
	}
	for _, tt := range tests {
		assert.Equal(t, tt.anySource, tt.w.AllowsAnySource(), "%v", tt.w)
		assert.Equal(t, tt.anyTag, tt.w.AllowsAnyTag(), "%v", tt.w)
	}
}
