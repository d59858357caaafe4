package hadoop

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (rerun with -update to accept):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestArgv(t *testing.T) {
	java := finder{getenv: func(k string) string {
		return map[string]string{"PDC_HADOOP_JARS": "/jars", "JAVA_HOME": "/jdk"}[k]
	}, lookPath: func(string) (string, error) { return "", errors.New("none") },
		glob: func(p string) ([]string, error) { return []string{p}, nil }}
	prefix, err := java.find()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		sub  Submitter
		job  Job
	}{
		{"argv-full.golden", Submitter{Streaming: prefix, ConfDir: "/conf"}, Job{
			Name: "index", Mapper: "pdc map index", Reducer: "pdc reduce index", Combiner: "pdc combine index",
			KeyFields: 2, PartitionFields: 1, Reducers: 4,
			Env:   map[string]string{"PDC_TAU": "0.5", "PDC_MAX_DF": "100"},
			Files: []string{"/bin/pdc"}, CacheFiles: []string{"hdfs:///stats/part-00000#stats"},
			Inputs: []string{"/in/a", "/in/b"}, Output: "/out", InputFormat: CombineFormat,
			Conf:              map[string]string{"mapreduce.map.maxattempts": "2", "a.b": "c"},
			CompressMapOutput: true,
		}},
		{"argv-maponly.golden", Submitter{Streaming: []string{"/opt/hadoop/bin/hadoop", "jar", "/s.jar"}}, Job{
			Name: "parse", Mapper: "pdc map parse", KeyFields: 1, PartitionFields: 1, Reducers: 3,
			Inputs: []string{"/in"}, Output: "/out",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, strings.Join(tt.sub.Argv(&tt.job), "\n")+"\n")
		})
	}
}

