package info

import "fmt"

// An Algorithm is how CasperII carries a communicator's point-to-point
// messages. See the package documentation for the table that chooses it.
type Algorithm uint8

const (
	// NoOffload: the application's calls go straight to MPI.
	NoOffload Algorithm = iota

	// TagEncoding: ghosts repost on one internal communicator, with the
	// source and destination offsets encoded in the tag (package tagenc).
	TagEncoding

	// Duplication: ghosts repost on internal communicators duplicated
	// per user offset; tags pass through, so MPI_ANY_TAG works.
	Duplication

	// DuplicationSrc: Duplication with the source offset carried too, so
	// that MPI_ANY_SOURCE receives learn the real source.
	DuplicationSrc

	// GhostMatch: ghosts match arrivals against the users' posted
	// receives themselves, which supports every wildcard.
	GhostMatch
)

var algorithmNames = [...]string{
	NoOffload:      "off",
	TagEncoding:    "tag-encoding",
	Duplication:    "duplication",
	DuplicationSrc: "duplication-src",
	GhostMatch:     "ghost-match",
}

// String returns the name of a, for logs: "off", "tag-encoding",
// "duplication", "duplication-src" or "ghost-match".
func (a Algorithm) String() string {
	if int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// Offloaded reports whether a sends messages through the ghosts.
func (a Algorithm) Offloaded() bool {
	return a != NoOffload && int(a) < len(algorithmNames)
}

// A Policy holds the runtime's choices that the hints leave open.
type Policy struct {
	// AnySrcOffload allows offloading communicators whose wildcard_used
	// is any_src or unset, with ghost-side matching. When false they are
	// not offloaded, as in the CasperII paper.
	AnySrcOffload bool
}

// Algorithm chooses the algorithm for a communicator with hints h, by the
// table of the package documentation. It depends on h and p only, so all
// members of a communicator choose alike when they agree on both.
func (h Hints) Algorithm(p Policy) Algorithm {
	if on, _ := h.AsyncConfig(); !on {
		return NoOffload
	}
	switch w, _ := h.Wildcard(); w {
	case WildcardNone:
		return TagEncoding
	case AnyTagSameTag:
		return Duplication
	case AnySrc | AnyTagSameTag:
		return DuplicationSrc
	}
	if p.AnySrcOffload {
		return GhostMatch
	}
	return NoOffload
}
