package tagenc

// Fields are the contents of an internal tag.
type Fields struct {
	Flags int // in [0, 2^FlagBits - 1]: FlagSync, FlagAck or both
	Ctx   int // in [0, MaxContexts - 1]
	Src   int // the sending user's offset among its ghost's users, in [0, MaxOffset]
	Dst   int // the receiving user's offset among its ghost's users, in [0, MaxOffset]
	Tag   int // the user's tag, in [0, ExposedTagUB]
}

// A Field locates one field in a tag: its value is (tag >> Shift) & Mask,
// and Mask == 2^Width - 1 (0 for a field of no bits).
type Field struct {
	Shift int
	Width int
	Mask  int
}

// Shifts are the positions of all fields of a Layout, as plain numbers so
// that code outside Go (the C fast path) can mirror Encode and Decode:
//
//	tag = Flags<<Flags.Shift | Ctx<<Ctx.Shift | Src<<Src.Shift | Dst<<Dst.Shift | Tag
//
// for fields already checked against their ranges (Tag.Shift is 0). Note
// that Src.Mask and Dst.Mask are 2^OffsetBits - 1, which may exceed
// MaxOffset: range checks must use MaxOffset.
type Shifts struct {
	Flags, Ctx, Src, Dst, Tag Field
}

// CTags returns the positions of the fields of l as the C fast path reads
// them (struct csp_tags, tagenc.h), with exposedUB the MPI_TAG_UB the
// application sees. The zero Layout gives positions all zero.
func (l Layout) CTags(exposedUB int) CTags {
	s := l.Shifts()
	return CTags{
		ExposedUb: int32(exposedUB),
		UserBits:  int32(l.userBits),
		DstShift:  int32(s.Dst.Shift), SrcShift: int32(s.Src.Shift),
		CtxShift: int32(s.Ctx.Shift), FlagShift: int32(s.Flags.Shift),
		UserMask: uint32(s.Tag.Mask), OffMask: uint32(s.Src.Mask),
		CtxMask: uint32(s.Ctx.Mask), FlagMask: uint32(s.Flags.Mask),
	}
}

// Shifts returns the positions of the fields of l.
func (l Layout) Shifts() Shifts {
	tag := field(0, l.userBits)
	dst := field(tag.Shift+tag.Width, l.offsetBits)
	src := field(dst.Shift+dst.Width, l.offsetBits)
	ctx := field(src.Shift+src.Width, l.ctxBits)
	flags := field(ctx.Shift+ctx.Width, FlagBits)
	return Shifts{Flags: flags, Ctx: ctx, Src: src, Dst: dst, Tag: tag}
}

func field(shift, width int) Field {
	return Field{Shift: shift, Width: width, Mask: 1<<width - 1}
}

// Encode returns the internal tag holding f, in [0, MPITagUB]. It returns a
// *FieldError, and no tag, when a field is out of its range.
func (l Layout) Encode(f Fields) (int, error) {
	if err := l.check(f); err != nil {
		return 0, err
	}
	return l.EncodeUnchecked(f), nil
}

// EncodeUnchecked is Encode for hot paths whose fields are known to be in
// range. Precondition: every field of f is in the range Fields documents
// for l (as Encode checks) and l was built by New. When it does not hold,
// the result is unspecified: fields may overlap and the tag may exceed
// MPITagUB or be negative.
func (l Layout) EncodeUnchecked(f Fields) int {
	u, o := l.userBits, l.offsetBits
	return f.Flags<<(u+2*o+l.ctxBits) | f.Ctx<<(u+2*o) | f.Src<<(u+o) | f.Dst<<u | f.Tag
}

// Decode returns the fields of tag t. It returns a *DecodeError when t is
// outside [0, MPITagUB] or was not produced by Encode with l: a bit set
// above Bits, or an offset above MaxOffset. For every valid Fields f,
// Decode(Encode(f)) == f. It never panics; on the zero Layout it returns
// an error that is not a *DecodeError.
func (l Layout) Decode(t int) (Fields, error) {
	if l.bits == 0 {
		return Fields{}, errZeroLayout
	}
	if t < 0 || t > l.mpiTagUB || t>>l.bits != 0 {
		return Fields{}, &DecodeError{Tag: t, Layout: l}
	}
	u, o, c := l.userBits, l.offsetBits, l.ctxBits
	f := Fields{
		Flags: t >> (u + 2*o + c) & (1<<FlagBits - 1),
		Ctx:   t >> (u + 2*o) & (1<<c - 1),
		Src:   t >> (u + o) & (1<<o - 1),
		Dst:   t >> u & (1<<o - 1),
		Tag:   t & (1<<u - 1),
	}
	if f.Src > l.MaxOffset() || f.Dst > l.MaxOffset() {
		return Fields{}, &DecodeError{Tag: t, Layout: l}
	}
	return f, nil
}

// check returns a *FieldError for the first field of f out of its range.
func (l Layout) check(f Fields) error {
	if l.bits == 0 {
		return errZeroLayout
	}
	// Converted to uint, negative values exceed every bound.
	if uint(f.Flags) < 1<<FlagBits && uint(f.Ctx) < 1<<l.ctxBits &&
		uint(f.Src) < uint(l.usersPerGhost) && uint(f.Dst) < uint(l.usersPerGhost) &&
		uint(f.Tag) < 1<<l.userBits {
		return nil
	}
	for _, c := range [...]struct {
		name     string
		val, max int
	}{
		{"flags", f.Flags, 1<<FlagBits - 1},
		{"ctx", f.Ctx, l.MaxContexts() - 1},
		{"src offset", f.Src, l.MaxOffset()},
		{"dst offset", f.Dst, l.MaxOffset()},
		{"user tag", f.Tag, l.ExposedTagUB()},
	} {
		if c.val < 0 || c.val > c.max {
			return &FieldError{Field: c.name, Value: c.val, Max: c.max}
		}
	}
	panic("unreachable") // the fast test above failed, so some field is out of range
}
