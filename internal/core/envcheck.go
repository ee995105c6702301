package core

import (
	"fmt"
	"slices"
	"sync"

	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/tagenc"
)

// This file serves tools that check a job's environment before it runs
// (the casperii launcher): the same parsing as ReadConfig, over a map, the
// same offload decision as the runtime's, and a description of every
// variable ReadConfig reads.

// ReadConfigFrom reads the configuration from env (variable name to
// value) by exactly the rules ReadConfig applies to the process
// environment at MPI_Init. A variable absent from env is unset.
func ReadConfigFrom(env map[string]string) (Config, error) {
	return readConfig(func(k string) string { return env[k] })
}

// Policy is the offload policy c sets for communicators whose hints leave
// wildcard_used unset or any_src: offloaded with ghost-side matching unless
// CSP_ANYSRC_OFFLOAD=0 (or ghost-side matching is not built in).
func (c Config) Policy() info.Policy {
	return info.Policy{AnySrcOffload: !c.AnySrcOff && ghostMatchAvailable}
}

// Algorithm decides how a communicator with hints h is carried under c:
// CSP_ASYNC_CONFIG=off keeps it off unless its hints set async_config,
// then the hints' table (package info) with c's Policy. The runtime
// decides every communicator by it, and casperii env explains
// MPI_COMM_WORLD by it.
func (c Config) Algorithm(h info.Hints) info.Algorithm {
	if _, set := h.AsyncConfig(); !set && !c.AsyncOn {
		return info.NoOffload
	}
	return h.Algorithm(c.Policy())
}

// DefaultConfig returns the configuration of an environment that sets no
// CSP_* variable.
func DefaultConfig() Config {
	c, _ := readConfig(func(string) string { return "" })
	return c
}

// EnvVars returns the names of the environment variables ReadConfig reads,
// in the order it reads them. The list is taken from ReadConfig itself (by
// recording what it looks up), so it cannot drift from the runtime.
func EnvVars() []string { return slices.Clone(envVars()) }

var envVars = sync.OnceValue(func() []string {
	var names []string
	readConfig(func(k string) string {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
		return ""
	})
	return names
})

// EnvDoc describes one environment variable of the runtime.
type EnvDoc struct {
	Name    string
	Meaning string
	// Show formats the variable's effect in c, for instance "1" or
	// "whole host".
	Show func(c Config) string
}

// EnvDocs returns the description of every variable ReadConfig reads, in
// EnvVars order. A variable read but not described here gets a generic
// description, so the list always covers EnvVars.
func EnvDocs() []EnvDoc {
	out := make([]EnvDoc, 0, len(envVars()))
	for _, n := range envVars() {
		d, ok := envDocs[n]
		if !ok {
			d = EnvDoc{Meaning: "read by the runtime (not described yet)", Show: func(Config) string { return "" }}
		}
		d.Name = n
		out = append(out, d)
	}
	return out
}

