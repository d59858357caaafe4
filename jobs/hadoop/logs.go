package hadoop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// stderrTail is how many lines of a task's stderr a JobError shows.
const stderrTail = 20

// yarnArgv is the `yarn SUBCMD ARGS...` command matching s.Streaming: the Java class of
// the subcommand on the same classpath for a "java -cp" prefix, else the yarn script next
// to the hadoop (or mapred) script, else yarn on PATH.
func (s *Submitter) yarnArgv(subcmd string, args ...string) []string {
	argv := s.prefix()
	if n := len(argv); n > 0 && argv[n-1] == streamingClass {
		switch subcmd {
		case "logs":
			argv[n-1] = "org.apache.hadoop.yarn.client.cli.LogsCLI"
		default: // application: ApplicationCLI takes the subcommand as its first argument
			argv = append(argv[:n-1], "org.apache.hadoop.yarn.client.cli.ApplicationCLI", subcmd)
		}
		return append(argv, args...)
	}
	yarn := "yarn"
	if len(argv) > 0 && strings.Contains(argv[0], string(filepath.Separator)) {
		yarn = filepath.Join(filepath.Dir(argv[0]), "yarn")
	}
	return append([]string{yarn, subcmd}, args...)
}

// yarnCommand is yarnArgv as a command with the Submitter's environment.
func (s *Submitter) yarnCommand(ctx context.Context, subcmd string, args ...string) *exec.Cmd {
	argv := s.yarnArgv(subcmd, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = s.environ()
	return cmd
}

// environ is the environment of the Submitter's hadoop and yarn commands:
// pdc's own, HADOOP_CONF_DIR when ConfDir is set, then Env.
func (s *Submitter) environ() []string {
	env := os.Environ()
	if s.ConfDir != "" {
		env = append(env, "HADOOP_CONF_DIR="+s.ConfDir)
	}
	return append(env, s.Env...)
}

// appID is the YARN application id of a MapReduce job id.
func appID(jobID string) string { return "application_" + strings.TrimPrefix(jobID, "job_") }

// kill asks YARN to kill the job's application; the streaming client does not when it is
// interrupted. It is best effort, bounded by a minute.
func (s *Submitter) kill(jobID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := s.yarnCommand(ctx, "application", "-kill", appID(jobID)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("kill %s: %w: %s", appID(jobID), err, lastLine(string(out)))
	}
	return nil
}

// KillTagged kills the applications tagged tag that are not finished
// (yarn application -list -appTags) and returns their ids.
func (s *Submitter) KillTagged(ctx context.Context, tag string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := s.yarnCommand(ctx, "application", "-list", "-appStates", "NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING", "-appTags", tag).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("list applications tagged %s: %w: %s", tag, err, lastLine(string(out)))
	}
	var killed []string
	for _, line := range strings.Split(string(out), "\n") {
		id, _, _ := strings.Cut(strings.TrimSpace(line), "\t")
		id = strings.TrimSpace(id)
		if !strings.HasPrefix(id, "application_") {
			continue
		}
		kout, err := s.yarnCommand(ctx, "application", "-kill", id).CombinedOutput()
		if err != nil {
			return killed, fmt.Errorf("kill %s: %w: %s", id, err, lastLine(string(kout)))
		}
		killed = append(killed, id)
	}
	return killed, nil
}

// AppState returns the state of a YARN application (yarn application
// -status): NEW, ACCEPTED, RUNNING, FINISHED, FAILED, KILLED, ...
func (s *Submitter) AppState(ctx context.Context, app string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := s.yarnCommand(ctx, "application", "-status", app).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("status of %s: %w: %s", app, err, lastLine(string(out)))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "State" {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("status of %s: no state in %q", app, lastLine(string(out)))
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// taskStderr returns the tail of the stderr of a failed task from the job's aggregated logs, and the exception that ended a
// task if its syslog has one (the task JVM's own errors, such as its record reader's), or "" when they cannot be read. Logs
// are aggregated after the application ends, so it retries for a little while.
func (s *Submitter) taskStderr(ctx context.Context, jobID string) (stderr, exception string) {
	for try := 0; try < 6; try++ {
		if try > 0 {
			select {
			case <-ctx.Done():
				return "", ""
			case <-time.After(2 * time.Second):
			}
		}
		out, err := s.yarnCommand(ctx, "logs", "-applicationId", appID(jobID), "-log_files", "stderr,syslog").Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			return "", "" // no yarn command here
		}
		if err != nil {
			continue // e.g. logs not aggregated yet
		}
		tail, exc := pickStderr(parseContainerLogs(string(out))), taskException(string(out))
		if tail != "" || exc != "" {
			return tail, exc
		}
	}
	return "", ""
}

// taskException returns the first exception a task JVM logged as ending
// its task (YarnChild's "Exception running child : ..."), without the
// stack trace, and the input split the task read if its log says
// ("Processing split: hdfs://.../docs.jsonl.gz:0+3000617").
func taskException(logs string) string {
	const mark, splitMark = "Exception running child : ", "Processing split: "
	split := ""
	for _, l := range strings.Split(logs, "\n") {
		if strings.HasPrefix(l, "Container: ") {
			split = ""
		}
		if _, s, ok := strings.Cut(l, splitMark); ok {
			split = strings.TrimSpace(s)
		}
		if _, exc, ok := strings.Cut(l, mark); ok {
			if split != "" {
				return strings.TrimSpace(exc) + " (reading " + split + ")"
			}
			return strings.TrimSpace(exc)
		}
	}
	return ""
}

// parseContainerLogs splits `yarn logs` output into container id -> stderr contents.
// The format is a header per log file:
//
//	Container: container_1_0001_01_000002 on localhost_40001
//	...
//	LogType:stderr
//	...
//	LogContents:
//	<contents>
//	End of LogType:stderr
func parseContainerLogs(out string) map[string]string {
	logs := map[string]string{}
	var container, logType string
	var body []string
	inBody := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case inBody && strings.HasPrefix(l, "End of LogType:"):
			if logType == "stderr" {
				logs[container] += strings.Join(body, "\n")
			}
			inBody, body = false, nil
		case inBody:
			body = append(body, l)
		case strings.HasPrefix(l, "Container: "):
			container, _, _ = strings.Cut(strings.TrimPrefix(l, "Container: "), " ")
		case strings.HasPrefix(l, "LogType:"):
			logType = strings.TrimSpace(strings.TrimPrefix(l, "LogType:"))
		case l == "LogContents:":
			inBody = true
		}
	}
	return logs
}

// pickStderr returns the tail of a non-empty stderr of a task container (not the
// application master, container ..._000001). Counter and status lines are dropped. The
// logs do not say which attempt ran in which container, so when several tasks wrote to
// stderr the choice is arbitrary but deterministic.
func pickStderr(logs map[string]string) string {
	best := ""
	for id, text := range logs {
		if strings.HasSuffix(id, "_000001") {
			continue
		}
		var keep []string
		for _, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "reporter:") && !strings.HasPrefix(l, "log4j:") {
				keep = append(keep, l)
			}
		}
		if len(keep) > stderrTail {
			keep = keep[len(keep)-stderrTail:]
		}
		t := strings.Join(keep, "\n")
		if t > best { // deterministic choice among several
			best = t
		}
	}
	return best
}
