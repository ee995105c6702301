// Package core is the CasperII runtime shared by the Go API (package
// casperii) and the C interposer (internal/interpose): the process layout,
// MPI_Init and MPI_Finalize, the internal communicators, and the plan of
// every user communicator.
package core

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/casperii/casperii/commexpand"
	"github.com/casperii/casperii/info"
	"github.com/casperii/casperii/internal/channel"
	"github.com/casperii/casperii/internal/ghost"
	"github.com/casperii/casperii/internal/mpi"
	"github.com/casperii/casperii/internal/shm"
	"github.com/casperii/casperii/internal/user"
	"github.com/casperii/casperii/tagenc"
)

// Role is what a process is in a CasperII job.
type Role int

const (
	RoleUser        Role = iota // an application process served by a ghost
	RoleGhost                   // a ghost (never returns from Init)
	RolePassThrough             // CSP_NG=0 or offload off: plain MPI
)

// runtime is the process-wide state built by Init.
type runtime struct {
	cfg       Config
	hostSize  int // processes of the job on this host (before CSP_NODE_SIZE)
	cpus      JobCPUs
	hostMasks map[int][cpuMaskWords]uint64 // by world rank, where a launcher bound the host's processes (rmaspin.go)
	role      Role
	provided  int
	wrank     int
	wsize     int
	userWorld mpi.Comm
	node      mpi.Comm
	rmaWin    mpi.Win // internal window of redirected RMA (rma.go); WinNull without
	layout    *commexpand.Layout
	pool      []mpi.Comm
	slots     *commexpand.Pool
	tags      *tagenc.Layout
	mpiTagUB  int
	exposedUB int
	worldGrp  mpi.Group
	ch        *channel.User
	gctl      *channel.Ghost
	myGhost   int
	nodeID    int // world rank of the node's first process (user.Config.NodeID)

	mu        sync.Mutex
	comms     map[int32]*commState
	zombies   []zombie
	switches  int                // changes of route taken, over all communicators (switch.go)
	switchesC int                // of which MPI_Comm_set_info took in C (toggle.go)
	families  map[string]*family // by group (family.go)
	famList   []*family          // every family, singletons too
	model     *model             // the automatic choice's (auto.go)
}

// commState is what the runtime keeps per user communicator.
type commState struct {
	comm     mpi.Comm
	hints    info.Hints
	plan     commexpand.Plan // the route in use
	rank     int
	regist   bool           // the shmbuf_regist hint the entry was built with
	inter    bool           // an intercommunicator, members outside the world, or CSP_ASYNC_MODE without pt2pt: never offloaded
	pending  *pendingSwitch // a change of route not taken yet (switch.go)
	entries  []planEntry    // fast-path entries of the plans it holds, to install copies of (switch.go)
	switches int            // changes of route taken
	auto     bool           // the automatic choice picks the route (auto.go)
	// The offloaded plan reserved for the communicator while it is off
	// (Algorithm NoOffload: none): the last offloaded plan the members
	// agreed on, so that a switch back to the ghosts (the automatic
	// choice's, or a hint's: switch.go) needs no new resources.
	onPlan     commexpand.Plan
	onVotes    int  // evaluations in a row that wanted offload on
	onFailures int  // offload periods that ended because offload cost more
	strong     bool // the epoch being decided is a strong vote for offload (autoStrong; agreed)
	// strongPhase: the epoch being decided wants offload by
	// autoStrongPhase of the members' time, in many waits (agreed): it
	// counts twice for its phase's memory (autosite.go).
	strongPhase bool
	// measured: every member's estimate of the epoch being decided was
	// its phase's two routes measured against each other (autosite.go:
	// the epoch ran offloaded, and an earlier one of the phase direct).
	measured bool
	fresh    bool    // offloaded, and no epoch with messages judged since (autoTarget; agreed)
	offWait  float64 // this member's wait per message when last off (-1: never)
	offClass int8    // the size class of the messages of that epoch
	// The routes' exchange times per message at each size class, in
	// epochs in which the members did nothing but communicate (learnXfer),
	// and this member's candidate from the epoch being decided (0: none).
	xfer      map[int8]xferTimes
	xferNext  float64
	xferClass int8
	uncertain bool // the epoch being decided ran offloaded at sizes its direct memory was not taken at (agreed)
	// Phases (autosite.go): what the epochs of each phase wanted, and
	// when to evaluate every collective to learn them.
	sites       map[siteKey]*siteMemory
	siteClock   uint64           // ticks at each use of sites (eviction order)
	lastVerdict int              // the last nonzero verdict (agreed)
	lastClass   int8             // sizeClass of the last epoch this member sent in (0: none yet)
	classSeen   map[[2]int8]bool // size-class transitions this member has seen
	phased      bool             // some member's recent phases predict opposite routes (agreed)
	learnLeft   int              // evaluations left that evaluate every collective (agreed)
	carried     bool             // some epoch of it carried messages (agreed)
	evals       int              // evaluations with messages since the last learning window (agreed)
	quiet       int              // evaluations in a row whose epoch had no messages on it (agreed)
	openKey     siteKey          // the phase of the epoch begun at the last evaluation
	phaseOn     bool             // offload is the target because a phase predicted it (agreed)
	phaseKey    siteKey          // that phase, as this member keys it
	nextKey     siteKey          // the phase the collective being evaluated opens
	openN       uint32           // the family's collective count then
	// Its family (family.go): freed here, and freed by every member.
	fam            *family
	freed, retired bool
	routeNS        [2]int64  // time off and on (CSP_STATS)
	since          int64     // user.MonoNS() at the last change of route
	toggled        bool      // published to C for MPI_Comm_set_info (toggle.go)
	tg             *toggleOf // what its toggle was last built from
}

