// Package pipeline is pdc's pipeline: the table of its MapReduce jobs
// (Stages), the streaming program of each (Program), and one loop (Run)
// that runs them through a Driver, the local runner (jobs/local) or Hadoop
// Streaming (jobs/hadoop): it skips jobs finished by an earlier run,
// writes each job's counters, reports progress and failures, and finishes
// the run's reports.
//
// Output directory layout of `pdc run --output OUT`:
//
//	OUT/_pdc.json        the run's configuration; a rerun must match it
//	OUT/parsed/          parse job (map only): parsed-document records (lib/doc);
//	                     kept with --store, so that batches can run against OUT
//	OUT/stats/           stats job: token document frequencies, duplicate ids
//	OUT/index/           index job: posting lists (reducers/index)
//	OUT/boilerplate-rows/ boilerplate job (map only): the index output's B/T
//	                     records, read by Finish (mappers/boilerplate)
//	OUT/pairs/           join job: duplicated sentence pairs (reducers/join);
//	                     the local runner writes it only with --keep-intermediate
//	                     (or when resuming a run that had finished the join) and
//	                     otherwise runs the match inside the join's reduce
//	                     tasks (Stage.ChainsNext)
//	OUT/matches/         match job: the runs found, as seeds (lib/extend)
//	OUT/spans/           extend job: the spans (lib/span), pdc's result
//	OUT/passages/, OUT/edges/, OUT/components-NN-{large,small}/
//	                     with --clusters: the graph of span ends and the
//	                     rounds of its connected components (mappers/clusters)
//	OUT/clusters/        with --clusters: the passage clusters (reducers/clusters)
//	OUT/boilerplate.tsv  signatures over --max-df and site templates, most frequent first
//	OUT/copies.tsv       documents whose content sentences are an earlier one's (lib/copies)
//	OUT/counters.tsv     every job's counters
//	OUT/jobs.tsv         every job's time and cluster id (JobsFile)
//	OUT/spans.avro       with --output-format avro (written by the CLI under the lock)
//	OUT/_tmp/            the local runner's spills; on Hadoop, jobs' outputs until they succeed
//	OUT/input/           on Hadoop, the documents uploaded from the local disk
//	DIR/.NAME.pdc-lock   beside OUT = DIR/NAME: the run's lock (lock.go)
//
// Each job directory gets _SUCCESS when the job completes; a rerun skips
// completed jobs. Intermediate directories are removed after a successful
// run unless --keep-intermediate is given.
package pipeline

import (
	"fmt"
	"strings"

	"github.com/pdc-mr/pdc/lib/dedup"
	"github.com/pdc-mr/pdc/lib/mr"
	boilerplatemap "github.com/pdc-mr/pdc/mappers/boilerplate"
	clustermap "github.com/pdc-mr/pdc/mappers/clusters"
	dedupmap "github.com/pdc-mr/pdc/mappers/dedup"
	extendmap "github.com/pdc-mr/pdc/mappers/extend"
	"github.com/pdc-mr/pdc/mappers/index"
	joinmap "github.com/pdc-mr/pdc/mappers/join"
	matchmap "github.com/pdc-mr/pdc/mappers/match"
	parsemap "github.com/pdc-mr/pdc/mappers/parse"
	statsmap "github.com/pdc-mr/pdc/mappers/stats"
	clusterred "github.com/pdc-mr/pdc/reducers/clusters"
	dedupred "github.com/pdc-mr/pdc/reducers/dedup"
	extendred "github.com/pdc-mr/pdc/reducers/extend"
	indexred "github.com/pdc-mr/pdc/reducers/index"
	joinred "github.com/pdc-mr/pdc/reducers/join"
	statsred "github.com/pdc-mr/pdc/reducers/stats"
)

