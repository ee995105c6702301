package tagenc_test

import (
	"math/rand"
	"testing"
	"unsafe"

	"github.com/casperii/casperii/tagenc"
	"github.com/casperii/casperii/tagenc/internal/ctags"
)

// TestCEncodeMatchesGo: the C fast path's encoder (csp_tag_encode in
// tagenc.h), fed the positions Layout.CTags gives it, makes the same tag
// as Layout.EncodeUnchecked, for every field at its bounds and at random,
// over layouts of many shapes. The two cannot drift apart unnoticed.
func TestCEncodeMatchesGo(t *testing.T) {
	if unsafe.Sizeof(tagenc.CTags{}) != ctags.Size {
		t.Fatalf("CTags is %d bytes, struct csp_tags %d", unsafe.Sizeof(tagenc.CTags{}), ctags.Size)
	}
	rng := rand.New(rand.NewSource(17))
	n := 0
	for _, ub := range []int{32767, 65535, 1<<21 - 1, 1<<28 - 1, 1<<31 - 1} {
		for _, users := range []int{1, 2, 3, 4, 7, 16, 64} {
			for ctx := 0; ctx <= 8; ctx += 2 {
				l, err := tagenc.NewWithContexts(ub, users, ctx)
				if err != nil {
					continue
				}
				ct := l.CTags(l.ExposedTagUB())
				if int(ct.ExposedUb) != l.ExposedTagUB() || int(ct.UserBits) != l.UserBits() {
					t.Fatalf("%v: CTags says exposed %d, user bits %d", l, ct.ExposedUb, ct.UserBits)
				}
				pick := func(max int) int {
					switch rng.Intn(3) {
					case 0:
						return 0
					case 1:
						return max
					}
					return rng.Intn(max + 1)
				}
				for i := 0; i < 200; i++ {
					f := tagenc.Fields{
						Flags: pick(1<<tagenc.FlagBits - 1),
						Ctx:   pick(l.MaxContexts() - 1),
						Src:   pick(l.MaxOffset()),
						Dst:   pick(l.MaxOffset()),
						Tag:   pick(l.ExposedTagUB()),
					}
					want := l.EncodeUnchecked(f)
					if got := ctags.Encode(ct, f.Flags, f.Ctx, f.Src, f.Dst, f.Tag); got != want {
						t.Fatalf("%v, %+v: C encodes %#x, Go %#x", l, f, got, want)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no layout tried")
	}
}
