package test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkDirectPathInstructions counts the instructions the library's
// own C executes per message on the direct route (issue 15 item 5: with
// offload off, an application runs within 5% of plain MPICH), with
// CSP_ASYNC_CONFIG=off and =auto (direct there too, with the self-profile
// on). Callgrind counts them, so the figures repeat whatever else runs on
// the host, unlike times. ip_pathcost runs three patterns between two
// users, each inside a function of its own that callgrind collects
// (--toggle-collect): osub-rate's window of 64 MPI_Isend / MPI_Irecv and
// MPI_Waitall, osub-latency's exchange (MPI_Irecv + MPI_Isend +
// MPI_Waitall), and a blocking ping-pong. The instructions of code whose
// source is in this repository (the interposer, the user side, the
// headers they inline) are summed and divided by the messages one user
// posts, for each of the two users (the rate's sender and receiver differ).
// Run:
//
//	go test ./test/ -run '^$' -bench DirectPathInstructions -benchtime 1x -v
func BenchmarkDirectPathInstructions(b *testing.B) {
	vg, err := exec.LookPath("valgrind")
	if err != nil {
		b.Skip("valgrind is not installed (scripts/setup.sh installs it)")
	}
	prog := CProg(b, "ip_pathcost")
	root := Root(b)
	const iters, window = 2000, 64
	for _, cfg := range []string{"off", "auto"} {
		for _, pat := range []string{"rate", "latency", "blocking"} {
			dir := b.TempDir()
			wrap := filepath.Join(dir, "vgwrap.sh")
			// Layout n4-node2: world ranks 1 and 3 are the users.
			script := "#!/bin/sh\ncase \"$PMI_RANK\" in\n1|3) exec " + vg +
				" --tool=callgrind --collect-atstart=no --toggle-collect=pc_" + pat +
				" --callgrind-out-file=" + dir + "/cg.$PMI_RANK --log-file=" + dir + "/vg.$PMI_RANK.log \"$@\" ;;\n" +
				"*) exec \"$@\" ;;\nesac\n"
			if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
				b.Fatal(err)
			}
			res := Run(b, Job{Layout: Layout{N: 4, NodeSize: 2}, Prog: wrap,
				Args: []string{prog, strconv.Itoa(iters), strconv.Itoa(window), "8"}, Preload: true,
				Timeout: 300 * time.Second,
				// As TestValgrindFastPath: Go's preemption signals and the
				// lending timer's off under valgrind.
				Env: []string{"CSP_ASYNC_CONFIG=" + cfg, "GODEBUG=asyncpreemptoff=1", "CSP_LEND_TIMER=off"}})
			if res.ExitCode != 0 {
				b.Fatalf("%s %s: exit %d\n%s", cfg, pat, res.ExitCode, res.Output())
			}
			lines := Select(ParseLines(res.Stdout, "pathcost"), "pattern="+pat)
			if len(lines) != 1 {
				b.Fatalf("%s %s: no pathcost line\n%s", cfg, pat, res.Output())
			}
			msgs, _ := lines[0].Int("msgs")
			for i, rank := range []string{"1", "3"} {
				total, ours, err := callgrindOurs(filepath.Join(dir, "cg."+rank), root)
				if err != nil || msgs <= 0 {
					b.Fatalf("%s %s rank %s: %v (msgs %d)", cfg, pat, rank, err, msgs)
				}
				per := float64(ours) / float64(msgs)
				b.ReportMetric(per, fmt.Sprintf("%s-%s-user%d-instr/msg", cfg, pat, i))
				b.Logf("%-4s %-8s user %d: library %6.1f instructions per message (all code %6.0f)", cfg, pat, i, per,
					float64(total)/float64(msgs))
			}
		}
	}
}

