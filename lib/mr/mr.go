// Package mr is the Hadoop Streaming record protocol shared by every pdc
// mapper and reducer and by the local runner (package mr/local).
//
// A streaming program is a Func: it reads records (lines) from Task.Stdin,
// writes records to Task.Stdout and writes only counter and status lines
// (see Counters) to Task.Stderr. A record is a line of TAB-separated fields;
// its key is the first K fields (K = the job's key field count) and a line
// with fewer than K tabs is all key. Fields never hold a raw TAB, LF, CR or
// backslash: text is escaped with Escape and read back with Unescape. Keys
// compare as raw bytes, and reduce partitions are chosen by Partition, a
// bit-exact copy of Hadoop's KeyFieldBasedPartitioner with -k1,P.
package mr

import (
	"fmt"
	"io"
	"strconv"
)

// Task holds the streams and the environment of one map, combine or reduce
// task. On Hadoop they are the process's stdin, stdout, stderr and
// environment; the local runner supplies in-process equivalents.
type Task struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer           // counter and status lines only
	Getenv func(string) string // job parameters; nil means an empty environment
	// Side, when not nil, is a second output: the map output of another
	// job that this map-only job feeds (the local runner's
	// Runner.RunFeeding). A program writes there what that job's mapper
	// would write, so that the job need not read this one's output again.
	// Hadoop Streaming has no second output: it is nil there, and the other
	// job runs its own map tasks.
	Side io.Writer
}

// Func is a streaming program: a mapper, combiner or reducer.
type Func func(t *Task) error

// Env returns the value of the environment variable key, or "" when it is
// unset or t.Getenv is nil.
func (t *Task) Env(key string) string {
	if t.Getenv == nil {
		return ""
	}
	return t.Getenv(key)
}

// Environment variables naming the current map input split. The local runner
// sets the PDC_ ones; Hadoop Streaming exports its job configuration with dots
// replaced by underscores.
const (
	EnvInputFile  = "PDC_INPUT_FILE"
	EnvInputStart = "PDC_INPUT_START"
)

var (
	inputFileVars  = []string{EnvInputFile, "mapreduce_map_input_file", "map_input_file"}
	inputStartVars = []string{EnvInputStart, "mapreduce_map_input_start", "map_input_start"}
)

// InputFile returns the name of the file the current map task reads, or ""
// when no variable names it.
func InputFile(getenv func(string) string) string {
	return firstEnv(getenv, inputFileVars)
}

// EnvInputKeys is how a map task learns that each input line comes with
// its byte offset, as `offset TAB line`: Hadoop Streaming does that for
// TextInputFormat when the job sets stream.map.input.ignoreKey=false (and
// exports the setting under this name); the local runner does the same
// for Job.InputKeys.
const EnvInputKeys = "stream_map_input_ignoreKey"

// InputKeyed reports whether map input lines carry their byte offsets.
func InputKeyed(getenv func(string) string) bool {
	return getenv != nil && getenv(EnvInputKeys) == "false"
}

// CutInputKey splits a keyed input line `offset TAB line`.
func CutInputKey(line []byte) (int64, []byte, error) {
	i := 0
	var off int64
	for i < len(line) && line[i] >= '0' && line[i] <= '9' && i < 18 { // no int64 overflow
		off = off*10 + int64(line[i]-'0')
		i++
	}
	if i == 0 || i >= len(line) || line[i] != '\t' {
		return 0, line, fmt.Errorf("input line without its byte offset (want OFFSET TAB LINE)")
	}
	return off, line[i+1:], nil
}

// InputStart returns the byte offset in InputFile at which the current map
// input split starts. It returns 0 when no variable is set and an error when
// the value is not a non-negative integer.
func InputStart(getenv func(string) string) (int64, error) {
	s := firstEnv(getenv, inputStartVars)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad map input start %q", s)
	}
	return n, nil
}

func firstEnv(getenv func(string) string, names []string) string {
	if getenv == nil {
		return ""
	}
	for _, name := range names {
		if v := getenv(name); v != "" {
			return v
		}
	}
	return ""
}
