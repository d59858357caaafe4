package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name        string
		chain, feed bool
		done        []string
		want        []string
	}{
		{"hadoop", false, false, nil, []string{"parse", "stats", "index", "boilerplate", "join", "match", "extend"}},
		{"local", true, true, nil, []string{"parse>stats", "index", "boilerplate", "join+match", "extend"}},
		{"keep intermediate", false, true, nil, []string{"parse>stats", "index", "boilerplate", "join", "match", "extend"}},
		{"parse done: stats reads it", true, true, []string{"parsed"}, []string{"parse", "stats", "index", "boilerplate", "join+match", "extend"}},
		{"stats done", true, true, []string{"stats"}, []string{"parse", "stats", "index", "boilerplate", "join+match", "extend"}},
		{"join done: match on its own", true, true, []string{"parsed", "stats", "index", "boilerplate-rows", "pairs"}, []string{"parse", "stats", "index", "boilerplate", "join", "match", "extend"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := func(dir string) bool { return slices.Contains(tt.done, filepath.Base(dir)) }
			var got []string
			for _, s := range plan(Stages(), "/out", tt.chain, tt.feed, done) {
				name := s.Name()
				if s.Fusion == Feeding {
					name = s.Stages[0].Name + ">" + s.Stages[1].Name
				}
				got = append(got, name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("plan = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestChainedKeyFields: a chained step whose second stage is map-only
// writes that stage's map output, sorted by its key; other steps their
// own.
func TestChainedKeyFields(t *testing.T) {
	got := map[string]int{}
	for _, s := range plan(Stages(), "/out", true, true, func(string) bool { return false }) {
		got[s.Name()] = s.ChainedKeyFields()
	}
	match := Stages()[slices.IndexFunc(Stages(), func(st Stage) bool { return st.Name == "match" })]
	if !match.MapOnly || got["join+match"] != match.KeyFields || match.KeyFields < 1 {
		t.Errorf("join+match: %d output key fields, want match's %d (map-only %v)", got["join+match"], match.KeyFields, match.MapOnly)
	}
	for name, n := range got {
		if name != "join+match" && n != 0 {
			t.Errorf("%s: %d output key fields, want 0", name, n)
		}
	}
}

// fakeDriver runs every step by writing its directories with _SUCCESS and
// one counter, and records what it ran.
type fakeDriver struct {
	fuses bool
	ran   []string
	fail  string // the step that fails
}

func (d *fakeDriver) FS() hdfsfs.FS                     { return hdfsfs.Local() }
func (d *fakeDriver) Fuses(Fusion) bool                 { return d.fuses }
func (d *fakeDriver) Prepare(ctx context.Context) error { return nil }

func (d *fakeDriver) Run(ctx context.Context, s Step, done func(Job) error) error {
	if s.Name() == d.fail {
		return errors.New("job " + d.fail + ": boom")
	}
	d.ran = append(d.ran, s.Name())
	for i, dir := range s.Dirs() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dir+"/_SUCCESS", nil, 0o644); err != nil {
			return err
		}
		name := s.Stages[i].Name
		if s.Fusion == Chained {
			name = s.Name()
		}
		if err := done(Job{Name: name, Dir: dir, Counters: map[string]int64{name + ".n": 1}}); err != nil {
			return err
		}
	}
	return nil
}

// TestRunResumes: Run skips the steps an earlier run finished, with their
// counters, writes each job's counters, and finishes the reports; a failed
// step leaves a run that the next Run resumes.
func TestRunResumes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var stderr strings.Builder
	o := Options{Out: out, Display: out, Manifest: Manifest{Inputs: []string{"a"}}, Stderr: &stderr}
	d := &fakeDriver{fuses: true, fail: "index"}
	if _, err := Run(context.Background(), d, o); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("failing step: err %v", err)
	}
	d.fail = ""
	// The report needs the boilerplate job's output: a part with one B
	// record.
	d2 := &reportDriver{fakeDriver: d}
	jobs, err := Run(context.Background(), d2, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"parse", "index", "boilerplate", "join+match", "extend"}; !slices.Equal(d.ran, want) {
		t.Errorf("ran %q, want %q", d.ran, want)
	}
	if !strings.Contains(stderr.String(), "resuming the unfinished run") || !strings.Contains(stderr.String(), "job parse: finished in an earlier run, skipped") {
		t.Errorf("messages:\n%s", stderr.String())
	}
	c := Merged(jobs)
	for _, k := range []string{"parse.n", "stats.n", "index.n", "join+match.n"} {
		if c[k] != 1 {
			t.Errorf("counter %s = %d, want 1 (%v)", k, c[k], c)
		}
	}
	report, err := os.ReadFile(filepath.Join(out, "boilerplate.tsv"))
	if err != nil || !strings.Contains(string(report), "7\tmax-df\tsig1\tdoc,1\t12\t3\t40\t1\t\n") {
		t.Errorf("boilerplate.tsv (%v):\n%s", err, report)
	}
	// The fake jobs wrote no parsed record for the row's document: the run
	// says that its row has no text.
	if !strings.Contains(stderr.String(), out+"/boilerplate.tsv: 1 of its 1 rows have no text: document doc,1 is in no parsed record") {
		t.Errorf("messages:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "index")); !os.IsNotExist(err) {
		t.Errorf("intermediate index output not removed: %v", err)
	}
}

// reportDriver writes a B record into the boilerplate job's output.
type reportDriver struct{ *fakeDriver }

func (d *reportDriver) Run(ctx context.Context, s Step, done func(Job) error) error {
	if err := d.fakeDriver.Run(ctx, s, done); err != nil {
		return err
	}
	if s.Name() == "boilerplate" {
		return os.WriteFile(filepath.Join(s.Dir(), "part-00000"), []byte("sig0\tP\t2\tx\nsig1\tB\t7\t0000012,5,3,40,site,doc,1\n"), 0o644)
	}
	return nil
}

// TestPrepare: an existing directory is resumed only when it is an
// unfinished run of the same manifest; --overwrite never removes a
// directory that is not a pdc run.
func TestPrepare(t *testing.T) {
	fsys := hdfsfs.Local()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	man := Manifest{Inputs: []string{"a"}, Env: []string{"X=1"}}
	if resumed, err := Prepare(fsys, out, man, false); err != nil || resumed {
		t.Fatalf("new: resumed %v, err %v", resumed, err)
	}
	if resumed, err := Prepare(fsys, out, man, false); err != nil || !resumed {
		t.Fatalf("same: resumed %v, err %v", resumed, err)
	}
	other := Manifest{Inputs: []string{"b"}, Env: []string{"X=1"}}
	if _, err := Prepare(fsys, out, other, false); err == nil || !strings.Contains(err.Error(), "with other inputs (") {
		t.Errorf("other inputs: err %v", err)
	}
	flags := Manifest{Inputs: []string{"a"}, Env: []string{"X=2", "PDC_MAX_SITE_DF=4"}}
	if _, err := Prepare(fsys, out, flags, false); err == nil || !strings.Contains(err.Error(), `with --max-site-df "", not "4", --x "1", not "2" (`) {
		t.Errorf("other flags: err %v", err)
	}
	if resumed, err := Prepare(fsys, out, other, true); err != nil || resumed {
		t.Errorf("overwrite: resumed %v, err %v", resumed, err)
	}
	foreign := filepath.Join(dir, "foreign")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(foreign, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, overwrite := range []bool{false, true} {
		_, err := Prepare(fsys, foreign, man, overwrite)
		if err == nil || !strings.Contains(err.Error(), "not a pdc run") || strings.Contains(err.Error(), "use --overwrite") {
			t.Errorf("foreign, overwrite %v: err %v", overwrite, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if resumed, err := Prepare(fsys, empty, man, false); err != nil || resumed {
		t.Errorf("empty directory: resumed %v, err %v", resumed, err)
	}
	if _, err := os.Stat(filepath.Join(foreign, "keep")); err != nil {
		t.Errorf("foreign directory touched: %v", err)
	}
}

// TestLockLocal: a second lock on an output directory fails at once and
// names the holder; released, the directory can be locked again; the
// lock file is outside the directory and gone after Release.
func TestLockLocal(t *testing.T) {
	fsys := hdfsfs.Local()
	out := filepath.Join(t.TempDir(), "out")
	info := LockInfo{Host: "h1", PID: 4242, Since: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	l, err := AcquireLock(fsys, out, info, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(fsys, out, LockInfo{Host: "h2", PID: 1}, false)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "in use by pdc run pid 4242 on h1 since 2026-01-02T03:04:05Z") {
		t.Errorf("second lock: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockName(fsys, out)); !os.IsNotExist(err) {
		t.Errorf("lock file left after Release: %v", err)
	}
	l2, err := AcquireLock(fsys, out, info, false)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
}

// TestLockHDFS: on a real HDFS (PDC_HADOOP_CONF_DIR, see
// scripts/hadoop-cluster.sh) a second lock fails naming the holder; a lock
// untouched for LockStale is taken over; Release removes it.
func TestLockHDFS(t *testing.T) {
	conf := os.Getenv("PDC_HADOOP_CONF_DIR")
	if conf == "" {
		t.Skip("no Hadoop cluster (PDC_HADOOP_CONF_DIR)")
	}
	t.Setenv("HADOOP_CONF_DIR", conf)
	fsys, err := hdfsfs.FromConfDir(conf)
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("/pdc-it/lock-%d/out", time.Now().UnixNano())
	l, err := AcquireLock(fsys, out, LockInfo{Host: "h1", PID: 7, Since: time.Now()}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := AcquireLock(fsys, out, LockInfo{Host: "h2", PID: 8}, false); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid 7 on h1") {
		t.Fatalf("second lock: %v", err)
	}
	// The holder dies: its lock ages past LockStale.
	if err := hdfsfs.Touch(fsys, LockName(fsys, out), time.Now().Add(-2*LockStale)); err != nil {
		t.Fatal(err)
	}
	l2, err := AcquireLock(fsys, out, LockInfo{Host: "h2", PID: 8}, false)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Stat(LockName(fsys, out)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock left after Release: %v", err)
	}
}

// TestLockForceLocal: on the local disk --force-unlock does not break a
// live holder's lock, and a run releases only its own lock file.
func TestLockForceLocal(t *testing.T) {
	fsys := hdfsfs.Local()
	out := filepath.Join(t.TempDir(), "out")
	a, err := AcquireLock(fsys, out, LockInfo{Host: "h", PID: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLock(fsys, out, LockInfo{Host: "h", PID: 2}, true); !errors.Is(err, ErrLocked) {
		t.Fatalf("force against a live holder: %v, want ErrLocked", err)
	}
	// Someone removes the file behind the holder's back; another run
	// takes a new one; the first run's Release must leave it alone.
	os.Remove(LockName(fsys, out))
	b, err := AcquireLock(fsys, out, LockInfo{Host: "h", PID: 3}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLock(fsys, out, LockInfo{Host: "h", PID: 4}, false); !errors.Is(err, ErrLocked) {
		t.Errorf("after the old holder's Release, the new lock was gone: %v", err)
	}
	b.Release()
}
