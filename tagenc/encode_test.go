package tagenc

import (
	"errors"
	"flag"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var seedFlag = flag.Uint64("seed", 0, "seed of the random property tests (0: from the clock)")

// newRand returns a generator whose seed the test logs, so that a failure
// can be replayed with -seed.
func newRand(t *testing.T) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -seed %d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed))
}

// randomLayout returns a valid layout with a random MPI_TAG_UB, number of
// users per ghost and preferred context width.
func randomLayout(rng *rand.Rand) Layout {
	for {
		k := 15 + rng.IntN(17) // 2^k-1 in [32767, 2^31-1]
		lo := 1<<k - 1
		hi := min(1<<(k+1)-2, int31)
		tagUB := lo + rng.IntN(hi-lo+1)
		users := 1 + rng.IntN(1<<rng.IntN(9))
		l, err := NewWithContexts(tagUB, users, rng.IntN(12))
		if err == nil {
			return l
		}
	}
}

// randomFields returns valid fields for l, biased towards the ends of
// each range.
func randomFields(rng *rand.Rand, l Layout) Fields {
	pick := func(max int) int {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return max
		default:
			return rng.IntN(max + 1)
		}
	}
	return Fields{
		Flags: pick(3),
		Ctx:   pick(l.MaxContexts() - 1),
		Src:   pick(l.MaxOffset()),
		Dst:   pick(l.MaxOffset()),
		Tag:   pick(l.ExposedTagUB()),
	}
}

func TestEncodeKnownValues(t *testing.T) {
	l, err := New(mpich, 2) // flags 2 | ctx 6 | src 1 | dst 1 | user 18
	require.NoError(t, err)
	tests := []struct {
		f    Fields
		want int
	}{
		{Fields{}, 0},
		{Fields{Tag: 7}, 7},
		{Fields{Dst: 1}, 1 << 18},
		{Fields{Src: 1}, 1 << 19},
		{Fields{Ctx: 1}, 1 << 20},
		{Fields{Flags: FlagSync}, 1 << 26},
		{Fields{Flags: FlagAck}, 1 << 27},
		{Fields{Flags: FlagAck, Ctx: 5, Src: 1, Dst: 0, Tag: 7}, 139984903},
		{Fields{Flags: FlagSync | FlagAck, Ctx: 63, Src: 1, Dst: 1, Tag: 262143}, mpich},
	}
	for _, tt := range tests {
		got, err := l.Encode(tt.f)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, "%+v", tt.f)
		assert.Equal(t, tt.want, l.EncodeUnchecked(tt.f))
		back, err := l.Decode(got)
		require.NoError(t, err)
		assert.Equal(t, tt.f, back)
	}
}

// TestRoundTripRandom: for random layouts and valid fields, the tag is in
// [0, MPI_TAG_UB] and decodes to the same fields.
func TestRoundTripRandom(t *testing.T) {
	rng := newRand(t)
	for range 2000 {
		l := randomLayout(rng)
		for range 50 {
			f := randomFields(rng, l)
			tag, err := l.Encode(f)
			if err != nil || tag < 0 || tag > l.MPITagUB() || tag != l.EncodeUnchecked(f) {
				t.Fatalf("%v: %+v encodes to %d, %v (unchecked %d)", l, f, tag, err, l.EncodeUnchecked(f))
			}
			if got, err := l.Decode(tag); err != nil || got != f {
				t.Fatalf("%v: %+v encodes to %d, which decodes to %+v, %v", l, f, tag, got, err)
			}
		}
	}
}

// TestDistinctFieldsDistinctTagsRandom compares pairs of random fields
// that differ, often in a single field.
func TestDistinctFieldsDistinctTagsRandom(t *testing.T) {
	rng := newRand(t)
	for range 2000 {
		l := randomLayout(rng)
		for range 50 {
			a := randomFields(rng, l)
			b := a
			switch other := randomFields(rng, l); rng.IntN(6) {
			case 0:
				b.Flags = other.Flags
			case 1:
				b.Ctx = other.Ctx
			case 2:
				b.Src = other.Src
			case 3:
				b.Dst = other.Dst
			case 4:
				b.Tag = other.Tag
			default:
				b = other
			}
			if a == b {
				continue
			}
			ta, errA := l.Encode(a)
			tb, errB := l.Encode(b)
			if errA != nil || errB != nil || ta == tb {
				t.Fatalf("%v: %+v and %+v encode to %d, %d (%v, %v)", l, a, b, ta, tb, errA, errB)
			}
		}
	}
}