// Stage is one MapReduce job of the pipeline.
type Stage struct {
	// Name is the job name, also the program name (`pdc map NAME`) and the
	// output directory under OUT.
	Name string
	// Input names the stage whose output this one reads ("" = the
	// documents).
	Input string
	// KeyFields and PartitionFields are the key-field spec shared by the
	// local runner and Hadoop: the key is the first KeyFields tab-separated
	// fields; records are partitioned on the first PartitionFields.
	KeyFields, PartitionFields int
	// Combine tells whether the stage has a combiner (`pdc combine NAME`).
	Combine bool
	// SideStats tells whether the stage reads the stats job's output.
	SideStats bool
	// SideSeeds tells whether the stage's mappers read the match job's
	// output as a side input (jobconf Config.Seeds).
	SideSeeds bool
	// MapOnly stages have no reduce (Hadoop: -numReduceTasks 0).
	MapOnly bool
	// WholeFiles stages read each input file as one split (they rely on
	// the sorted, grouped order of the previous job's part files).
	WholeFiles bool
	// InputKeys stages read each input line with its byte offset (Hadoop:
	// stream.map.input.ignoreKey=false; see mr.InputKeyed).
	InputKeys bool
	// SkipsLongLines stages, which read the documents, leave out records
	// longer than the run's jobconf.Config.MaxRecordBytes unread (the parse
	// job: counted locally, logged by Hadoop's LineRecordReader); the
	// others read every record (pdc dedup's jobs write every document).
	SkipsLongLines bool
	// Feeds names the next stage when this map-only stage's mapper can
	// also write that stage's map output (mr.Task.Side): the local runner
	// then runs only the next stage's reduce phase (local.RunFeeding). On
	// Hadoop, which has no second output, the next stage runs its own map
	// tasks.
	Feeds string
	// ChainsNext tells that the next stage, map-only and reading this
	// stage's part files whole, may run inside this stage's reduce tasks
	// (ReduceNext, the reducer followed by the next stage's mapper in one
	// program): the next stage sees the same lines either way, and the
	// intermediate output is neither written nor read back. Both runners
	// do so unless --keep-intermediate (on Hadoop one job, `pdc reduce
	// join+match`).
	ChainsNext bool
	// Extra names more job outputs (directories under OUT) the stage reads
	// besides Input.
	Extra []string
	// ReadsStored stages also read the parsed records of the stored runs
	// of a batch run (Step.Stored: pdc run --against); ReadsStoredSpans
	// stages their spans too (Step.StoredInputs).
	ReadsStored, ReadsStoredSpans bool
	// Side names files or directories under OUT that every task of the
	// stage reads whole (Hadoop: -files links in the task's directory;
	// the tasks find them in the directory jobconf.EnvSide names).
	Side []string
	// Dir, if set, is the stage's output directory, for the rounds of an
	// iterated stage (Round > 0).
	Dir   string
	Round int
}

// JobName is the stage's job name: its name, with its round if iterated.
func (s Stage) JobName() string {
	if s.Round > 0 {
		return fmt.Sprintf("%s-%d", s.Name, s.Round)
	}
	return s.Name
}

// ClusterStages returns the jobs that find the passage clusters
// (mappers/clusters), run after Stages with --clusters: passages and edges,
// then rounds of StarRound until one changes no edge, then ClustersStage.
// In a batch run the passages job reads the stored runs' spans and parsed
// records too: the clusters are those of the merged collection, each
// stored run's spans being those of the pairs with a document of its batch.
func ClusterStages() []Stage {
	return []Stage{
		{Name: "passages", Input: "spans", Extra: []string{"parsed"}, ReadsStored: true, ReadsStoredSpans: true, KeyFields: clustermap.PassagesKeyFields, PartitionFields: clustermap.PassagesPartitionFields},
		{Name: "edges", Input: "passages", KeyFields: clustermap.EdgesKeyFields, PartitionFields: clustermap.EdgesPartitionFields},
	}
}

