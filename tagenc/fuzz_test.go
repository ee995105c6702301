package tagenc

import (
	"strings"
	"testing"
)

// fold maps any x onto [lo, hi].
func fold(x, lo, hi int) int {
	return lo + int(uint64(x)%uint64(hi-lo+1))
}

// foldedLayout maps arbitrary parameters onto a layout New accepts more
// often than not: MPI_TAG_UB in [32767, 2^31-1], 1 to 256 users per ghost,
// 0 to 16 preferred context bits.
func foldedLayout(tagUB, users, ctxPref int) (Layout, error) {
	return NewWithContexts(fold(tagUB, MinTagUB, maxTagUB), fold(users, 1, 256), fold(ctxPref, 0, 16))
}

// checkRoundTrip: Encode either rejects f, with a one-line error, or
// returns a tag in [0, MPITagUB] that decodes to f.
func checkRoundTrip(t *testing.T, l Layout, f Fields) {
	tag, err := l.Encode(f)
	if err != nil {
		if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
			t.Fatalf("%v: %+v: bad error message %q", l, f, msg)
		}
		return
	}
	if tag < 0 || tag > l.MPITagUB() {
		t.Fatalf("%v: %+v encodes to %d, outside [0, %d]", l, f, tag, l.MPITagUB())
	}
	got, err := l.Decode(tag)
	if err != nil || got != f {
		t.Fatalf("%v: %+v encodes to %d, which decodes to %+v, %v", l, f, tag, got, err)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(mpich, 2, 6, 0, 0, 0, 0, 0)
	f.Add(mpich, 2, 6, 3, 63, 1, 1, 262143)
	f.Add(mpich, 3, 6, 1, 5, 2, 3, 65535)
	f.Add(mpich, 1000, 6, 0, 0, 0, 0, 0)
	f.Add(int31, 128, 6, 2, 0, 127, 127, 32767)
	f.Add(32767, 1, 0, 0, 0, 0, 0, 32767)
	f.Add(1<<17-1, 1, 0, 3, 0, 0, 0, 32768)
	f.Add(mpich-1, 4, 6, 1, 63, 3, 3, -1)
	f.Fuzz(func(t *testing.T, tagUB, users, ctxPref, flags, ctx, src, dst, tag int) {
		fields := Fields{Flags: flags, Ctx: ctx, Src: src, Dst: dst, Tag: tag}

		// The raw parameters: mostly errors, which must not be layouts.
		if l, err := NewWithContexts(tagUB, users, ctxPref); err != nil {
			if l != (Layout{}) {
				t.Fatalf("New(%d, %d, %d) fails (%v) but returns %v", tagUB, users, ctxPref, err, l)
			}
		} else {
			checkRoundTrip(t, l, fields)
		}

		// Parameters folded into their valid ranges, with the raw fields
		// and with the fields folded into theirs.
		l, err := foldedLayout(tagUB, users, ctxPref)
		if err != nil {
			return
		}
		checkRoundTrip(t, l, fields)
		checkRoundTrip(t, l, Fields{
			Flags: fold(flags, 0, 3),
			Ctx:   fold(ctx, 0, l.MaxContexts()-1),
			Src:   fold(src, 0, l.MaxOffset()),
			Dst:   fold(dst, 0, l.MaxOffset()),
			Tag:   fold(tag, 0, l.ExposedTagUB()),
		})
		if _, err := l.Encode(Fields{Tag: fold(tag, 0, l.ExposedTagUB())}); err != nil {
			t.Fatalf("%v: valid user tag rejected: %v", l, err)
		}
	})
}

func FuzzDecode(f *testing.F) {
	f.Add(0, mpich, 2, 6)
	f.Add(-1, mpich, 2, 6)
	f.Add(mpich, mpich, 3, 6)
	f.Add(mpich+1, mpich, 3, 6)
	f.Add(3<<16, mpich, 3, 6)
	f.Add(1<<28, 1<<28+5, 1, 6)
	f.Add(1<<62, int31, 128, 0)
	f.Fuzz(func(t *testing.T, tag, tagUB, users, ctxPref int) {
		l, err := foldedLayout(tagUB, users, ctxPref)
		if err != nil {
			l, err = New(mpich, 2)
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, tag := range []int{tag, fold(tag, 0, l.MPITagUB())} {
			f, err := l.Decode(tag)
			if err != nil {
				if msg := err.Error(); msg == "" || strings.Contains(msg, "\n") {
					t.Fatalf("%v: tag %d: bad error message %q", l, tag, msg)
				}
				if f != (Fields{}) {
					t.Fatalf("%v: tag %d rejected (%v) but decodes to %+v", l, tag, err, f)
				}
				continue
			}
			// A tag Decode accepts is one Encode produces, from the same fields.
			again, err := l.Encode(f)
			if err != nil || again != tag {
				t.Fatalf("%v: tag %d decodes to %+v, which encodes to %d, %v", l, tag, f, again, err)
			}
			if f2, err := l.Decode(again); err != nil || f2 != f {
				t.Fatalf("%v: tag %d: decode(encode(decode)) = %+v, %v; want %+v", l, tag, f2, err, f)
			}
		}
	})
}
