package hadoop

import (
	"slices"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/jobs/pipeline"
	"github.com/pdc-mr/pdc/lib/jobconf"
)

// TestHadoopJobs checks how stages become Hadoop Streaming jobs: commands
// name the shipped binary by its file name (pdc, or pdc-extract after a
// hand-over), the parse job reads keyed input, match reads whole files,
// the index job gets the stats through the distributed cache, and with
// --queue every job names the queue.
func TestHadoopJobs(t *testing.T) {
	for _, bin := range []string{"/opt/pdc/bin/pdc", "/opt/pdc/bin/pdc-extract"} {
		h := &Driver{Config: jobconf.Default(), Reducers: 3, URI: "hdfs://",
			Out: "/user/me/out", Binary: bin, input: []string{"/user/me/in.jsonl"}}
		prog := bin[strings.LastIndex(bin, "/")+1:]
		for _, st := range pipeline.Stages() {
			j := h.job(st, "/user/me/out/_tmp/"+st.Name)
			if want := prog + " map " + st.Name; j.Mapper != want {
				t.Errorf("%s: mapper %q, want %q", st.Name, j.Mapper, want)
			}
			if !st.MapOnly && j.Reducer != prog+" reduce "+st.Name {
				t.Errorf("%s: reducer %q", st.Name, j.Reducer)
			}
			if len(j.Files) != 1 || j.Files[0] != bin {
				t.Errorf("%s: files %v, want [%s]", st.Name, j.Files, bin)
			}
			_, keyed := j.Conf["stream.map.input.ignoreKey"]
			_, whole := j.Conf["mapreduce.input.fileinputformat.split.minsize"]
			if keyed != (st.Name == "parse") || whole != (st.Name == "match") {
				t.Errorf("%s: conf %v", st.Name, j.Conf)
			}
			if (st.Name == "index") != (len(j.CacheFiles) == 1 && j.CacheFiles[0] == "hdfs:///user/me/out/stats#stats") {
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
		j := h.job(st, "/c/_tmp/"+st.OutputDir())
		_, limit := j.Conf["mapreduce.input.linerecordreader.line.maxlength"]
		if j.Conf["stream.map.input.ignoreKey"] != "false" || limit || j.Reducer != "pdc reduce "+st.Name || !slices.Equal(j.Inputs, []string{"/in"}) {
			t.Errorf("%s: conf %v, reducer %q, inputs %v", st.Name, j.Conf, j.Reducer, j.Inputs)
		}
		var want []string
		for _, s := range st.Side {
			want = append(want, "hdfs://nn:8020/c/"+s+"#"+s)
		}
		if len(want) == 0 || !slices.Equal(j.CacheFiles, want) || j.Env[jobconf.EnvSide] != "." {
			t.Errorf("%s: cache files %v, %s %q; want %v", st.Name, j.CacheFiles, jobconf.EnvSide, j.Env[jobconf.EnvSide], want)
		}
	}
	if _, limit := h.job(pipeline.Stages()[0], "/c/_tmp/parsed").Conf["mapreduce.input.linerecordreader.line.maxlength"]; !limit {
		t.Error("parse: no line limit")
	}
	// --queue: every job goes to it.
	h = &Driver{Config: jobconf.Default(), Reducers: 2, URI: "hdfs://", Out: "/o", Binary: "/pdc", input: []string{"/in"}, Queue: "research"}
	for _, st := range pipeline.Stages() {
		if q := h.job(st, "/o/_tmp/"+st.Name).Conf["mapreduce.job.queuename"]; q != "research" {
			t.Errorf("%s: queue %q, want research", st.Name, q)
		}
	}
}

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
