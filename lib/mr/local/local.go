// Package local runs pdc streaming jobs in-process, the way Hadoop Streaming
// would run them on a cluster: parallel map tasks over input splits, map
// output partitioned with mr.Partition and sorted by raw key bytes within a
// bounded memory budget (sorted runs spilled to disk, see spill.go), an
// optional combiner over each sorted run, and parallel reduce tasks each fed
// a k-way merge of its partition. Records are normalised exactly as Hadoop
// Streaming's key/value split does, so part files match a Hadoop run.
//
// Beyond Hadoop Streaming, RunFeeding spares a job its pass over another
// job's output: a map-only job's mappers write the second job's map output
// on the way (mr.Task.Side).
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pdc-mr/pdc/lib/mr"
)

// Job describes one streaming job.
type Job struct {
	Name            string
	Map             mr.Func
	Reduce          mr.Func // nil: map-only, map outputs become part-m-NNNNN
	Combine         mr.Func // optional, applied to each partition of each sorted run
	KeyFields       int     // stream.num.map.output.key.fields; < 1 means 1
	PartitionFields int     // P of the partitioner's -k1,P; < 1 means the whole key
	OutputKeyFields int     // stream.num.reduce.output.key.fields; < 1 means 1
	Reducers        int     // < 1 means 1 (ignored when Reduce is nil)

	Env map[string]string // visible through Task.Getenv, plus PDC_INPUT_* in map tasks
	// PackSize packs consecutive small file splits into one map task, up to
	// PackSize bytes together (Hadoop's CombineFileInputFormat): each split
	// still gets its own mapper invocation with its own input variables,
	// but they share one output. 0: one split per task.
	PackSize int64
	// InputKeys gives each map input line its byte offset in the split's
	// file, as `offset TAB line` (Hadoop Streaming's
	// stream.map.input.ignoreKey=false; mr.EnvInputKeys tells the task).
	InputKeys bool
	// MaxLine skips map input lines of files longer than MaxLine bytes
	// (0: no limit) without holding them, as Hadoop's LineRecordReader
	// does with mapreduce.input.linerecordreader.line.maxlength. Each
	// skipped line adds one to each counter of LongLineCounters (group
	// mr.CounterGroup); the first few are reported on Runner.Stderr.
	MaxLine          int64
	LongLineCounters []string
	Inputs           []Split
	Output           string // directory, created; it must not exist yet
}

// Runner runs jobs locally. Its zero value is ready to use.
type Runner struct {
	Workers  int    // parallel map tasks and reduce tasks; default runtime.NumCPU()
	SortMem  int64  // map output buffer shared by concurrent map tasks; default 256 MiB
	TempDir  string // spill directory; default os.TempDir()
	Stderr   io.Writer
	Progress func(job, phase string, done, total int64) // optional; phase "map" or "reduce"

	mu   sync.Mutex
	free []*sortBuffer // idle sort buffers, reused by later map tasks and jobs
}

// getBuffer returns an empty sort buffer, reusing an idle one whose memory
// fits in limit, so that map tasks do not regrow their buffers from scratch.
func (r *Runner) getBuffer(limit int) *sortBuffer {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.free) > 0 {
		b := r.free[len(r.free)-1]
		r.free = r.free[:len(r.free)-1]
		if b.capacity() <= limit {
			return b
		}
	}
	return &sortBuffer{}
}

// putBuffer keeps b for reuse, at most keep buffers in all; the buffers in
// use and kept never hold more than SortMem between them.
func (r *Runner) putBuffer(b *sortBuffer, keep int) {
	b.reset()
	b.spill = nil
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.free) < keep {
		r.free = append(r.free, b)
	}
}

// DefaultSortMem is the default Runner.SortMem.
const DefaultSortMem = 256 << 20

// Counter names in the map Run returns: a counter of group mr.CounterGroup
// is keyed by its name, any other by "GROUP.NAME".
func counterKey(group, name string) string {
	if group == mr.CounterGroup {
		return name
	}
	return group + "." + name
}

// Run runs j and returns its counters, summed over all tasks. Output appears
// only when every task succeeded: the part files and _SUCCESS are written
// into Output+"._tmp", which is renamed to Output at the end; on failure it
// is removed. The first task error cancels the other tasks.
func (r *Runner) Run(ctx context.Context, j *Job) (map[string]int64, error) {
	counters, err := r.run(ctx, j)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.Name, err)
	}
	return counters, nil
}

