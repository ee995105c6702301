package core

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/casperii/casperii/info"
)

// Config is the runtime configuration, read from the environment at
// MPI_Init. The names are Casper's where Casper has them, so an application
// tuned for Casper runs unchanged.
type Config struct {
	NG           int    // CSP_NG: ghosts per node; 0 = pass-through
	NodeSize     int    // CSP_NODE_SIZE: consecutive local ranks per virtual node; 0 = whole host
	PT2PT        bool   // CSP_ASYNC_MODE includes pt2pt (the default)
	RMA          bool   // CSP_ASYNC_MODE includes rma (the default): MPI_Win_allocate windows go through the ghosts
	RMASet       bool   // CSP_ASYNC_MODE was given: no automatic choice (rma.go)
	RMALocalOff  bool   // CSP_RMA_LOCAL=0: node-local windows go through the ghosts too (internal/user/rma.h)
	RMAPollUS    int    // CSP_RMA_POLL_US: a ghost serving redirected windows gives MPI progress at least this often (more often right after an epoch)
	AsyncOn      bool   // CSP_ASYNC_CONFIG=on (default) | off | auto (AsyncOn and AsyncAuto)
	AsyncAuto    bool   // CSP_ASYNC_CONFIG=auto: communicators without async_config choose their route themselves
	Calibration  string // CSP_CALIBRATION: the calibration file of the automatic choice (empty: built in)
	Verbose      int    // CSP_VERBOSE: 0 off, 1 warnings and configuration, 2+ more
	Stats        bool   // CSP_STATS=1: print per-user counters at MPI_Finalize
	Cells        int    // CSP_OFFLOAD_SHMQ_NCELLS: post cells per user
	CommPool     int    // CSP_COMM_POOL: internal communicators for duplication (0 = automatic)
	TagUB        int    // CSP_TAG_UB: the largest tag the program uses: tag encoding keeps that many bits for it, with fewer contexts (0 = built in)
	ArenaShift   int    // CSP_HEAP_ARENA: log2 of a heap arena
	MinMsgsz     int64
	MinMsgsSet   bool // CSP_OFFLOAD_MIN_MSGSZ was given (ignored, reported)
	SpinIters    int  // CSP_WAIT_SPIN: busy polls before a waiting user yields
	YieldIters   int  // CSP_WAIT_YIELD: yields before it sleeps
	WaitSet      bool // CSP_WAIT_SPIN or CSP_WAIT_YIELD was given: no automatic choice
	SleepUS      int  // CSP_WAIT_SLEEP_US: sleep timeout while waiting
	AnySrcOff    bool // CSP_ANYSRC_OFFLOAD=0: keep the paper's behaviour, any_src not offloaded
	GhostSpinUS  int  // CSP_GHOST_SPIN_US: a ghost with work outstanding polls without pause this long after its last event
	GhostSpinSet bool // CSP_GHOST_SPIN_US was given: no automatic choice
	GhostYieldUS int  // CSP_GHOST_YIELD_US: then yields the core between polls until this long
	GhostNapUS   int  // CSP_GHOST_NAP_US: then naps this long between polls
	GhostParkUS  int  // CSP_GHOST_PARK_US: an idle ghost polls this long before parking
	GhostNice    int  // CSP_GHOST_NICE: the ghost's nice value (0-19)
	GhostNiceSet bool // CSP_GHOST_NICE was given: no automatic choice
	HandOff      bool // CSP_GHOST_HANDOFF=1: yield after waking a user (off: measured slower here)
	DirectYield  int  // CSP_DIRECT_YIELD: 0 auto (where users outnumber cores), 1 on, -1 off (wait.go: directYield)
	BindOff      bool // CSP_BIND=off: never bind virtual nodes to their share of an oversubscribed host's CPUs
	LendTimerOff bool // CSP_LEND_TIMER=off: never lend the core on a timer (read by internal/user/lendtimer.c)
	WorldHints   string
	WorldHintsS  bool
}

// ConfigError is a bad environment variable.
type ConfigError struct {
	Var, Value string
	// Want says what to use instead ("use 1 or 0").
	Want string
	// Reason, when set, says what is wrong inside the value (the hint that
	// is bad in CSP_WORLD_HINTS) and replaces the generic "is not valid;
	// <Want>" form.
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("CasperII: %s=%q: %s", e.Var, e.Value, e.Reason)
	}
	return fmt.Sprintf("CasperII: %s=%q is not valid; %s", e.Var, e.Value, e.Want)
}

