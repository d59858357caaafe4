package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
	clusterred "github.com/pdc-mr/pdc/reducers/clusters"
)

// A Driver runs the pipeline's jobs in one place: the local runner
// (jobs/local) or Hadoop Streaming (jobs/hadoop). Run owns everything
// else: which jobs to run, their output directories, counters files and
// messages.
type Driver interface {
	// FS is the file system of the run's output directory.
	FS() hdfsfs.FS
	// Fuses tells whether the driver runs steps of two stages fused as f
	// (Feeding: Stage.Feeds, Chained: Stage.ChainsNext); a stage the
	// driver does not fuse is a step, and a job, of its own.
	Fuses(f Fusion) bool
	// Prepare readies the driver once the output directory exists (the
	// Hadoop driver uploads local documents to OUT/input).
	Prepare(ctx context.Context) error
	// Run runs a step. Its output directories (Step.Dirs) do not exist; a
	// job's directory must appear, with _SUCCESS, only when the job
	// succeeded. Run calls done for each job of the step as it finishes.
	Run(ctx context.Context, s Step, done func(Job) error) error
}

// Step is what a driver runs at once: one stage, or two fused.
type Step struct {
	Stages []Stage
	// Fusion is how the two stages of a two-stage step run together.
	Fusion Fusion
	// Out is the run's output directory on the driver's FS.
	Out string
	// Stored are the parsed-record directories of the stored runs a batch
	// run joins against (Options.Stored), which stages that ReadsStored
	// read besides their inputs under Out.
	Stored []string
}

// StoredInputs are the directories of the stored runs that stage st of
// the step reads besides its inputs under Out: their parsed records if it
// ReadsStored, their spans if it ReadsStoredSpans (none for a run that is
// no batch).
func (s Step) StoredInputs(st Stage) []string {
	var dirs []string
	if st.ReadsStored {
		dirs = append(dirs, s.Stored...)
	}
	if st.ReadsStoredSpans {
		for _, p := range s.Stored {
			dirs = append(dirs, path.Join(path.Dir(p), "spans"))
		}
	}
	return dirs
}

// Fusion is how two stages run as one step.
type Fusion int

// The fusions.
const (
	// Single: one stage.
	Single Fusion = iota
	// Feeding: the first stage's mappers also write the second stage's
	// map output, then the second runs its reduce phase (Stage.Feeds).
	// Each stage is a job, with its own output and counters.
	Feeding
	// Chained: the second stage runs inside the first's reduce tasks
	// (Stage.ChainsNext), one job named "first+second" writing the
	// second's output.
	Chained
)

// Name is the step's job name: a stage's name, "join+match" when chained.
func (s Step) Name() string {
	if s.Fusion == Chained {
		return s.Stages[0].Name + "+" + s.Stages[1].Name
	}
	return s.Stages[0].JobName()
}

// ChainedKeyFields is, for a chained step whose second stage is map-only,
// the key fields of the job's output (that stage's map output, which the
// runners write sorted by its key); 0 otherwise (the job's own key).
func (s Step) ChainedKeyFields() int {
	if s.Fusion == Chained && s.Stages[1].MapOnly {
		return s.Stages[1].KeyFields
	}
	return 0
}

// Dir is the output directory of the step's last stage (for a chained
// step, its only output).
func (s Step) Dir() string { return s.dir(s.Stages[len(s.Stages)-1]) }

// Dirs are the step's output directories: one per job.
func (s Step) Dirs() []string {
	if s.Fusion == Feeding {
		return []string{s.dir(s.Stages[0]), s.dir(s.Stages[1])}
	}
	return []string{s.Dir()}
}

func (s Step) dir(st Stage) string { return path.Join(s.Out, st.OutputDir()) }

// Job is one finished job.
type Job struct {
	Name     string
	ID       string // the cluster's job id, if any
	Dir      string // its output directory
	Counters map[string]int64
	Took     time.Duration
	Skipped  bool // finished in an earlier run
}