var rt *runtime

// Runtime is the process's runtime, nil before Init.
type Runtime = runtime

// Current returns the process's runtime (nil before Init).
func Current() *Runtime { return rt }

// InitError is a configuration that cannot run, reported identically on
// every process of the job.
type InitError struct{ Msg string }

func (e *InitError) Error() string { return e.Msg }

func (r *runtime) logf(format string, args ...any) {
	// Errors carry their own "CasperII: " prefix; one prefix is enough.
	msg := strings.TrimPrefix(fmt.Sprintf(format, args...), "CasperII: ")
	fmt.Fprintf(os.Stderr, "casperii: %s\n", msg)
}

// verbose reports whether CSP_VERBOSE asks for messages of level: a test
// before building a message's arguments where that costs (a switch of
// route).
func (r *runtime) verbose(level int) bool { return r.cfg.Verbose >= level }

func (r *runtime) verbosef(level int, format string, args ...any) {
	if r.cfg.Verbose >= level {
		r.logf(format, args...)
	}
}

// Init initializes MPI and CasperII at the required thread level and
// returns the level provided. A ghost never returns.
func Init(required int) (int, error) {
	if rt != nil {
		return 0, errors.New("CasperII: MPI is already initialized")
	}
	if why := mpi.ForeignMPI(); why != "" {
		// No MPI call is safe: say why and stop this process (every
		// process of the job does the same).
		fmt.Fprintf(os.Stderr, "casperii: %s\n", why)
		os.Exit(1)
	}
	cfg, cfgErr := ReadConfig()
	goProcsWhy := setGoProcs(os.Getenv)
	rmaEnvWhy := keepRMATargetsFresh(cfg.RMA && cfg.NG > 0, os.Getenv, os.Setenv)
	steps := newCallSteps()
	// A user registers for its ghost's membarriers in Start; the
	// registration sleeps through a grace period, so it starts now and
	// overlaps MPICH's initialization (every process: the role is not
	// known yet, and a ghost's registration costs nothing later).
	user.StartFenceRegistration()
	provided, err := mpi.InitThread(required)
	if err != nil {
		return provided, err
	}
	steps.done("MPICH")
	r := &runtime{cfg: cfg, provided: provided, comms: map[int32]*commState{}, rmaWin: mpi.WinNull}
	rt = r
	defer r.stopInitLending()
	defer r.reportInit(steps)
	if r.wrank, err = mpi.CommWorld.Rank(); err != nil {
		return provided, err
	}
	if r.wsize, err = mpi.CommWorld.Size(); err != nil {
		return provided, err
	}
	if r.mpiTagUB, err = mpi.CommWorld.TagUB(); err != nil {
		return provided, err
	}
	if r.wrank == 0 {
		r.verbosef(2, "rank 0: Go runtime: %s", goProcsWhy)
		if rmaEnvWhy != "" {
			r.verbosef(1, "rank 0: %s", rmaEnvWhy)
		}
	}
	r.exposedUB = r.mpiTagUB
	local := ""
	if cfgErr != nil {
		local = cfgErr.Error()
	}
	if err := r.agree(mpi.CommWorld, local); err != nil {
		return provided, err
	}
	if cfg.NG == 0 || (!cfg.PT2PT && !cfg.RMA) {
		r.role = RolePassThrough
		r.userWorld = mpi.CommWorld
		return provided, nil
	}
	if parent, err := mpi.CommGetParent(); err == nil && !parent.IsNull() {
		// A job another started with MPI_Comm_spawn: its processes were
		// not laid out by the launcher for ghosts (the environment, and
		// with it CSP_NODE_SIZE and CSP_NG, is its parent's, the process
		// count the parent's choice). It runs as plain MPI; the parent
		// keeps its ghosts.
		r.role = RolePassThrough
		r.userWorld = mpi.CommWorld
		r.verbosef(1, "process %d of a job started by MPI_Comm_spawn: no ghosts, no offload", r.wrank)
		return provided, nil
	}
	if !cfg.PT2PT {
		r.verbosef(1, "CSP_ASYNC_MODE without pt2pt: point-to-point offload is off")
	}
	steps.done("config")
	if err := r.setupLayout(); err != nil {
		return provided, err
	}
	steps.done("layout")
	if err := r.setupPool(); err != nil {
		return provided, err
	}
	steps.done("pool")
	if err := r.setupChannels(); err != nil {
		return provided, err
	}
	steps.done("channels")
	if err := r.setupRMA(); err != nil {
		return provided, err
	}
	steps.done("rma")
	if r.role == RoleGhost {
		r.stopInitLending()
		r.reportInit(steps)
		r.runGhost() // does not return
	}
	if err := r.startUser(); err != nil {
		return provided, err
	}
	steps.done("user")
	return provided, nil
}