// StarRound returns round i (from 1) of the connected-components
// iteration: a large-star job reading input, then a small-star job.
func StarRound(i int, input string) [2]Stage {
	ls := Stage{Name: "large-star", Input: input, Dir: fmt.Sprintf("components-%02d-large", i), Round: i,
		KeyFields: clustermap.StarKeyFields, PartitionFields: clustermap.StarPartitionFields}
	ss := Stage{Name: "small-star", Input: ls.Dir, Dir: fmt.Sprintf("components-%02d-small", i), Round: i,
		KeyFields: clustermap.StarKeyFields, PartitionFields: clustermap.StarPartitionFields}
	return [2]Stage{ls, ss}
}

// ComponentsStage returns the job that finishes the connected components
// of the graph in input in one reduce task (reducers/clusters
// Components), for a graph of at most Options.ComponentEdges edges.
func ComponentsStage(input string) Stage {
	return Stage{Name: "components", Input: input, Dir: "components-final", KeyFields: 1, PartitionFields: 1}
}

// MaxComponentEdges is the default Options.ComponentEdges (pdc run
// --component-edges): one reduce task holds a graph of this many edges,
// its nodes (about 400 bytes each, with their word sketches) and the
// union-find: about 100 MB for a passage graph, which has about as many
// nodes as edges, and at most about 250 MB; a task's default memory is 1 GB.
const MaxComponentEdges = 250_000

// ClustersStage returns the job that writes the clusters from the last
// round's output.
func ClustersStage(input string) Stage {
	return Stage{Name: "clusters", Input: input, KeyFields: clustermap.StarKeyFields, PartitionFields: clustermap.StarPartitionFields}
}

// DedupFactsStage returns the job of pdc dedup --jobs that reads the
// lengths and dates of the documents that decide kept members
// (mappers/dedup), run before DedupStages when there are some.
func DedupFactsStage() Stage {
	return Stage{Name: "dedup-facts", Dir: dedup.FactsDir, Side: []string{dedup.FactsFile},
		KeyFields: dedupmap.KeyFields, PartitionFields: dedupmap.PartitionFields, InputKeys: true}
}

// DedupStages returns the jobs of pdc dedup --jobs (mappers/dedup), each
// reading the run's documents: the kept members' records, then the
// documents without their removed ranges (OUT/docs, JSON Lines part
// files) and the ranges removed (OUT/removed), OUT being pdc dedup's
// CLEAN.
func DedupStages() []Stage {
	st := func(name, dir string, side ...string) Stage {
		return Stage{Name: name, Dir: dir, Side: side, KeyFields: dedupmap.KeyFields, PartitionFields: dedupmap.PartitionFields, InputKeys: true}
	}
	return []Stage{
		st("dedup-kept", dedup.KeptDir, dedup.PlanFile),
		st("dedup-docs", "docs", dedup.PlanFile, dedup.KeptDir),
		st("dedup-removed", "removed", dedup.PlanFile, dedup.KeptDir),
	}
}

// MaxRounds bounds the connected-components iteration (large-star and
// small-star converge in O(log^2 n) rounds).
const MaxRounds = 64

// Stages returns the pipeline's jobs; every configuration runs the same
// ones. The join has no combiner: its mappers gather their pairs by
// document pair themselves (mappers/join).
func Stages() []Stage {
	return []Stage{
		{Name: "parse", KeyFields: 1, PartitionFields: 1, MapOnly: true, InputKeys: true, SkipsLongLines: true, Feeds: "stats"},
		{Name: "stats", Input: "parsed", KeyFields: 1, PartitionFields: 1, Combine: true, ReadsStored: true},
		{Name: "index", Input: "parsed", KeyFields: 1, PartitionFields: 1, SideStats: true, ReadsStored: true},
		{Name: "boilerplate", Input: "index", KeyFields: 1, PartitionFields: 1, MapOnly: true},
		{Name: "join", Input: "index", KeyFields: 2, PartitionFields: 2, ChainsNext: true},
		{Name: "match", Input: "pairs", KeyFields: 2, PartitionFields: 2, MapOnly: true, WholeFiles: true},
		{Name: "extend", Input: "matches", Extra: []string{"parsed"}, KeyFields: extendmap.KeyFields, PartitionFields: extendmap.PartitionFields, SideSeeds: true, ReadsStored: true},
	}
}

