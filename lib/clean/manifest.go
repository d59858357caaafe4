package clean

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// ManifestFile (_dedup.json) records what a pdc dedup output was made
// from, so that a later batch's dedup given it (--stored-clean) knows
// which stored run it cut, whether that run was run again since, and how
// the runs before it were taken. It is written last, with DocsFile and
// RemovedFile (or the part files of pdc dedup --jobs) complete: a CLEAN
// without it was made by a pdc that did not write it, or did not finish.
//
//	{"id": "18f3a9c2d4e5b6a7", "run": "/data/w2", "stamp": 1733600000000000000,
//	 "stored": [{"run": "/data/w1", "clean": "/data/clean1", "clean_id": "18f3a9c2d4e5b6a1"}]}
//
// id names this output, made anew by each pdc dedup (a later batch's
// dedup tells by it an output made again at the same place, or the same
// output moved); run is the run's output directory as a batch run against it names it
// (an absolute path on the run's file system); stamp is the run's stored
// collection (pipeline.StoredStamp; 0 for a run that did not store); stored
// lists, for a batch run, each run of its chain it was cut against, oldest
// first, with the dedup output whose cuts it honoured (--stored-clean,
// given or implied; clean empty: the stored documents as they are) and
// that output's id. A
// clean path is as pdc resolves it (absolute locally, or an hdfs:// URI
// or HDFS path).
const ManifestFile = "_dedup.json"

// Manifest is the content of ManifestFile.
type Manifest struct {
	ID     string      `json:"id"`
	Run    string      `json:"run"`
	Stamp  int64       `json:"stamp,omitempty"`
	Stored []StoredRun `json:"stored,omitempty"`
}

// StoredRun is one stored run of a batch's chain, and the dedup output
// that left its documents as the batch's dedup took them ("" for as they
// are).
type StoredRun struct {
	Run     string `json:"run"`
	Clean   string `json:"clean,omitempty"`
	CleanID string `json:"clean_id,omitempty"`
}

// WriteManifest writes m as ManifestFile's content.
func WriteManifest(w io.Writer, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadManifest reads ManifestFile's content.
func ReadManifest(r io.Reader) (Manifest, error) {
	var m Manifest
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", ManifestFile, err)
	}
	if m.Run == "" {
		return Manifest{}, fmt.Errorf("%s: no run", ManifestFile)
	}
	return m, nil
}

// Coverage is which dedup output left each stored run of a batch's chain
// as the batch's dedup takes it.
type Coverage struct {
	// Runs are the stored runs of the chain, oldest first, Clean[i] the
	// dedup output of Runs[i] ("" for none: its documents as they are)
	// and IDs[i] its id (Manifest.ID).
	Runs  []string
	Clean []string
	IDs   []string
}

// Given is one --stored-clean output: its directory (as the user named
// it, resolved) and its manifest.
type Given struct {
	Dir string
	Man Manifest
}

// ErrNotOfChain and the other errors of Cover say why a --stored-clean
// output cannot be used.
var (
	ErrNotOfChain = errors.New("not the dedup of a stored run of this batch")
	ErrConflict   = errors.New("two dedup outputs of one stored run")
	ErrStale      = errors.New("made before its run was run again")
	ErrGap        = errors.New("the stored run this batch ran against is not covered")
	ErrRedone     = errors.New("not the output it was made with")
)