// callSteps times the steps of Init and Finalize, for CSP_VERBOSE=2:
// where a job's start and end go (MPICH's own MPI_Init, then each step
// of ours; most end in a collective, so a step's time includes waiting
// for the slowest process).
type callSteps struct {
	last  time.Time
	names []string
	took  []time.Duration
}

func newCallSteps() *callSteps { return &callSteps{last: time.Now()} }

func (s *callSteps) done(name string) {
	now := time.Now()
	s.names = append(s.names, name)
	s.took = append(s.took, now.Sub(s.last))
	s.last = now
}

// reportInit prints Init's steps once (CSP_VERBOSE=2).
func (r *runtime) reportInit(s *callSteps) { r.reportSteps("MPI_Init", s) }

// reportSteps prints the steps of call once (CSP_VERBOSE=2).
func (r *runtime) reportSteps(call string, s *callSteps) {
	if !r.verbose(2) || len(s.names) == 0 {
		return
	}
	var b strings.Builder
	var total time.Duration
	for i, n := range s.names {
		fmt.Fprintf(&b, " %s %.1f", n, float64(s.took[i].Microseconds())/1000)
		total += s.took[i]
	}
	role := "user"
	if r.role == RoleGhost {
		role = "ghost"
	}
	r.logf("%s %d: %s took %.1f ms:%s (ms)", role, r.wrank, call, float64(total.Microseconds())/1000, b.String())
	s.names = nil
}

// stopInitLending ends the lending of the core that the interposer's
// MPI_Init started on an oversubscribed host, and says how often the
// process lent it (CSP_VERBOSE=2).
func (r *runtime) stopInitLending() {
	if sig, lends, yields := user.StopInitLending(); sig != 0 {
		r.verbosef(2, "rank %d: MPI_Init: lent the core %d times, %d by yielding (timer signal %d)", r.wrank, lends, yields, sig)
	}
}

