package pipeline

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
)

// A batch run (pdc run --input NEW --against OLD --output OUT) joins the
// documents of NEW with themselves and with the stored collection of OLD,
// never the stored documents with each other:
//
//   - OLD is a finished run made with --store (Manifest.Store): it kept
//     OLD/parsed, its parsed records (lib/doc), the token sets the index is
//     computed from. OLD is read, never written.
//   - OUT's parse job parses NEW only, writing records of the batch's
//     number (jobconf.Config.Batch: OLD's plus one); the stats, index and
//     extend jobs (and passages, with --clusters) read OUT/parsed and the
//     stored runs' parsed records (Options.Stored, oldest first), so that
//     document frequencies, --max-df, --hub-df and site templates are
//     decided on the merged collection, as a run over all of it would.
//   - The join joins every list as that run would, then leaves out the
//     pairs of two stored documents (mappers/join): OUT/spans holds the
//     spans of the pairs with a document of NEW, the same as the run over
//     all of it finds for them.
//   - OUT keeps its parsed records too (a batch run stores): batch k+1 runs
//     against OUT, whose manifest lists the whole chain (Manifest.Against);
//     the commands that read OUT's documents read those of every run of it.
//
// Every run of a chain has the same job parameters (Against checks them
// all). A document id already stored is a duplicate as in a run over all
// inputs (the record of the smaller srcpos is kept); when the stored record
// is kept, its pairs are left out with the stored pairs, so that a batch
// equals the whole run for the ids it adds, not for those it repeats.

// StoreLayout is the layout of what pdc run --store keeps, recorded in the
// run's manifest (Manifest.StoreLayout): layout 1 is OUT/parsed, the run's
// parsed-document records (lib/doc record.go) as part files with a
// _SUCCESS marker, the records of a batch run with their batch number. A
// batch runs only against runs of this layout; a pdc that changes what it
// stores raises it, and runs stored before are refused with a message.
const StoreLayout = 1

// storedFinished checks that the stored run finished: its spans and its
// parsed records are complete.
func storedFinished(fsys hdfsfs.FS, run string) error {
	if !Succeeded(fsys, run+"/spans") || !Succeeded(fsys, run+"/parsed") {
		return fmt.Errorf("the stored run %s did not finish (no spans/_SUCCESS or parsed/_SUCCESS): rerun it to resume", run)
	}
	return nil
}

// BatchRun is what a batch run against a stored run reads.
type BatchRun struct {
	// Batch is the run's batch number (jobconf.Config.Batch).
	Batch int
	// Against are the runs of the chain, oldest first, ending with the one
	// named (Manifest.Against).
	Against []string
	// Stored are their parsed-record directories (Options.Stored).
	Stored []string
	// Stamps identify the runs' stored collections as the batch read them
	// (Manifest.AgainstStamps, StoredStamp).
	Stamps []int64
}

// Against checks that old, a run's output directory on fsys, and every
// run it ran against can be batched against by a run writing out (on the
// same fsys) with the job parameters env (jobconf.Config.EnvList) and
// runner, and returns the batch run's chain.
func Against(fsys hdfsfs.FS, old, out string, env []string, hadoop bool) (BatchRun, error) {
	man, err := ReadManifest(fsys, old)
	if err != nil {
		return BatchRun{}, fmt.Errorf("--against %s: not a pdc run's output: %w", old, err)
	}
	b := BatchRun{Against: append(slices.Clone(man.Against), old)}
	if err := CheckStored(fsys, old, *man); err != nil {
		return BatchRun{}, fmt.Errorf("--against %s: %w", old, err)
	}
	for _, run := range b.Against {
		if err := storedRun(fsys, run, out, env, hadoop); err != nil {
			return BatchRun{}, fmt.Errorf("--against %s: %w", old, err)
		}
		b.Stored = append(b.Stored, path.Join(run, "parsed"))
		stamp, err := StoredStamp(fsys, run)
		if err != nil {
			return BatchRun{}, fmt.Errorf("--against %s: %w", old, err)
		}
		b.Stamps = append(b.Stamps, stamp)
	}
	batch, _ := strconv.Atoi(envMap(man.Env)["PDC_BATCH"])
	b.Batch = batch + 1
	return b, nil
}