func (r *Runner) run(ctx context.Context, j *Job) (map[string]int64, error) {
	if j.Map == nil {
		return nil, errors.New("job needs Map and Output")
	}
	st, done, err := r.prepare(j)
	if err != nil {
		return nil, err
	}
	defer done()
	return st.finish(st.execute(ctx))
}

// prepare checks j, creates its temporary output and spill directories and
// returns its state and the function that removes the spill directory.
func (r *Runner) prepare(j *Job) (*state, func(), error) {
	if j.Output == "" {
		return nil, nil, errors.New("job needs Map and Output")
	}
	if _, err := os.Stat(j.Output); err == nil {
		return nil, nil, fmt.Errorf("output %s: %w", j.Output, fs.ErrExist)
	}
	tmp := j.Output + "._tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, nil, fmt.Errorf("clean output: %w", err)
	}
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		return nil, nil, fmt.Errorf("create output: %w", err)
	}
	spillDir, err := os.MkdirTemp(r.TempDir, "pdc-spill-")
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, fmt.Errorf("create spill dir: %w", err)
	}
	return r.newState(j, tmp, spillDir), func() { os.RemoveAll(spillDir) }, nil
}

// finish commits the job's output if err is nil, or removes it.
func (st *state) finish(err error) (map[string]int64, error) {
	if err == nil {
		err = commit(st.out, st.j.Output)
	}
	if err != nil {
		os.RemoveAll(st.out)
		return nil, err
	}
	if n := st.longLines.Load(); n > 0 {
		for _, name := range st.j.LongLineCounters {
			st.counters[name] += n
		}
	}
	return st.counters, nil
}

// RunFeeding runs the map-only job j, whose mappers also write the map
// output of job side (mr.Task.Side): those lines are partitioned, sorted
// and combined as side's own map tasks' output would be (side's combiner
// sees the input variables of j's split), and kept for Feed.Run, which then
// runs only side's reduce phase (side.Map and side.Inputs are not used).
// j's output is committed as Run commits it. A job that would read j's
// output to compute what j's mappers can compute on the way (pdc's stats
// job over the parse job's records) is spared its map phase. Call
// Feed.Close when done with the Feed.
func (r *Runner) RunFeeding(ctx context.Context, j, side *Job) (map[string]int64, *Feed, error) {
	if j.Map == nil || j.Reduce != nil || side.Reduce == nil {
		return nil, nil, fmt.Errorf("job %s: RunFeeding needs a map-only job feeding a job with Reduce", j.Name)
	}
	st, done, err := r.prepare(j)
	if err != nil {
		return nil, nil, fmt.Errorf("job %s: %w", j.Name, err)
	}
	defer done()
	sst, sdone, err := r.prepare(side)
	if err != nil {
		os.RemoveAll(st.out)
		return nil, nil, fmt.Errorf("job %s: %w", side.Name, err)
	}
	f := &Feed{st: sst, done: sdone}
	sst.runs, sst.share, sst.keep, sst.fed = make([][]*run, len(st.tasks)), st.share, st.keep, true
	st.side = sst
	jc, err := st.finish(st.execute(ctx))
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("job %s: %w", j.Name, err)
	}
	return jc, f, nil
}

// A Feed is the map output a job wrote for another (RunFeeding).
type Feed struct {
	st   *state
	done func()
}

// Run runs the fed job's reduce phase and commits its output, as
// Runner.Run does.
func (f *Feed) Run(ctx context.Context) (map[string]int64, error) {
	defer f.Close()
	c, err := f.st.finish(f.st.execute(ctx))
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", f.st.j.Name, err)
	}
	return c, nil
}

// Close removes the fed job's map output and its temporary output.
func (f *Feed) Close() {
	if f.done != nil {
		os.RemoveAll(f.st.out)
		f.done()
		f.done = nil
	}
}

