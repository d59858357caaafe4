package pipeline

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

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
// Every run of a chain has the same job parameters; a document id already
// stored is a duplicate as in a run over all inputs (the record of the
// smaller srcpos is kept).

// BatchRun is what a batch run against a stored run reads.
type BatchRun struct {
	// Batch is the run's batch number (jobconf.Config.Batch).
	Batch int
	// Against are the runs of the chain, oldest first, ending with the one
	// named (Manifest.Against).
	Against []string
	// Stored are their parsed-record directories (Options.Stored).
	Stored []string
}

// Against checks that old, a run's output directory on fsys, can be
// batched against with the job parameters env (jobconf.Config.EnvList,
// without PDC_BATCH) and runner, and returns the batch run's chain.
func Against(fsys hdfsfs.FS, old string, env []string, hadoop bool) (BatchRun, error) {
	man, err := ReadManifest(fsys, old)
	if err != nil {
		return BatchRun{}, fmt.Errorf("--against %s: not a pdc run's output: %w", old, err)
	}
	if man.Hadoop != hadoop {
		return BatchRun{}, fmt.Errorf("--against %s: a run of the other runner (--hadoop=%v): batches run where their stored run ran", old, man.Hadoop)
	}
	if !man.Store || !Succeeded(fsys, old+"/parsed") || !Succeeded(fsys, old+"/spans") {
		return BatchRun{}, fmt.Errorf("--against %s: the run stored no collection (OLD/parsed): run it to the end with --store", old)
	}
	oldEnv, cur := envMap(man.Env), envMap(env)
	batch, _ := strconv.Atoi(oldEnv["PDC_BATCH"])
	for _, k := range []string{"PDC_BATCH", "PDC_STATS", "PDC_SEEDS"} { // not parameters: set per run
		delete(oldEnv, k)
		delete(cur, k)
	}
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		if oldEnv[k] != cur[k] {
			diff = append(diff, fmt.Sprintf("%s %q, not %q", FlagName(k), oldEnv[k], cur[k]))
		}
	}
	if len(diff) > 0 {
		return BatchRun{}, fmt.Errorf("--against %s: a batch runs with its stored run's parameters; that run had %s", old, strings.Join(diff, ", "))
	}
	b := BatchRun{Batch: batch + 1, Against: append(slices.Clone(man.Against), old)}
	for _, a := range b.Against {
		b.Stored = append(b.Stored, path.Join(a, "parsed"))
		if strings.Contains(a, ",") {
			return BatchRun{}, fmt.Errorf("--against: %s: a stored run's path must not hold a comma (job inputs are comma-separated)", a)
		}
	}
	return b, nil
}
