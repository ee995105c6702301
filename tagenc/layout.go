package tagenc

import (
	"fmt"
	"math"
	"math/bits"
)

// The fixed widths and flag values (FlagBits, FlagSync, FlagAck,
// DefaultCtxBits, MinTagUB, minUserBits) are defined in tagenc.h and
// generated into layout_gen.go.
//
//go:generate go run ../cmd/layoutgen layout_defs.go layout_gen.go

// maxTagUB is the largest MPI_TAG_UB possible: MPI tags are C ints.
const maxTagUB = math.MaxInt32

// A Layout is the allocation of the bits of an internal tag to its fields,
// from high to low: flags, ctx, src offset, dst offset, user tag.
//
// Invariants, for a Layout built by New or NewWithContexts:
//   - FlagBits + CtxBits + 2*OffsetBits + UserBits == Bits, and
//     2^Bits - 1 <= MPITagUB, so every encoded tag is in [0, MPITagUB];
//   - UserBits >= 15, so ExposedTagUB >= 32767;
//   - MaxOffset == UsersPerGhost - 1 < 2^OffsetBits.
//
// A Layout is a small immutable value, safe to copy and to share between
// goroutines. The zero Layout is not usable: Encode and Decode reject it.
type Layout struct {
	mpiTagUB      int // the implementation's MPI_TAG_UB
	usersPerGhost int
	bits          int // usable bits: the largest k with 2^k-1 <= mpiTagUB
	ctxBits       int
	offsetBits    int
	userBits      int
}

// New returns the layout for an MPI implementation whose MPI_TAG_UB is
// mpiTagUB and for ghosts that serve at most maxUsersPerGhost users each,
// with DefaultCtxBits context bits when there is room for them.
func New(mpiTagUB, maxUsersPerGhost int) (Layout, error) {
	return NewWithContexts(mpiTagUB, maxUsersPerGhost, DefaultCtxBits)
}

// NewWithContexts is New with ctxBitsPreferred context bits instead of
// DefaultCtxBits. User tags get the bits left after flags, offsets and
// ctxBitsPreferred context bits, but never fewer than 15: when that many
// are not left, the context field shrinks. The error wraps ErrNoTagSpace
// when even a context field of zero bits leaves fewer than 15.
func NewWithContexts(mpiTagUB, maxUsersPerGhost, ctxBitsPreferred int) (Layout, error) {
	switch {
	case mpiTagUB < MinTagUB:
		return Layout{}, fmt.Errorf("tagenc: MPI_TAG_UB %d is below %d, the minimum the MPI standard guarantees", mpiTagUB, MinTagUB)
	case mpiTagUB > maxTagUB:
		return Layout{}, fmt.Errorf("tagenc: MPI_TAG_UB %d is above %d: MPI tags are C ints", mpiTagUB, maxTagUB)
	case maxUsersPerGhost < 1:
		return Layout{}, fmt.Errorf("tagenc: %d users per ghost: a ghost serves at least 1 user", maxUsersPerGhost)
	case ctxBitsPreferred < 0:
		return Layout{}, fmt.Errorf("tagenc: %d context bits requested: must be >= 0", ctxBitsPreferred)
	}
	l := Layout{
		mpiTagUB:      mpiTagUB,
		usersPerGhost: maxUsersPerGhost,
		bits:          bits.Len(uint(mpiTagUB)+1) - 1,
		offsetBits:    bits.Len(uint(maxUsersPerGhost - 1)),
	}
	rest := l.bits - FlagBits - 2*l.offsetBits // for ctx and user tag
	if rest < minUserBits {
		return Layout{}, noTagSpaceError(mpiTagUB, maxUsersPerGhost, l.bits, l.offsetBits)
	}
	l.ctxBits = min(ctxBitsPreferred, rest-minUserBits)
	l.userBits = rest - l.ctxBits
	return l, nil
}