// OutputDir is the directory (under OUT) a stage writes.
func (s Stage) OutputDir() string {
	if s.Dir != "" {
		return s.Dir
	}
	switch s.Name {
	case "parse":
		return "parsed"
	case "join":
		return "pairs"
	case "match":
		return "matches"
	case "extend":
		return "spans"
	case "boilerplate":
		return "boilerplate-rows"
	}
	return s.Name
}

type program struct {
	mapper, reducer, combiner mr.Func
	// withNext is the reducer followed by the next job in one program,
	// for a chained step (Fusion Chained): the join's reducer and the
	// match's mapper (Stage.ChainsNext: the next stage of Stages); the
	// components job's one reduce task and the whole clusters job
	// (mr.Shuffled, next "clusters").
	withNext mr.Func
	next     string // for a job that is no stage of Stages
}

var programs = map[string]program{
	"parse":       {mapper: parsemap.Map},
	"stats":       {mapper: statsmap.Map, reducer: statsred.Reduce, combiner: statsred.Combine},
	"index":       {mapper: index.Map, reducer: indexred.Reduce},
	"boilerplate": {mapper: boilerplatemap.Map},
	"join":        {mapper: joinmap.Map, reducer: joinred.Reduce, withNext: joinred.ReduceMatch},
	"match":       {mapper: matchmap.Map},
	"extend":      {mapper: extendmap.Map, reducer: extendred.Reduce},

	"passages":   {mapper: clustermap.Passages, reducer: clusterred.Passages},
	"edges":      {mapper: clustermap.Edges, reducer: clusterred.Edges},
	"large-star": {mapper: clustermap.LargeStar, reducer: clusterred.LargeStar},
	"small-star": {mapper: clustermap.SmallStar, reducer: clusterred.SmallStar},
	"components": {mapper: clustermap.Components, reducer: clusterred.Components, next: "clusters",
		withNext: mr.Shuffled(clusterred.Components, clustermap.Clusters, clustermap.StarKeyFields, clusterred.Clusters)},
	"clusters": {mapper: clustermap.Clusters, reducer: clusterred.Clusters},

	"dedup-facts":   {mapper: dedupmap.Facts, reducer: dedupred.Facts},
	"dedup-kept":    {mapper: dedupmap.Kept, reducer: dedupred.Kept},
	"dedup-docs":    {mapper: dedupmap.Docs, reducer: dedupred.Docs},
	"dedup-removed": {mapper: dedupmap.Removed, reducer: dedupred.Removed},
}

// chainedNext is the job whose work the reducer of job name (program p)
// does too: the next stage of a stage that ChainsNext, else p.next.
func chainedNext(name string, p program) string {
	stages := Stages()
	for i, s := range stages {
		if s.Name == name && s.ChainsNext && i+1 < len(stages) {
			return stages[i+1].Name
		}
	}
	return p.next
}

// Program returns the streaming program for kind ("map", "reduce" or
// "combine") of job name. The reducer of a chained step (Stage.ChainsNext)
// is named as the step is, "first+second" (e.g. `pdc reduce join+match`):
// the first stage's reducer followed by the second stage's mapper.
func Program(kind, name string) (mr.Func, error) {
	first, next, chained := strings.Cut(name, "+")
	p, ok := programs[first]
	if !ok {
		return nil, fmt.Errorf("unknown job %q (want parse, stats, index, boilerplate, join, join+match, match, extend, passages, edges, large-star, small-star, components, components+clusters, clusters, dedup-facts, dedup-kept, dedup-docs or dedup-removed)", name)
	}
	var f mr.Func
	switch {
	case chained:
		if kind == "reduce" && next == chainedNext(first, p) {
			f = p.withNext
		}
	case kind == "map":
		f = p.mapper
	case kind == "reduce":
		f = p.reducer
	case kind == "combine":
		f = p.combiner
	}
	if f == nil {
		return nil, fmt.Errorf("job %s has no %s program", name, kind)
	}
	return f, nil
}