// BenchmarkDirectPathTime times what the direct route adds per message,
// against MPICH's own calls in the same job: ip_pathtime alternates
// batches of the MPI_ calls (through the interposer) and the same PMPI_
// calls on one communicator, so that both run on the same host, with
// the same placement and in the same regime of the machine (timings of
// separate jobs swing by more than the difference here). The plain job
// (no library: MPI_ and PMPI_ are the same calls) shows the method's own
// noise. Reports, per mode and pattern, the median over 40 batches of
// the MPI_/PMPI_ ratio and the nanoseconds added per iteration. Run:
//
//	go test ./test/ -run '^$' -bench DirectPathTime -benchtime 1x -v
func BenchmarkDirectPathTime(b *testing.B) {
	prog := CProg(b, "ip_pathtime")
	for _, mode := range []string{"plain", "off", "auto"} {
		j := Job{Layout: Layout{N: 2}, Prog: prog, Args: []string{"2000", "40", "8"}, Timeout: 300 * time.Second}
		if mode != "plain" {
			j.Layout, j.Preload, j.Env = Layout{N: 4, NodeSize: 2}, true, []string{"CSP_ASYNC_CONFIG=" + mode}
		}
		res := Run(b, j)
		if res.ExitCode != 0 {
			b.Fatalf("%s: exit %d\n%s", mode, res.ExitCode, res.Output())
		}
		lines := ParseLines(res.Stdout, "pathtime")
		if len(lines) != 3 {
			b.Fatalf("%s: %d pathtime lines\n%s", mode, len(lines), res.Output())
		}
		for _, f := range lines {
			ratio, err1 := strconv.ParseFloat(f["ratio"], 64)
			added, err2 := strconv.ParseFloat(f["added_ns"], 64)
			if err1 != nil || err2 != nil {
				b.Fatalf("bad line %q", f.Line())
			}
			b.ReportMetric(ratio, mode+"-"+f["pattern"]+"-ratio")
			b.Logf("%-5s %-8s MPI_ %8s ns  PMPI_ %8s ns  ratio %.3f  added %+6.1f ns per iteration",
				mode, f["pattern"], f["mpi_ns"], f["pmpi_ns"], ratio, added)
		}
	}
}

// callgrindOurs reads a callgrind output file (events Ir) and returns the
// instructions counted in all and those of code whose source file is
// under root: self cost, attributed to the file of each cost line (the
// inlined file, fi= / fe=, where there is one).
func callgrindOurs(path, root string) (total, ours int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	files := map[string]string{} // compressed id -> name (fl, fi, fe, cfi, cfl share ids)
	name := func(v string) string {
		// "(id) name" defines id, "(id)" refers to it, "name" is uncompressed.
		if strings.HasPrefix(v, "(") {
			if i := strings.Index(v, ")"); i > 0 {
				id, rest := v[:i+1], strings.TrimSpace(v[i+1:])
				if rest != "" {
					files[id] = rest
				}
				return files[id]
			}
		}
		return v
	}
	var fl, cur string
	afterCalls := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "fl="):
			fl = name(line[3:])
			cur = fl
		case strings.HasPrefix(line, "fi="), strings.HasPrefix(line, "fe="):
			cur = name(line[3:])
		case strings.HasPrefix(line, "fn="):
			cur = fl
		case strings.HasPrefix(line, "cfi="), strings.HasPrefix(line, "cfl="):
			name(line[4:])
		case strings.HasPrefix(line, "calls="):
			afterCalls = true
		case strings.HasPrefix(line, "summary:"), strings.HasPrefix(line, "totals:"):
			fs := strings.Fields(line)
			if len(fs) == 2 {
				total, _ = strconv.ParseInt(fs[1], 10, 64)
			}
		case line != "" && strings.ContainsRune("0123456789+-*", rune(line[0])):
			fs := strings.Fields(line)
			if afterCalls { // the call's inclusive cost: not this function's own
				afterCalls = false
				continue
			}
			if len(fs) >= 2 && strings.HasPrefix(cur, root+"/") {
				n, _ := strconv.ParseInt(fs[len(fs)-1], 10, 64)
				ours += n
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if total == 0 {
		return 0, 0, fmt.Errorf("%s: no totals", path)
	}
	return total, ours, nil
}
