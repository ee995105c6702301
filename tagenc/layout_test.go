package tagenc

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	mpich = 1<<28 - 1 // MPI_TAG_UB of MPICH 4.0.2
	int31 = 1<<31 - 1
)

// TestNewAllocation checks the bit allocation against hand-computed values.
func TestNewAllocation(t *testing.T) {
	type alloc struct{ bits, offset, ctx, user int }
	impossible := alloc{} // New must fail with ErrNoTagSpace
	tests := []struct {
		tagUB, users int
		want         alloc
	}{
		{mpich, 1, alloc{28, 0, 6, 20}},
		{mpich, 2, alloc{28, 1, 6, 18}},
		{mpich, 3, alloc{28, 2, 6, 16}},
		{mpich, 4, alloc{28, 2, 6, 16}},
		{mpich, 5, alloc{28, 3, 5, 15}},
		{mpich, 8, alloc{28, 3, 5, 15}},
		{mpich, 16, alloc{28, 4, 3, 15}},
		{mpich, 32, alloc{28, 5, 1, 15}},
		{mpich, 33, impossible},
		{mpich, 64, impossible},
		{mpich, 1000, impossible},

		{int31, 1, alloc{31, 0, 6, 23}},
		{int31, 2, alloc{31, 1, 6, 21}},
		{int31, 3, alloc{31, 2, 6, 19}},
		{int31, 4, alloc{31, 2, 6, 19}},
		{int31, 8, alloc{31, 3, 6, 17}},
		{int31, 16, alloc{31, 4, 6, 15}},
		{int31, 32, alloc{31, 5, 4, 15}},
		{int31, 64, alloc{31, 6, 2, 15}},
		{int31, 128, alloc{31, 7, 0, 15}},
		{int31, 129, impossible},
		{int31, 1000, impossible},

		// 2^28-2 cannot hold 28 bits: 2^28-1 > 2^28-2.
		{mpich - 1, 1, alloc{27, 0, 6, 19}},
		{mpich - 1, 2, alloc{27, 1, 6, 17}},
		{mpich - 1, 3, alloc{27, 2, 6, 15}},
		{mpich - 1, 4, alloc{27, 2, 6, 15}},
		{mpich - 1, 8, alloc{27, 3, 4, 15}},
		{mpich - 1, 16, alloc{27, 4, 2, 15}},
		{mpich - 1, 32, alloc{27, 5, 0, 15}},
		{mpich - 1, 64, impossible},
		{mpich - 1, 1000, impossible},

		// A bound between 2^k-1 and 2^(k+1)-2 uses k bits.
		{1<<28 + 12345, 2, alloc{28, 1, 6, 18}},

		// The minimum MPI_TAG_UB leaves no room for flags.
		{32767, 1, impossible},
		{32767, 2, impossible},
		{32767, 1000, impossible},
		{1<<17 - 1, 1, alloc{17, 0, 0, 15}},
		{1<<18 - 1, 1, alloc{18, 0, 1, 15}},
		{1<<19 - 1, 2, alloc{19, 1, 0, 15}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tagUB=%d/users=%d", tt.tagUB, tt.users), func(t *testing.T) {
			l, err := New(tt.tagUB, tt.users)
			if tt.want == impossible {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrNoTagSpace)
				assert.Equal(t, Layout{}, l)
				return
			}
			require.NoError(t, err)
			got := alloc{l.Bits(), l.OffsetBits(), l.CtxBits(), l.UserBits()}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, 2, l.FlagBits())
			assert.Equal(t, l.Bits(), l.FlagBits()+l.CtxBits()+2*l.OffsetBits()+l.UserBits(), "fields fill the bits")
			assert.LessOrEqual(t, 1<<l.Bits()-1, tt.tagUB)
			assert.Greater(t, 1<<(l.Bits()+1)-1, tt.tagUB, "Bits is the largest k with 2^k-1 <= MPI_TAG_UB")
			assert.Equal(t, 1<<tt.want.user-1, l.ExposedTagUB())
			assert.GreaterOrEqual(t, l.ExposedTagUB(), MinTagUB)
			assert.Equal(t, 1<<tt.want.ctx, l.MaxContexts())
			assert.Equal(t, tt.users-1, l.MaxOffset())
			assert.Less(t, l.MaxOffset(), 1<<l.OffsetBits(), "offsets fit their field")
			assert.Equal(t, tt.tagUB, l.MPITagUB())
			assert.Equal(t, tt.users, l.UsersPerGhost())
		})
	}
}

