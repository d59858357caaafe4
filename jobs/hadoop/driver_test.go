package hadoop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// TestHadoopJobs checks how stages become Hadoop Streaming jobs: commands
// name the shipped binary by its file name (pdc, or pdc-extract after a
// hand-over), the parse job reads keyed input, match reads whole files,
// the jobs reading the run's part files pack them into splits, the index
// job gets the stats through the distributed cache, the join's reducers
// run the match in a chained step, and with --queue every job names the
// queue.
func TestHadoopJobs(t *testing.T) {
	for _, bin := range []string{"/opt/pdc/bin/pdc", "/opt/pdc/bin/pdc-extract"} {
		h := &Driver{Config: jobconf.Default(), Reducers: 3, URI: "hdfs://",
			Out: "/user/me/out", Binary: bin, input: []string{"/user/me/in.jsonl"}}
		prog := bin[strings.LastIndex(bin, "/")+1:]
		for _, st := range pipeline.Stages() {
			j := h.job(one(st), "/user/me/out/_tmp/"+st.Name)
			if want := prog + " map " + st.Name; j.Mapper != want {
				t.Errorf("%s: mapper %q, want %q", st.Name, j.Mapper, want)
			}
			if !st.MapOnly && j.Reducer != prog+" reduce "+st.Name {
				t.Errorf("%s: reducer %q", st.Name, j.Reducer)
			}
			if want := "hdfs:///user/me/out/_tmp/bin/" + prog + "#" + prog; len(j.Files) != 0 || len(j.CacheFiles) == 0 || j.CacheFiles[0] != want {
				t.Errorf("%s: files %v, cache files %v; want the shipped binary %s first", st.Name, j.Files, j.CacheFiles, want)
			}
			keyed := j.Conf["stream.map.input.ignoreKey"] == "false"
			_, whole := j.Conf["mapreduce.input.fileinputformat.split.minsize"]
			if keyed != (st.Name == "parse") || whole != (st.Name == "match") {
				t.Errorf("%s: conf %v", st.Name, j.Conf)
			}
			packed := st.Name != "parse" && st.Name != "match"
			if packed != (j.InputFormat == CombineFormat) || packed != (j.Conf["mapreduce.input.fileinputformat.split.maxsize"] == "134217728") ||
				packed != (j.Conf["stream.map.input.ignoreKey"] == "true") {
				t.Errorf("%s: input format %q, conf %v", st.Name, j.InputFormat, j.Conf)
			}
			if (st.Name == "index") != (len(j.CacheFiles) == 2 && j.CacheFiles[1] == "hdfs:///user/me/out/stats#stats") {
				t.Errorf("%s: cache files %v", st.Name, j.CacheFiles)
			}
			if st.SideStats != (j.Env["PDC_STATS"] == "stats") || j.Reducers != 3 {
				t.Errorf("%s: PDC_STATS %q, %d reducers", st.Name, j.Env["PDC_STATS"], j.Reducers)
			}
			// Only stats combines: the words join emits each pair once.
			if (j.Combiner != "") != (st.Name == "stats") {
				t.Errorf("%s: combiner %q", st.Name, j.Combiner)
			}
			if q, ok := j.Conf["mapreduce.job.queuename"]; ok {
				t.Errorf("%s: queue %q without --queue", st.Name, q)
			}
		}
	}
	// pdc dedup's jobs: the documents keyed, every record read (no line
	// limit), the side inputs linked in the task's directory.
	h := &Driver{Config: jobconf.Default(), Reducers: 2, URI: "hdfs://nn:8020", Out: "/c", Binary: "/pdc", input: []string{"/in"}}
	for _, st := range append([]pipeline.Stage{pipeline.DedupFactsStage()}, pipeline.DedupStages()...) {
		j := h.job(one(st), "/c/_tmp/"+st.OutputDir())
		_, limit := j.Conf["mapreduce.input.linerecordreader.line.maxlength"]
		if j.Conf["stream.map.input.ignoreKey"] != "false" || limit || j.Reducer != "pdc reduce "+st.Name || !slices.Equal(j.Inputs, []string{"/in"}) || j.InputFormat != "" {
			t.Errorf("%s: conf %v, reducer %q, inputs %v", st.Name, j.Conf, j.Reducer, j.Inputs)
		}
		want := []string{"hdfs://nn:8020/c/_tmp/bin/pdc#pdc"} // the shipped binary, then the side inputs
		for _, s := range st.Side {
			want = append(want, "hdfs://nn:8020/c/"+s+"#"+s)
		}
		if len(want) == 1 || !slices.Equal(j.CacheFiles, want) || j.Env[jobconf.EnvSide] != "." {
			t.Errorf("%s: cache files %v, %s %q; want %v", st.Name, j.CacheFiles, jobconf.EnvSide, j.Env[jobconf.EnvSide], want)
		}
	}
	if _, limit := h.job(one(pipeline.Stages()[0]), "/c/_tmp/parsed").Conf["mapreduce.input.linerecordreader.line.maxlength"]; !limit {
		t.Error("parse: no line limit")
	}
	// --queue: every job goes to it.
	h = &Driver{Config: jobconf.Default(), Reducers: 2, URI: "hdfs://", Out: "/o", Binary: "/pdc", input: []string{"/in"}, Queue: "research"}
	for _, st := range pipeline.Stages() {
		if q := h.job(one(st), "/o/_tmp/"+st.Name).Conf["mapreduce.job.queuename"]; q != "research" {
			t.Errorf("%s: queue %q, want research", st.Name, q)
		}
	}
}