// Cover decides, for a batch whose chain is runs (oldest first, the last
// the run it ran against; stamps their stored collections as they are
// now), which dedup output left each stored run as the batch's dedup must
// take it: each given output covers its own run, and the outputs it was
// made with cover theirs (implied: their manifests, read by open, are
// followed in turn; an implied output given at another place, the same
// by its id, is taken there: it was moved). An output that is not of a
// run of the chain, two outputs of one run, an output made before its run
// was run again, an output made again since another was made with it
// (another id: given or not), an output that took a run's documents as
// they are beside an output of that run, and an implied output no longer
// there are errors; so is an output set that leaves the last
// stored run uncovered while covering one before it: that run's dedup cut
// text against the earlier ones' documents as they were left, and taking
// its documents as they are would let the batch keep a copy only there of
// text it cut (give its dedup output, which records the ones before it).
// No output given covers nothing: every stored document as it is.
func Cover(runs []string, stamps []int64, given []Given, open func(dir string) (Manifest, error)) (Coverage, error) {
	ids := make([]string, len(runs))
	c := Coverage{Runs: runs, Clean: make([]string, len(runs)), IDs: ids}
	if len(given) == 0 {
		return c, nil
	}
	type implied struct {
		StoredRun
		by string // the output whose manifest names it
	}
	var queue []implied
	bare := make([]string, len(runs)) // an output that took the run's documents as they are
	take := func(g Given, by string) error {
		i := slices.Index(runs, path.Clean(g.Man.Run))
		switch {
		case i < 0:
			return fmt.Errorf("%s is the dedup of %s: %w (its stored runs: %v)", g.Dir, g.Man.Run, ErrNotOfChain, runs)
		case c.Clean[i] != "" && (c.Clean[i] == g.Dir || ids[i] != "" && ids[i] == g.Man.ID):
			return nil // given twice
		case c.Clean[i] != "":
			from := ""
			if by != "" {
				from = fmt.Sprintf(" (%s from the manifest of %s)", g.Dir, by)
			}
			return fmt.Errorf("%s and %s are both dedup outputs of %s%s: %w; give one", c.Clean[i], g.Dir, runs[i], from, ErrConflict)
		case i < len(stamps) && g.Man.Stamp != 0 && stamps[i] != 0 && g.Man.Stamp != stamps[i]:
			from, again := "", ""
			if by != "" {
				from, again = " (from the manifest of "+by+")", ", then the dedup outputs made with it"
			}
			return fmt.Errorf("%s%s: %w (%s was run again after this dedup): run pdc dedup %s --output %s --overwrite again%s", g.Dir, from, ErrStale, runs[i], runs[i], g.Dir, again)
		}
		c.Clean[i], ids[i] = g.Dir, g.Man.ID
		for _, s := range g.Man.Stored {
			if s.Clean != "" {
				queue = append(queue, implied{s, g.Dir})
			} else if j := slices.Index(runs, path.Clean(s.Run)); j >= 0 && bare[j] == "" {
				bare[j] = g.Dir
			}
		}
		return nil
	}
	for _, g := range given {
		if err := take(g, ""); err != nil {
			return Coverage{}, err
		}
	}
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		redone := func() error {
			return fmt.Errorf("%s was made with --stored-clean %s, which was made again since: %w; make the dedup outputs of the runs after %s again, oldest first, each with --stored-clean the one before it", e.by, e.Clean, ErrRedone, e.Run)
		}
		if i := slices.Index(runs, path.Clean(e.Run)); i >= 0 && c.Clean[i] != "" {
			switch {
			case e.CleanID != "" && ids[i] == e.CleanID:
				continue // given, maybe at another place, or implied twice
			case c.Clean[i] == e.Clean && e.CleanID != "" && ids[i] != "":
				return Coverage{}, redone()
			case c.Clean[i] == e.Clean:
				continue // an output without an id (an earlier pdc's), by its place
			}
		}
		m, err := open(e.Clean)
		if err != nil {
			return Coverage{}, fmt.Errorf("%s was made with --stored-clean %s: %w (if it was moved, give its new place with --stored-clean)", e.by, e.Clean, err)
		}
		if e.CleanID != "" && m.ID != e.CleanID {
			return Coverage{}, redone()
		}
		if err := take(Given{Dir: e.Clean, Man: m}, e.by); err != nil {
			return Coverage{}, err
		}
	}
	for j, by := range bare {
		if by != "" && c.Clean[j] != "" {
			return Coverage{}, fmt.Errorf("%s took the documents of %s as they are, but %s, a dedup output of it, is taken too: %w (%s may keep copies in text that %s cut); make the dedup outputs of the runs after %s again, oldest first, each with --stored-clean the one before it", by, runs[j], c.Clean[j], ErrConflict, by, c.Clean[j], runs[j])
		}
	}
	if last := len(runs) - 1; c.Clean[last] == "" {
		for i, dir := range c.Clean {
			if dir != "" {
				return Coverage{}, fmt.Errorf("--stored-clean %s covers %s but not %s, which came after it: %w; give the dedup output of %s (pdc dedup %s --stored-clean %s), which records the ones before it",
					dir, runs[i], runs[last], ErrGap, runs[last], runs[last], dir)
			}
		}
	}
	return c, nil
}

// Stored returns the chain's entries for a manifest (Manifest.Stored).
func (c Coverage) Stored() []StoredRun {
	out := make([]StoredRun, len(c.Runs))
	for i := range c.Runs {
		out[i] = StoredRun{Run: c.Runs[i], Clean: c.Clean[i], CleanID: c.IDs[i]}
	}
	return out
}

// Describe says how the dedup takes the stored documents, for its
// summary: "as they are", "as the dedup outputs C1, C2 left them", or by
// run where some are taken as they are.
func (c Coverage) Describe() string {
	var cleans, bare []string
	for i, dir := range c.Clean {
		if dir == "" {
			bare = append(bare, c.Runs[i])
		} else {
			cleans = append(cleans, dir)
		}
	}
	switch {
	case len(cleans) == 0:
		return "as they are"
	case len(bare) == 0 && len(cleans) == 1:
		return "as the dedup output " + cleans[0] + " left them"
	case len(bare) == 0:
		return "as the dedup outputs " + strings.Join(cleans, ", ") + " left them"
	}
	var parts []string
	for i, dir := range c.Clean {
		if dir == "" {
			parts = append(parts, "of "+c.Runs[i]+" as they are")
		} else {
			parts = append(parts, "of "+c.Runs[i]+" as "+dir+" left them")
		}
	}
	return strings.Join(parts, ", ")
}
