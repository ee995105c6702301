package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// options are the flags of run and env.
type options struct {
	ng, nodeSize, hints string
	stats               bool
	verbose             verboseFlag
	lib                 string
	dryRun              bool
	set                 map[string]bool // flags given, by name
}

// verboseFlag is -verbose (level 1) or -verbose=N.
type verboseFlag struct{ level string }

func (v *verboseFlag) String() string { return v.level }
func (v *verboseFlag) IsBoolFlag() bool {
	return true
}
func (v *verboseFlag) Set(s string) error {
	switch s {
	case "true":
		v.level = "1"
	case "false":
		v.level = "0"
	default:
		v.level = s
	}
	return nil
}

// flagVars maps each flag that sets a runtime variable to it.
var flagVars = []struct{ flag, env string }{
	{"ng", "CSP_NG"},
	{"node-size", "CSP_NODE_SIZE"},
	{"stats", "CSP_STATS"},
	{"hints", "CSP_WORLD_HINTS"},
	{"verbose", "CSP_VERBOSE"},
}

// parseOptions parses the flags of command cmd ("run" or "env") and
// returns them with the arguments that follow them (the command to run).
// Parsing stops at "--" or at the first argument that is not a flag.
func parseOptions(cmd string, args []string) (options, []string, error) {
	var o options
	fs := flag.NewFlagSet("casperii "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// -ng and -node-size are strings so that the runtime's own rules
	// (core.ReadConfigFrom) judge them, with its explanations.
	fs.StringVar(&o.ng, "ng", "", "ghost processes per node (CSP_NG)")
	fs.StringVar(&o.nodeSize, "node-size", "", "consecutive ranks per node (CSP_NODE_SIZE)")
	fs.BoolVar(&o.stats, "stats", false, "per-user statistics at MPI_Finalize (CSP_STATS=1)")
	fs.StringVar(&o.hints, "hints", "", "hints of MPI_COMM_WORLD (CSP_WORLD_HINTS)")
	fs.Var(&o.verbose, "verbose", "runtime messages (CSP_VERBOSE)")
	fs.StringVar(&o.lib, "lib", "", "the library to preload")
	if cmd == "run" {
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the command, run nothing")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, nil, err
		}
		return o, nil, flagError(fs, cmd, err)
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if o.set["stats"] && !o.stats {
		delete(o.set, "stats") // -stats=false: leave CSP_STATS alone
	}
	return o, fs.Args(), nil
}

// flagError turns the flag package's error into one line naming the fix.
func flagError(fs *flag.FlagSet, cmd string, err error) error {
	msg := err.Error()
	const undefined = "flag provided but not defined: "
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
		hint := "see casperii help"
		if s := suggest(strings.TrimLeft(name, "-"), trimDashes(names)); s != "" {
			hint = "did you mean -" + s + "?"
		}
		return fmt.Errorf("casperii %s: unknown flag %s; %s (put the command after --)", cmd, name, hint)
	}
	return fmt.Errorf("casperii %s: %s; see casperii help", cmd, msg)
}

func trimDashes(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimLeft(n, "-")
	}
	return out
}

// flagSettings returns the runtime variables the flags set.
func (o options) flagSettings() map[string]setting {
	m := map[string]setting{}
	for _, fv := range flagVars {
		if !o.set[fv.flag] {
			continue
		}
		s := setting{source: srcFlag, flag: "-" + fv.flag}
		switch fv.flag {
		case "ng":
			s.value = o.ng
		case "node-size":
			s.value = o.nodeSize
		case "stats":
			s.value = "1"
		case "hints":
			s.value = o.hints
		case "verbose":
			s.value = o.verbose.level
		}
		m[fv.env] = s
	}
	return m
}

// Where a setting comes from.
const (
	srcEnv     = "env"     // the environment of casperii
	srcCommand = "command" // a -genv or -env option of the mpiexec command
	srcFlag    = "flag"    // a flag of casperii
)

// setting is the value of one variable and where it comes from.
type setting struct {
	value  string
	source string
	flag   string // the flag (srcFlag) or mpiexec option (srcCommand) that set it
}

// describe names the setting of variable name the way the user gave it,
// for messages: "-ng 3", "CSP_NG=3 (from the environment)" or
// "-genv CSP_NG 3 (in the command)".
func (s setting) describe(name string) string {
	switch s.source {
	case srcFlag:
		switch s.flag {
		case "-stats":
			return "-stats"
		case "-verbose":
			if s.value == "1" {
				return "-verbose"
			}
			return "-verbose=" + s.value
		}
		return s.flag + " " + quoteIfNeeded(s.value)
	case srcCommand:
		return fmt.Sprintf("%s %s %s (in the command)", s.flag, name, quoteIfNeeded(s.value))
	}
	return fmt.Sprintf("%s=%s (from the environment)", name, quoteIfNeeded(s.value))
}

// short names the setting briefly, for the fix part of a message: "-ng"
// or "CSP_NG".
func (s setting) short(name string) string {
	if s.source == srcFlag {
		return s.flag
	}
	return name
}

func quoteIfNeeded(v string) string {
	if v == "" || strings.ContainsAny(v, " \t;|'\"$&*?<>()") {
		return strconv.Quote(v)
	}
	return v
}
