package mr

import (
	"bytes"
	"slices"
)

// Shuffled returns a reducer that is reduce followed by a whole next job,
// its map, shuffle and reduce, in one task: reduce's output goes to
// nextMap, whose lines are sorted by their first keyFields fields as the
// runners sort a job's map output (bytewise, a shorter key first; lines of
// one key keep their order, which a reducer must not depend on), and read
// by nextReduce, which writes the task's output. It is for a job of one
// reduce task that holds its whole input anyway (and whose output is
// small enough to be held twice): the next job then costs no job at all.
// Counters of all three go to the task's stderr.
func Shuffled(reduce, nextMap Func, keyFields int, nextReduce Func) Func {
	return func(t *Task) error {
		var mid bytes.Buffer
		t1 := *t
		t1.Stdout = &mid
		if err := reduce(&t1); err != nil {
			return err
		}
		var mapped bytes.Buffer
		t2 := *t
		t2.Stdin, t2.Stdout, t2.Side = &mid, &mapped, nil
		if err := nextMap(&t2); err != nil {
			return err
		}
		mid = bytes.Buffer{}
		data := mapped.Bytes()
		type line struct{ key, all []byte }
		var lines []line
		for len(data) > 0 {
			l := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				l, data = data[:i+1], data[i+1:]
			} else {
				data = nil
			}
			k, _ := SplitKey(bytes.TrimSuffix(l, []byte("\n")), keyFields)
			lines = append(lines, line{k, l})
		}
		slices.SortStableFunc(lines, func(a, b line) int { return bytes.Compare(a.key, b.key) })
		sorted := make([]byte, 0, mapped.Len())
		for _, l := range lines {
			sorted = append(sorted, l.all...)
		}
		lines, mapped = nil, bytes.Buffer{}
		t3 := *t
		t3.Stdin = bytes.NewReader(sorted)
		return nextReduce(&t3)
	}
}
