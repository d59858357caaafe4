package pipeline

// A run's output directory, on the local disk or HDFS (see the package
// comment for its layout).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/boilerplate"
	"github.com/pdc-mr/pdc/lib/copies"
	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/input"
	"github.com/pdc-mr/pdc/lib/jobconf"
	"github.com/pdc-mr/pdc/lib/mr"
	indexred "github.com/pdc-mr/pdc/reducers/index"
)

// Manifest is OUT/_pdc.json: what a rerun must match to resume.
type Manifest struct {
	// Inputs are the --input paths (absolute for local runs): what pdc
	// spans --text reads the documents from.
	Inputs []string `json:"inputs"`
	// Files are the local files they expanded to, sorted, so that a rerun
	// with files added or removed starts over.
	Files  []string `json:"files,omitempty"`
	Env    []string `json:"config"`
	Hadoop bool     `json:"hadoop"`
	// Clusters: the run finds passage clusters (--clusters).
	Clusters bool `json:"clusters,omitempty"`
	// Include and Exclude select the files under input directories
	// (--include, --exclude: input.Filter); the commands that read the
	// run's documents again select the same ones.
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// Store: the run kept its parsed records (OUT/parsed), so that batches
	// can run against it (pdc run --store; batch.go).
	Store bool `json:"store,omitempty"`
	// StoreLayout is the layout of what a run made with --store keeps
	// (StoreLayout, batch.go); 0 in a manifest written before the field,
	// whose layout is 1.
	StoreLayout int `json:"store_layout,omitempty"`
	// Against are, for a batch run, the stored runs it ran against, oldest
	// first (BatchRun.Against): their documents are the run's too.
	Against []string `json:"against,omitempty"`
	// AgainstStamps identify the collections of Against as the batch read
	// them (StoredStamp): the commands that read a batch run's documents
	// check them (CheckStored).
	AgainstStamps []int64 `json:"against_stamps,omitempty"`
	// Stamps are the sizes and modification times of the local input
	// files as the run read them: the commands that read the documents
	// again check them (input.Stamps.ChangedSince).
	Stamps input.Stamps `json:"stamps,omitempty"`
}

// Config returns the run's job parameters (Env).
func (m Manifest) Config() (jobconf.Config, error) {
	env := map[string]string{}
	for _, kv := range m.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if _, ok := env["PDC_MIN_EVIDENCE"]; !ok {
		env["PDC_MIN_EVIDENCE"] = "0" // a run made before spans needed evidence
	}
	return jobconf.FromEnv(func(k string) string { return env[k] })
}

// storeLayout is the manifest's StoreLayout, 1 when written before the
// field.
func (m Manifest) storeLayout() int { return max(m.StoreLayout, 1) }

// ManifestFile is the manifest's name in OUT.
const ManifestFile = "_pdc.json"

// ReadManifest reads OUT/_pdc.json.
func ReadManifest(fsys hdfsfs.FS, out string) (*Manifest, error) {
	data, err := hdfsfs.ReadFile(fsys, out+"/"+ManifestFile)
	if err != nil {
		return nil, err
	}
	var man Manifest
	if err := json.Unmarshal(data, &man); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", out, ManifestFile, err)
	}
	return &man, nil
}

