package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/core"
)

func cmdEnv(args []string, st stdio) int {
	o, rest, err := parseOptions("env", args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(st.out, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintln(st.err, err)
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(st.err, "casperii env: unexpected argument %q; env takes flags only (casperii run runs a command)\n", rest[0])
		return exitUsage
	}
	f := newLibFinder(st.err)
	f.build = nil // env explains, it does not build
	return describeEnv(st.out, os.Environ(), o, f)
}

// describeEnv writes what the library will do with environ and the flags
// of o, and returns the exit code: 0, or 2 when the runtime would refuse
// the configuration.
func describeEnv(w io.Writer, environ []string, o options, finder libFinder) int {
	m, err := gather(environ, job{}, o)
	if err != nil {
		fmt.Fprintln(w, err)
		return exitUsage
	}
	c, verr := validate(m, job{})
	def := core.DefaultConfig()

	fmt.Fprintln(w, "CasperII runtime environment (lib/libcasperii.so reads it in MPI_Init of every process)")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tVALUE\tDEFAULT\tMEANING")
	for _, d := range core.EnvDocs() {
		val := "-"
		if s, ok := m[d.Name]; ok {
			val = quoteIfNeeded(s.value)
			if shown := d.Show(c.cfg); verr == nil && shown != s.value {
				val += " = " + shown
			}
			if s.source == srcFlag {
				val += " (" + s.flag + ")"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, val, d.Show(def), d.Meaning)
	}
	tw.Flush()

	lib, lerr := finder.find(o.lib)
	libLine := ""
	switch {
	case lerr == nil:
		libLine = fmt.Sprintf("%s (%s)", lib.path, lib.how)
	case finder.build == nil && strings.Contains(lerr.Error(), "is missing"):
		libLine = "not built yet (casperii run builds it from the source tree; or make build)"
	default:
		libLine = "not found: " + strings.TrimPrefix(lerr.Error(), "casperii: ")
	}

	fmt.Fprintln(w)
	if verr != nil {
		fmt.Fprintln(w, "The runtime would refuse this configuration (MPI_Init fails on every process):")
		fmt.Fprintln(w, "  "+verr.Error())
		fmt.Fprintln(w, "  library: "+libLine)
		return exitUsage
	}
	cfg := c.cfg
	fmt.Fprintln(w, "Effective configuration:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	if cfg.NG == 0 || !cfg.PT2PT {
		why := "CSP_NG=0"
		if !cfg.PT2PT {
			why = "CSP_ASYNC_MODE without pt2pt"
		}
		row("offload", "off: pass-through, every call goes straight to MPI ("+why+")")
		row("MPI_TAG_UB", "MPICH's own")
	} else {
		row("ghosts", fmt.Sprintf("the first %d local rank(s) of every node; the others run the application and see only each other in MPI_COMM_WORLD", cfg.NG))
		if cfg.NodeSize > 0 {
			row("node", fmt.Sprintf("every %d consecutive ranks of a host (a host's process count must be a multiple of %d, and more than %d)", cfg.NodeSize, cfg.NodeSize, cfg.NG))
		} else {
			row("node", fmt.Sprintf("every host (it needs more than %d processes)", cfg.NG))
		}
		row("placement", core.DescribeBind(cfg))
		row("offload", "on, point-to-point")
		row("MPI_COMM_WORLD", worldAlgorithm(cfg, c.hints))
		row("MPI_TAG_UB", "below MPICH's: tag encoding reserves high bits for the users' offsets (C, and Fortran with `use mpi` or mpif.h, see the same value)")
		row("other communicators", "inherit their parent's hints; hints given at creation or with MPI_Comm_set_info override them")
		if regist, set := c.hints.ShmbufRegist(); set && regist {
			row("shmbuf_regist", "on the world: MPI_Alloc_mem and shared windows created over it are shared with the ghosts (no copies)")
		}
		row("post cells", fmt.Sprintf("%d per user (CSP_OFFLOAD_SHMQ_NCELLS)", cfg.Cells))
		row("internal comms", docShow("CSP_COMM_POOL", cfg)+" (CSP_COMM_POOL)")
		row("waiting user", core.DescribeWait(cfg))
		row("busy ghost", fmt.Sprintf("%s; yields between polls until %d us, then naps %d us between polls", core.DescribeGhostSpin(cfg), cfg.GhostYieldUS, cfg.GhostNapUS))
		row("idle ghost", fmt.Sprintf("parks after polling %d us, until a user rings; wakes after about its idle time (at most 200 ms) to give MPI progress", cfg.GhostParkUS))
	}
	stats := "off (-stats or CSP_STATS=1 prints a casperii-stats line per user at MPI_Finalize)"
	if cfg.Stats {
		stats = "on: every user prints a casperii-stats line on stderr at MPI_Finalize"
	}
	row("statistics", stats)
	row("verbose", fmt.Sprintf("%d", cfg.Verbose))
	row("library", libLine)
	if p := envLookup(environ)("LD_PRELOAD"); p != "" {
		row("LD_PRELOAD", p)
	} else {
		row("LD_PRELOAD", "not set (casperii run sets it)")
	}
	tw.Flush()
	if len(c.warnings) > 0 {
		fmt.Fprintln(w)
		for _, s := range c.warnings {
			fmt.Fprintln(w, s)
		}
	}
	return 0
}

// worldAlgorithm explains how MPI_COMM_WORLD will be carried, decided by
// the runtime's own rule (core.Config.Algorithm).
func worldAlgorithm(cfg core.Config, h info.Hints) string {
	w, wset := h.Wildcard()
	wdesc := "wildcard_used unset, i.e. any_src"
	if wset {
		wdesc = "wildcard_used=" + w.String()
	}
	switch alg := cfg.Algorithm(h); alg {
	case info.NoOffload:
		on, acSet := h.AsyncConfig()
		switch {
		case !acSet && !cfg.AsyncOn:
			return "not offloaded (CSP_ASYNC_CONFIG=off; hints with async_config=on turn it on per communicator)"
		case acSet && !on:
			return "not offloaded (async_config=off in the hints)"
		}
		return "not offloaded (" + wdesc + " with CSP_ANYSRC_OFFLOAD=0, as in the paper; set wildcard_used in CSP_WORLD_HINTS or -hints to offload)"
	case info.TagEncoding:
		return "offloaded with tag encoding (" + wdesc + "): no wildcards allowed"
	case info.Duplication:
		return "offloaded with communicator duplication (" + wdesc + "): MPI_ANY_TAG allowed, MPI_ANY_SOURCE not"
	case info.DuplicationSrc:
		return "offloaded with communicator duplication and source offsets (" + wdesc + "): both wildcards allowed"
	case info.GhostMatch:
		return "offloaded with ghost-side matching (" + wdesc + "): every wildcard works; wildcard_used=none (tag encoding) is cheaper when the app uses none"
	default:
		return alg.String()
	}
}

// docShow formats variable name's effect in cfg.
func docShow(name string, cfg core.Config) string {
	for _, d := range core.EnvDocs() {
		if d.Name == name {
			return d.Show(cfg)
		}
	}
	return ""
}