// agree makes an error found on some processes fail Init on all of them:
// the lowest such rank prints its message, the others point at it.
func (r *runtime) agree(comm mpi.Comm, local string) error {
	mine := []int32{int32(r.wsize)}
	if local != "" {
		mine[0] = int32(r.wrank)
	}
	out := []int32{0}
	if err := mpi.AllreduceInt32s(comm, mine, out, mpi.OpMin); err != nil {
		return err
	}
	if out[0] == int32(r.wsize) {
		return nil
	}
	err := &InitError{fmt.Sprintf("CasperII: initialization failed on rank %d (its message says why)", out[0])}
	if out[0] == int32(r.wrank) {
		r.logf("%s", local)
		err = &InitError{local}
	}
	// Nobody leaves before the message is out: the launcher kills the job
	// as soon as one process exits with an error.
	comm.Barrier()
	return err
}

// setupLayout splits the world into nodes, picks the ghosts and binds
// every user to one ghost.
func (r *runtime) setupLayout() error {
	world := mpi.CommWorld
	node, err := r.splitHost(world)
	if err != nil {
		return err
	}
	hostSize, _ := node.Size()
	hostRank, _ := node.Rank()
	r.hostSize = hostSize
	if err := r.agreeCPUs(node, hostSize); err != nil {
		return err
	}
	problem := ""
	vnodes, vnode := 1, 0
	if k := r.cfg.NodeSize; k > 0 {
		if hostSize%k != 0 {
			problem = fmt.Sprintf("CasperII: CSP_NODE_SIZE=%d does not divide the %d processes on this host; use a divisor of %d", k, hostSize, hostSize)
		}
		vnodes, vnode = hostSize/k, hostRank/k
		vcomm, err := node.Split(vnode, hostRank)
		if err != nil {
			return err
		}
		node.Free()
		node = vcomm
	}
	r.node = node
	lrank, _ := node.Rank()
	lsize, _ := node.Size()
	ng := r.cfg.NG
	if problem == "" && ng >= lsize {
		problem = fmt.Sprintf("CasperII: CSP_NG=%d leaves no user among the %d processes of a node; launch more processes per node (or set CSP_NODE_SIZE larger) or lower CSP_NG", ng, lsize)
	}
	if err := r.agree(world, problem); err != nil {
		return err
	}
	r.place(vnodes, vnode)
	locals := make([]int32, lsize)
	if err := mpi.AllgatherInt32s(node, []int32{int32(r.wrank)}, locals); err != nil {
		return err
	}
	r.nodeID = int(locals[0])
	// Users ng..lsize-1 are bound to ghosts in contiguous, balanced groups.
	ghostOfLocal := func(l int) int {
		j, users := l-ng, lsize-ng
		base, extra := users/ng, users%ng
		for g := 0; g < ng; g++ {
			n := base
			if g < extra {
				n++
			}
			if j < n {
				return g
			}
			j -= n
		}
		return ng - 1
	}
	mine := int32(-1)
	if lrank >= ng {
		r.role = RoleUser
		r.myGhost = int(locals[ghostOfLocal(lrank)])
		mine = int32(r.myGhost)
	} else {
		r.role = RoleGhost
	}
	ghostOf := make([]int32, r.wsize)
	if err := mpi.AllgatherInt32s(world, []int32{mine}, ghostOf); err != nil {
		return err
	}
	if r.layout, err = commexpand.NewLayout(ghostOf); err != nil {
		return err
	}
	color := 0
	if r.role == RoleGhost {
		color = 1
	}
	if r.userWorld, err = world.Split(color, r.wrank); err != nil {
		return err
	}
	if r.worldGrp, err = world.Group(); err != nil {
		return err
	}
	if !r.cfg.PT2PT {
		// No message is offloaded (expand): tags are MPICH's, all of them.
		if r.wrank == 0 {
			r.verbosef(1, "CSP_ASYNC_MODE without pt2pt: MPI_TAG_UB is MPICH's %d", r.mpiTagUB)
		}
	} else if t, err := r.tagLayout(); err == nil {
		r.tags = &t
		r.exposedUB = t.ExposedTagUB()
	} else if r.cfg.TagUB > 0 {
		// Asked for: the program's tags work, with less offload.
		if r.wrank == 0 {
			r.logf("CSP_TAG_UB=%d: no tag layout fits (%v); MPI_TAG_UB is MPICH's %d, and only communicators with wildcard_used=any_tag_same_tag are offloaded",
				r.cfg.TagUB, err, r.mpiTagUB)
		}
	} else {
		r.verbosef(1, "no tag layout fits: %v; only wildcard_used=any_tag_same_tag can be offloaded", err)
	}
	if r.wrank == 0 {
		r.verbosef(1, "%d processes, %d ghosts per node, at most %d users per ghost; %v",
			r.wsize, ng, r.layout.MaxUsersPerGhost(), r.tags)
	}
	return nil
}