// StoredStamp identifies the collection the run stored: the modification
// time (Unix nanoseconds) of its parsed/_SUCCESS, which a rerun of the
// run rewrites.
func StoredStamp(fsys hdfsfs.FS, run string) (int64, error) {
	fi, err := fsys.Stat(run + "/parsed/_SUCCESS")
	if err != nil {
		return 0, fmt.Errorf("the stored run %s has no finished parsed/: %w", run, hdfsfs.UnwrapPath(err))
	}
	return fi.ModTime().UnixNano(), nil
}

// CheckStored checks that the stored runs of batch run out (its manifest
// man) hold the collections the batch ran against (Manifest.AgainstStamps;
// a manifest without them is not checked): a stored run rerun since then
// holds other documents, or the same under other offsets. A stored run
// without finished parsed records is left to the checks of what reads
// them (storedFinished).
func CheckStored(fsys hdfsfs.FS, out string, man Manifest) error {
	if len(man.AgainstStamps) != len(man.Against) {
		return nil
	}
	for i, run := range man.Against {
		stamp, err := StoredStamp(fsys, run)
		if err != nil {
			continue
		}
		if stamp != man.AgainstStamps[i] {
			return fmt.Errorf("the stored run %s was run again after the batch run %s ran against it (its parsed/ of %s, not %s): run the batch again (pdc run ... --against %s --output %s --overwrite)",
				run, out, time.Unix(0, stamp).UTC().Format(time.RFC3339), time.Unix(0, man.AgainstStamps[i]).UTC().Format(time.RFC3339), man.Against[len(man.Against)-1], out)
		}
	}
	return nil
}

// storedRun checks one run of a batch run's chain: not where the batch
// writes, a finished run of the same runner made with --store, of the
// same job parameters.
func storedRun(fsys hdfsfs.FS, run, out string, env []string, hadoop bool) error {
	switch {
	case run == out:
		return fmt.Errorf("--output is the stored run %s: a batch never writes its stored runs; choose another --output", run)
	case strings.HasPrefix(out, run+"/"):
		return fmt.Errorf("--output %s is inside the stored run %s: choose a directory outside it", out, run)
	case strings.HasPrefix(run, out+"/"):
		return fmt.Errorf("--output %s holds the stored run %s: choose a directory outside it", out, run)
	case hadoop && strings.Contains(run, ","):
		return fmt.Errorf("the stored run %s: its path must not hold a comma (Hadoop job inputs are comma-separated)", run)
	}
	man, err := ReadManifest(fsys, run)
	if err != nil {
		return fmt.Errorf("the stored run %s: %w", run, err)
	}
	switch {
	case man.Hadoop != hadoop:
		return fmt.Errorf("the stored run %s is of the other runner (--hadoop=%v): batches run where their stored run ran", run, man.Hadoop)
	case !man.Store:
		return fmt.Errorf("%s stored no collection: it was run without --store (run it again with --store)", run)
	case man.storeLayout() != StoreLayout:
		return fmt.Errorf("the stored run %s keeps its collection in layout %d, and this pdc reads layout %d: run it again with --store", run, man.StoreLayout, StoreLayout)
	}
	if err := storedFinished(fsys, run); err != nil {
		return err
	}
	old, cur := envMap(man.Env), envMap(env)
	// Not parameters (set per run), or without effect on the result.
	for _, k := range []string{"PDC_BATCH", "PDC_STATS", "PDC_SEEDS", "PDC_STRICT"} {
		delete(old, k)
		delete(cur, k)
	}
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		if old[k] != cur[k] {
			diff = append(diff, fmt.Sprintf("%s %q, not %q", FlagName(k), old[k], cur[k]))
		}
	}
	if len(diff) > 0 {
		return fmt.Errorf("a batch runs with its stored runs' parameters; %s had %s", run, strings.Join(diff, ", "))
	}
	return nil
}
