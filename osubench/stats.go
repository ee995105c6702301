package osubench

import (
	"math"
	"sort"
)

// Spread summarizes repeated measurements of one quantity.
type Spread struct {
	N                        int
	Median, Min, Max, Q1, Q3 float64
	Mean                     float64
	RelSpread                float64   // (Max-Min)/Median
	IQRRel                   float64   // (Q3-Q1)/Median
	Values                   []float64 `json:"-"`
}

// Quantile returns the q-quantile (0 <= q <= 1) of sorted values by linear
// interpolation between closest ranks (NaN if there are none).
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return sorted[0]
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[n-1]
	}
	pos := q * float64(n-1)
	i := int(math.Floor(pos))
	f := pos - float64(i)
	if i+1 >= n {
		return sorted[n-1]
	}
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// Median returns the median of vs (NaN if empty); vs is not modified.
func Median(vs []float64) float64 {
	s := sortedFinite(vs)
	return Quantile(s, 0.5)
}

func sortedFinite(vs []float64) []float64 {
	s := make([]float64, 0, len(vs))
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s = append(s, v)
		}
	}
	sort.Float64s(s)
	return s
}

// Summarize computes the median and spread of vs (NaN and Inf ignored).
func Summarize(vs []float64) Spread {
	s := sortedFinite(vs)
	sp := Spread{N: len(s), Values: s}
	if len(s) == 0 {
		nan := math.NaN()
		sp.Median, sp.Min, sp.Max, sp.Q1, sp.Q3, sp.Mean = nan, nan, nan, nan, nan, nan
		sp.RelSpread, sp.IQRRel = nan, nan
		return sp
	}
	sp.Median = Quantile(s, 0.5)
	sp.Min, sp.Max = s[0], s[len(s)-1]
	sp.Q1, sp.Q3 = Quantile(s, 0.25), Quantile(s, 0.75)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	sp.Mean = sum / float64(len(s))
	if sp.Median != 0 {
		sp.RelSpread = (sp.Max - sp.Min) / math.Abs(sp.Median)
		sp.IQRRel = (sp.Q3 - sp.Q1) / math.Abs(sp.Median)
	}
	return sp
}

// OverlapPct is the overlap of communication and computation in percent:
// 100 * (tComm + tComp - tTotal) / min(tComm, tComp), where tComm is the time
// of the communication alone, tComp of the computation alone and tTotal of
// the two together. 100 means the shorter one was hidden completely, 0 that
// nothing was; the value is not clamped (noise can push it past either end).
// It is NaN if either time is not positive.
func OverlapPct(tComm, tComp, tTotal float64) float64 {
	m := math.Min(tComm, tComp)
	if !(m > 0) {
		return math.NaN()
	}
	return 100 * (tComm + tComp - tTotal) / m
}

// Ratio returns a/b, NaN if b is zero or either is NaN.
func Ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}