func TestNewBelowMinimumTagUB(t *testing.T) {
	for _, ub := range []int{32766, 0, -1, 1} {
		_, err := New(ub, 1)
		require.Error(t, err, "MPI_TAG_UB %d", ub)
		assert.NotErrorIs(t, err, ErrNoTagSpace)
		assert.Contains(t, err.Error(), fmt.Sprint(ub))
		assert.Contains(t, err.Error(), "32767")
	}
}

func TestNewRejectsBadArguments(t *testing.T) {
	tests := []struct {
		name                 string
		tagUB, users, ctxPre int
		wantInError          string
	}{
		{"zero users", mpich, 0, 6, "at least 1 user"},
		{"negative users", mpich, -3, 6, "-3 users"},
		{"negative ctx", mpich, 1, -1, "-1 context bits"},
		{"tag UB above C int", 1 << 31, 1, 6, "C int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewWithContexts(tt.tagUB, tt.users, tt.ctxPre)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantInError)
			assert.Equal(t, Layout{}, l)
		})
	}
}

func TestNoTagSpaceErrorExplains(t *testing.T) {
	_, err := New(mpich, 1000)
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		"268435455",                  // the implementation's bound
		"1000 users per ghost",       // the cause
		"37",                         // bits needed: 2 + 2*10 + 15
		"below 32767",                // the consequence
		"raise CSP_NG",               // a fix
		"any_tag_same_tag",           // the other fix
		"2 flag + 2x10 offset + 15 ", // the arithmetic
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "\n")

	// With one user per ghost, more ghosts do not help: only the hint does.
	_, err = New(32767, 1)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 user per ghost needs 17")
	assert.NotContains(t, err.Error(), "CSP_NG")
	assert.Contains(t, err.Error(), "any_tag_same_tag")
}

func TestNewWithContexts(t *testing.T) {
	cases := []struct {
		tagUB, users, pref, wantCtx, wantUser int
	}{
		{mpich, 2, 0, 0, 24},
		{mpich, 2, 9, 9, 15},
		{mpich, 2, 10, 9, 15}, // capped so that user tags keep 15 bits
		{mpich, 2, 100, 9, 15},
		{int31, 1, 14, 14, 15},
		{int31, 1, 3, 3, 26},
	}
	for _, c := range cases {
		l, err := NewWithContexts(c.tagUB, c.users, c.pref)
		require.NoError(t, err)
		assert.Equal(t, c.wantCtx, l.CtxBits(), "%+v", c)
		assert.Equal(t, c.wantUser, l.UserBits(), "%+v", c)
	}
}

