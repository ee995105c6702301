# CasperII build, test and benchmark entry points.
#   make            build everything (Go packages, lib/libcasperii.so, commands)
#   make test       the whole test suite (what CI runs)
#   make bench      micro-benchmarks (go test -bench)
#   make bench-quick   a short osubench overlap run, mpi vs CasperII static and automatic, busy and sleep compute (~2 min)
#   make bench-full    osubench run all: latency, overlap, rate, halo in 6 modes, every series (~23 min on 2 cores)
#   make fuzz       each fuzz target for FUZZTIME (default 30s)
#   make conformance   our point-to-point conformance programs, plain MPICH vs CasperII in every hint mode (~4 min)

GO        ?= go
FUZZTIME  ?= 30s
# Packages that need no MPI: checked with the race detector. Their product
# code is pure Go (the layouts are generated from the C headers); spsc's
# tests run its C header through cgo (spsc/internal/cring), which the race
# detector accepts.
PURE_PKGS := ./spsc/... ./tagenc/... ./info/... ./postcell/... ./commexpand/... ./internal/proc/...
FUZZ_TARGETS := $(shell grep -rl --include='*_test.go' '^func Fuzz' . 2>/dev/null | xargs -r -n1 dirname | sort -u)

.PHONY: all build test vet fmtcheck race unit bench bench-quick bench-full fuzz clean

all: build

# lib/libcasperii.so: the interposer for unmodified C/Fortran MPI programs
# (LD_PRELOAD it, or link -lcasperii before the MPI library).
build:
	$(GO) build ./...
	$(GO) build -buildmode=c-shared -o lib/libcasperii.so ./cmd/libcasperii

vet:
	$(GO) vet ./...

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

race:
	$(GO) test -race -count=1 $(PURE_PKGS)

# One package at a time (-p 1): the packages that launch MPI jobs (test,
# osubench, internal/mpitest) would otherwise run theirs side by side on
# the same cores, and tests of the automatic route choice measure the
# host (TestAutoRoute fails 5 times in 5 beside one spinning process,
# rightly choosing the direct route there).
unit:
	$(GO) test -p 1 -count=1 -timeout 30m ./...

test: build fmtcheck vet race unit

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./spsc/...

# osubench (osubench/README.md): tables on stdout, progress and every mpiexec
# command on stderr, CSV, JSON and PNG plots in osubench-out/<name>.
OSUBENCH   ?= $(GO) run ./osubench/cmd/osubench
QUICK_ARGS ?= --sizes 64K,256K,1M --modes mpi,cspii-tag,cspii-auto --compute both --touch on --reps 7 --budget 200
# e.g. FULL_ARGS='--transport shm,tcp' (about twice as long)
FULL_ARGS  ?=

# The README's main job: touch, post, compute, wait with plain MPICH and
# CasperII, interleaved, on 3 sizes, once with busy compute (the user keeps
# its core) and once with sleep compute (it leaves it), each labelled
# (about 1-2 minutes on 2 cores).
bench-quick: build
	$(OSUBENCH) run overlap $(QUICK_ARGS) --lib lib/libcasperii.so --out osubench-out/quick

# osubench run all: latency, overlap, rate and halo in the modes mpi,
# thread, cspii-tag, cspii-dup, cspii-off, cspii-auto, 5 reps; touched
# buffers with busy and sleep compute, and the untouched secondary series
# on fewer sizes (it prints its estimated duration first). Issue 15's
# phases and probe run on their own (osubench/README.md).
bench-full: build
	$(OSUBENCH) run all $(FULL_ARGS) --lib lib/libcasperii.so --out osubench-out/full

fuzz:
	@for d in $(FUZZ_TARGETS); do \
	  for f in $$(grep -h '^func Fuzz' $$d/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "== $$d $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$d || exit 1; \
	  done; \
	done

clean:
	rm -f lib/libcasperii.so lib/libcasperii.h
	$(GO) clean -testcache

# The randomized matching test (test/match_test.go) repeated with fresh
# seeds for SOAKTIME (default 5m), compared receive by receive with plain
# MPI: zero mismatches or it fails. Not part of `make test`.
SOAKTIME ?= 5m
.PHONY: soak
soak: build
	CASPERII_SOAK=$(SOAKTIME) $(GO) test -count=1 -v -timeout 60m -run '^TestRandomizedMatching$$' ./test/

# The conformance run (conformance/doc.go): every program of
# conformance/progs under plain MPICH and under the library in each
# wildcard_used mode, as a table; fails on an unexpected difference. Not
# part of `make test`. PROGS (a Go regexp of program names) and MODES
# (comma separated: plain,none,any_tag_same_tag,any_src|any_tag_same_tag,any_src)
# select part of it.
PROGS ?=
MODES ?=
.PHONY: conformance
conformance: build
	CONFORMANCE_PROGS='$(PROGS)' CONFORMANCE_MODES='$(MODES)' $(GO) test -tags conformance -count=1 -v -timeout 120m -run '^TestConformance$$' ./conformance/
