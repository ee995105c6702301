package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// gitDescribe may be set at link time:
//
//	go build -ldflags "-X main.gitDescribe=$(git describe --always --dirty)" ./cmd/casperii
var gitDescribe string

// buildVCS returns what the build knows of the source revision: the
// -ldflags describe string, else the version control stamp go build embeds
// (revision, time, modified) and the main module's version.
func buildVCS() string {
	if gitDescribe != "" {
		return gitDescribe
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	var parts []string
	if len(rev) > 12 {
		rev = rev[:12]
	}
	// A tagged version; a pseudo-version only repeats the revision.
	if v := bi.Main.Version; v != "" && v != "(devel)" && (rev == "" || !strings.Contains(v, rev)) {
		parts = append(parts, v)
	}
	if rev != "" {
		if dirty {
			rev += "-dirty"
		}
		parts = append(parts, "commit "+rev)
	}
	if when != "" {
		parts = append(parts, when)
	}
	return strings.Join(parts, ", ")
}

func cmdVersion(st stdio) int {
	v := "casperii " + Version
	if d := buildVCS(); d != "" {
		v += " (" + d + ")"
	} else {
		v += " (no source revision: built without VCS stamping, e.g. -buildvcs=false)"
	}
	fmt.Fprintln(st.out, v)
	fmt.Fprintf(st.out, "go:      %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(st.out, "mpich:   %s\n", mpichVersion())
	f := newLibFinder(st.err)
	f.build = nil
	lib, err := f.find("")
	switch {
	case err == nil:
		fmt.Fprintf(st.out, "library: %s (%s)\n", lib.path, lib.how)
	default:
		fmt.Fprintf(st.out, "library: not found: %s\n", strings.TrimPrefix(err.Error(), "casperii: "))
	}
	return 0
}
