package local

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"

	"github.com/pdc-mr/pdc/lib/mr"
)

// taskIO holds the per-task plumbing shared by map, combine and reduce.
type taskIO struct {
	st       *state
	id       string
	env      map[string]string
	counters map[string]int64
	stderr   *lineSplitter
}

func (st *state) newTaskIO(ctx context.Context, id string, extra map[string]string) *taskIO {
	t := &taskIO{st: st, id: id, env: st.j.Env, counters: make(map[string]int64)}
	if len(extra) > 0 {
		t.env = make(map[string]string, len(st.j.Env)+len(extra))
		for k, v := range st.j.Env {
			t.env[k] = v
		}
		for k, v := range extra {
			t.env[k] = v
		}
	}
	t.stderr = &lineSplitter{ctx: context.WithoutCancel(ctx), emit: t.stderrLine}
	return t
}

func (t *taskIO) stderrLine(line []byte) error {
	if g, n, v, ok := mr.ParseCounterLine(line); ok {
		t.counters[counterKey(g, n)] += v
	} else if !mr.IsStatusLine(line) {
		t.st.logLine(t.id, line)
	}
	return nil
}

func (t *taskIO) getenv(k string) string { return t.env[k] }

// call runs f on the given streams, turning a panic into an error, then
// flushes the task's stderr.
func (t *taskIO) call(f mr.Func, in io.Reader, out *lineSplitter) error {
	return t.callSide(f, in, out, nil)
}

// callSide is call with a side output (mr.Task.Side), if side is not nil.
func (t *taskIO) callSide(f mr.Func, in io.Reader, out, side *lineSplitter) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	task := &mr.Task{Stdin: in, Stdout: out, Stderr: t.stderr, Getenv: t.getenv}
	if side != nil {
		task.Side = side
	}
	if err := f(task); err != nil {
		return err
	}
	if err := out.close(); err != nil {
		return err
	}
	if side != nil {
		if err := side.close(); err != nil {
			return fmt.Errorf("side output: %w", err)
		}
	}
	return t.stderr.close()
}

func (st *state) mapTask(ctx context.Context, i int) error {
	defer func() {
		st.mu.Lock()
		st.pending--
		st.changed.Broadcast()
		st.mu.Unlock()
	}()
	if err := st.runMap(ctx, i); err != nil {
		return fmt.Errorf("map task %d %w", i, err)
	}
	st.progress("map")
	return nil
}

// splitError names the split a map task failed on.
type splitError struct {
	sp  Split
	err error
}

func (e *splitError) Error() string {
	return fmt.Sprintf("(%s@%d): %v", filepath.Base(e.sp.Name), e.sp.Start, e.err)
}

func (e *splitError) Unwrap() error { return e.err }

// runMap runs map task i: the mapper over each split of the task in turn
// (one invocation per split, with that split's input variables), all into
// one output. A combiner sees the variables of the split being read when
// the buffer spills.
func (st *state) runMap(ctx context.Context, i int) error {
	st.mu.Lock()
	splits := st.tasks[i]
	st.mu.Unlock()
	cur := splits[0]
	feed := func(out, side *lineSplitter) error {
		for _, sp := range splits {
			cur = sp
			if err := st.mapSplit(ctx, i, cur, out, side); err != nil {
				return err
			}
		}
		return nil
	}
	env := func() map[string]string { return st.inputEnv(cur) }
	var err error
	switch {
	case st.j.Reduce == nil && st.side != nil:
		// The side output is the fed job's map output: sorted into its
		// runs as its own map task i would.
		err = st.side.mapSort(ctx, i, func(side *lineSplitter) error {
			return st.mapOnly(ctx, i, func(out *lineSplitter) error { return feed(out, side) })
		}, func() map[string]string { return st.side.inputEnv(cur) })
	case st.j.Reduce == nil:
		err = st.mapOnly(ctx, i, func(out *lineSplitter) error { return feed(out, nil) })
	default:
		err = st.mapSort(ctx, i, func(out *lineSplitter) error { return feed(out, nil) }, env)
	}
	if err != nil {
		return &splitError{sp: cur, err: err}
	}
	return nil
}

// inputEnv is the environment naming a map task's input split.
func (st *state) inputEnv(sp Split) map[string]string {
	env := map[string]string{mr.EnvInputFile: sp.Name, mr.EnvInputStart: strconv.FormatInt(sp.Start, 10)}
	if st.j.InputKeys {
		env[mr.EnvInputKeys] = "false"
	}
	return env
}