// tagLayout is the tag encoding of this job: DefaultCtxBits contexts where
// they fit, or, with CSP_TAG_UB, user tags up to that bound and the
// contexts that leave (every process computes the same).
func (r *runtime) tagLayout() (tagenc.Layout, error) {
	users := max(1, r.layout.MaxUsersPerGhost())
	if r.cfg.TagUB > 0 {
		return tagenc.NewForTagUB(r.mpiTagUB, users, r.cfg.TagUB)
	}
	return tagenc.New(r.mpiTagUB, users)
}

// ghostMatchAvailable says whether ghost-side matching is built in.
var ghostMatchAvailable = true

// setupPool duplicates the world into the internal communicators, in one
// nonblocking batch (each duplicate is a collective on all processes):
// the two tag-encoding slots (natively matched and ghost-matched), then
// the duplication slots of each matching mode. CSP_COMM_POOL sets the
// number of natively matched duplication slots.
func (r *runtime) setupPool() error {
	n := r.layout.MaxUsersPerGhost()
	dup := r.cfg.CommPool
	if dup == 0 {
		dup = min(64, max(2, 2*n*n))
	}
	ctx := 1
	if r.tags != nil {
		ctx = r.tags.MaxContexts()
	}
	r.slots = commexpand.NewPool(commexpand.PoolConfig{Contexts: ctx, DupSlots: dup, DupSrcSlots: min(64, max(2, 2*n))})
	r.pool = make([]mpi.Comm, r.slots.Size())
	reqs := make([]mpi.Request, len(r.pool))
	for i := range r.pool {
		c, req, err := mpi.CommWorld.Idup()
		if err != nil {
			return fmt.Errorf("CasperII: creating internal communicator %d: %w", i, err)
		}
		r.pool[i], reqs[i] = c, req
	}
	return mpi.Waitall(reqs, nil)
}

// setupChannels creates this process's shared memory and exchanges the
// descriptors with the other processes of the node.
func (r *runtime) setupChannels() error {
	var fd int
	var err error
	if r.role == RoleGhost {
		if r.gctl, err = channel.CreateGhost(r.wrank); err == nil {
			fd = r.gctl.Seg.Fd()
		}
	} else if r.ch, err = channel.CreateUser(r.cfg.Cells, r.wrank); err == nil {
		fd = r.ch.Seg.Fd()
	}
	problem := ""
	if err != nil {
		problem = "CasperII: " + err.Error()
	}
	if err := r.agree(mpi.CommWorld, problem); err != nil {
		return err
	}
	lsize, _ := r.node.Size()
	all := make([]int64, 3*lsize)
	if err := mpi.AllgatherInt64s(r.node, []int64{int64(shm.Pid()), int64(fd), int64(r.wrank)}, all); err != nil {
		return err
	}
	problem = ""
	if r.role == RoleUser {
		for i := 0; i < lsize; i++ {
			if int(all[3*i+2]) == r.myGhost {
				r.gctl, err = channel.AttachGhost(int(all[3*i]), int(all[3*i+1]), r.myGhost)
				break
			}
		}
		if err == nil && r.gctl == nil {
			err = fmt.Errorf("ghost %d is not on this node", r.myGhost)
		}
		if err != nil {
			problem = "CasperII: " + err.Error()
		}
	}
	peers = all
	return r.agree(mpi.CommWorld, problem)
}

