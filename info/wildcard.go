package info

import (
	"fmt"
	"slices"
)

// A Wildcard is the value of the wildcard_used hint: the application's
// promise about the wildcards it uses in receives (and probes) on a
// communicator. It is a set of AnySrc and AnyTagSameTag, or exactly
// WildcardNone.
//
// The zero Wildcard is not a valid promise: it stands for the unset hint,
// and its methods treat it as AnySrc, the default, which promises nothing.
type Wildcard uint8

const (
	// AnySrc (any_src): receives may use MPI_ANY_SOURCE, with any tag
	// or MPI_ANY_TAG. Alone it promises nothing; it is the default.
	AnySrc Wildcard = 1 << iota

	// AnyTagSameTag (any_tag_same_tag): receives may use MPI_ANY_TAG, or
	// all messages use the same tag. Without AnySrc, receives never use
	// MPI_ANY_SOURCE.
	AnyTagSameTag

	// WildcardNone (none): receives use neither MPI_ANY_SOURCE nor
	// MPI_ANY_TAG. It cannot be combined with the others.
	WildcardNone
)

var wildcardSpellings = []spelling{
	{"any_src", uint8(AnySrc)},
	{"any_tag_same_tag", uint8(AnyTagSameTag)},
	{"none", uint8(WildcardNone)},
	{"anysrc", uint8(AnySrc)},              // Casper
	{"anytag_notag", uint8(AnyTagSameTag)}, // Casper
}

var (
	wildcardAccepted = []string{"any_src", "any_tag_same_tag", "any_src|any_tag_same_tag", "none"}
	wildcardNote     = "Casper spellings anysrc, anytag_notag also accepted"
)

// ParseWildcard parses a wildcard_used value: "any_src",
// "any_tag_same_tag", both joined by '|', ',' or ';' in either order, or
// "none"; Casper's "anysrc" and "anytag_notag" are accepted for the first
// two. Spaces around the value and its parts are ignored, and words match
// ignoring ASCII case. The error is a *ValueError.
func ParseWildcard(s string) (Wildcard, error) {
	bits, err := parseParts(KeyWildcardUsed, s, wildcardSpellings, wildcardAccepted, wildcardNote)
	if err != nil {
		return 0, err
	}
	w := Wildcard(bits)
	if w&WildcardNone != 0 && w != WildcardNone {
		return 0, &ValueError{Key: KeyWildcardUsed, Value: s, Reason: "none cannot be combined with other values",
			Accepted: slices.Clone(wildcardAccepted), Note: wildcardNote}
	}
	return w, nil
}

// String returns the canonical spelling of w, which ParseWildcard accepts:
// "any_src", "any_tag_same_tag", "any_src|any_tag_same_tag" or "none".
// Other values, the zero Wildcard among them, print as "Wildcard(n)".
func (w Wildcard) String() string {
	if w.valid() {
		return joinParts(uint8(w), wildcardSpellings[:3])
	}
	return fmt.Sprintf("Wildcard(%d)", uint8(w))
}

// valid reports whether w is a value ParseWildcard returns.
func (w Wildcard) valid() bool {
	switch w {
	case AnySrc, AnyTagSameTag, AnySrc | AnyTagSameTag, WildcardNone:
		return true
	}
	return false
}

// effective returns w, or AnySrc for a value that is not a valid promise.
func (w Wildcard) effective() Wildcard {
	if w.valid() {
		return w
	}
	return AnySrc
}

// AllowsAnySource reports whether receives may use MPI_ANY_SOURCE under w.
func (w Wildcard) AllowsAnySource() bool {
	return w.effective()&AnySrc != 0
}

// AllowsAnyTag reports whether receives may use MPI_ANY_TAG under w.
func (w Wildcard) AllowsAnyTag() bool {
	return w.effective() != WildcardNone
}
