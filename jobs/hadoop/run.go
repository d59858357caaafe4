package hadoop

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// Run runs j and waits for it. On failure it returns a *JobError naming the job id, the
// failing stage and, when the cluster's aggregated logs can be read (yarn logs), the tail
// of the failing task's stderr. When ctx ends first, the client is stopped and the job's
// YARN application killed (yarn application -kill).
func (s *Submitter) Run(ctx context.Context, j *Job) (*Result, error) {
	argv := s.Argv(j)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = s.environ()
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start hadoop streaming: %w", err)
	}
	out := newClientLog(s.progress())
	done := make(chan error, 1)
	go func() { done <- out.read(pr) }()
	err := cmd.Wait()
	pw.Close()
	if rerr := <-done; err == nil && rerr != nil {
		err = fmt.Errorf("read hadoop streaming output: %w", rerr)
	}
	if err == nil && !out.succeeded {
		err = fmt.Errorf("hadoop streaming exited 0 without reporting success")
	}
	if err != nil && ctx.Err() != nil && out.jobID != "" {
		// Interrupted: the client is gone but the job would run on.
		if kerr := s.kill(out.jobID); kerr != nil {
			err = fmt.Errorf("%w (and %v)", err, kerr)
		}
	}
	if err != nil {
		return nil, s.jobError(ctx, j, out, err)
	}
	return &Result{JobID: out.jobID, TrackingURL: out.trackingURL, Counters: out.counters["pdc"]}, nil
}

func (s *Submitter) progress() io.Writer {
	if s.Stderr == nil {
		return io.Discard
	}
	return s.Stderr
}

func (s *Submitter) jobError(ctx context.Context, j *Job, out *clientLog, err error) *JobError {
	e := &JobError{Name: j.Name, JobID: out.jobID, Reason: out.reason, Err: err}
	if e.Reason == "" {
		e.Reason = strings.Join(out.tail, "\n")
	}
	if out.failedTask != "" {
		e.Task = out.failedTask
		e.Stage = stageOf(out.failedTask)
	}
	if s.Secure && e.Stage == "reduce" {
		e.Reason += " (" + SecureShuffleHint + ")"
	}
	if out.jobID != "" && ctx.Err() == nil {
		e.Stderr, e.Exception = s.taskStderr(ctx, out.jobID)
	}
	return e
}

// stageOf is "map" or "reduce" for a task or attempt id (task_..._m_000001).
func stageOf(id string) string {
	switch {
	case strings.Contains(id, "_m_"):
		return "map"
	case strings.Contains(id, "_r_"):
		return "reduce"
	}
	return ""
}

// Lines of the streaming client's log (log4j; the layout differs between installs, so only
// the messages are matched).
var (
	reJob      = regexp.MustCompile(`Running job: (job_\d+_\d+)`)
	reURL      = regexp.MustCompile(`The url to track the job: (\S+)`)
	reProgress = regexp.MustCompile(`\bmap \d+% reduce \d+%`)
	reSuccess  = regexp.MustCompile(`Job (job_\d+_\d+) completed successfully`)
	reFailed   = regexp.MustCompile(`Job (job_\d+_\d+) failed with state (\w+) due to: (.*)`)
	reFailTask = regexp.MustCompile(`Task failed (task_\d+_\d+_[mr]_\d+)`)
	reAttempt  = regexp.MustCompile(`Task Id : (attempt_\d+_\d+_[mr]_\d+_\d+), Status : FAILED`)
	reCounters = regexp.MustCompile(`Counters: \d+$`)
	reError    = regexp.MustCompile(`(ERROR|Exception|Error:)`)
)

// clientLog follows the output of the streaming client.
type clientLog struct {
	progress    io.Writer
	jobID       string
	trackingURL string
	succeeded   bool
	reason      string                      // Hadoop's diagnostics for a failed job
	failedTask  string                      // task (or last failed attempt) id
	counters    map[string]map[string]int64 // group -> name -> value
	tail        []string                    // last error-looking lines
	group       string                      // counter group being read
	inCounters  bool
}

func newClientLog(progress io.Writer) *clientLog {
	return &clientLog{progress: progress, counters: map[string]map[string]int64{}}
}

func (c *clientLog) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		c.line(sc.Text())
	}
	err := sc.Err()
	// Keep draining after a scan error (a line over 4 MiB) so the client
	// never blocks writing to the pipe.
	io.Copy(io.Discard, r)
	return err
}

func (c *clientLog) line(l string) {
	if c.inCounters && strings.HasPrefix(l, "\t") {
		c.counter(l)
		return
	}
	c.inCounters = false
	if m := reJob.FindStringSubmatch(l); m != nil {
		c.jobID = m[1]
		fmt.Fprintf(c.progress, "hadoop: job %s\n", m[1])
	}
	if m := reURL.FindStringSubmatch(l); m != nil {
		c.trackingURL = m[1]
		fmt.Fprintf(c.progress, "hadoop: tracking URL %s\n", m[1])
	}
	if m := reProgress.FindString(l); m != "" {
		fmt.Fprintf(c.progress, "hadoop: %s %s\n", c.jobID, m)
	}
	if reSuccess.MatchString(l) {
		c.succeeded = true
	}
	if m := reAttempt.FindStringSubmatch(l); m != nil {
		c.failedTask = m[1]
		fmt.Fprintf(c.progress, "hadoop: attempt %s failed\n", m[1])
	}
	if m := reFailed.FindStringSubmatch(l); m != nil {
		c.reason = "state " + m[2] + ": " + m[3]
		if t := reFailTask.FindStringSubmatch(m[3]); t != nil {
			c.failedTask = t[1]
		}
	}
	if reCounters.MatchString(l) {
		c.inCounters, c.group = true, ""
	}
	if reError.MatchString(l) && !strings.HasPrefix(strings.TrimSpace(l), "at ") {
		c.tail = append(c.tail, l)
		if len(c.tail) > 10 {
			c.tail = c.tail[1:]
		}
	}
}

// counter reads one line of the counter dump: "\tGroup" or "\t\tName=Value".
func (c *clientLog) counter(l string) {
	if !strings.HasPrefix(l, "\t\t") {
		c.group = strings.TrimSpace(l)
		return
	}
	name, val, ok := strings.Cut(strings.TrimSpace(l), "=")
	n, err := strconv.ParseInt(val, 10, 64)
	if !ok || err != nil {
		return
	}
	if c.counters[c.group] == nil {
		c.counters[c.group] = map[string]int64{}
	}
	c.counters[c.group][name] = n
}