// ReadConfig reads the configuration from the environment.
func ReadConfig() (Config, error) { return readConfig(os.Getenv) }

func readConfig(getenv func(string) string) (Config, error) {
	c := Config{NG: 1, PT2PT: true, RMA: true, RMAPollUS: 1000, AsyncOn: true, Cells: 1 << 16, ArenaShift: 26,
		SpinIters: 50, YieldIters: 10, SleepUS: 20000,
		GhostSpinUS: 5000, GhostYieldUS: 50000, GhostNapUS: 100, GhostParkUS: 2000}
	intVar := func(name string, dst *int, lo, hi int, want string) error {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return &ConfigError{Var: name, Value: v, Want: want}
		}
		*dst = n
		return nil
	}
	// offVar reads a switch that is on unless the variable says 0 or off.
	offVar := func(name string, off *bool) error {
		switch v := strings.TrimSpace(getenv(name)); v {
		case "", "1", "on":
		case "0", "off":
			*off = true
		default:
			return &ConfigError{Var: name, Value: v, Want: "use 1 or 0"}
		}
		return nil
	}
	for _, f := range []func() error{
		func() error {
			return intVar("CSP_NG", &c.NG, 0, 1<<20, "use a number of ghosts per node >= 0 (0 turns offload off)")
		},
		func() error {
			return intVar("CSP_NODE_SIZE", &c.NodeSize, 1, 1<<20, "use the number of consecutive ranks per virtual node, >= 1")
		},
		func() error {
			return intVar("CSP_OFFLOAD_SHMQ_NCELLS", &c.Cells, 16, 1<<20, "use a cell count between 16 and 1048576")
		},
		func() error {
			return intVar("CSP_COMM_POOL", &c.CommPool, 0, 1024, "use a number of internal communicators between 0 (automatic) and 1024")
		},
		func() error {
			return intVar("CSP_TAG_UB", &c.TagUB, 32767, math.MaxInt32, "use the largest tag the program sends or receives, 32767 to 2147483647")
		},
		func() error {
			return intVar("CSP_HEAP_ARENA", &c.ArenaShift, 20, 34, "use log2 of the arena size, 20 (1 MiB) to 34 (16 GiB)")
		},
		func() error { return intVar("CSP_WAIT_SPIN", &c.SpinIters, 1, 1<<30, "use a positive number of polls") },
		func() error { return intVar("CSP_WAIT_YIELD", &c.YieldIters, 0, 1<<30, "use a number of yields >= 0") },
		func() error {
			c.WaitSet = strings.TrimSpace(getenv("CSP_WAIT_SPIN")) != "" || strings.TrimSpace(getenv("CSP_WAIT_YIELD")) != ""
			return nil
		},
		func() error {
			return intVar("CSP_WAIT_SLEEP_US", &c.SleepUS, 10, 1000000, "use a sleep between 10 and 1000000 microseconds")
		},
		func() error {
			c.GhostSpinSet = strings.TrimSpace(getenv("CSP_GHOST_SPIN_US")) != ""
			return intVar("CSP_GHOST_SPIN_US", &c.GhostSpinUS, 0, 10000000, "use microseconds between 0 and 10000000")
		},
		func() error {
			return intVar("CSP_GHOST_YIELD_US", &c.GhostYieldUS, 0, 100000000, "use microseconds between 0 and 100000000")
		},
		func() error {
			return intVar("CSP_GHOST_NAP_US", &c.GhostNapUS, 1, 1000000, "use microseconds between 1 and 1000000")
		},
		func() error {
			c.GhostNiceSet = strings.TrimSpace(getenv("CSP_GHOST_NICE")) != ""
			return intVar("CSP_GHOST_NICE", &c.GhostNice, 0, 19, "use a nice value between 0 (the users' priority) and 19 (the lowest)")
		},
		func() error {
			return intVar("CSP_GHOST_PARK_US", &c.GhostParkUS, 0, 10000000, "use microseconds between 0 and 10000000")
		},
		func() error {
			return intVar("CSP_RMA_POLL_US", &c.RMAPollUS, 1, 1000000, "use microseconds between 1 and 1000000")
		},
	} {
		if err := f(); err != nil {
			return c, err
		}
	}
	if v := strings.TrimSpace(getenv("CSP_ASYNC_MODE")); v != "" {
		c.PT2PT, c.RMA, c.RMASet = false, false, true
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == '|' || r == ',' || r == ';' }) {
			switch strings.TrimSpace(part) {
			case "pt2pt":
				c.PT2PT = true
			case "rma":
				c.RMA = true
			default:
				return c, &ConfigError{Var: "CSP_ASYNC_MODE", Value: v, Want: "use rma|pt2pt, rma or pt2pt"}
			}
		}
	}
	switch v := strings.TrimSpace(getenv("CSP_ASYNC_CONFIG")); v {
	case "", "on":
	case "off":
		c.AsyncOn = false
	case "auto":
		c.AsyncAuto = true
	default:
		return c, &ConfigError{Var: "CSP_ASYNC_CONFIG", Value: v, Want: "use on, off or auto"}
	}
	c.Calibration = strings.TrimSpace(getenv("CSP_CALIBRATION"))
	switch v := strings.TrimSpace(getenv("CSP_VERBOSE")); {
	case v == "" || v == "0":
	case v == "1" || v == "y" || v == "Y" || v == "yes":
		c.Verbose = 1
	case v == "2" || v == "3" || v == "4":
		c.Verbose, _ = strconv.Atoi(v)
	default: // Casper's named levels: err, warn, conf_g, conf_comm, info
		c.Verbose = 1
		if strings.Contains(v, "info") || strings.Contains(v, "conf") {
			c.Verbose = 2
		}
	}
	switch v := strings.TrimSpace(getenv("CSP_STATS")); v {
	case "", "0", "no", "false":
	case "1", "yes", "true":
		c.Stats = true
	default:
		return c, &ConfigError{Var: "CSP_STATS", Value: v, Want: "use 1 or 0"}
	}
	if v := strings.TrimSpace(getenv("CSP_OFFLOAD_MIN_MSGSZ")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return c, &ConfigError{Var: "CSP_OFFLOAD_MIN_MSGSZ", Value: v, Want: "use a byte count >= 0"}
		}
		c.MinMsgsz, c.MinMsgsSet = n, true
	}
	if err := offVar("CSP_ANYSRC_OFFLOAD", &c.AnySrcOff); err != nil {
		return c, err
	}
	if err := offVar("CSP_RMA_LOCAL", &c.RMALocalOff); err != nil {
		return c, err
	}
	switch v := strings.TrimSpace(getenv("CSP_BIND")); v {
	case "", "auto":
	case "off", "0", "none":
		c.BindOff = true
	default:
		return c, &ConfigError{Var: "CSP_BIND", Value: v, Want: "use auto or off"}
	}
	// CSP_LEND_TIMER is acted on by the C side, before MPI_Init
	// (internal/user/lendtimer.c); here it is checked.
	switch v := strings.TrimSpace(getenv("CSP_LEND_TIMER")); v {
	case "", "auto":
	case "off", "0":
		c.LendTimerOff = true
	default:
		return c, &ConfigError{Var: "CSP_LEND_TIMER", Value: v, Want: "use auto or off"}
	}
	switch v := strings.TrimSpace(getenv("CSP_DIRECT_YIELD")); v {
	case "", "auto":
	case "on", "1":
		c.DirectYield = 1
	case "off", "0":
		c.DirectYield = -1
	default:
		return c, &ConfigError{Var: "CSP_DIRECT_YIELD", Value: v, Want: "use auto, on or off"}
	}
	switch v := strings.TrimSpace(getenv("CSP_GHOST_HANDOFF")); v {
	case "1", "on":
		c.HandOff = true
	case "", "0", "off":
	default:
		return c, &ConfigError{Var: "CSP_GHOST_HANDOFF", Value: v, Want: "use 1 or 0"}
	}
	if v, ok := lookup(getenv, "CSP_WORLD_HINTS"); ok {
		// Checked here, with the other variables, so that a bad value
		// fails MPI_Init on every process before any ghost starts (and
		// casperii run and env refuse it by the same rule).
		if _, err := WorldHints(v); err != nil {
			return c, &ConfigError{Var: "CSP_WORLD_HINTS", Value: v, Reason: strings.TrimPrefix(err.Error(), "info: ")}
		}
		c.WorldHints, c.WorldHintsS = v, true
	}
	return c, nil
}

// WorldHints parses the value of CSP_WORLD_HINTS ("key=value;...") into
// the hints of MPI_COMM_WORLD.
func WorldHints(s string) (info.Hints, error) {
	m, err := info.ParseString(s)
	if err != nil {
		return info.Hints{}, err
	}
	return info.Parse(m)
}

func lookup(getenv func(string) string, k string) (string, bool) {
	v := getenv(k)
	return v, v != ""
}