// peers holds the node's (pid, fd, world rank) triples until the ghost
// attaches its users.
var peers []int64

// runGhost serves this ghost's users, then finalizes MPI and exits.
func (r *runtime) runGhost() {
	var users []ghost.UserInfo
	for i := 0; i+2 < len(peers); i += 3 {
		w := int(peers[i+2])
		if !r.layout.IsGhost(w) && r.layout.GhostOf(w) == r.wrank {
			users = append(users, ghost.UserInfo{WRank: w, Pid: int(peers[i]), Fd: int(peers[i+1])})
		}
	}
	spinUS, why := ghostSpin(r.cfg, r.hostSize, r.hostCPUs())
	if r.cfg.Verbose >= 2 {
		r.logf("ghost %d: polls without yielding for %d us after an event (%s)", r.wrank, spinUS, why)
	}
	nice, whyNice := ghostNice(r.cfg, r.hostSize, r.hostCPUs())
	if err := setNice(nice); err != nil && r.cfg.Verbose > 0 {
		r.logf("ghost %d: could not lower its priority to nice %d (%v); users sharing its core may lose time to it", r.wrank, nice, err)
	} else if r.cfg.Verbose >= 2 {
		got, group := describeNice()
		r.logf("ghost %d: nice %d (%s; asked %d: %s)", r.wrank, got, group, nice, whyNice)
	}
	rmaSpin, whySpin := r.rmaSpin()
	if r.cfg.Verbose >= 2 && !r.rmaWin.IsNull() {
		how := "at most CSP_RMA_POLL_US apart (100 us after an epoch), and on every round while an epoch is active"
		if rmaSpin == ghost.RMASpinAlone {
			how = "on every round"
		}
		r.logf("ghost %d: serving windows, polls MPI %s (%s)", r.wrank, how, whySpin)
	}
	g, err := ghost.New(ghost.Config{
		WRank: r.wrank, WorldSize: r.wsize, Users: users, Control: r.gctl, Pool: r.pool,
		TagUB: r.mpiTagUB, Tags: r.tags, Log: r.logf, Verbose: r.cfg.Verbose > 0,
		Spin:  time.Duration(spinUS) * time.Microsecond,
		Yield: time.Duration(r.cfg.GhostYieldUS) * time.Microsecond,
		Nap:   time.Duration(r.cfg.GhostNapUS) * time.Microsecond,
		Park:  time.Duration(r.cfg.GhostParkUS) * time.Microsecond, HandOff: r.cfg.HandOff,
		RMAWin: r.rmaWin, RMAPoll: time.Duration(r.cfg.RMAPollUS) * time.Microsecond, RMABoost: r.rmaBoost(nice),
		RMASpin: rmaSpin,
	})
	code := 0
	if err != nil {
		r.logf("%v", err)
		mpi.Abort(mpi.CommWorld, 1)
	}
	stop := startProfile(r.wrank)
	if err := g.Run(); err != nil {
		r.logf("ghost %d: %v", r.wrank, err)
		code = 1
	}
	stop()
	if r.cfg.Verbose >= 2 {
		r.logf("ghost %d: %+v", r.wrank, g.Stats)
	}
	if err := g.CloseRMA(); err != nil {
		r.logf("ghost %d: %v", r.wrank, err)
	}
	g.Close()
	mpi.Finalize()
	os.Exit(code)
}

