package osubench

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// SummaryRow is one (benchmark, series, size, mode, metric) summary.
type SummaryRow struct {
	Bench      Bench    `json:"bench"`
	Transport  string   `json:"transport"`
	Compute    string   `json:"compute"`
	Touch      string   `json:"touch"`  // on, off
	Series     string   `json:"series"` // the series' label, e.g. "busy compute, touched, shm"
	Place      string   `json:"place,omitempty"`
	Layout     string   `json:"layout"`
	Size       int64    `json:"size"`
	Mode       string   `json:"mode"`
	Metric     string   `json:"metric"`
	Unit       string   `json:"unit"`
	N          int      `json:"n"`
	Median     *float64 `json:"median"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
	Q1         *float64 `json:"q1"`
	Q3         *float64 `json:"q3"`
	RatioVsMPI *float64 `json:"ratio_vs_mpi,omitempty"` // median / mpi's median
}

func fptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// SummaryRows summarizes every metric of the results.
func SummaryRows(results []*BenchResult) []SummaryRow {
	var out []SummaryRow
	for _, br := range results {
		for _, s := range br.Sizes {
			for _, m := range append(append([]Metric(nil), Metrics[br.Bench]...), diagKeys...) {
				base := br.Summary("mpi", m.Key, s)
				for _, mode := range br.Modes {
					sp := br.Summary(mode, m.Key, s)
					row := SummaryRow{Bench: br.Bench, Transport: string(br.Transport), Compute: string(br.Compute), Touch: onOff(br.Touch),
						Series: br.Series.Label(), Place: string(br.Place), Layout: br.Layout.String(), Size: s, Mode: mode, Metric: m.Key, Unit: m.Unit,
						N: sp.N, Median: fptr(sp.Median), Min: fptr(sp.Min), Max: fptr(sp.Max), Q1: fptr(sp.Q1), Q3: fptr(sp.Q3)}
					if !m.NoRatio && contains(br.Modes, "mpi") {
						row.RatioVsMPI = fptr(Ratio(sp.Median, base.Median))
					}
					out = append(out, row)
				}
			}
		}
	}
	return out
}

func csvFloat(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', 8, 64)
}

// WriteSummaryCSV writes the summary rows as CSV.
func WriteSummaryCSV(w io.Writer, rows []SummaryRow) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"bench", "transport", "compute", "touch", "series", "layout", "size", "mode", "metric", "unit", "n", "median", "min", "max", "q1", "q3", "ratio_vs_mpi"})
	for _, r := range rows {
		_ = cw.Write([]string{string(r.Bench), r.Transport, r.Compute, r.Touch, r.Series, r.Layout, strconv.FormatInt(r.Size, 10), r.Mode, r.Metric, r.Unit, strconv.Itoa(r.N),
			csvFloat(r.Median), csvFloat(r.Min), csvFloat(r.Max), csvFloat(r.Q1), csvFloat(r.Q3), csvFloat(r.RatioVsMPI)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteRawCSV writes every measured value: one row per job, size and metric.
func WriteRawCSV(w io.Writer, results []*BenchResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"bench", "transport", "compute", "touch", "series", "layout", "mode", "rep", "size", "metric", "value"})
	for _, br := range results {
		for _, j := range br.Jobs {
			if j.Error != "" {
				continue
			}
			for _, p := range j.Points {
				keys := make([]string, 0, len(p.Values))
				for k := range p.Values {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					v := p.Values[k]
					if math.IsNaN(v) || math.IsInf(v, 0) {
						continue
					}
					_ = cw.Write([]string{string(br.Bench), string(br.Transport), string(br.Compute), onOff(br.Touch), br.Series.Label(),
						br.Layout.String(), j.Mode, strconv.Itoa(j.Rep), strconv.FormatInt(p.Size, 10), k,
						strconv.FormatFloat(v, 'g', 10, 64)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReportFormat is the version of results.json: 2 since the series
// (transport, compute kind, touch) of issue 14; a file without it is of
// format 1 (one untouched shm series per benchmark, one compute kind).
const ReportFormat = 2

// Report is the JSON document of a run.
type Report struct {
	Format  int            `json:"format"`
	Env     *EnvInfo       `json:"env"`
	Config  ConfigJSON     `json:"config"`
	Benches []*BenchResult `json:"benches"`
	Summary []SummaryRow   `json:"summary"`
	Targets []Target       `json:"targets"`
}

// ConfigJSON is the configuration as recorded in the report.
type ConfigJSON struct {
	Benches []Bench `json:"benches"`
	Modes   []Mode  `json:"modes"`
	Sizes   []int64 `json:"sizes,omitempty"`
	Layout  *Layout `json:"layout,omitempty"`
	// LegacyCompute is format 1's single compute kind (read only).
	LegacyCompute  Compute     `json:"compute,omitempty"`
	Computes       []Compute   `json:"computes"`
	Touches        []bool      `json:"touches"`
	Transports     []Transport `json:"transports"`
	Reps           int         `json:"reps"`
	BudgetMs       float64     `json:"budget_ms"`
	MinIters       int         `json:"min_iters"`
	MaxIters       int         `json:"max_iters"`
	OverlapCompute string      `json:"overlap_compute"`
	HaloComputeUs  float64     `json:"halo_compute_us"`
	Window         int         `json:"window"`
	PhaseComputeUs float64     `json:"phase_compute_us,omitempty"`
	PhasePingPongs int         `json:"phase_pingpongs,omitempty"`
	PhaseWindows   int         `json:"phase_windows,omitempty"`
	PhaseExchanges int         `json:"phase_exchanges,omitempty"`
	ProbeSliceUs   float64     `json:"probe_slice_us,omitempty"`
	ProbeThinkUs   float64     `json:"probe_think_us,omitempty"`
	RMAComputeUs   float64     `json:"rma_compute_us,omitempty"`
	GASliceUs      float64     `json:"ga_slice_us,omitempty"`
	RMAMinIters    int         `json:"rma_min_iters,omitempty"`
	Placements     []Placement `json:"placements,omitempty"`
	Quick          bool        `json:"quick"`
}

func configJSON(c *Config) ConfigJSON {
	return ConfigJSON{Benches: c.Benches, Modes: c.Modes, Sizes: c.Sizes, Layout: c.Layout, Computes: c.Computes,
		Touches: c.Touches, Transports: c.Transports, Reps: c.Reps,
		BudgetMs: c.BudgetMs, MinIters: c.MinIters, MaxIters: c.MaxIters, OverlapCompute: c.OverlapCompute,
		HaloComputeUs: c.HaloComputeUs, Window: c.Window, PhaseComputeUs: c.PhaseComputeUs, PhasePingPongs: c.PhasePingPongs,
		PhaseWindows: c.PhaseWindows, PhaseExchanges: c.PhaseExchanges, ProbeSliceUs: c.ProbeSliceUs, ProbeThinkUs: c.ProbeThinkUs,
		RMAComputeUs: c.RMAComputeUs, GASliceUs: c.GASliceUs, RMAMinIters: c.RMAMinIters, Placements: c.Placements,
		Quick: c.Quick}
}

// sanitize drops non-finite values, which JSON cannot carry.
func sanitize(results []*BenchResult) {
	for _, br := range results {
		for _, j := range br.Jobs {
			for _, p := range j.Points {
				for k, v := range p.Values {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						delete(p.Values, k)
					}
				}
			}
		}
	}
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	sanitize(rep.Benches)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// LoadReport reads a results.json written by WriteFiles.
func LoadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rep.Env == nil {
		rep.Env = &EnvInfo{}
	}
	if rep.Format < 2 {
		// Format 1: one series per benchmark, shm, untouched, the run's
		// single compute kind.
		c := rep.Config.LegacyCompute
		if c == "" {
			c = Sleep
		}
		rep.Config.Computes, rep.Config.Touches, rep.Config.Transports = []Compute{c}, []bool{false}, []Transport{SHM}
		for _, br := range rep.Benches {
			br.Series = Series{Transport: SHM, Compute: NoCompute}
			if br.Bench.Computes() {
				br.Compute = c
			}
			for _, j := range br.Jobs {
				j.Series = br.Series
			}
		}
	}
	return &rep, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// PlotName is the file name of the plot of br: overlap-busy-touched-shm.png.
func PlotName(br *BenchResult) string {
	return string(br.Bench) + "-" + br.Series.Slug() + ".png"
}

// WriteFiles writes results.json, summary.csv, raw.csv and one PNG plot per
// benchmark (if plots) into dir, and returns the paths written.
func WriteFiles(dir string, r *Runner, targets []Target, plots bool) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	write := func(name string, f func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		fh, err := os.Create(p)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := fh.Close(); err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	}
	rows := SummaryRows(r.Results)
	if err := write("summary.csv", func(w io.Writer) error { return WriteSummaryCSV(w, rows) }); err != nil {
		return paths, err
	}
	if err := write("raw.csv", func(w io.Writer) error { return WriteRawCSV(w, r.Results) }); err != nil {
		return paths, err
	}
	rep := &Report{Format: ReportFormat, Env: r.Env, Config: configJSON(&r.Cfg), Benches: r.Results, Summary: rows, Targets: targets}
	if err := write("results.json", func(w io.Writer) error { return WriteJSON(w, rep) }); err != nil {
		return paths, err
	}
	for _, br := range r.Results {
		if len(br.Modes) == 0 || !plots {
			continue
		}
		p := filepath.Join(dir, PlotName(br))
		if err := PlotBench(br, p); err != nil {
			return paths, fmt.Errorf("plot %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