// mapSplit runs the mapper over one split, writing to out.
func (st *state) mapSplit(ctx context.Context, i int, sp Split, out, side *lineSplitter) error {
	if sp.stream != nil { // joining another task's stream (steal)
		return st.mapStream(ctx, i, sp.stream, out, side)
	}
	in, err := sp.Open()
	if err != nil {
		return err
	}
	lr, _ := in.(*lineReader)
	st.limitLines(lr, sp)
	if sp.Divisible && (lr == nil || lr.end < 0) { // cannot be cut: shared as a stream
		return st.mapStream(ctx, i, newStream(sp, in, st.j.InputKeys), out, side)
	}
	if st.j.InputKeys {
		if lr != nil {
			lr.keys = true
		} else {
			in = newKeyLines(in, sp.Start)
		}
	}
	defer in.Close()
	if lr != nil && sp.Divisible {
		defer st.offer(i, reading{sp: sp, lr: lr})()
	}
	t := st.newTaskIO(ctx, fmt.Sprintf("map %d", i), st.inputEnv(sp))
	if err := t.callSide(st.j.Map, withContext(ctx, in), out, side); err != nil {
		return err
	}
	st.addCounters(t.counters)
	return nil
}

// mapOnly writes the map output to part-m-NNNNN.
func (st *state) mapOnly(ctx context.Context, i int, feed func(*lineSplitter) error) error {
	return st.writePart(fmt.Sprintf("part-m-%05d", i), func(w *bufio.Writer) error {
		return feed(&lineSplitter{ctx: ctx, emit: func(line []byte) error {
			return writeKeyValue(w, line, st.j.KeyFields)
		}})
	})
}

// writePart creates name in the output directory and fills it with fill.
func (st *state) writePart(name string, fill func(*bufio.Writer) error) error {
	f, err := os.Create(filepath.Join(st.out, name))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if err := fill(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// mapSort collects the map output into sorted runs.
func (st *state) mapSort(ctx context.Context, i int, feed func(*lineSplitter) error, env func() map[string]string) error {
	var runs []*run
	buf := st.r.getBuffer(st.share)
	defer st.r.putBuffer(buf, st.keep)
	buf.keyFields, buf.partFields = st.j.KeyFields, st.j.PartitionFields
	buf.reducers, buf.limit = st.reducers, st.share
	var combine func(io.Reader, *runWriter) error
	if st.j.Combine != nil {
		combine = func(in io.Reader, w *runWriter) error {
			ct := st.newTaskIO(ctx, fmt.Sprintf("map %d", i), env())
			out := &lineSplitter{ctx: ctx, emit: func(line []byte) error {
				k, v := mr.SplitKey(line, st.j.KeyFields)
				return w.write(k, v)
			}}
			if err := ct.call(st.j.Combine, in, out); err != nil {
				return fmt.Errorf("combine: %w", err)
			}
			st.addCounters(ct.counters)
			return nil
		}
	}
	buf.spill = func() error {
		path := filepath.Join(st.spillDir, fmt.Sprintf("map%05d-%d", i, len(runs)))
		rn, err := buf.writeRun(path, combine)
		if err != nil {
			return err
		}
		runs = append(runs, rn)
		return nil
	}
	if err := feed(&lineSplitter{ctx: ctx, emit: buf.add}); err != nil {
		return err
	}
	if len(buf.ents) > 0 {
		if err := buf.spill(); err != nil {
			return err
		}
	}
	st.mu.Lock()
	st.runs[i] = runs
	st.mu.Unlock()
	return nil
}

func (st *state) reduceTask(ctx context.Context, p int) error {
	if err := st.runReduce(ctx, p); err != nil {
		return fmt.Errorf("reduce task %d: %w", p, err)
	}
	st.progress("reduce")
	return nil
}

func (st *state) runReduce(ctx context.Context, p int) error {
	var segs []segment
	st.mu.Lock()
	for _, runs := range st.runs {
		for _, rn := range runs {
			if rn.offs[p] < rn.offs[p+1] {
				segs = append(segs, segment{path: rn.path, start: rn.offs[p], end: rn.offs[p+1]})
			}
		}
	}
	st.mu.Unlock()
	segs, err := reduceSegments(segs, mergeFanIn, st.spillDir, fmt.Sprintf("reduce%05d", p))
	if err != nil {
		return err
	}
	m, err := newMerger(segs)
	if err != nil {
		return err
	}
	defer m.close()
	t := st.newTaskIO(ctx, fmt.Sprintf("reduce %d", p), nil)
	err = st.writePart(fmt.Sprintf("part-r-%05d", p), func(w *bufio.Writer) error {
		out := &lineSplitter{ctx: ctx, emit: func(line []byte) error {
			return writeKeyValue(w, line, st.j.OutputKeyFields)
		}}
		return t.call(st.j.Reduce, withContext(ctx, m), out)
	})
	if err != nil {
		return err
	}
	st.addCounters(t.counters)
	return nil
}
