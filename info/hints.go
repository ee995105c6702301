package info

import (
	"strconv"
	"strings"
)

// The keys of the hints CasperII reads. Parse ignores all other keys, as
// MPI requires for keys an implementation does not know.
const (
	KeyWildcardUsed    = "wildcard_used"
	KeyShmbufRegist    = "shmbuf_regist"
	KeyAsyncConfig     = "async_config"
	KeyDatatypeUsed    = "datatype_used"
	KeyOffloadMinMsgsz = "offload_min_msgsz"
	KeySymmetric       = "symmetric"
)

// Hints are the CasperII hints set on a communicator (or on the info of
// MPI_Alloc_mem or of a window): which keys were set, and their values.
// The zero Hints has no key set, which is what MPI_INFO_NULL gives.
//
// Hints are small comparable values: two Hints are == when they set the
// same keys to the same values.
type Hints struct {
	set       keyBits // the keys set; the value of a key not set is zero
	wildcard  Wildcard
	shmbuf    bool
	asyncOn   bool
	asyncAuto bool // async_config=auto (asyncOn is then true)
	datatypes Datatypes
	minMsgsz  int64
	symmetric bool
}

// keyBits has bit 1<<i set for the key at index i of hintKeys.
type keyBits uint8

// Indices of the keys in hintKeys.
const (
	wildcardKey = iota
	shmbufKey
	asyncKey
	datatypeKey
	minMsgszKey
	symmetricKey
)

// hintKeys describes every key: how to parse a value into Hints, how to
// print it back canonically and how to copy it from other Hints. Parse
// reads the keys, and Pairs returns them, in this order.
var hintKeys = [...]struct {
	key    string
	parse  func(h *Hints, value string) error
	format func(h Hints) string
	copy   func(dst *Hints, src Hints)
}{
	wildcardKey: {
		key: KeyWildcardUsed,
		parse: func(h *Hints, v string) (err error) {
			h.wildcard, err = ParseWildcard(v)
			return err
		},
		format: func(h Hints) string { return h.wildcard.String() },
		copy:   func(dst *Hints, src Hints) { dst.wildcard = src.wildcard },
	},
	shmbufKey: {
		key: KeyShmbufRegist,
		parse: func(h *Hints, v string) (err error) {
			h.shmbuf, err = parseChoice(KeyShmbufRegist, v, "true", "false")
			return err
		},
		format: func(h Hints) string { return strconv.FormatBool(h.shmbuf) },
		copy:   func(dst *Hints, src Hints) { dst.shmbuf = src.shmbuf },
	},
	asyncKey: {
		key: KeyAsyncConfig,
		parse: func(h *Hints, v string) (err error) {
			if equalFold(strings.TrimSpace(v), "auto") {
				h.asyncOn, h.asyncAuto = true, true
				return nil
			}
			h.asyncAuto = false
			h.asyncOn, err = parseChoice(KeyAsyncConfig, v, "on", "off")
			if err != nil {
				err.(*ValueError).Accepted = []string{"on", "off", "auto"}
			}
			return err
		},
		format: func(h Hints) string {
			switch {
			case h.asyncAuto:
				return "auto"
			case h.asyncOn:
				return "on"
			}
			return "off"
		},
		copy: func(dst *Hints, src Hints) { dst.asyncOn, dst.asyncAuto = src.asyncOn, src.asyncAuto },
	},
	datatypeKey: {
		key: KeyDatatypeUsed,
		parse: func(h *Hints, v string) (err error) {
			h.datatypes, err = ParseDatatypes(v)
			return err
		},
		format: func(h Hints) string { return h.datatypes.String() },
		copy:   func(dst *Hints, src Hints) { dst.datatypes = src.datatypes },
	},
	minMsgszKey: {
		key: KeyOffloadMinMsgsz,
		parse: func(h *Hints, v string) (err error) {
			h.minMsgsz, err = parseSize(KeyOffloadMinMsgsz, v)
			return err
		},
		format: func(h Hints) string { return strconv.FormatInt(h.minMsgsz, 10) },
		copy:   func(dst *Hints, src Hints) { dst.minMsgsz = src.minMsgsz },
	},
	symmetricKey: {
		key: KeySymmetric,
		parse: func(h *Hints, v string) (err error) {
			h.symmetric, err = parseChoice(KeySymmetric, v, "true", "false")
			return err
		},
		format: func(h Hints) string { return strconv.FormatBool(h.symmetric) },
		copy:   func(dst *Hints, src Hints) { dst.symmetric = src.symmetric },
	},
}

// Keys returns the keys CasperII reads, in the order Parse reads them and
// Pairs returns them.
func Keys() []string {
	keys := make([]string, len(hintKeys))
	for i, k := range hintKeys {
		keys[i] = k.key
	}
	return keys
}

