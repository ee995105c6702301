package osubench

import (
	"fmt"
	"strconv"
	"strings"
)

// Fields is one "kind key=value ..." line of a benchmark program's output.
type Fields map[string]string

// ParseLines returns the key=value fields of every line of out whose first
// word is kind, in order. Words that are not key=value are ignored.
func ParseLines(out, kind string) []Fields {
	var res []Fields
	for _, line := range strings.Split(out, "\n") {
		w := strings.Fields(line)
		if len(w) == 0 || w[0] != kind {
			continue
		}
		f := Fields{}
		for _, kv := range w[1:] {
			if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
				f[k] = v
			}
		}
		res = append(res, f)
	}
	return res
}

// Float returns field k as a number.
func (f Fields) Float(k string) (float64, error) {
	v, ok := f[k]
	if !ok {
		return 0, fmt.Errorf("no field %s", k)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("field %s=%q: not a number", k, v)
	}
	return x, nil
}

// Point is the result of one size in one job: every numeric field of its
// "osub" line.
type Point struct {
	Size   int64              `json:"size"`
	Values map[string]float64 `json:"values"`
}

// ParsePoints reads the "osub bench=<b> size=<n> ..." lines of a job's
// stdout. Every other numeric field becomes a value.
func ParsePoints(stdout string, b Bench) ([]Point, error) {
	var pts []Point
	for _, f := range ParseLines(stdout, "osub") {
		if f["bench"] != string(b) {
			return nil, fmt.Errorf("result line of benchmark %q in a %s job", f["bench"], b)
		}
		sz, err := strconv.ParseInt(f["size"], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("result line without a size: %v", f)
		}
		p := Point{Size: sz, Values: map[string]float64{}}
		for k, v := range f {
			if k == "bench" || k == "size" {
				continue
			}
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				p.Values[k] = x
			}
		}
		if b == Overlap {
			// Recompute the overlap from the measured times (the program
			// prints it too; the formula lives in OverlapPct).
			if c, ok := p.Values["comm_us"]; ok {
				p.Values["overlap_pct"] = OverlapPct(c, p.Values["comp_us"], p.Values["total_us"])
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// CSPStats is one casperii-stats line: the offload counters of one user.
type CSPStats map[string]int64

// ParseCSPStats reads the casperii-stats lines of a job's stderr.
func ParseCSPStats(stderr string) []CSPStats {
	var out []CSPStats
	for _, f := range ParseLines(stderr, "casperii-stats") {
		s := CSPStats{}
		for k, v := range f {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				s[k] = n
			}
		}
		out = append(out, s)
	}
	return out
}

// SumStats adds up the counters of all users.
func SumStats(ss []CSPStats) CSPStats {
	t := CSPStats{}
	for _, s := range ss {
		for k, v := range s {
			if k != "rank" {
				t[k] += v
			}
		}
	}
	return t
}
