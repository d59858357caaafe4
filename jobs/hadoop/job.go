// Package hadoop submits pdc jobs to a Hadoop cluster as Hadoop Streaming jobs: Submitter
// turns a Job into the streaming command line (Argv), runs it (Run), follows its progress
// and returns the job id and the "pdc" counters, or an error that names the failing stage
// and shows the tail of the failing task's stderr.
package hadoop

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/colinmarc/hdfs/v2/hadoopconf"
)

// Job is one Hadoop Streaming job.
type Job struct {
	Name     string // job name; Hadoop sees "pdc-" + Name
	Mapper   string // mapper command, e.g. "pdc map index"
	Reducer  string // reducer command; "" runs a map-only job (-numReduceTasks 0)
	Combiner string // combiner command, optional

	KeyFields       int // fields of the map output key (stream.num.map.output.key.fields)
	PartitionFields int // leading key fields that choose the reducer (-k1,P); 0 = whole key
	Reducers        int // reduce tasks (when Reducer is set)

	Env        map[string]string // task environment, as -cmdenv K=V (sorted)
	Files      []string          // local files shipped to the tasks' working dir (-files)
	CacheFiles []string          // files already on the cluster, "hdfs:///p#name" (-files)
	Inputs     []string          // input paths on the cluster
	// InputFormat is the input format class (-inputformat); "" is
	// Streaming's default, TextInputFormat.
	InputFormat string
	Output      string // output directory on the cluster; must not exist

	Conf              map[string]string // extra -D properties (sorted; applied last)
	CompressMapOutput bool              // compress map output (mapreduce.map.output.compress)
}

// Result is what a successful job reports.
type Result struct {
	JobID       string           // job_..., the YARN application is application_...
	TrackingURL string           // the ResourceManager's page for the job
	Counters    map[string]int64 // counters of group "pdc", by name
}

// Submitter runs Hadoop Streaming jobs.
type Submitter struct {
	// Streaming is the command prefix that runs Hadoop Streaming, from FindStreaming.
	Streaming []string
	// ConfDir is the Hadoop configuration dir. It is exported to the command as
	// HADOOP_CONF_DIR and, for a "java -cp" prefix, put first on the classpath.
	ConfDir string
	// Stderr receives progress: job id, tracking URL, map and reduce percentages. Nil
	// discards it.
	Stderr io.Writer
	// Secure tells a Kerberos-secured cluster (Secured): a failed reduce
	// task's error then names the usual cause.
	Secure bool
	// Env is added to the environment of every hadoop and yarn command
	// (KRB5CCNAME of pdc's private ticket cache, from --keytab).
	Env []string
}

// Secured reports whether the Hadoop configuration in dir asks for
// Kerberos (hadoop.security.authentication kerberos).
func Secured(dir string) bool {
	conf, err := hadoopconf.Load(dir)
	return err == nil && strings.EqualFold(strings.TrimSpace(conf["hadoop.security.authentication"]), "kerberos")
}

// SecureShuffleHint is added to a reduce task's failure on a secured
// cluster: Hadoop's shuffle serves map output there only through its native
// library (SecureIOUtils), and without it every reduce task fails.
const SecureShuffleHint = "on a Kerberos-secured cluster reduce tasks need Hadoop's native library (libhadoop.so) on every NodeManager for the secure shuffle (\"Secure IO is not possible without native code extensions\" in the NodeManager log): install it, or see docs/hadoop.md"

const (
	streamingClass   = "org.apache.hadoop.streaming.HadoopStreaming"
	partitionerClass = "org.apache.hadoop.mapred.lib.KeyFieldBasedPartitioner"
)

// Argv returns the command line that runs j. Generic options (-D, -files) come before the
// streaming options, as Hadoop requires. Keys compare as raw bytes (the default Text
// comparator); KeyFieldBasedPartitioner hashes the first PartitionFields fields.
func (s *Submitter) Argv(j *Job) []string {
	argv := s.prefix()
	def := func(k, v string) { argv = append(argv, "-D", k+"="+v) }
	def("mapreduce.job.name", "pdc-"+j.Name)
	reducers := j.Reducers
	if j.Reducer == "" {
		reducers = 0
	}
	def("mapreduce.job.reduces", strconv.Itoa(reducers))
	if j.KeyFields > 0 {
		def("stream.num.map.output.key.fields", strconv.Itoa(j.KeyFields))
		if j.Combiner != "" {
			// Streaming parses a combiner's output with the reduce output
			// key spec: without this the combined records would be keyed
			// (and sorted) by their first field only.
			def("stream.num.reduce.output.key.fields", strconv.Itoa(j.KeyFields))
		}
	}
	if reducers > 0 && j.PartitionFields > 0 {
		def("mapreduce.partition.keypartitioner.options", "-k1,"+strconv.Itoa(j.PartitionFields))
	}
	if j.CompressMapOutput {
		def("mapreduce.map.output.compress", "true")
	}
	for _, k := range sortedKeys(j.Conf) {
		def(k, j.Conf[k])
	}
	if files := append(append([]string(nil), j.Files...), j.CacheFiles...); len(files) > 0 {
		argv = append(argv, "-files", strings.Join(files, ","))
	}
	for _, in := range j.Inputs {
		argv = append(argv, "-input", in)
	}
	if j.InputFormat != "" {
		argv = append(argv, "-inputformat", j.InputFormat)
	}
	argv = append(argv, "-output", j.Output, "-mapper", j.Mapper)
	if j.Combiner != "" {
		argv = append(argv, "-combiner", j.Combiner)
	}
	if reducers > 0 {
		argv = append(argv, "-reducer", j.Reducer)
		if j.PartitionFields > 0 {
			argv = append(argv, "-partitioner", partitionerClass)
		}
	} else {
		argv = append(argv, "-numReduceTasks", "0")
	}
	for _, k := range sortedKeys(j.Env) {
		argv = append(argv, "-cmdenv", k+"="+j.Env[k])
	}
	return argv
}

// prefix is a copy of s.Streaming with ConfDir first on a "-cp" classpath.
func (s *Submitter) prefix() []string {
	argv := append([]string(nil), s.Streaming...)
	if s.ConfDir == "" {
		return argv
	}
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "-cp" || argv[i] == "-classpath" {
			argv[i+1] = s.ConfDir + ":" + argv[i+1]
			break
		}
	}
	return argv
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// JobError is a failed job.
type JobError struct {
	Name   string // the Job's name
	JobID  string // job_..., if the job was submitted
	Stage  string // "map", "reduce" or "" when unknown (e.g. a submission error)
	Task   string // the failing task or attempt id, if known
	Reason string // Hadoop's diagnostics, or the client's last lines
	Stderr string // tail of the failing task's stderr, if it could be fetched
	// Exception is the error that ended the failing task's JVM, from its
	// syslog (its record reader's, for instance), if any.
	Exception string
	Err       error // the client's exit error
}

func (e *JobError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hadoop job pdc-%s", e.Name)
	if e.JobID != "" {
		fmt.Fprintf(&b, " (%s)", e.JobID)
	}
	b.WriteString(" failed")
	if e.Stage != "" {
		fmt.Fprintf(&b, " in %s task %s", e.Stage, e.Task)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, ": %s", e.Reason)
	}
	if e.Exception != "" {
		fmt.Fprintf(&b, "; the task's JVM: %s", e.Exception)
	}
	if e.Stderr != "" {
		fmt.Fprintf(&b, "\ntask stderr (tail):\n%s", e.Stderr)
	}
	return b.String()
}

func (e *JobError) Unwrap() error { return e.Err }