// Parse reads the CasperII keys from g, which may be nil (MPI_INFO_NULL);
// other keys are ignored. It is all or nothing: when a value is not valid it
// returns the zero Hints and the *ValueError of the first invalid key in
// Keys order, so that a communicator never runs with part of its hints.
func Parse(g Getter) (Hints, error) {
	var h Hints
	if g == nil {
		return h, nil
	}
	for i, k := range hintKeys {
		v, ok := g.Get(k.key)
		if !ok {
			continue
		}
		if err := k.parse(&h, v); err != nil {
			return Hints{}, err
		}
		h.set |= 1 << i
	}
	return h, nil
}

// Inherit returns h completed with parent's values for the keys h does not
// set: the keys h sets override parent's. It serves MPI_Comm_dup, which
// propagates the parent's hints, and MPI_Comm_set_info, which leaves the
// keys it does not set unchanged. Casper inherits in every communicator
// constructor, MPI_Comm_dup_with_info included, where MPI takes the hints
// from the info argument alone; the runtime chooses where to apply it.
func (h Hints) Inherit(parent Hints) Hints {
	out := parent
	for i, k := range hintKeys {
		if h.isSet(i) {
			k.copy(&out, h)
		}
	}
	out.set |= h.set
	return out
}

// Pairs returns the canonical key/value pairs of the keys h sets, in Keys
// order, for MPI_Comm_get_info. Parse accepts them back unchanged.
func (h Hints) Pairs() [][2]string {
	var pairs [][2]string
	for i, k := range hintKeys {
		if h.isSet(i) {
			pairs = append(pairs, [2]string{k.key, k.format(h)})
		}
	}
	return pairs
}

// String returns the pairs of h as "key=value" joined by ";", a form
// ParseString accepts, or "" when h sets no key.
func (h Hints) String() string {
	var b strings.Builder
	for i, p := range h.Pairs() {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(p[0])
		b.WriteByte('=')
		b.WriteString(p[1])
	}
	return b.String()
}

// isSet reports whether h sets the key at index i of hintKeys.
func (h Hints) isSet(i int) bool { return h.set&(1<<i) != 0 }

// Wildcard returns the wildcard_used value and whether it is set. When it
// is not set, w is AnySrc, the default.
func (h Hints) Wildcard() (w Wildcard, set bool) {
	if !h.isSet(wildcardKey) {
		return AnySrc, false
	}
	return h.wildcard, true
}

// ShmbufRegist returns the shmbuf_regist value and whether it is set. When
// it is not set, regist is false, the default.
func (h Hints) ShmbufRegist() (regist, set bool) {
	return h.shmbuf, h.isSet(shmbufKey)
}

// AsyncConfig returns whether async_config is on, and whether it is set.
// When it is not set, on is true, the default: the other hints decide.
func (h Hints) AsyncConfig() (on, set bool) {
	if !h.isSet(asyncKey) {
		return true, false
	}
	return h.asyncOn, true
}

// AsyncAuto reports whether async_config is auto: the runtime chooses the
// route by itself, from its self-profile (internal/core/auto.go); the
// algorithm is the one on would select. Unset is not auto: the
// environment's CSP_ASYNC_CONFIG decides then.
func (h Hints) AsyncAuto() bool { return h.isSet(asyncKey) && h.asyncAuto }

// TakeSymmetric returns h without the symmetric key, and whether h set it
// to true. symmetric=true (Casper's collective hint, given to
// MPI_Comm_set_info) asserts that no message is in flight on the
// communicator, so that a change of route may take effect at once; it is
// an assertion about one call, never kept or inherited.
func (h Hints) TakeSymmetric() (Hints, bool) {
	sym := h.isSet(symmetricKey) && h.symmetric
	h.set &^= 1 << symmetricKey
	h.symmetric = false
	return h, sym
}

// DatatypeUsed returns the datatype_used value and whether it is set. When
// it is not set, d is PredefinedTypes|DerivedTypes, which promises nothing.
func (h Hints) DatatypeUsed() (d Datatypes, set bool) {
	if !h.isSet(datatypeKey) {
		return PredefinedTypes | DerivedTypes, false
	}
	return h.datatypes, true
}

// OffloadMinMsgsz returns the offload_min_msgsz value and whether it is
// set. CasperII keeps it only to report it as ignored: it decides offload
// per communicator, never per message, since deciding by size could put a
// send and its matching receive on different paths.
func (h Hints) OffloadMinMsgsz() (bytes int64, set bool) {
	return h.minMsgsz, h.isSet(minMsgszKey)
}
