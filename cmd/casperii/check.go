package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/core"
)

// caspersOwn are variables of Casper (the RMA predecessor) that CasperII
// does not read: accepted silently by Casper's users' scripts, reported as
// ignored here rather than as typos.
var caspersOwn = map[string]string{
	"CSP_RUMTIME_LOAD_OPT":  "Casper's RMA load balancing",
	"CSP_RUNTIME_LOAD_LOCK": "Casper's RMA load balancing",
	"CSP_TOPO":              "Casper's RMA ghost topology",
	"CSP_ASYNC_SCHED_LEVEL": "Casper's adaptive RMA scheduling",
}

// knownVar reports whether the runtime reads name.
func knownVar(name string) bool { return slices.Contains(core.EnvVars(), name) }

// gather collects the CSP_* settings of a job: casperii's environment,
// then the command's -genv/-env options (a later one wins, as in Hydra),
// then the flags. A flag and a command option that disagree are an error.
func gather(environ []string, j job, o options) (map[string]setting, error) {
	m := map[string]setting{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(k, "CSP_") {
			m[k] = setting{value: v, source: srcEnv}
		}
	}
	for _, e := range j.env {
		if strings.HasPrefix(e.name, "CSP_") {
			m[e.name] = setting{value: e.value, source: srcCommand, flag: e.opt}
		}
	}
	for k, s := range o.flagSettings() {
		if prev, ok := m[k]; ok && prev.source == srcCommand && prev.value != s.value {
			return nil, fmt.Errorf("casperii: %s conflicts with %s; give %s once", s.describe(k), prev.describe(k), k)
		}
		m[k] = s
	}
	return m, nil
}

// values returns the variables' values, as the runtime will see them.
func values(m map[string]setting) map[string]string {
	out := make(map[string]string, len(m))
	for k, s := range m {
		out[k] = s.value
	}
	return out
}

// checked is a configuration that passed the checks, with its warnings.
type checked struct {
	cfg      core.Config
	hints    info.Hints
	warnings []string
}

// validate checks the settings by the runtime's rules, then the hints and
// the layout of job j (j may be zero for env, which knows no job).
func validate(m map[string]setting, j job) (checked, error) {
	var c checked
	cfg, err := core.ReadConfigFrom(values(m))
	if err != nil {
		var ce *core.ConfigError
		switch {
		case errors.As(err, &ce) && ce.Reason != "":
			return c, fmt.Errorf("casperii: %s: %s", m[ce.Var].describe(ce.Var), ce.Reason)
		case errors.As(err, &ce):
			return c, fmt.Errorf("casperii: %s is not valid; %s", m[ce.Var].describe(ce.Var), ce.Want)
		}
		return c, fmt.Errorf("casperii: %v", err)
	}
	c.cfg = cfg
	if cfg.WorldHintsS {
		what := m["CSP_WORLD_HINTS"].describe("CSP_WORLD_HINTS")
		// ReadConfigFrom accepted them: both parses succeed.
		c.hints, _ = core.WorldHints(cfg.WorldHints)
		pairs, _ := info.ParseString(cfg.WorldHints)
		var keys []string
		for k := range pairs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !slices.Contains(info.Keys(), k) {
				w := fmt.Sprintf("casperii: warning: %s: %q is not a CasperII hint and is ignored", what, k)
				if sg := suggest(k, info.Keys()); sg != "" {
					w += "; did you mean " + sg + "?"
				} else {
					w += " (hints: " + strings.Join(info.Keys(), ", ") + ")"
				}
				c.warnings = append(c.warnings, w)
			}
		}
	}
	if err := checkLayout(m, cfg, j); err != nil {
		return c, err
	}
	c.warnings = append(c.warnings, envWarnings(m, cfg)...)
	return c, nil
}

// ngName describes the CSP_NG setting for a layout message, and the name
// to use in its fix.
func ngName(m map[string]setting, cfg core.Config) (desc, fix string) {
	if s, ok := m["CSP_NG"]; ok && strings.TrimSpace(s.value) != "" {
		return s.describe("CSP_NG"), s.short("CSP_NG")
	}
	return fmt.Sprintf("%d ghost per node (the default)", cfg.NG), "-ng"
}