// startUser starts the fast path and plans COMM_USER_WORLD.
func (r *runtime) startUser() error {
	wait := waitPolicy(r.cfg, r.hostSize, r.hostCPUs())
	yield, yieldWhy := directYield(r.cfg, r.hostUsers(), r.hostCPUs())
	if !yield && r.cfg.DirectYield == 0 && r.hostMasks != nil {
		// A launcher bound users together: count those on our CPUs.
		if u, c := boundCrowd(r.wrank, r.hostMasks, r.layout.IsGhost); u > c {
			yield, yieldWhy = true, fmt.Sprintf("bound to %d CPU(s) with %d users", c, u)
		}
	}
	// Users outnumbering cores crowd them only where direct waits spin.
	m, err := newModel(r.cfg, oversubscribed(r.hostSize, r.hostCPUs()) != "",
		oversubscribed(r.hostUsers(), r.hostCPUs()) != "" && !yield)
	if err != nil {
		return err
	}
	r.model, r.families = m, map[string]*family{}
	if r.cfg.Verbose >= 2 {
		r.logf("user %d: waits poll %d times, yield %d times, then sleep (%s)", r.wrank, wait.Spin, wait.Yield, wait.Why)
		how := "spin in MPICH"
		if yield {
			how = "poll MPICH and yield the core between polls"
		}
		r.logf("user %d: waits on MPICH %s (%s)", r.wrank, how, yieldWhy)
	}
	lend, nbcoll, err := r.agreeLending()
	if err != nil {
		return err
	}
	if nice, _ := ghostNice(r.cfg, r.hostSize, r.hostCPUs()); lend {
		// The runtime's threads must not preempt the application
		// (priority.go).
		n, err := lowerRuntimeThreads(nice)
		if err != nil && r.cfg.Verbose > 0 {
			r.logf("user %d: could not lower the priority of the runtime's threads to nice %d (%v); calls into the runtime may cost more", r.wrank, nice, err)
		} else if r.cfg.Verbose >= 2 {
			r.logf("user %d: the runtime's %d threads run at nice %d, the application's at its own", r.wrank, n, nice)
		}
	}
	// Lending the core serves a ghost that runs on it: one a launcher
	// bound to other CPUs never needs it, and a lend would only hand the
	// core to whoever else shares it (a computing user) for a time slice.
	lendGhost := lend && !r.ghostApart()
	if lend && !lendGhost && r.cfg.Verbose >= 2 {
		r.logf("user %d: does not lend its core: its ghost %d is bound to other CPUs", r.wrank, r.myGhost)
	}
	err = user.Start(user.Config{
		Channel: r.ch, Ghost: r.gctl, World: r.userWorld, WRank: r.wrank, GhostWRank: r.myGhost, NodeID: r.nodeID,
		Multiple: r.provided == mpi.ThreadMultiple, Tags: r.tags, ExposedUB: r.exposedUB,
		Progress:   r.pool[commexpand.SlotTagNative],
		ArenaShift: r.cfg.ArenaShift, SpinIters: wait.Spin, YieldIters: wait.Yield,
		SleepUS: r.cfg.SleepUS, Lend: lendGhost, NBColl: nbcoll, DirectYield: yield,
	})
	problem := ""
	if err != nil {
		problem = "CasperII: " + err.Error()
	} else if r.cfg.Verbose >= 2 {
		fence := "a fence per post (no global membarrier here)"
		if user.FenceFree() {
			fence = "no fence per post: the ghost issues a global membarrier before parking"
		}
		r.logf("user %d: doorbell: %s", r.wrank, fence)
	}
	if err == nil && !r.rmaWin.IsNull() {
		if err := user.StartRMA(r.rmaWin, r.cfg.Verbose, !r.cfg.AsyncOn, !r.cfg.RMALocalOff); err != nil {
			problem = "CasperII: " + err.Error()
		} else {
			user.SetRMAAuto(r.model.rmaAuto(r.cfg.AsyncAuto))
		}
	}
	if err := r.agree(r.userWorld, problem); err != nil {
		return err
	}
	var hints info.Hints
	if r.cfg.WorldHintsS {
		// readConfig checked the value: a bad one failed Init already.
		hints, _ = WorldHints(r.cfg.WorldHints)
	}
	return r.expand(r.userWorld, hints, nil, 0)
}

// agreeLending decides whether this user lends its core to its ghost
// (lendCore: the ghost runs at a lowered priority on it) and whether the
// job's users run blocking collectives as their nonblocking twins: if any
// user lends, all do, since a blocking collective does not match a
// nonblocking one (one Allreduce over the user world).
func (r *runtime) agreeLending() (lend, nbcoll bool, err error) {
	lend = lendCore(r.cfg, r.hostSize, r.hostCPUs())
	mine, any := []int32{0}, []int32{0}
	if lend {
		mine[0] = 1
	}
	if err := mpi.AllreduceInt32s(r.userWorld, mine, any, mpi.OpMax); err != nil {
		return false, false, err
	}
	return lend, any[0] != 0, nil
}