// TestHadoopChained checks the one job of a chained step: the join's
// mapper, reducers that run the match on their output (`pdc reduce
// join+match`), the match's key fields for that output, the step's name,
// and packed splits of the index output; and --split-size. Likewise the
// components job with the clusters job in its reduce task.
func TestHadoopChained(t *testing.T) {
	h := &Driver{Config: jobconf.Default(), Reducers: 2, URI: "hdfs://", Out: "/o", Binary: "/bin/pdc", input: []string{"/in"}, SplitSize: 64 << 20}
	if !h.Fuses(pipeline.Chained) || h.Fuses(pipeline.Feeding) {
		t.Error("Fuses: want Chained only")
	}
	st := pipeline.Stages()
	var step pipeline.Step
	for i, s := range st {
		if s.ChainsNext {
			step = pipeline.Step{Stages: []pipeline.Stage{s, st[i+1]}, Out: "/o", Fusion: pipeline.Chained}
		}
	}
	j := h.job(step, "/o/_tmp/matches")
	if j.Name != "join+match" || j.Mapper != "pdc map join" || j.Reducer != "pdc reduce join+match" ||
		j.Conf["stream.num.reduce.output.key.fields"] != "2" || !slices.Equal(j.Inputs, []string{"/o/index"}) ||
		j.InputFormat != CombineFormat || j.Conf["mapreduce.input.fileinputformat.split.maxsize"] != "67108864" {
		t.Errorf("chained job %+v", j)
	}
	if _, err := pipeline.Program("reduce", j.Name); err != nil {
		t.Errorf("the chained reducer's program: %v", err)
	}
	// The components job's one reduce task writes the clusters: its output
	// is the clusters reducer's, lines as they are.
	comp := pipeline.ComponentsStage("edges")
	step = pipeline.Step{Stages: []pipeline.Stage{comp, pipeline.ClustersStage(comp.OutputDir())}, Out: "/o", Fusion: pipeline.Chained}
	j = h.job(step, "/o/_tmp/clusters")
	if _, set := j.Conf["stream.num.reduce.output.key.fields"]; j.Name != "components+clusters" || j.Mapper != "pdc map components" ||
		j.Reducer != "pdc reduce components+clusters" || set || !slices.Equal(j.Inputs, []string{"/o/edges"}) {
		t.Errorf("components+clusters job %+v", j)
	}
	if _, err := pipeline.Program("reduce", j.Name); err != nil {
		t.Errorf("the components+clusters reducer's program: %v", err)
	}
	for _, bad := range []string{"join+extend", "index+match", "match+extend", "components+edges", "clusters+components"} {
		if _, err := pipeline.Program("reduce", bad); err == nil {
			t.Errorf("Program(reduce, %s): no error", bad)
		}
	}
	if _, err := pipeline.Program("map", "join+match"); err == nil {
		t.Error("Program(map, join+match): no error")
	}
}

// one is the step of one stage.
func one(st pipeline.Stage) pipeline.Step { return pipeline.Step{Stages: []pipeline.Stage{st}} }

func TestClientEnv(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want []string
	}{
		{map[string]string{}, nil},
		{map[string]string{"KRB5_CONFIG": "/etc/k.conf"}, []string{"HADOOP_CLIENT_OPTS=-Djava.security.krb5.conf=/etc/k.conf"}},
		{map[string]string{"KRB5_CONFIG": "/etc/k.conf", "HADOOP_CLIENT_OPTS": "-Xmx1g"}, []string{"HADOOP_CLIENT_OPTS=-Xmx1g -Djava.security.krb5.conf=/etc/k.conf"}},
	} {
		got := ClientEnv(func(k string) string { return tt.env[k] })
		if !slices.Equal(got, tt.want) {
			t.Errorf("ClientEnv(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestShipOnce: the binary goes to OUT/_tmp/bin once per driver, byte for
// byte, and every job after links it from there under its own name instead
// of shipping the local file with its submission.
func TestShipOnce(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pdc-extract")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho pdc\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	h := &Driver{Config: jobconf.Default(), Reducers: 2, URI: "hdfs://nn:8020", FileSystem: hdfsfs.Local(),
		Out: out, Binary: bin, input: []string{"/in.jsonl"}}
	for range 2 {
		if err := h.ship(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	shipped := filepath.Join(out, "_tmp", "bin", "pdc-extract")
	if got, err := os.ReadFile(shipped); err != nil || string(got) != "#!/bin/sh\necho pdc\n" {
		t.Fatalf("shipped binary: %q, %v", got, err)
	}
	if err := os.Remove(shipped); err != nil {
		t.Fatal(err)
	}
	if err := h.ship(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shipped); err == nil {
		t.Error("a second ship uploaded the binary again")
	}
	for _, st := range pipeline.Stages() {
		j := h.job(one(st), out+"/_tmp/"+st.Name)
		if len(j.Files) != 0 || len(j.CacheFiles) == 0 || j.CacheFiles[0] != "hdfs://nn:8020"+shipped+"#pdc-extract" {
			t.Errorf("%s: files %v, cache files %v; want the shipped binary first", st.Name, j.Files, j.CacheFiles)
		}
		if st.SideStats && !slices.Contains(j.CacheFiles, "hdfs://nn:8020"+out+"/stats#stats") {
			t.Errorf("%s: cache files %v lack the stats", st.Name, j.CacheFiles)
		}
	}
	h.Binary = filepath.Join(dir, "missing")
	h.shipped = false
	if err := h.ship(context.Background()); err == nil || !strings.Contains(err.Error(), "upload the pdc binary "+h.Binary) {
		t.Errorf("a missing binary: %v", err)
	}
}