// NewForTagUB is New for a program that needs tags up to tagUB: user tags
// get at least bits.Len(tagUB) bits (ExposedTagUB >= tagUB) and the
// context field what is left, so fewer communicators share a tag slot.
// The error wraps ErrNoTagSpace when even a context field of zero bits
// leaves fewer, and says the largest tagUB that fits.
func NewForTagUB(mpiTagUB, maxUsersPerGhost, tagUB int) (Layout, error) {
	if tagUB < MinTagUB || tagUB > maxTagUB {
		return Layout{}, fmt.Errorf("tagenc: a tag bound of %d asked for: must be between %d and %d", tagUB, MinTagUB, maxTagUB)
	}
	widest, err := NewWithContexts(mpiTagUB, maxUsersPerGhost, 0)
	if err != nil {
		return Layout{}, err
	}
	need := bits.Len(uint(tagUB))
	if need > widest.userBits {
		return Layout{}, fmt.Errorf("%w: tags up to %d need %d bits; with MPI_TAG_UB %d and %d users per ghost at most %d are left (tags up to %d)",
			ErrNoTagSpace, tagUB, need, mpiTagUB, maxUsersPerGhost, widest.userBits, widest.ExposedTagUB())
	}
	return NewWithContexts(mpiTagUB, maxUsersPerGhost, widest.userBits-need)
}

// MPITagUB returns the implementation's MPI_TAG_UB the layout was built for.
func (l Layout) MPITagUB() int { return l.mpiTagUB }

// UsersPerGhost returns the maximum number of users per ghost the layout
// was built for.
func (l Layout) UsersPerGhost() int { return l.usersPerGhost }

// Bits returns the number of tag bits the layout uses: the largest k with
// 2^k - 1 <= MPITagUB.
func (l Layout) Bits() int { return l.bits }

// FlagBits returns the width of the flags field, always FlagBits.
func (l Layout) FlagBits() int { return FlagBits }

// CtxBits returns the width of the context field (possibly 0).
func (l Layout) CtxBits() int { return l.ctxBits }

// OffsetBits returns the width of each of the two offset fields:
// ceil(log2(UsersPerGhost)), 0 when ghosts serve one user each.
func (l Layout) OffsetBits() int { return l.offsetBits }

// UserBits returns the width of the user tag field, at least 15.
func (l Layout) UserBits() int { return l.userBits }

// ExposedTagUB returns the largest user tag the layout carries,
// 2^UserBits - 1 >= 32767: the MPI_TAG_UB the application must see.
func (l Layout) ExposedTagUB() int { return 1<<l.userBits - 1 }

// MaxContexts returns the number of distinct contexts, 2^CtxBits.
func (l Layout) MaxContexts() int { return 1 << l.ctxBits }

// MaxOffset returns the largest valid source or destination offset,
// UsersPerGhost - 1.
func (l Layout) MaxOffset() int { return l.usersPerGhost - 1 }

// String describes the layout on one line, for example
// "tag layout: 28 bits = flags 2 | ctx 6 | src 1 | dst 1 | user 18 (exposed MPI_TAG_UB 262143)".
func (l Layout) String() string {
	return fmt.Sprintf("tag layout: %d bits = flags %d | ctx %d | src %d | dst %d | user %d (exposed MPI_TAG_UB %d)",
		l.bits, FlagBits, l.ctxBits, l.offsetBits, l.offsetBits, l.userBits, l.ExposedTagUB())
}

// noTagSpaceError explains why no layout fits and how to fix it.
func noTagSpaceError(mpiTagUB, usersPerGhost, bits, offsetBits int) error {
	users := fmt.Sprintf("%d users per ghost need", usersPerGhost)
	if usersPerGhost == 1 {
		users = "1 user per ghost needs"
	}
	fix := "use wildcard_used=any_tag_same_tag, which needs no tag bits"
	if offsetBits > 0 {
		fix = "use fewer users per ghost (raise CSP_NG) or wildcard_used=any_tag_same_tag, which needs no tag bits"
	}
	return fmt.Errorf("%w: MPI_TAG_UB %d gives %d tag bits and %s %d (%d flag + 2x%d offset + %d user tag), "+
		"so the exposed MPI_TAG_UB would fall below %d; %s",
		ErrNoTagSpace, mpiTagUB, bits, users, FlagBits+2*offsetBits+minUserBits,
		FlagBits, offsetBits, minUserBits, MinTagUB, fix)
}