// Finalize finishes the user side and MPI.
func Finalize() error {
	r := rt
	if r == nil {
		return errors.New("CasperII: MPI is not initialized")
	}
	var err error
	if r.role == RoleUser {
		user.DropPolledProbe()
	}
	if r.role != RoleGhost && r.cfg.Stats {
		r.printStats()
		if r.role == RoleUser {
			urank, _ := r.userWorld.Rank()
			r.printRoutes(urank)
		}
	}
	steps := newCallSteps()
	if r.role == RoleUser {
		if uerr := user.Finish(); uerr != nil {
			// Once MPI is finalized no error code can carry the message
			// (registering one would abort): say it here and return the
			// bare class.
			r.logf("%v", uerr)
			err = &mpi.Error{Code: mpi.ErrOther, Class: mpi.ErrOther, Func: "MPI_Finalize", Msg: uerr.Error()}
		}
	}
	steps.done("user")
	var ferr error
	if r.role == RoleUser {
		var sig, lends int
		sig, lends, ferr = user.FinalizeMPI()
		steps.done("MPICH")
		if sig != 0 {
			r.verbosef(1, "MPI_Finalize: lent the core to the ghost %d times (timer signal %d)", lends, sig)
		}
		r.reportSteps("MPI_Finalize", steps)
	} else {
		ferr = mpi.Finalize()
	}
	if err == nil {
		err = ferr
	}
	return err
}

// printStats prints the casperii-stats line. Its last three fields are
// what the fast path still holds once every operation posted so far has
// finished (MPI_Finalize waits for them anyway): cells out of the free
// pool, live operation records, and bytes of the shared heap handed out.
// All three are 0 unless the application still holds requests or
// MPI_Alloc_mem memory, or the runtime leaks.
func (r *runtime) printStats() {
	use, _ := user.CurrentUsage(true)
	s := user.CurrentStats()
	urank, _ := r.userWorld.Rank()
	r.mu.Lock()
	r.readToggles()
	switches, switchesC := r.switches, r.switchesC
	r.mu.Unlock()
	rs := user.CurrentRMAStats()
	fmt.Fprintf(os.Stderr, "casperii-stats rank=%d isend_offloaded=%d irecv_offloaded=%d direct=%d bounce=%d held=%d yields=%d sleeps=%d probes=%d probes_polled=%d lends=%d direct_yields=%d switches=%d switches_in_c=%d set_info_without_mpich=%d rma_windows=%d rma_redirected=%d rma_local=%d rma_local_packed=%d rma_lock_retries=%d rma_switches=%d rma_lockword_ops=%d rma_agreements=%d rma_agree_us=%d rma_regrets=%d rma_rings=%d cells_in_use=%d ops_live=%d heap_in_use=%d\n",
		urank, s.Isend, s.Irecv, s.Direct, s.Bounce, s.Held, s.Yields, s.Sleeps, s.Probes, s.ProbesPolled, s.Lends, s.DirectYields, switches, switchesC, s.SetInfoC, rs.Windows, rs.Ops, rs.LocalOps, rs.LocalPacked, rs.LockRetries, rs.Switches, rs.LockwordOps, rs.Agreements, rs.AgreeUS, rs.Regrets, rs.Rings, use.CellsInUse, use.OpsLive, use.HeapInUse)
}

// Role returns what this process is.
func (r *runtime) Role() Role { return r.role }

// UserWorld returns COMM_USER_WORLD, which stands in for MPI_COMM_WORLD.
func (r *runtime) UserWorld() mpi.Comm { return r.userWorld }

// ExposedTagUB returns the MPI_TAG_UB the application sees.
func (r *runtime) ExposedTagUB() int { return r.exposedUB }

// Config returns the configuration read at Init.
func (r *runtime) Config() Config { return r.cfg }

// Algorithm returns the algorithm carrying comm's point-to-point traffic.
func (r *runtime) Algorithm(comm mpi.Comm) info.Algorithm {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.comms[comm.Raw()]; st != nil {
		return st.plan.Algorithm
	}
	return info.NoOffload
}