func commit(tmp, output string) error {
	if err := os.WriteFile(filepath.Join(tmp, "_SUCCESS"), nil, 0o666); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if err := os.Rename(tmp, output); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// state is one running job.
type state struct {
	r        *Runner
	j        *Job
	workers  int
	share    int // sort buffer bytes per map task
	keep     int // idle sort buffers to keep (at most one per concurrent map task)
	reducers int
	out      string // temporary output dir
	spillDir string

	side *state // the job this one's map tasks feed (RunFeeding), or nil
	fed  bool   // the map output comes from another job's map tasks

	mu        sync.Mutex
	counters  map[string]int64
	tasks     [][]Split       // per map task, its splits; grows when a split is cut
	runs      [][]*run        // per map task
	reading   map[int]reading // what map tasks read that steal may share out
	pending   int             // map tasks not finished
	changed   *sync.Cond      // on mu: a map task ended or began a divisible split
	done      map[string]int64
	longLines atomic.Int64 // lines skipped for Job.MaxLine
}

// reading is the divisible split a map task is reading: a file split that
// can be cut (lr), or a stream (s).
type reading struct {
	sp Split
	lr *lineReader
	s  *stream
}

// offer lets steal share out what task i reads, until withdraw is called.
func (st *state) offer(i int, rd reading) (withdraw func()) {
	st.mu.Lock()
	st.reading[i] = rd
	st.changed.Broadcast()
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		delete(st.reading, i)
		st.mu.Unlock()
	}
}

func (r *Runner) newState(j *Job, out, spillDir string) *state {
	st := &state{
		r: r, j: j, workers: r.Workers, out: out, spillDir: spillDir,
		reducers: max(j.Reducers, 1),
		counters: make(map[string]int64), done: make(map[string]int64),
	}
	for _, t := range packSplits(j.Inputs, j.PackSize) {
		sps := make([]Split, len(t))
		for k, i := range t {
			sps[k] = j.Inputs[i]
		}
		st.tasks = append(st.tasks, sps)
	}
	st.runs = make([][]*run, len(st.tasks))
	st.reading, st.pending = make(map[int]reading), len(st.tasks)
	st.changed = sync.NewCond(&st.mu)
	if st.workers < 1 {
		st.workers = runtime.NumCPU()
	}
	mem := r.SortMem
	if mem <= 0 {
		mem = DefaultSortMem
	}
	// As many tasks as workers may run at once, unless there are fewer
	// tasks and no split can be cut (see steal).
	st.keep = min(st.workers, max(len(st.tasks), 1))
	if slices.ContainsFunc(j.Inputs, func(sp Split) bool { return sp.Divisible }) {
		st.keep = st.workers
	}
	share := mem / int64(st.keep)
	st.share = int(min(max(share, 4<<10), 1<<31))
	return st
}

// execute runs the map phase, then the reduce phase. Tasks carry the
// pprof labels job=NAME and phase=map|reduce, so a CPU profile of a run
// splits by job (go tool pprof -tagfocus job=index).
func (st *state) execute(ctx context.Context) error {
	var err error
	if !st.fed {
		pprof.Do(ctx, pprof.Labels("job", st.j.Name, "phase", "map"), func(ctx context.Context) {
			err = forEach(ctx, len(st.tasks), st.workers, st.mapTask, st.steal)
		})
	}
	if err != nil || st.j.Reduce == nil {
		return err
	}
	pprof.Do(ctx, pprof.Labels("job", st.j.Name, "phase", "reduce"), func(ctx context.Context) {
		err = forEach(ctx, st.reducers, st.workers, st.reduceTask, nil)
	})
	return err
}