// forAllFields calls fn for every valid Fields of l.
func forAllFields(l Layout, fn func(Fields)) {
	for flags := range 1 << FlagBits {
		for ctx := range l.MaxContexts() {
			for src := range l.MaxOffset() + 1 {
				for dst := range l.MaxOffset() + 1 {
					for tag := range l.ExposedTagUB() + 1 {
						fn(Fields{flags, ctx, src, dst, tag})
					}
				}
			}
		}
	}
}

// TestExhaustiveSmallLayouts enumerates every valid Fields of small
// layouts: tags are distinct and in range, and when the users per ghost
// are a power of two Encode is a bijection onto [0, 2^Bits-1].
func TestExhaustiveSmallLayouts(t *testing.T) {
	tests := []struct {
		tagUB, users, ctx int
		bijection         bool
	}{
		{1<<17 - 1, 1, 6, true},     // flags 2 | user 15
		{1<<18 - 1, 1, 6, true},     // flags 2 | ctx 1 | user 15
		{1<<19 - 1, 2, 6, true},     // flags 2 | src 1 | dst 1 | user 15
		{1<<21 - 1, 3, 6, false},    // flags 2 | src 2 | dst 2 | user 15; offset 3 unused
		{1<<20 + 5000, 2, 0, true},  // flags 2 | src 1 | dst 1 | user 16, bound not 2^k-1
		{1<<17 - 1, 1, 0, true},     // no context requested
		{1<<18 - 2, 1, 6, true},     // 2^18-2 holds only 17 bits
		{1<<17 + 1<<16, 1, 6, true}, // between two powers of two
	}
	for _, tt := range tests {
		l, err := NewWithContexts(tt.tagUB, tt.users, tt.ctx)
		require.NoError(t, err)
		t.Run(l.String(), func(t *testing.T) {
			seen := make([]bool, 1<<l.Bits())
			n := 0
			forAllFields(l, func(f Fields) {
				tag, err := l.Encode(f)
				if err != nil || tag < 0 || tag > l.MPITagUB() || seen[tag] {
					t.Fatalf("%+v: tag %d, err %v (seen before: %v)", f, tag, err, err == nil && tag >= 0 && tag < len(seen) && seen[tag])
				}
				seen[tag] = true
				n++
			})
			if tt.bijection {
				assert.Equal(t, len(seen), n, "every tag of the layout's bits is used")
			}
			// Every tag is either produced by Encode or rejected by Decode.
			for tag := range l.MPITagUB() + 1 {
				f, err := l.Decode(tag)
				encoded := tag < len(seen) && seen[tag]
				switch {
				case encoded && err != nil:
					t.Fatalf("tag %d: encoded, but Decode fails: %v", tag, err)
				case encoded && l.EncodeUnchecked(f) != tag:
					t.Fatalf("tag %d decodes to %+v, which encodes to %d", tag, f, l.EncodeUnchecked(f))
				case !encoded && err == nil:
					t.Fatalf("tag %d was never encoded, but decodes to %+v", tag, f)
				}
			}
		})
	}
}

func TestUserTagBounds(t *testing.T) {
	for _, users := range []int{1, 2, 3, 8, 32} {
		l, err := New(mpich, users)
		require.NoError(t, err)
		ub := l.ExposedTagUB()
		if l.UserBits() == 15 {
			for tag := 0; tag <= ub; tag++ {
				_, err := l.Encode(Fields{Tag: tag, Src: l.MaxOffset()})
				require.NoError(t, err, "tag %d", tag)
			}
		}
		for _, tag := range []int{0, 1, ub / 2, ub - 1, ub} {
			_, err := l.Encode(Fields{Tag: tag})
			require.NoError(t, err, "tag %d", tag)
		}
		for _, tag := range []int{ub + 1, ub + 2, 2 * ub, mpich, -1, -ub} {
			_, err := l.Encode(Fields{Tag: tag})
			var fe *FieldError
			require.ErrorAs(t, err, &fe, "tag %d", tag)
			assert.Equal(t, FieldError{Field: "user tag", Value: tag, Max: ub}, *fe)
		}
	}
}