// Options are a run's settings that are not job parameters.
type Options struct {
	// Out is the output directory on the driver's FS.
	Out string
	// Manifest is what a rerun must match to resume (OUT/_pdc.json).
	Manifest Manifest
	// Overwrite replaces an existing run (Prepare).
	Overwrite bool
	// KeepIntermediate keeps every job's output (and so runs no Chained
	// step).
	KeepIntermediate bool
	// Stderr receives the messages; Quiet leaves out all but errors, and
	// Verbose adds every job's counters.
	Stderr  io.Writer
	Quiet   bool
	Verbose bool
	// Display is the output directory as the user named it, for messages.
	Display string
	// Holder describes this run in its lock on the output directory
	// (lock.go); ForceUnlock removes another run's lock first.
	Holder      LockInfo
	ForceUnlock bool
	// Clusters runs the passage-cluster jobs after the match
	// (ClusterStages).
	Clusters bool
	// Store keeps OUT/parsed, the run's parsed records, so that batches
	// can run against it (pdc run --store).
	Store bool
	// Stored are, for a batch run (pdc run --against), the parsed-record
	// directories of the stored runs, on the driver's FS, oldest first;
	// the run's own parse job writes records of its batch number
	// (jobconf.Config.Batch). The parse job then feeds no other.
	Stored []string
	// ComponentEdges is the largest graph of passages, in edges, whose
	// connected components one job finds (ComponentsStage; a larger one
	// runs star rounds, and the one job once a round leaves it this small:
	// the rounds shrink a graph to about its number of nodes at most); 0:
	// star rounds only.
	ComponentEdges int
	// Finished, if set, runs after Finish, still under the lock (more
	// reports written into OUT).
	Finished func(jobs []Job) error
}

// ErrInterrupted is returned, wrapped, when the run's context ends.
var ErrInterrupted = errors.New("interrupted")

// Run runs the pipeline through d: it locks the output directory for this
// run (AcquireLock), prepares it (Prepare), plans the steps (fusing stages where d can), skips the jobs
// an earlier run finished, runs the others, writes each job's counters to
// DIR/_counters.tsv and reports it, then writes the run's reports
// (Finish). It returns every job, in pipeline order.
func Run(ctx context.Context, d Driver, o Options) (jobs []Job, err error) {
	fsys := d.FS()
	lock, err := AcquireLock(fsys, o.Out, o.Holder, o.ForceUnlock)
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := lock.Release(); err == nil {
			err = rerr
		}
	}()
	// A batch reads its stored runs: it holds their locks too, so that no
	// run rewrites one meanwhile, and refuses to start while another run
	// uses one (nothing is written to OUT before). A stored run whose
	// lock cannot be made (a directory this user may only read) is read
	// without it.
	for _, s := range o.Stored {
		run := path.Dir(s)
		l, err := AcquireLock(fsys, run, o.Holder, o.ForceUnlock)
		switch {
		case errors.Is(err, ErrLocked):
			return nil, fmt.Errorf("--against: the stored run %s: %w; a batch runs while no other run uses its stored runs", run, err)
		case err == nil:
			defer l.Release()
		}
		if err := storedFinished(fsys, run); err != nil {
			return nil, fmt.Errorf("--against: %w", err)
		}
	}
	if c, ok := d.(io.Closer); ok {
		defer c.Close() // the driver's scratch space, removed under the lock
	}
	if o.Store {
		o.Manifest.StoreLayout = StoreLayout
	}
	resumed, err := Prepare(fsys, o.Out, o.Manifest, o.Overwrite)
	if err != nil {
		return nil, err
	}
	if resumed && !o.Quiet {
		fmt.Fprintf(o.Stderr, "pdc: resuming the unfinished run in %s\n", o.Display)
	}
	if err := d.Prepare(ctx); err != nil {
		return nil, err
	}
	runStep := func(step Step) error {
		step.Stored = o.Stored
		if Succeeded(fsys, step.Dir()) && hasCounters(fsys, step.Dir()) && step.Fusion != Feeding {
			jobs = append(jobs, skip(fsys, step, o))
			return nil
		}
		for _, dir := range step.Dirs() {
			if err := fsys.RemoveAll(dir); err != nil {
				return fmt.Errorf("job %s: %w", step.Name(), err)
			}
		}
		err := d.Run(ctx, step, func(j Job) error {
			if err := WriteCounters(fsys, j.Dir+"/_counters.tsv", j.Counters); err != nil {
				return err
			}
			if !o.Quiet {
				id := ""
				if j.ID != "" {
					id = j.ID + " "
				}
				fmt.Fprintf(o.Stderr, "job %s: %sdone in %s\n", j.Name, id, elapsed(j.Took))
				if o.Verbose {
					PrintCounters(o.Stderr, j.Counters)
				}
			}
			jobs = append(jobs, j)
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("job %s: %w (rerun the same command to resume)", step.Name(), ErrInterrupted)
			}
			return err
		}
		return nil
	}
	stages := Stages()
	if o.Clusters {
		stages = append(stages, ClusterStages()...)
	}
	cfg, err := o.Manifest.Config()
	if err != nil {
		cfg = jobconf.Default() // the run's own record: read back as written
	}
	// boilerplate.tsv's texts are read from the documents while the jobs
	// after the boilerplate job run (on the core they leave idle, or in the
	// client while a cluster runs them); the run waits for them before it
	// returns, whatever happens: when it returns early, the reading stops
	// first.
	textsCtx, stopTexts := context.WithCancel(ctx)
	defer stopTexts()
	boilerplateRows := readBoilerplate(textsCtx, fsys, o.Out, cfg, o.Stored)
	rowsDir := Step{Stages: []Stage{{Name: "boilerplate"}}, Out: o.Out}.Dir()
	started := false
	defer func() {
		if started {
			stopTexts()
			boilerplateRows()
		}
	}()
	for _, step := range plan(stages, o.Out, d.Fuses(Chained) && !o.KeepIntermediate, d.Fuses(Feeding) && len(o.Stored) == 0, func(dir string) bool { return Succeeded(fsys, dir) }) {
		if err := runStep(step); err != nil {
			return nil, err
		}
		if !started && slices.Contains(step.Dirs(), rowsDir) {
			boilerplateRows, started = startBoilerplate(boilerplateRows), true
		}
	}
	if o.Clusters {
		if err := runClusters(o.Out, o.ComponentEdges, d.Fuses(Chained) && !o.KeepIntermediate, runStep, &jobs); err != nil {
			return nil, err
		}
	}
	var keep []string
	if o.Store {
		keep = append(keep, "parsed")
	}
	miss, err := Finish(fsys, o.Out, jobs, boilerplateRows, o.KeepIntermediate, keep)
	if err != nil {
		return nil, err
	}
	if miss.Rows > 0 && !o.Quiet {
		fmt.Fprintf(o.Stderr, "pdc: warning: %s/boilerplate.tsv: %d of its %d rows have no text: %v\n", o.Display, miss.Rows, miss.Total, miss.First)
	}
	switch {
	case o.Quiet || miss.Unread == 0:
	case miss.Skipped != "":
		fmt.Fprintf(o.Stderr, "pdc: %s/boilerplate.tsv has no texts: %s; `pdc boilerplate %s --text` reads them\n", o.Display, miss.Skipped, o.Display)
	default:
		fmt.Fprintf(o.Stderr, "pdc: %s/boilerplate.tsv holds the texts of its most frequent rows; `pdc boilerplate %s --text` prints all %d\n", o.Display, o.Display, miss.Total)
	}
	if o.Finished != nil {
		if err := o.Finished(jobs); err != nil {
			return nil, err
		}
	}
	return jobs, nil
}

