package test

import (
	"sort"
	"strconv"
	"testing"
)

// BenchmarkInterposeOverhead measures what the interposer adds to MPI
// calls it does not offload (issue 5's target: at most 20 ns), as the
// difference between the same program run plainly and preloaded, in
// alternating jobs (7 each; the report is the median of the per-job
// medians). 2 processes: plain MPICH, or 1 user + 1 ghost preloaded. Run:
//
//	go test ./test/ -run '^$' -bench InterposeOverhead -benchtime 1x
func BenchmarkInterposeOverhead(b *testing.B) {
	prog := CProg(b, "ip_overhead")
	plain := map[string][]float64{}
	pre := map[string][]float64{}
	for i := 0; i < 7; i++ {
		for _, preload := range []bool{false, true} {
			j := Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{"200000", "15"}}
			into := plain
			if preload {
				j.Preload = true
				j.Layout = Layout{N: 2, NodeSize: 2}
				into = pre
			}
			res := Run(b, j)
			for _, f := range ParseLines(res.Stdout, "overhead") {
				ns, err := strconv.ParseFloat(f["ns"], 64)
				if err != nil {
					b.Fatalf("bad line %q", f.Line())
				}
				into[f["call"]] = append(into[f["call"]], ns)
			}
		}
	}
	med := func(v []float64) float64 {
		sort.Float64s(v)
		return v[len(v)/2]
	}
	for _, call := range []string{"comm_rank_world", "comm_rank", "iprobe", "self_pair", "test_null"} {
		if len(plain[call]) == 0 || len(pre[call]) == 0 {
			b.Fatalf("no figures for %s", call)
		}
		p, q := med(plain[call]), med(pre[call])
		b.ReportMetric(q-p, call+"-added-ns")
		b.Logf("%-16s plain %7.2f ns  preloaded %7.2f ns  added %+6.2f ns", call, p, q, q-p)
	}
}