// DescribedEnvVars returns the names envDocs describes (for a test that
// checks the descriptions against EnvVars).
func DescribedEnvVars() []string {
	var out []string
	for n := range envDocs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func onOff(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

var envDocs = map[string]EnvDoc{
	"CSP_NG": {Meaning: "ghost processes per node; 0 = pass-through (plain MPI, no offload)",
		Show: func(c Config) string { return fmt.Sprint(c.NG) }},
	"CSP_NODE_SIZE": {Meaning: "treat every K consecutive ranks of a host as one node (to test multi-node layouts on one host)",
		Show: func(c Config) string {
			if c.NodeSize == 0 {
				return "whole host"
			}
			return fmt.Sprint(c.NodeSize)
		}},
	"CSP_OFFLOAD_SHMQ_NCELLS": {Meaning: "post cells per user process (offloaded operations in flight; more are held, not failed), 16..1048576",
		Show: func(c Config) string { return fmt.Sprint(c.Cells) }},
	"CSP_COMM_POOL": {Meaning: "internal communicators duplicated at MPI_Init for communicator duplication; 0 = automatic",
		Show: func(c Config) string {
			if c.CommPool == 0 {
				return "automatic"
			}
			return fmt.Sprint(c.CommPool)
		}},
	"CSP_TAG_UB": {Meaning: "the largest tag the program uses, where it exceeds the MPI_TAG_UB tag encoding leaves (32767..2147483647): user tags get the bits it needs and fewer communicators share a tag context; one that no layout fits leaves MPI_TAG_UB MPICH's and offloads only communicators that need no tag encoding",
		Show: func(c Config) string {
			if c.TagUB == 0 {
				return fmt.Sprintf("unset (as many contexts as fit, %d)", 1<<tagenc.DefaultCtxBits)
			}
			return fmt.Sprint(c.TagUB)
		}},
	"CSP_HEAP_ARENA": {Meaning: "log2 of the size of one shared-heap arena (registered and bounce buffers), 20..34",
		Show: func(c Config) string { return fmt.Sprintf("%d (%d MiB)", c.ArenaShift, 1<<c.ArenaShift>>20) }},
	"CSP_WAIT_SPIN": {Meaning: "busy polls of a user waiting on an offloaded request before it yields (unset: this many with a core per process, none on a host with more processes than cores)",
		Show: func(c Config) string { return fmt.Sprint(c.SpinIters) }},
	"CSP_WAIT_YIELD": {Meaning: "yields of a waiting user before it sleeps (unset: this many with a core per process, none on a host with more processes than cores)",
		Show: func(c Config) string { return fmt.Sprint(c.YieldIters) }},
	"CSP_WAIT_SLEEP_US": {Meaning: "sleep timeout of a user waiting for one offloaded request (its ghost wakes it sooner; other waits sleep at most 1000), microseconds (10..1000000)",
		Show: func(c Config) string { return fmt.Sprint(c.SleepUS) }},
	"CSP_GHOST_SPIN_US": {Meaning: "a ghost with work outstanding polls without pause this long after its last event, microseconds (0..10000000; unset: 0 on a host with more processes than cores)",
		Show: func(c Config) string { return fmt.Sprint(c.GhostSpinUS) }},
	"CSP_GHOST_YIELD_US": {Meaning: "then yields its core between polls until this long after its last event, microseconds (0..100000000)",
		Show: func(c Config) string { return fmt.Sprint(c.GhostYieldUS) }},
	"CSP_GHOST_NAP_US": {Meaning: "then naps this long between polls, microseconds (1..1000000)",
		Show: func(c Config) string { return fmt.Sprint(c.GhostNapUS) }},
	"CSP_GHOST_PARK_US": {Meaning: "an idle ghost polls this long before it parks (sleeps until a user rings), microseconds (0..10000000)",
		Show: func(c Config) string { return fmt.Sprint(c.GhostParkUS) }},
	"CSP_ASYNC_MODE": {Meaning: "Casper's modes: rma|pt2pt offloads both; pt2pt keeps windows MPICH's; rma keeps point-to-point MPICH's; unset: rma|pt2pt, but windows stay MPICH's where UCX carries the job over TCP",
		Show: func(c Config) string {
			switch {
			case c.PT2PT && c.RMA && !c.RMASet:
				return "rma|pt2pt (windows MPICH's where UCX carries the job over TCP)"
			case c.PT2PT && c.RMA:
				return "rma|pt2pt"
			case c.PT2PT:
				return "pt2pt (windows not redirected)"
			case c.RMA:
				return "rma (no pt2pt offload)"
			}
			return "none (pass-through)"
		}},
	"CSP_RMA_LOCAL": {Meaning: "1: a window whose members all share one node is served by the origins in shared memory, no ghost; 0: through the ghosts like the others",
		Show: func(c Config) string {
			if c.RMALocalOff {
				return "0"
			}
			return "1"
		}},
	"CSP_RMA_POLL_US": {Meaning: "a ghost serving redirected windows gives MPI progress at least this often, microseconds (1..1000000); more often right after an epoch",
		Show: func(c Config) string { return fmt.Sprint(c.RMAPollUS) }},
	"CSP_ASYNC_CONFIG": {Meaning: "on: offload communicators whose hints allow it; off: only those with async_config=on; auto: each communicator whose hints allow it, and each redirected window without async_config, switches offload on and off by itself, from the self-profile",
		Show: func(c Config) string {
			switch {
			case c.AsyncAuto:
				return "auto"
			case c.AsyncOn:
				return "on"
			}
			return "off"
		}},
	"CSP_CALIBRATION": {Meaning: "the calibration file of async_config=auto (written by casperii calibrate; an rma_auto line sets the windows' thresholds); unset: figures measured on the development machine",
		Show: func(c Config) string {
			if c.Calibration == "" {
				return "built in"
			}
			return c.Calibration
		}},
	"CSP_VERBOSE": {Meaning: "messages on stderr: 0 off, 1 (or y, err, warn, conf_g) warnings and configuration, 2 (info, conf_comm) more",
		Show: func(c Config) string { return fmt.Sprint(c.Verbose) }},
	"CSP_STATS": {Meaning: "1: every user prints a casperii-stats line on stderr at MPI_Finalize",
		Show: func(c Config) string { return onOff(c.Stats) }},
	"CSP_OFFLOAD_MIN_MSGSZ": {Meaning: "Casper's per-message size threshold: accepted and ignored (offload is decided per communicator)",
		Show: func(c Config) string {
			if c.MinMsgsSet {
				return fmt.Sprintf("%d (ignored)", c.MinMsgsz)
			}
			return "ignored"
		}},
	"CSP_ANYSRC_OFFLOAD": {Meaning: "1: communicators without wildcard_used (any_src) are offloaded with ghost-side matching; 0: not offloaded, as in the paper",
		Show: func(c Config) string { return onOff(!c.AnySrcOff) }},
	"CSP_BIND": {Meaning: "auto: with CSP_NODE_SIZE on a host running more of the job's processes than cores, every virtual node is bound to its share of the job's CPUs (a cpuset all its processes share counts as the host; processes a launcher bound are left alone); off: placement left to the kernel",
		Show: func(c Config) string {
			if c.BindOff {
				return "off"
			}
			return "auto"
		}},
	"CSP_GHOST_NICE": {Meaning: "the ghosts' nice value, 0-19: at 19 a ghost gets its core only while the users sharing it leave it (they then lend it while waiting on MPICH with offloaded operations in flight); default 19 on a host running more of the job's processes than cores, else 0",
		Show: func(c Config) string { return DescribeGhostNice(c) }},
	"CSP_LEND_TIMER": {Meaning: "off: never borrow a real-time signal to lend the core while MPICH spins in MPI_Init and MPI_Finalize",
		Show: func(c Config) string {
			if c.LendTimerOff {
				return "off"
			}
			return "auto"
		}},
	"CSP_DIRECT_YIELD": {Meaning: "auto: on a host running more of the job's users than cores (or where a launcher bound more users to a user's CPUs than they are), a user waiting on MPICH (a request on the direct route, a blocking call MPICH would spin in) polls and yields the core between polls, so the users sharing it run; on: everywhere; off: MPICH's own spin",
		Show: func(c Config) string {
			switch c.DirectYield {
			case 1:
				return "on"
			case -1:
				return "off"
			}
			return "auto"
		}},
	"CSP_GHOST_HANDOFF": {Meaning: "1: a ghost yields its core after waking a user (measured slower on this machine)",
		Show: func(c Config) string { return onOff(c.HandOff) }},
	"CSP_WORLD_HINTS": {Meaning: "info hints for MPI_COMM_WORLD, as key=value pairs separated by ';', e.g. \"wildcard_used=none;shmbuf_regist=true\"",
		Show: func(c Config) string {
			if !c.WorldHintsS {
				return "none"
			}
			return c.WorldHints
		}},
}
