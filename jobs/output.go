package jobs

// A run's output directory, on the local disk or HDFS (see the package
// comment for its layout).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// manifest is OUT/_pdc.json: what a rerun must match to resume.
type manifest struct {
	Inputs []string `json:"inputs"`
	Env    []string `json:"config"`
	Hadoop bool     `json:"hadoop"`
}

// prepareOutput creates OUT or checks that an existing OUT is a resumable
// run of the same configuration, and returns whether a previous run is
// resumed. With overwrite it replaces OUT, but only if OUT is a pdc run
// (holds _pdc.json) or empty.
func prepareOutput(fsys hdfsfs.FS, out string, man manifest, overwrite bool) (bool, error) {
	mpath := out + "/_pdc.json"
	want, _ := json.MarshalIndent(man, "", "  ")
	if _, err := fsys.Stat(out); err == nil {
		if overwrite {
			_, merr := fsys.Stat(mpath)
			if ents, _ := fsys.ReadDir(out); merr != nil && len(ents) > 0 {
				return false, fmt.Errorf("output %s exists and is not a pdc run: not removing it even with --overwrite (choose a new or empty directory)", out)
			}
			if err := fsys.RemoveAll(out); err != nil {
				return false, fmt.Errorf("output %s: %w", out, err)
			}
		} else {
			old, rerr := hdfsfs.ReadFile(fsys, mpath)
			_, serr := fsys.Stat(out + "/spans/_SUCCESS")
			switch {
			case rerr != nil:
				return false, fmt.Errorf("output %s already exists and is not a pdc run (use --overwrite to replace it)", out)
			case serr == nil:
				return false, fmt.Errorf("output %s already holds a finished run (use --overwrite to replace it)", out)
			case strings.TrimSpace(string(old)) != string(want):
				return false, fmt.Errorf("output %s holds an unfinished run with other inputs or flags (use --overwrite to start over)", out)
			}
			return true, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("output %s: %w", out, err)
	}
	if err := fsys.MkdirAll(out, 0o755); err != nil {
		return false, fmt.Errorf("output %s: %w", out, err)
	}
	return false, writeFileFS(fsys, mpath, append(want, '\n'))
}

// writeFileFS writes a file, empty ones included (an empty write can stall
// an HDFS block allocation, so nothing is written for empty data).
func writeFileFS(fsys hdfsfs.FS, name string, data []byte) error {
	w, err := fsys.Create(name)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if len(data) > 0 {
		if _, err := w.Write(data); err != nil {
			w.Close()
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

func writeCountersFS(fsys hdfsfs.FS, name string, c map[string]int64) error {
	return writeFileFS(fsys, name, []byte(formatCounters(c)))
}

func readCountersFS(fsys hdfsfs.FS, name string) (map[string]int64, error) {
	b, err := hdfsfs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return parseCounters(string(b)), nil
}

// finish writes a successful run's reports (boilerplate.tsv,
// counters.tsv, spans.avro with --output-format avro), removes the
// intermediate outputs unless --keep-intermediate, and prints a summary.
func (m *Main) finish(fsys hdfsfs.FS, out string, o *runOptions, stages []Stage, all []jobCounters, took time.Duration) error {
	report, err := boilerplateReport(fsys, out+"/index")
	if err != nil {
		return err
	}
	if err := writeFileFS(fsys, out+"/boilerplate.tsv", report); err != nil {
		return err
	}
	merged := map[string]int64{}
	for _, jc := range all {
		maps.Copy(merged, jc.counters)
	}
	if err := writeCountersFS(fsys, out+"/counters.tsv", merged); err != nil {
		return err
	}
	if !o.keepIntermediate {
		for _, s := range stages {
			if s.Name != "match" {
				if err := fsys.RemoveAll(out + "/" + s.OutputDir()); err != nil {
					return fmt.Errorf("remove intermediate output: %w", err)
				}
			}
		}
	}
	if err := fsys.RemoveAll(out + "/_tmp"); err != nil {
		return fmt.Errorf("remove temp output: %w", err)
	}
	if err := m.writeAvroOutput(fsys, out+"/spans.avro", o); err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "pdc: %s between %s in %s/spans (%s read, %s skipped) in %s\n",
		plural(merged["match.spans"], "span"), plural(merged["match.doc-pairs.with-spans"], "document pair"),
		o.output, plural(merged["parse.docs.read"], "document"), plural(skipped(merged), "document"), elapsed(took))
	if o.print {
		return m.printSpans(o.output, spanOptions{format: "tsv", text: true, inputs: o.inputs})
	}
	return nil
}