// checkLayout checks that every node keeps at least one user, by the
// runtime's own rules (internal/core setupLayout) applied to what the
// command says of the processes.
func checkLayout(m map[string]setting, cfg core.Config, j job) error {
	if cfg.NG == 0 || !cfg.PT2PT {
		return nil // pass-through: no ghosts
	}
	ngDesc, ngFix := ngName(m, cfg)
	k := cfg.NodeSize
	ks := m["CSP_NODE_SIZE"]
	n := j.nprocs
	where := ""
	switch {
	case j.mpiexec && j.oneHost && n > 0:
		where = fmt.Sprintf("the %s of mpiexec -n %d on this host", plural(n, "process", "processes"), n)
	case !j.mpiexec && len(j.apps) == 1 && j.singleton:
		n = 1
		where = fmt.Sprintf("the 1 process of %s started without mpiexec", j.apps[0])
	default:
		n = 0
	}
	if k > 0 && n > 0 && n%k != 0 {
		return fmt.Errorf("casperii: %s does not divide %s; use a %s that divides %d (%s), or a multiple of %d processes",
			ks.describe("CSP_NODE_SIZE"), where, ks.short("CSP_NODE_SIZE"), n, divisors(n, cfg.NG+1), k)
	}
	switch {
	case k > 0 && cfg.NG >= k:
		fix := fmt.Sprintf("use %s %d or a larger %s", ngFix, k-1, ks.short("CSP_NODE_SIZE"))
		if k == 1 {
			fix = fmt.Sprintf("use a larger %s, or %s 0 for plain MPI", ks.short("CSP_NODE_SIZE"), ngFix)
		}
		return fmt.Errorf("casperii: %s with %s leaves no user per node; %s", ngDesc, ks.describe("CSP_NODE_SIZE"), fix)
	case k == 0 && n > 0 && cfg.NG >= n:
		fix := fmt.Sprintf("use %s %d or less, or start more processes", ngFix, n-1)
		if n == 1 {
			fix = fmt.Sprintf("start at least %d processes with mpiexec, or use %s 0 for plain MPI", cfg.NG+1, ngFix)
		}
		return fmt.Errorf("casperii: %s leaves no user among %s; %s", ngDesc, where, fix)
	}
	return nil
}

// divisors lists the divisors of n that are at least lo, for a message.
func divisors(n, lo int) string {
	var ds []string
	for d := max(lo, 1); d <= n; d++ {
		if n%d == 0 {
			ds = append(ds, strconv.Itoa(d))
		}
	}
	if len(ds) == 0 {
		return "none leaves a user per node"
	}
	return strings.Join(ds, ", ")
}

// envWarnings explains settings the runtime ignores: unknown CSP_*
// variables (typos), Casper's RMA variables, CSP_OFFLOAD_MIN_MSGSZ.
func envWarnings(m map[string]setting, cfg core.Config) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var ws []string
	known := core.EnvVars()
	for _, k := range names {
		s := m[k]
		switch {
		case k == "CSP_OFFLOAD_MIN_MSGSZ":
			ws = append(ws, fmt.Sprintf("casperii: warning: %s is accepted and ignored: CasperII decides offload per communicator, never per message, since a size threshold could put a send and its matching receive on different paths", s.describe(k)))
		case knownVar(k):
		case caspersOwn[k] != "":
			ws = append(ws, fmt.Sprintf("casperii: warning: %s is ignored: it is %s, and CasperII offloads point-to-point communication only", s.describe(k), caspersOwn[k]))
		default:
			w := fmt.Sprintf("casperii: warning: %s is not a CasperII variable and is ignored", s.describe(k))
			if sg := suggest(k, append(slices.Clone(known), mapKeys(caspersOwn)...)); sg != "" {
				w += "; did you mean " + sg + "?"
			} else {
				w += " (casperii env lists the variables)"
			}
			ws = append(ws, w)
		}
	}
	if !cfg.PT2PT && cfg.NG > 0 {
		ws = append(ws, fmt.Sprintf("casperii: warning: %s has no pt2pt: ghosts are not started and nothing is offloaded; use CSP_ASYNC_MODE=pt2pt", m["CSP_ASYNC_MODE"].describe("CSP_ASYNC_MODE")))
	}
	if cfg.NG == 0 && cfg.WorldHintsS {
		ws = append(ws, fmt.Sprintf("casperii: warning: %s has no effect with no ghosts (%s)", m["CSP_WORLD_HINTS"].describe("CSP_WORLD_HINTS"), m["CSP_NG"].describe("CSP_NG")))
	}
	return ws
}

func mapKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
