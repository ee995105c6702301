package info

import (
	"fmt"
	"slices"
	"strings"
)

// partSeparators join the parts of a multi-part value such as
// "any_src|any_tag_same_tag"; Casper accepts the same three.
const partSeparators = "|,;"

// A spelling is one accepted word of a multi-part value and the bit it sets.
type spelling struct {
	word string
	bit  uint8
}

// parseParts parses a value made of one or more words from spellings,
// joined by any of partSeparators. Spaces around the value and around each
// part are ignored, and words match ignoring ASCII case. The parts form a
// set: repeating one is harmless. It returns the union of the bits, or a
// ValueError (with the caller's accepted list and note) for an empty value,
// an empty part or an unknown word.
func parseParts(key, value string, spellings []spelling, accepted []string, note string) (uint8, error) {
	fail := func(reason string) (uint8, error) {
		return 0, &ValueError{Key: key, Value: value, Reason: reason, Accepted: slices.Clone(accepted), Note: note}
	}
	trimmed := strings.TrimSpace(value)
	if trimmed == "" {
		return fail("empty value")
	}
	parts := splitAny(trimmed, partSeparators)
	var bits uint8
	for _, p := range parts {
		p = strings.TrimSpace(p)
		bit, ok := lookup(p, spellings)
		switch {
		case p == "":
			return fail("empty part")
		case !ok && len(parts) == 1:
			return fail("")
		case !ok:
			return fail(fmt.Sprintf("unknown part %q", p))
		}
		bits |= bit
	}
	return bits, nil
}

// splitAny splits s around each occurrence of any byte of seps (all ASCII),
// keeping empty parts.
func splitAny(s, seps string) []string {
	var parts []string
	for {
		i := strings.IndexAny(s, seps)
		if i < 0 {
			return append(parts, s)
		}
		parts = append(parts, s[:i])
		s = s[i+1:]
	}
}

// lookup returns the bit of word, ignoring ASCII case.
func lookup(word string, spellings []spelling) (uint8, bool) {
	for _, s := range spellings {
		if equalFold(word, s.word) {
			return s.bit, true
		}
	}
	return 0, false
}

// joinParts is the canonical spelling of bits: the names of the bits set,
// in the order of names, joined by "|". It returns "" when a bit of bits
// has no name.
func joinParts(bits uint8, names []spelling) string {
	var parts []string
	for _, n := range names {
		if bits&n.bit != 0 {
			parts = append(parts, n.word)
			bits &^= n.bit
		}
	}
	if bits != 0 {
		return ""
	}
	return strings.Join(parts, "|")
}

// equalFold reports whether s equals the lower-case ASCII word, ignoring
// ASCII case only: unlike strings.EqualFold, it does not take "ſ" for "s".
func equalFold(s, word string) bool {
	if len(s) != len(word) {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return true
}