// Prepare creates OUT or checks that an existing OUT is a resumable run of
// the same configuration, and returns whether a previous run is resumed.
// With overwrite it replaces OUT, but only if OUT is a pdc run (holds
// _pdc.json) or empty.
func Prepare(fsys hdfsfs.FS, out string, man Manifest, overwrite bool) (bool, error) {
	mpath := out + "/" + ManifestFile
	want, _ := json.MarshalIndent(man, "", "  ")
	_, err := fsys.Stat(out)
	switch {
	case err == nil:
		ents, err := fsys.ReadDir(out)
		if err != nil {
			return false, fmt.Errorf("output %s: %w", out, err)
		}
		old, rerr := ReadManifest(fsys, out)
		// Finished: the spans and the run's counters, written when the
		// last job is done (Finish).
		_, serr := fsys.Stat(out + "/spans/_SUCCESS")
		if serr == nil {
			_, serr = fsys.Stat(out + "/counters.tsv")
		}
		switch {
		case rerr != nil && len(ents) > 0:
			return false, fmt.Errorf("output %s exists and is not a pdc run (no %s): choose a new or empty directory; pdc never removes it, even with --overwrite", out, ManifestFile)
		case rerr != nil:
			// An empty directory: a new run.
		case overwrite:
			if err := fsys.RemoveAll(out); err != nil {
				return false, fmt.Errorf("output %s: %w", out, err)
			}
		case serr == nil:
			return false, fmt.Errorf("output %s already holds a finished run (use --overwrite to replace it)", out)
		default:
			if diff := old.diff(man); diff != "" {
				return false, fmt.Errorf("output %s holds an unfinished run with %s (use the same flags and inputs to resume it, or --overwrite to start over)", out, diff)
			}
			return true, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("output %s: %w", out, err)
	}
	if err := fsys.MkdirAll(out, 0o755); err != nil {
		return false, fmt.Errorf("output %s: %w", out, err)
	}
	if err := hdfsfs.WriteFileAtomic(fsys, mpath, append(want, '\n')); err != nil {
		return false, fmt.Errorf("write %s: %w", mpath, err)
	}
	return false, nil
}

// diff says how run m differs from the one now asked for, "" if it does
// not: the flags whose values differ (PDC_MAX_SITE_DF=4 is --max-site-df
// 4), other inputs, another runner.
func (m *Manifest) diff(now Manifest) string {
	var parts []string
	old := envMap(m.Env)
	cur := envMap(now.Env)
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		if old[k] != cur[k] {
			parts = append(parts, fmt.Sprintf("%s %q, not %q", FlagName(k), old[k], cur[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(old)) {
		if _, ok := cur[k]; !ok {
			parts = append(parts, fmt.Sprintf("%s %q", FlagName(k), old[k]))
		}
	}
	if !slices.Equal(m.Inputs, now.Inputs) || !slices.Equal(m.Files, now.Files) {
		parts = append(parts, "other inputs")
	}
	if !slices.Equal(m.Against, now.Against) {
		parts = append(parts, "other stored runs (--against)")
	}
	if m.Store != now.Store {
		parts = append(parts, fmt.Sprintf("--store=%v, not %v", m.Store, now.Store))
	} else if m.Store && m.storeLayout() != now.storeLayout() {
		parts = append(parts, fmt.Sprintf("stored in layout %d, not %d (another pdc)", m.storeLayout(), now.storeLayout()))
	}
	if m.Clusters != now.Clusters {
		parts = append(parts, fmt.Sprintf("--clusters=%v, not %v", m.Clusters, now.Clusters))
	}
	if m.Hadoop != now.Hadoop {
		parts = append(parts, "another runner (--hadoop)")
	}
	return strings.Join(parts, ", ")
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// FlagName is the flag of a job parameter's variable: PDC_MAX_SITE_DF is
// --max-site-df.
func FlagName(env string) string {
	return "--" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(env, "PDC_"), "_", "-"))
}

// writeFile writes a file, empty ones included.
func writeFile(fsys hdfsfs.FS, name string, data []byte) error {
	if err := hdfsfs.WriteFile(fsys, name, data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// WriteCounters writes a counters file.
func WriteCounters(fsys hdfsfs.FS, name string, c map[string]int64) error {
	return writeFile(fsys, name, []byte(mr.FormatCounters(c)))
}

// ReadCounters reads a counters file.
func ReadCounters(fsys hdfsfs.FS, name string) (map[string]int64, error) {
	b, err := hdfsfs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return mr.ParseCounters(string(b)), nil
}

// PrintCounters prints counters as an aligned table, sorted by name.
func PrintCounters(w io.Writer, c map[string]int64) {
	keys := slices.Sorted(maps.Keys(c))
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	for _, k := range keys {
		fmt.Fprintf(w, "  %-*s %12d\n", width, k, c[k])
	}
}

// JobsFile lists a run's jobs, one `job TAB seconds TAB id` line each, in
// pipeline order: the wall time of the job, "" for one finished in an
// earlier run (id "earlier-run"), and the cluster's job id, if any.
const JobsFile = "jobs.tsv"

func formatJobs(jobs []Job) string {
	var b strings.Builder
	b.WriteString("# job\tseconds\tid\n")
	for _, j := range jobs {
		secs, id := strconv.FormatFloat(j.Took.Seconds(), 'f', 3, 64), j.ID
		if j.Skipped {
			secs, id = "", "earlier-run"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", j.Name, secs, id)
	}
	return b.String()
}

// ReadJobs reads OUT/jobs.tsv: each job's name, time and id; a job
// finished by an earlier run has Skipped set (and no time).
func ReadJobs(fsys hdfsfs.FS, out string) ([]Job, error) {
	data, err := hdfsfs.ReadFile(fsys, out+"/"+JobsFile)
	if err != nil {
		return nil, err
	}
	var jobs []Job
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		j := Job{Name: f[0], ID: f[2], Skipped: f[1] == ""}
		if secs, err := strconv.ParseFloat(f[1], 64); err == nil {
			j.Took = time.Duration(secs * float64(time.Second))
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// Finish writes a successful run's reports (OUT/boilerplate.tsv, its rows
// and their texts from rows: readBoilerplate, or startBoilerplate's wait
// for it; OUT/copies.tsv, OUT/counters.tsv, OUT/jobs.tsv), then removes the
// intermediate outputs but those named in keep unless keepIntermediate, and
// OUT/_tmp. It returns what boilerplate.tsv lacks of its texts.
func Finish(fsys hdfsfs.FS, out string, jobs []Job, rows func() boilerplateRows, keepIntermediate bool, keep []string) (TextsMissing, error) {
	miss, err := writeReports(fsys, out, jobs, rows())
	if err != nil {
		return miss, err
	}
	return miss, removeIntermediate(fsys, out, keepIntermediate, keep)
}

// boilerplateRows are boilerplate.tsv's rows with their texts, and what
// they lack of them.
type boilerplateRows struct {
	rows []boilerplate.Row
	miss TextsMissing
	err  error
}

// readBoilerplate returns a function reading the boilerplate job's rows
// (OUT/boilerplate-rows) and their texts from the documents of the run made
// with cfg, whose parsed records are OUT/parsed and those in stored. It
// stops when ctx ends.
func readBoilerplate(ctx context.Context, fsys hdfsfs.FS, out string, cfg jobconf.Config, stored []string) func() boilerplateRows {
	return func() boilerplateRows {
		rows, err := boilerplateReport(fsys, out+"/boilerplate-rows")
		if err != nil {
			return boilerplateRows{err: err}
		}
		miss := boilerplateTexts(ctx, fsys, append([]string{out + "/parsed"}, stored...), cfg, rows, MaxTextRunes, MaxScanBytes)
		if ctx.Err() != nil {
			return boilerplateRows{err: fmt.Errorf("%s/boilerplate.tsv: %w (rerun the same command to resume)", out, ErrInterrupted)}
		}
		return boilerplateRows{rows: rows, miss: miss}
	}
}

// startBoilerplate runs read in the background and returns a function
// that waits for its result (as often as called).
func startBoilerplate(read func() boilerplateRows) func() boilerplateRows {
	done := make(chan struct{})
	var r boilerplateRows
	go func() {
		defer close(done)
		r = read()
	}()
	return func() boilerplateRows {
		<-done
		return r
	}
}

// writeReports writes the reports.
func writeReports(fsys hdfsfs.FS, out string, jobs []Job, br boilerplateRows) (TextsMissing, error) {
	if br.err != nil {
		return TextsMissing{}, br.err
	}
	rows, miss := br.rows, br.miss
	var b bytes.Buffer
	if err := boilerplate.Write(&b, rows); err != nil {
		return miss, err
	}
	if err := writeFile(fsys, out+"/boilerplate.tsv", b.Bytes()); err != nil {
		return miss, err
	}
	cs, err := copies.Build(fsys, out+"/stats")
	if err != nil {
		return miss, err
	}
	countCopies(jobs, cs)
	b.Reset()
	if err := copies.Write(&b, cs); err != nil {
		return miss, err
	}
	if err := writeFile(fsys, out+"/"+copies.File, b.Bytes()); err != nil {
		return miss, err
	}
	if err := WriteCounters(fsys, out+"/counters.tsv", Merged(jobs)); err != nil {
		return miss, err
	}
	return miss, writeFile(fsys, out+"/"+JobsFile, []byte(formatJobs(jobs)))
}

// countCopies sets the stats job's counters of exact copies to what
// copies.tsv lists: its lines (stats.copies.documents) and the documents
// they copy (stats.copies.groups). The stats reducers cannot count them:
// a content hash's reducer does not see which of its records are later
// records of a duplicate id, dropped by the reducer of that id.
func countCopies(jobs []Job, cs []copies.Copy) {
	groups := map[string]bool{}
	for _, c := range cs {
		groups[c.Of] = true
	}
	for i := range jobs {
		if jobs[i].Name != "stats" {
			continue
		}
		if jobs[i].Counters == nil {
			jobs[i].Counters = map[string]int64{}
		}
		jobs[i].Counters["stats.copies.documents"] = int64(len(cs))
		jobs[i].Counters["stats.copies.groups"] = int64(len(groups))
	}
}

// removeIntermediate removes the intermediate outputs but those named in
// keep unless keepIntermediate, and OUT/_tmp.
func removeIntermediate(fsys hdfsfs.FS, out string, keepIntermediate bool, keep []string) error {
	if !keepIntermediate {
		dirs := []string{}
		for _, s := range append(Stages(), ClusterStages()...) {
			if s.OutputDir() != "spans" && !slices.Contains(keep, s.OutputDir()) {
				dirs = append(dirs, s.OutputDir())
			}
		}
		ents, err := fsys.ReadDir(out)
		if err != nil {
			return fmt.Errorf("remove intermediate output: %w", err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "components-") {
				dirs = append(dirs, e.Name())
			}
		}
		for _, dir := range dirs {
			if err := fsys.RemoveAll(out + "/" + dir); err != nil {
				return fmt.Errorf("remove intermediate output: %w", err)
			}
		}
	}
	if err := fsys.RemoveAll(out + "/_tmp"); err != nil {
		return fmt.Errorf("remove temp output: %w", err)
	}
	return nil
}

// boilerplateReport collects the index job's B and T records
// (reducers/index) as the rows of OUT/boilerplate.tsv (lib/boilerplate: one
// row per kind and block of example sentences, most frequent first).
func boilerplateReport(fsys hdfsfs.FS, dir string) ([]boilerplate.Row, error) {
	parts, err := PartFiles(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("boilerplate report: %w", err)
	}
	var rows []boilerplate.Row
	for _, p := range parts {
		f, err := fsys.Open(p)
		if err != nil {
			return nil, fmt.Errorf("boilerplate report: %w", err)
		}
		r := mr.NewReader(bufio.NewReaderSize(f, 1<<16))
		for r.Next() {
			row, ok := indexred.ParseBoilerplate(r.Line())
			if !ok {
				continue
			}
			rows = append(rows, row)
		}
		err = r.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("boilerplate report: %w", err)
		}
	}
	return boilerplate.Blocks(boilerplate.Dedupe(rows)), nil
}