// runClusters runs the rounds of the connected-components iteration until
// one changes no edge, or, once the graph has at most maxEdges edges, the
// components job that ends it in one job (a round too); then the clusters
// job, whose counters get the number of rounds (clusters.rounds). With
// chain, the components job's one reduce task runs the clusters job too
// (one job, "components+clusters").
func runClusters(out string, maxEdges int, chain bool, runStep func(Step) error, jobs *[]Job) error {
	cs := ClusterStages()
	input := cs[len(cs)-1].OutputDir()
	edges := (*jobs)[len(*jobs)-1].Counters["clusters.edges"]
	rounds := 0
	for changed := int64(-1); changed != 0; {
		if rounds++; rounds > MaxRounds {
			return fmt.Errorf("clusters: the connected components did not converge in %d rounds", MaxRounds)
		}
		if edges <= int64(maxEdges) {
			st := ComponentsStage(input)
			if chain {
				if err := runStep(Step{Stages: []Stage{st, ClustersStage(st.OutputDir())}, Out: out, Fusion: Chained}); err != nil {
					return err
				}
				return countRounds(jobs, rounds)
			}
			if err := runStep(Step{Stages: []Stage{st}, Out: out}); err != nil {
				return err
			}
			input = st.OutputDir()
			break
		}
		changed = 0
		for _, st := range StarRound(rounds, input) {
			if err := runStep(Step{Stages: []Stage{st}, Out: out}); err != nil {
				return err
			}
			changed += (*jobs)[len(*jobs)-1].Counters[clusterred.Changed]
			input = st.OutputDir()
		}
		edges = (*jobs)[len(*jobs)-1].Counters["clusters.star-edges"]
	}
	if err := runStep(Step{Stages: []Stage{ClustersStage(input)}, Out: out}); err != nil {
		return err
	}
	return countRounds(jobs, rounds)
}