func TestFindStreaming(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string
		path  map[string]string // command -> path on PATH
		files []string          // existing files
		want  string            // argv joined by spaces, or "error"
	}{
		{"streaming jar with hadoop", map[string]string{"HADOOP_STREAMING_JAR": "/s.jar"},
			map[string]string{"hadoop": "/usr/bin/hadoop"}, nil, "/usr/bin/hadoop jar /s.jar"},
		{"streaming jar with jars", map[string]string{"HADOOP_STREAMING_JAR": "/s.jar", "PDC_HADOOP_JARS": "/j"},
			nil, nil, "java ... -cp /s.jar:/j/* " + streamingClass},
		{"streaming jar alone", map[string]string{"HADOOP_STREAMING_JAR": "/s.jar"}, nil, nil, "error"},
		{"hadoop home", map[string]string{"HADOOP_HOME": "/h", "PDC_HADOOP_JARS": "/j"}, nil,
			[]string{"/h/bin/hadoop", "/h/share/hadoop/tools/lib/hadoop-streaming-3.4.2.jar"},
			"/h/bin/hadoop jar /h/share/hadoop/tools/lib/hadoop-streaming-3.4.2.jar"},
		{"mapred home without jar", map[string]string{"HADOOP_MAPRED_HOME": "/m"},
			map[string]string{"mapred": "/usr/bin/mapred"}, nil, "/usr/bin/mapred streaming"},
		{"jar dir", map[string]string{"PDC_HADOOP_JARS": "/j", "JAVA_HOME": "/jdk"}, nil,
			[]string{"/j/hadoop-streaming-3.4.2.jar"}, "/jdk/bin/java ... -cp /j/* " + streamingClass},
		{"jar dir, secured cluster", map[string]string{"PDC_HADOOP_JARS": "/j", "KRB5_CONFIG": "/k/krb5.conf"}, nil,
			[]string{"/j/hadoop-streaming-3.4.2.jar"}, "java ... -Djava.security.krb5.conf=/k/krb5.conf -cp /j/* " + streamingClass},
		{"jar dir without streaming", map[string]string{"PDC_HADOOP_JARS": "/j"}, nil, nil, "error"},
		{"nothing", nil, nil, nil, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := finder{
				getenv: func(k string) string { return tt.env[k] },
				lookPath: func(c string) (string, error) {
					if p, ok := tt.path[c]; ok {
						return p, nil
					}
					return "", errors.New("not found")
				},
				glob: func(pattern string) ([]string, error) {
					var m []string
					for _, f := range tt.files {
						if ok, _ := filepath.Match(pattern, f); ok {
							m = append(m, f)
						}
					}
					return m, nil
				},
			}
			argv, err := f.find()
			got := "error"
			if err == nil {
				got = strings.Join(argv, " ")
				got = strings.Replace(got, " "+strings.Join(append(JDK17Flags, ClientFlags...), " "), " ...", 1)
			}
			if got != tt.want {
				t.Errorf("find = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// fakeSubmitter replays a recorded streaming client log and exits with code.
func fakeSubmitter(t *testing.T, log string, code string) *Submitter {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", log))
	if err != nil {
		t.Fatal(err)
	}
	return &Submitter{Streaming: []string{"/bin/sh", "-c", `cat "$0"; exit ` + code, abs}}
}

func TestRunReplaySuccess(t *testing.T) {
	var progress strings.Builder
	s := fakeSubmitter(t, "client-success.log", "0")
	s.Stderr = &progress
	res, err := s.Run(context.Background(), &Job{Name: "x", Mapper: "cat", Output: "/o"})
	if err != nil {
		t.Fatal(err)
	}
	if res.JobID != "job_1795305257407_0001" ||
		res.TrackingURL != "http://localhost:8088/proxy/application_1795305257407_0001/" {
		t.Errorf("result = %+v", res)
	}
	if res.Counters != nil {
		t.Errorf("pdc counters = %v, want none", res.Counters)
	}
	golden(t, "progress-success.golden", progress.String())
}

func TestRunReplayFailure(t *testing.T) {
	tests := []struct {
		log, code         string
		jobID, stage      string
		reasonPart, error string
	}{
		{"client-failed.log", "1", "job_1795305769522_0004", "map",
			"Task failed task_1795305769522_0004_m_000001", "in map task task_1795305769522_0004_m_000001"},
		{"client-noinput.log", "5", "", "", "Input path does not exist", "hadoop job pdc-x failed: "},
	}
	for _, tt := range tests {
		t.Run(tt.log, func(t *testing.T) {
			_, err := fakeSubmitter(t, tt.log, tt.code).Run(context.Background(), &Job{Name: "x", Output: "/o"})
			var je *JobError
			if !errors.As(err, &je) {
				t.Fatalf("err = %v, want *JobError", err)
			}
			if je.JobID != tt.jobID || je.Stage != tt.stage || !strings.Contains(je.Reason, tt.reasonPart) ||
				!strings.Contains(err.Error(), tt.error) {
				t.Errorf("JobError = %+v\n%v", je, err)
			}
		})
	}
}

func TestContainerLogs(t *testing.T) {
	data, err := os.ReadFile("testdata/yarn-logs-failed.txt")
	if err != nil {
		t.Fatal(err)
	}
	logs := parseContainerLogs(string(data))
	if len(logs) != 5 {
		t.Errorf("%d containers, want 5: %v", len(logs), logs)
	}
	if got, want := pickStderr(logs), "taskprog: deliberate failure for the test"; got != want {
		t.Errorf("pickStderr = %q, want %q", got, want)
	}
}

func TestYarnArgv(t *testing.T) {
	tests := []struct {
		streaming []string
		subcmd    string
		want      string
	}{
		{[]string{"java", "-cp", "/j/*", streamingClass}, "logs",
			"java -cp /c:/j/* org.apache.hadoop.yarn.client.cli.LogsCLI -applicationId application_1_2"},
		{[]string{"java", "-cp", "/j/*", streamingClass}, "application",
			"java -cp /c:/j/* org.apache.hadoop.yarn.client.cli.ApplicationCLI application -applicationId application_1_2"},
		{[]string{"/h/bin/hadoop", "jar", "/s.jar"}, "logs", "/h/bin/yarn logs -applicationId application_1_2"},
		{[]string{"mapred", "streaming"}, "application", "yarn application -applicationId application_1_2"},
	}
	for _, tt := range tests {
		s := &Submitter{Streaming: tt.streaming, ConfDir: "/c"}
		if got := strings.Join(s.yarnArgv(tt.subcmd, "-applicationId", appID("job_1_2")), " "); got != tt.want {
			t.Errorf("yarnArgv = %q, want %q", got, tt.want)
		}
	}
}

func FuzzClientLog(f *testing.F) {
	for _, name := range []string{"client-success.log", "client-failed.log"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := newClientLog(&strings.Builder{})
		if err := c.read(strings.NewReader(s)); err != nil {
			t.Skip()
		}
		if c.failedTask != "" && stageOf(c.failedTask) == "" {
			t.Errorf("failed task %q has no stage", c.failedTask)
		}
	})
}

func FuzzContainerLogs(f *testing.F) {
	data, err := os.ReadFile("testdata/yarn-logs-failed.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Fuzz(func(t *testing.T, s string) {
		for id, text := range parseContainerLogs(s) {
			if strings.Contains(text, "End of LogType:") && !strings.Contains(s, id) {
				t.Errorf("container %q not in input", id)
			}
		}
		_ = pickStderr(parseContainerLogs(s))
	})
}

// TestSecured: a configuration asking for Kerberos is secured, whatever its
// layout; simple authentication, none or no file is not.
func TestSecured(t *testing.T) {
	for _, tt := range []struct {
		core string
		want bool
	}{
		{"<configuration><property><name>hadoop.security.authentication</name><value>kerberos</value></property></configuration>", true},
		{"<configuration>\n  <property>\n    <name>hadoop.security.authentication</name>\n    <value> Kerberos </value>\n  </property>\n</configuration>", true},
		{"<configuration><property><name>hadoop.security.authentication</name><value>simple</value></property></configuration>", false},
		{"<configuration><property><name>fs.defaultFS</name><value>hdfs://x:9000</value></property></configuration>", false},
		{"", false},
	} {
		dir := t.TempDir()
		if tt.core != "" {
			if err := os.WriteFile(filepath.Join(dir, "core-site.xml"), []byte(tt.core), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := Secured(dir); got != tt.want {
			t.Errorf("Secured(%q) = %v, want %v", tt.core, got, tt.want)
		}
	}
}

// TestTaskException: a task that its JVM ended (a JSON line over 2 GB:
// Hadoop's LineRecordReader gives up) has the JVM's exception in its
// syslog and only log4j noise on stderr; the job error shows the
// exception (yarn logs of a real run, stderr and syslog of the task
// containers).
func TestTaskException(t *testing.T) {
	data, err := os.ReadFile("testdata/yarn-logs-linelength.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := taskException(string(data)), "java.io.IOException: Too many bytes before newline: 2147487076 (reading hdfs://localhost:9000/hout/bomb2/input/part-00000-bomb.jsonl.gz:0+3000617)"; got != want {
		t.Errorf("taskException = %q, want %q", got, want)
	}
	if got := pickStderr(parseContainerLogs(string(data))); got != "" {
		t.Errorf("pickStderr = %q, want nothing (log4j warnings only; the syslog is not stderr)", got)
	}
	e := &JobError{Name: "parse", JobID: "job_1_0008", Stage: "map", Task: "task_1_0008_m_000000", Reason: "Task failed",
		Exception: taskException(string(data))}
	if !strings.Contains(e.Error(), "; the task's JVM: java.io.IOException: Too many bytes before newline") {
		t.Errorf("JobError: %s", e)
	}
}