func TestEncodeRejectsEachField(t *testing.T) {
	l, err := New(mpich, 3) // flags 2 | ctx 6 | src 2 | dst 2 | user 16
	require.NoError(t, err)
	valid := Fields{Flags: 3, Ctx: 63, Src: 2, Dst: 2, Tag: 65535}
	_, err = l.Encode(valid)
	require.NoError(t, err)

	tests := []struct {
		field string
		set   func(*Fields, int)
		max   int
	}{
		{"flags", func(f *Fields, v int) { f.Flags = v }, 3},
		{"ctx", func(f *Fields, v int) { f.Ctx = v }, 63},
		{"src offset", func(f *Fields, v int) { f.Src = v }, 2},
		{"dst offset", func(f *Fields, v int) { f.Dst = v }, 2},
		{"user tag", func(f *Fields, v int) { f.Tag = v }, 65535},
	}
	for _, tt := range tests {
		// Offset 3 fits the 2-bit field but is not a user's offset.
		for _, bad := range []int{-1, -1 << 40, tt.max + 1, 1 << 40} {
			f := valid
			tt.set(&f, bad)
			tag, err := l.Encode(f)
			var fe *FieldError
			require.ErrorAs(t, err, &fe, "%s = %d", tt.field, bad)
			assert.Equal(t, FieldError{Field: tt.field, Value: bad, Max: tt.max}, *fe)
			assert.Zero(t, tag)
		}
	}
	var fe *FieldError
	_, err = l.Encode(Fields{Src: 3})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "tagenc: src offset 3 out of range [0, 2]", err.Error())
}

func TestDecodeRejects(t *testing.T) {
	l, err := New(1<<28+12345, 3) // 28 bits = flags 2 | ctx 6 | src 2 | dst 2 | user 16
	require.NoError(t, err)
	bad := []struct {
		tag  int
		want string
	}{
		{-1, "tag -1 out of range [0, 268447801]"},
		{-1 << 40, "out of range"},
		{1<<28 + 12346, "out of range"},
		{1 << 40, "out of range"},
		{1 << 28, "sets bits above the 28 bits"},
		{1<<28 + 12345, "sets bits above"},
		{3 << 18, "offsets src 3, dst 0, above the maximum 2"},
		{3 << 16, "offsets src 0, dst 3, above the maximum 2"},
	}
	for _, b := range bad {
		f, err := l.Decode(b.tag)
		require.Error(t, err, "tag %d", b.tag)
		assert.Contains(t, err.Error(), b.want)
		assert.Equal(t, Fields{}, f)
	}
	var de *DecodeError
	_, err = l.Decode(3 << 18)
	require.True(t, errors.As(err, &de))
	assert.Equal(t, DecodeError{Tag: 3 << 18, Layout: l}, *de)
}

var sink int

func BenchmarkEncode(b *testing.B) {
	l, err := New(mpich, 4)
	require.NoError(b, err)
	f := Fields{Flags: FlagSync, Ctx: 5, Src: 3, Dst: 1, Tag: 1234}
	for b.Loop() {
		t, err := l.Encode(f)
		if err != nil {
			b.Fatal(err)
		}
		sink += t
	}
}

func BenchmarkEncodeUnchecked(b *testing.B) {
	l, err := New(mpich, 4)
	require.NoError(b, err)
	f := Fields{Flags: FlagSync, Ctx: 5, Src: 3, Dst: 1, Tag: 1234}
	for b.Loop() {
		sink += l.EncodeUnchecked(f)
	}
}

func BenchmarkDecode(b *testing.B) {
	l, err := New(mpich, 4)
	require.NoError(b, err)
	tag := l.EncodeUnchecked(Fields{Flags: FlagSync, Ctx: 5, Src: 3, Dst: 1, Tag: 1234})
	for b.Loop() {
		f, err := l.Decode(tag)
		if err != nil {
			b.Fatal(err)
		}
		sink += f.Tag
	}
}