// NewForTagUB gives user tags the bits the asked bound needs and the
// context field the rest; a bound that does not fit says the largest that
// does.
func TestNewForTagUB(t *testing.T) {
	cases := []struct {
		mpiUB, users, tagUB, wantCtx, wantUser int
	}{
		{mpich, 2, 32767, 9, 15},
		{mpich, 2, 424242, 5, 19}, // OpenCoarrays' image-status tag
		{mpich, 2, 1<<19 - 1, 5, 19},
		{mpich, 2, 1 << 19, 4, 20},
		{mpich, 2, 1<<24 - 1, 0, 24},
		{mpich, 4, 424242, 3, 19},
		{mpich, 1, mpich >> 2, 0, 26},
	}
	for _, c := range cases {
		l, err := NewForTagUB(c.mpiUB, c.users, c.tagUB)
		require.NoError(t, err, "%+v", c)
		assert.Equal(t, c.wantCtx, l.CtxBits(), "%+v", c)
		assert.Equal(t, c.wantUser, l.UserBits(), "%+v", c)
		assert.GreaterOrEqual(t, l.ExposedTagUB(), c.tagUB, "%+v", c)
	}
	_, err := NewForTagUB(mpich, 2, 1<<24)
	require.ErrorIs(t, err, ErrNoTagSpace)
	assert.Contains(t, err.Error(), "tags up to 16777215")
	_, err = NewForTagUB(mpich, 2, mpich)
	require.ErrorIs(t, err, ErrNoTagSpace)
	for _, bad := range []int{-1, 0, MinTagUB - 1} {
		_, err := NewForTagUB(mpich, 2, bad)
		require.Error(t, err, "%d", bad)
		require.NotErrorIs(t, err, ErrNoTagSpace, "%d", bad)
	}
}

func TestString(t *testing.T) {
	l, err := New(mpich, 2)
	require.NoError(t, err)
	assert.Equal(t, "tag layout: 28 bits = flags 2 | ctx 6 | src 1 | dst 1 | user 18 (exposed MPI_TAG_UB 262143)", l.String())

	l, err = New(int31, 128)
	require.NoError(t, err)
	assert.Equal(t, "tag layout: 31 bits = flags 2 | ctx 0 | src 7 | dst 7 | user 15 (exposed MPI_TAG_UB 32767)", l.String())
}

func TestShifts(t *testing.T) {
	l, err := New(mpich, 3) // flags 2 | ctx 6 | src 2 | dst 2 | user 16
	require.NoError(t, err)
	want := Shifts{
		Flags: Field{Shift: 26, Width: 2, Mask: 3},
		Ctx:   Field{Shift: 20, Width: 6, Mask: 63},
		Src:   Field{Shift: 18, Width: 2, Mask: 3},
		Dst:   Field{Shift: 16, Width: 2, Mask: 3},
		Tag:   Field{Shift: 0, Width: 16, Mask: 65535},
	}
	assert.Equal(t, want, l.Shifts())

	l, err = New(mpich, 1) // no offset bits: empty fields with zero masks
	require.NoError(t, err)
	s := l.Shifts()
	assert.Equal(t, Field{Shift: 20, Width: 0, Mask: 0}, s.Src)
	assert.Equal(t, Field{Shift: 20, Width: 0, Mask: 0}, s.Dst)
	assert.Equal(t, Field{Shift: 20, Width: 6, Mask: 63}, s.Ctx)
}

// TestShiftsMirrorEncode computes tags with the formula documented on
// Shifts, as the C fast path does, and compares them with Encode.
func TestShiftsMirrorEncode(t *testing.T) {
	rng := newRand(t)
	for range 200 {
		l := randomLayout(rng)
		s := l.Shifts()
		for range 50 {
			f := randomFields(rng, l)
			want, err := l.Encode(f)
			require.NoError(t, err)
			got := f.Flags<<s.Flags.Shift | f.Ctx<<s.Ctx.Shift | f.Src<<s.Src.Shift | f.Dst<<s.Dst.Shift | f.Tag<<s.Tag.Shift
			require.Equal(t, want, got, "%v %+v", l, f)
			back := Fields{
				Flags: got >> s.Flags.Shift & s.Flags.Mask,
				Ctx:   got >> s.Ctx.Shift & s.Ctx.Mask,
				Src:   got >> s.Src.Shift & s.Src.Mask,
				Dst:   got >> s.Dst.Shift & s.Dst.Mask,
				Tag:   got >> s.Tag.Shift & s.Tag.Mask,
			}
			require.Equal(t, f, back)
		}
	}
}

func TestZeroLayoutRejected(t *testing.T) {
	var l Layout
	_, err := l.Encode(Fields{})
	require.Error(t, err)
	_, err = l.Decode(0)
	require.Error(t, err)
	assert.False(t, errors.Is(err, ErrNoTagSpace))
}