// forEach runs f(0..n-1) on up to workers goroutines, then, on each
// goroutine that finds nothing left, f(i) for each i more returns until
// more says there is no more (more may be nil). The first error cancels
// the context of the others and is returned.
func forEach(ctx context.Context, n, workers int, f func(context.Context, int) error, more func(context.Context) (int, bool)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	goroutines := min(workers, n)
	if more != nil {
		goroutines = workers
	}
	for range goroutines {
		wg.Go(func() {
			for i := range next {
				if err := f(ctx, i); err != nil {
					cancel(err)
				}
			}
			for more != nil && ctx.Err() == nil {
				i, ok := more(ctx)
				if !ok {
					break
				}
				if err := f(ctx, i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// packSplits groups consecutive splits into map tasks: a split of known
// length joins the current task while the task's splits add up to at most
// size bytes; splits of unknown length (Length 0: trees of pages,
// converted containers) always get a task of their own.
func packSplits(splits []Split, size int64) [][]int {
	var tasks [][]int
	var sum int64
	for i, sp := range splits {
		n := len(tasks)
		if size > 0 && n > 0 && sp.Length > 0 && sum > 0 && sum+sp.Length <= size {
			tasks[n-1] = append(tasks[n-1], i)
			sum += sp.Length
			continue
		}
		tasks = append(tasks, []int{i})
		sum = sp.Length
	}
	return tasks
}

// progress records a finished map or reduce task and reports it.
func (st *state) progress(phase string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done[phase]++
	total := st.reducers
	if phase == "map" {
		total = len(st.tasks)
	}
	if st.r.Progress != nil {
		st.r.Progress(st.j.Name, phase, st.done[phase], int64(total))
	}
}

// minCut is the least a cut (see steal) gives a map task to read.
var minCut int64 = 1 << 20

// steal gives a worker that found no map task left a new one, a share of
// a running task's divisible split: the second half of what is left of the
// file split with the most left, when that is at least 2*minCut bytes, or
// else a place among the readers of a stream (stream.go), the one with the
// fewest. Without it the last task of a job (a split of big or slow
// documents, a .gz file) runs alone while the other cores wait. When there
// is nothing to share, steal waits for a task to end or to begin a split,
// and gives up when every task has finished or ctx is done.
func (st *state) steal(ctx context.Context) (int, bool) {
	stop := context.AfterFunc(ctx, func() {
		st.mu.Lock()
		st.changed.Broadcast()
		st.mu.Unlock()
	})
	defer stop()
	st.mu.Lock()
	defer st.mu.Unlock()
	for ctx.Err() == nil {
		if i, ok := st.cut(); ok {
			return i, true
		}
		if i, ok := st.joinStream(); ok {
			return i, true
		}
		if st.pending == 0 {
			return 0, false
		}
		st.changed.Wait()
	}
	return 0, false
}

// cut is steal's attempt, with st.mu held.
func (st *state) cut() (int, bool) {
	var from reading
	var most int64
	for _, rd := range st.reading {
		if rd.lr == nil {
			continue
		}
		if n := rd.lr.left(); n > most {
			from, most = rd, n
		}
	}
	if from.lr == nil {
		return 0, false
	}
	start, end, ok := from.lr.cut(minCut)
	if !ok {
		return 0, false
	}
	return st.addTask(divisibleSplit(from.sp.Name, start, end-start)), true
}

// joinStream is steal's attempt at joining a stream, with st.mu held.
func (st *state) joinStream() (int, bool) {
	var to *stream
	n := 0
	for _, rd := range st.reading {
		if rd.s == nil {
			continue
		}
		if r := rd.s.readers(); r > 0 && (to == nil || r < n) {
			to, n = rd.s, r
		}
	}
	if to == nil || !to.join() {
		return 0, false
	}
	sp := to.sp
	sp.stream = to
	return st.addTask(sp), true
}

// addTask adds a map task of one split, with st.mu held, and returns it.
func (st *state) addTask(sp Split) int {
	st.tasks = append(st.tasks, []Split{sp})
	st.pending++
	st.runs = append(st.runs, nil)
	if st.side != nil {
		st.side.mu.Lock()
		st.side.runs = append(st.side.runs, nil)
		st.side.mu.Unlock()
	}
	return len(st.tasks) - 1
}

// maxLongLineReports is how many skipped long lines a job reports.
const maxLongLineReports = 5

// limitLines makes lr (if not nil) skip lines over Job.MaxLine, counting
// and reporting them.
func (st *state) limitLines(lr *lineReader, sp Split) {
	if lr == nil || st.j.MaxLine <= 0 {
		return
	}
	lr.max = st.j.MaxLine
	lr.long = func(off, n int64) { // under a stream's lock: st.mu would deadlock with steal
		if st.longLines.Add(1) <= maxLongLineReports && st.r.Stderr != nil {
			fmt.Fprintf(st.r.Stderr, "pdc: %s: the line of %d bytes at byte %d skipped unread (too-large): an input record may take %d MiB\n",
				sp.Name, n, off, st.j.MaxLine>>20)
		}
	}
}

func (st *state) addCounters(c map[string]int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for k, v := range c {
		st.counters[k] += v
	}
}

// logLine writes a task's non-reporter stderr line to Runner.Stderr.
func (st *state) logLine(task string, line []byte) {
	if st.r.Stderr == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	fmt.Fprintf(st.r.Stderr, "%s %s: %s\n", st.j.Name, task, line)
}