// countRounds gives the last job the counter clusters.rounds.
func countRounds(jobs *[]Job, rounds int) error {
	j := &(*jobs)[len(*jobs)-1]
	if j.Counters == nil {
		j.Counters = map[string]int64{}
	}
	j.Counters["clusters.rounds"] = int64(rounds)
	return nil
}

// plan groups stages into steps: a stage that Feeds the next runs with it
// when feed is set and neither has finished; a stage that ChainsNext runs
// with the next when chain is set and it has not finished.
func plan(stages []Stage, out string, chain, feed bool, done func(dir string) bool) []Step {
	var steps []Step
	for i := 0; i < len(stages); i++ {
		st := stages[i]
		step := Step{Stages: []Stage{st}, Out: out}
		if i+1 < len(stages) {
			next := stages[i+1]
			dirs := Step{Stages: []Stage{st, next}, Out: out, Fusion: Feeding}.Dirs()
			switch {
			case feed && st.Feeds == next.Name && !done(dirs[0]) && !done(dirs[1]):
				step = Step{Stages: []Stage{st, next}, Out: out, Fusion: Feeding}
				i++
			case chain && st.ChainsNext && !done(dirs[0]):
				step = Step{Stages: []Stage{st, next}, Out: out, Fusion: Chained}
				i++
			}
		}
		steps = append(steps, step)
	}
	return steps
}

// skip reports a step finished in an earlier run and returns its job.
func skip(fsys hdfsfs.FS, step Step, o Options) Job {
	j := Job{Name: step.Name(), Dir: step.Dir(), Skipped: true}
	j.Counters, _ = ReadCounters(fsys, j.Dir+"/_counters.tsv")
	if !o.Quiet {
		fmt.Fprintf(o.Stderr, "job %s: finished in an earlier run, skipped\n", j.Name)
	}
	return j
}

// hasCounters tells whether a job directory holds its _counters.tsv
// (written after the job's _SUCCESS: a run that stopped between the two
// runs the job again rather than lose its counters).
func hasCounters(fsys hdfsfs.FS, dir string) bool {
	_, err := fsys.Stat(dir + "/_counters.tsv")
	return err == nil
}

// Succeeded tells whether a job directory holds _SUCCESS.
func Succeeded(fsys hdfsfs.FS, dir string) bool {
	_, err := fsys.Stat(dir + "/_SUCCESS")
	return err == nil
}

// Merged returns the counters of every job in one map.
func Merged(jobs []Job) map[string]int64 {
	m := map[string]int64{}
	for _, j := range jobs {
		maps.Copy(m, j.Counters)
	}
	return m
}

// RunStages runs stages one at a time through d, each a step writing its
// directory under out (no manifest, no resume: pdc dedup's jobs), writes
// each job's _counters.tsv, says "job NAME: ID done in T" on stderr unless
// quiet, and returns the jobs.
func RunStages(ctx context.Context, d Driver, out string, stages []Stage, stderr io.Writer, quiet bool) ([]Job, error) {
	var jobs []Job
	for _, st := range stages {
		err := d.Run(ctx, Step{Stages: []Stage{st}, Out: out}, func(j Job) error {
			if err := WriteCounters(d.FS(), j.Dir+"/_counters.tsv", j.Counters); err != nil {
				return err
			}
			if !quiet {
				id := ""
				if j.ID != "" {
					id = j.ID + " "
				}
				fmt.Fprintf(stderr, "job %s: %sdone in %s\n", j.Name, id, elapsed(j.Took))
			}
			jobs = append(jobs, j)
			return nil
		})
		if err != nil {
			return jobs, err
		}
	}
	return jobs, nil
}

func elapsed(d time.Duration) string { return d.Round(10 * time.Millisecond).String() }

// isPart reports whether a job output's file name is a part file's.
func isPart(name string) bool { return strings.HasPrefix(name, "part-") && len(name) > 5 }

// PartFiles lists a job output's part files in name order.
func PartFiles(fsys hdfsfs.FS, dir string) ([]string, error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read job output: %w", err)
	}
	var out []string
	for _, e := range ents {
		if isPart(e.Name()) {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out, nil
}
