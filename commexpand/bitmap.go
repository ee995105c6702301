package commexpand

import "math/bits"

// Bitmap is a set of small integers, bit i of word i/64 for i.
type Bitmap []uint64

func newBitmap(n int) Bitmap { return make(Bitmap, (n+63)/64) }

func (b Bitmap) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }
func (b Bitmap) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b Bitmap) clear(i int)    { b[i/64] &^= 1 << (i % 64) }

// lowest returns the k lowest members of b, or nil when b has fewer.
func (b Bitmap) lowest(k int) []int {
	out := make([]int, 0, k)
	for w, word := range b {
		for word != 0 && len(out) < k {
			i := bits.TrailingZeros64(word)
			out = append(out, w*64+i)
			word &^= 1 << i
		}
	}
	if len(out) < k {
		return nil
	}
	return out
}

func (b Bitmap) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
