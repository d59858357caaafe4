// Package jobconf carries pdc's job parameters from the driver to the
// streaming tasks. The driver turns a Config into environment variables
// (Hadoop Streaming -cmdenv, or the local runner's task environment) and
// every mapper and reducer reads them back with FromEnv, so one definition
// serves both runners.
package jobconf

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pdc-mr/pdc/lib/doc"
	"github.com/pdc-mr/pdc/lib/signature"
)

// Config holds the parameters of a pdc run that reach the tasks.
type Config struct {
	Signature signature.Config
	// Tau is the sentence Jaccard threshold of the join (and the length
	// filter bound).
	Tau float64
	// Lambda is the minimum span length, in duplicated sentence pairs.
	Lambda int
	// Gap is the number of sentences a diagonal may skip on either side
	// (0: the paper's exact diagonals).
	Gap int
	// ExtendTau is the extension threshold (lib/extend Params.Tau): the
	// least similarity of the sentences a run grows over (0: no
	// extension, the match's runs are the spans).
	ExtendTau float64
	// MinEvidence is the evidence, in shared words, that a span's sentence
	// pairs must add up to (signature.Evidence: identical pairs count
	// twice, and one identical of a quarter of it or at Jaccard 0.8
	// sharing half of it is enough), so that lines of generated text that
	// differ only in a name are no span. 0: none needed. The words method
	// only (the others do not count shared words).
	MinEvidence int
	// Seeds is the path of the match job's output, read by the extend
	// mapper.
	Seeds string
	// MinTokens: sentences with fewer tokens are not indexed (they keep
	// their place in the sentence numbering, and a gap can cross them).
	MinTokens int
	// MaxDF is the longest posting list that is joined; longer lists are
	// reported as boilerplate. It bounds the memory of one list in the
	// index reducer and the join mapper.
	MaxDF int
	// HubDF: a posting list of more documents than this is joined through
	// hubs (mappers/join): each sentence is paired with the first similar
	// sentence of the list, not with every other one, so that a passage in
	// N documents costs O(N) pairs, not O(N^2) (0: every list pairwise).
	HubDF int
	// MaxSiteDF: a signature found in more than MaxSiteDF documents of one
	// site (URL host) is that site's template; those postings are not joined
	// (0: no limit). Documents without a URL have no site.
	MaxSiteDF int
	// MaxDocBytes truncates larger documents (0: no limit).
	MaxDocBytes int
	// CrossSiteOnly drops sentence pairs whose documents' URLs share a host.
	CrossSiteOnly bool
	// NoFilter turns PPJoin's prefix and positional filters off for the
	// words method: every token is indexed and every pair sharing a token
	// is verified, to measure what the filters save. The result is the same
	// except for pairs whose tokens' lists then exceed MaxDF.
	NoFilter bool
	// Strict makes the first bad input record fail the job.
	Strict bool
	// Batch is, in a batch run (pdc run --against), the run's number in its
	// chain of batches (1 for the first batch against a stored run): the
	// parse job writes it in its records (lib/doc), the index job marks the
	// postings of its documents, and the join leaves out the pairs of two
	// stored documents. 0: a run of its own.
	Batch int
	// Stats is the path of the stats job's output, read by the index mapper.
	Stats string
	// Extract selects the HTML text extraction: "all" visible text, or
	// "main" content.
	Extract string
	// SiteFrom is how pages of a directory tree get a site when they have
	// no URL of their own (ParseSiteFrom): "tree" (every page of an
	// --input directory is of one site), "path:N" (the directory and the
	// first N components of the page's path under it), "name:NAME" (every
	// page of every tree is of the site NAME: SiteName), "layout" (none from
	// the tree: its layout, as for a document of any input without a site)
	// or "none" (no site, not even from the layout: LayoutSites).
	SiteFrom string
	// SiteField names the input field that holds a document's site when it
	// has no URL ("" for the field "site"); read from JSON Lines records by
	// the parse job, and from Avro and Parquet records.
	SiteField string
}

// DefaultTau returns the default Jaccard threshold of a signature method:
// 0.7 for token sets (words), where it lets ~10% of words per sentence
// differ, and the paper's 0.9 for the signature methods.
func DefaultTau(m signature.Method) float64 {
	if m == signature.Words {
		return 0.7
	}
	return 0.9
}

// Default returns the defaults chosen from the evaluation
// (docs/quality.md): token-set join at tau 0.7, spans of 3+ sentence
// pairs that may skip one sentence, site templates and sentences under 3
// tokens left out. Paper returns the paper's exact configuration.
func Default() Config {
	sig := signature.DefaultConfig()
	sig.Method = signature.Words
	sig.Tau = DefaultTau(sig.Method)
	return Config{
		Signature:   sig,
		Tau:         sig.Tau,
		Gap:         1,
		Lambda:      3,
		ExtendTau:   0.5,
		MinEvidence: 20,
		MinTokens:   3,
		MaxDF:       100000,
		HubDF:       100,
		MaxSiteDF:   4,
		MaxDocBytes: 8 << 20,
		Extract:     "all",
		SiteFrom:    "tree",
	}
}

// Paper returns PDC-MR's configuration (SIGIR 2010): I-Match sentence
// signatures with IDF range [0.1, 1.0], tau 0.9, exact diagonals of 3+
// sentences, every sentence and every site kept.
func Paper() Config {
	c := Default()
	c.Signature.Method = signature.IMatch
	c.Tau, c.Signature.Tau = 0.9, 0.9
	c.Gap, c.MinTokens, c.MaxSiteDF, c.ExtendTau, c.MinEvidence = 0, 1, 0, 0, 0
	return c
}

// Validate reports a parameter out of range.
func (c Config) Validate() error {
	if err := c.Signature.Validate(); err != nil {
		return err
	}
	switch {
	case c.Tau <= 0 || c.Tau > 1:
		return fmt.Errorf("tau must be in (0, 1], got %g", c.Tau)
	case c.Lambda < 1:
		return fmt.Errorf("lambda must be >= 1, got %d", c.Lambda)
	case c.ExtendTau < 0 || c.ExtendTau > 1:
		return fmt.Errorf("extend-tau must be in [0, 1], got %g", c.ExtendTau)
	case c.Gap < 0:
		return fmt.Errorf("gap must be >= 0, got %d", c.Gap)
	case c.MinEvidence < 0:
		return fmt.Errorf("min-evidence must be >= 0, got %d", c.MinEvidence)
	case c.MaxDF < 2:
		return fmt.Errorf("max-df must be >= 2, got %d", c.MaxDF)
	case c.HubDF < 0:
		return fmt.Errorf("hub-df must be >= 0, got %d", c.HubDF)
	case c.MinTokens < 1:
		return fmt.Errorf("min-tokens must be >= 1, got %d", c.MinTokens)
	case c.MaxSiteDF < 0:
		return fmt.Errorf("max-site-df must be >= 0, got %d", c.MaxSiteDF)
	case c.MaxDocBytes < 0:
		return fmt.Errorf("max-doc-bytes must be >= 0, got %d", c.MaxDocBytes)
	case c.Extract != "all" && c.Extract != "main":
		return fmt.Errorf("extract must be all or main, got %q", c.Extract)
	}
	if _, err := ParseSiteFrom(c.SiteFrom); err != nil {
		return err
	}
	return nil
}

// ParseSiteFrom parses a SiteFrom rule and returns the number of path
// components of a page that name its site: -1 for "none" and "layout" (no
// site from the tree), 0 for "tree" and "name:NAME" (SiteName), N for
// "path:N".
func ParseSiteFrom(s string) (int, error) {
	switch s {
	case "none", "layout":
		return -1, nil
	case "tree", "":
		return 0, nil
	}
	if v, ok := strings.CutPrefix(s, "path:"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 1 {
			return n, nil
		}
	}
	if v, ok := strings.CutPrefix(s, "name:"); ok {
		if v != "" && !strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			return 0, nil
		}
		return 0, fmt.Errorf("site-from name:NAME needs a NAME without spaces or control characters, got %q", s)
	}
	return 0, fmt.Errorf("site-from must be tree, path:N (N >= 1), name:NAME, layout or none, got %q", s)
}

// SiteName returns NAME of the SiteFrom rule "name:NAME" (every page of
// every tree is of the site NAME, whichever directory holds it: the trees
// of a chain of batches, week1/ and week2/, are one site), and whether s
// is such a rule.
func SiteName(s string) (string, bool) {
	return strings.CutPrefix(s, "name:")
}

// LayoutSites reports whether under SiteFrom rule s a document without a
// URL or a site from its input takes its page's layout as its site: unless
// s is "none".
func LayoutSites(s string) bool { return s != "none" }

// Env returns the configuration as environment variables.
func (c Config) Env() map[string]string {
	s := c.Signature
	env := map[string]string{
		"PDC_SIGNATURE":       string(s.Method),
		"PDC_SHINGLE_N":       strconv.Itoa(s.ShingleN),
		"PDC_IDF_RANGE":       fmtFloat(s.IDFLow) + "," + fmtFloat(s.IDFHigh),
		"PDC_ANTECEDENTS":     strconv.Itoa(s.Antecedents),
		"PDC_SPOT_CHAIN":      strconv.Itoa(s.SpotChain),
		"PDC_SPOT_DISTANCE":   strconv.Itoa(s.SpotDistance),
		"PDC_TAU":             fmtFloat(c.Tau),
		"PDC_LAMBDA":          strconv.Itoa(c.Lambda),
		"PDC_GAP":             strconv.Itoa(c.Gap),
		"PDC_EXTEND_TAU":      fmtFloat(c.ExtendTau),
		"PDC_MIN_EVIDENCE":    strconv.Itoa(c.MinEvidence),
		"PDC_SEEDS":           c.Seeds,
		"PDC_MIN_TOKENS":      strconv.Itoa(c.MinTokens),
		"PDC_MAX_DF":          strconv.Itoa(c.MaxDF),
		"PDC_HUB_DF":          strconv.Itoa(c.HubDF),
		"PDC_MAX_SITE_DF":     strconv.Itoa(c.MaxSiteDF),
		"PDC_MAX_DOC_BYTES":   strconv.Itoa(c.MaxDocBytes),
		"PDC_CROSS_SITE_ONLY": strconv.FormatBool(c.CrossSiteOnly),
		"PDC_STRICT":          strconv.FormatBool(c.Strict),
		"PDC_NO_FILTER":       strconv.FormatBool(c.NoFilter),
		"PDC_STATS":           c.Stats,
		"PDC_EXTRACT":         c.Extract,
		"PDC_SITE_FROM":       c.SiteFrom,
		"PDC_SITE_FIELD":      c.SiteField,
	}
	if c.Batch > 0 { // runs of their own keep the configuration they had
		env["PDC_BATCH"] = strconv.Itoa(c.Batch)
	}
	return env
}

// EnvList returns Env as sorted KEY=VALUE strings.
func (c Config) EnvList() []string {
	env := c.Env()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// FromEnv reads a Config from the environment. Unset variables keep their
// defaults; malformed ones are errors naming the variable.
func FromEnv(getenv func(string) string) (Config, error) {
	c := Default()
	p := parser{getenv: getenv}
	if v := getenv("PDC_SIGNATURE"); v != "" {
		m, err := signature.ParseMethod(v)
		if err != nil {
			return c, fmt.Errorf("PDC_SIGNATURE: %w", err)
		}
		c.Signature.Method = m
	}
	p.int("PDC_SHINGLE_N", &c.Signature.ShingleN)
	p.int("PDC_ANTECEDENTS", &c.Signature.Antecedents)
	p.int("PDC_SPOT_CHAIN", &c.Signature.SpotChain)
	p.int("PDC_SPOT_DISTANCE", &c.Signature.SpotDistance)
	c.Tau = DefaultTau(c.Signature.Method)
	p.float("PDC_TAU", &c.Tau)
	p.int("PDC_LAMBDA", &c.Lambda)
	p.int("PDC_GAP", &c.Gap)
	p.float("PDC_EXTEND_TAU", &c.ExtendTau)
	p.int("PDC_MIN_EVIDENCE", &c.MinEvidence)
	p.int("PDC_MIN_TOKENS", &c.MinTokens)
	p.int("PDC_MAX_DF", &c.MaxDF)
	p.int("PDC_HUB_DF", &c.HubDF)
	p.int("PDC_MAX_SITE_DF", &c.MaxSiteDF)
	p.int("PDC_MAX_DOC_BYTES", &c.MaxDocBytes)
	p.bool("PDC_CROSS_SITE_ONLY", &c.CrossSiteOnly)
	p.bool("PDC_STRICT", &c.Strict)
	p.bool("PDC_NO_FILTER", &c.NoFilter)
	p.int("PDC_BATCH", &c.Batch)
	if v := getenv("PDC_IDF_RANGE"); v != "" {
		lo, hi, err := ParseRange(v)
		if err != nil {
			p.fail("PDC_IDF_RANGE", err)
		}
		c.Signature.IDFLow, c.Signature.IDFHigh = lo, hi
	}
	c.Stats = getenv("PDC_STATS")
	c.Seeds = getenv("PDC_SEEDS")
	if v := getenv("PDC_EXTRACT"); v != "" {
		c.Extract = v
	}
	if v := getenv("PDC_SITE_FROM"); v != "" {
		c.SiteFrom = v
	}
	c.SiteField = getenv("PDC_SITE_FIELD")
	if p.err != nil {
		return c, p.err
	}
	c.Signature.Tau = c.Tau
	return c, c.Validate()
}

// ParseRange parses "low,high".
func ParseRange(s string) (lo, hi float64, err error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, fmt.Errorf("want low,high, got %q", s)
	}
	if lo, err = strconv.ParseFloat(strings.TrimSpace(a), 64); err == nil {
		hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("want low,high, got %q", s)
	}
	return lo, hi, nil
}

type parser struct {
	getenv func(string) string
	err    error
}

func (p *parser) fail(name string, err error) {
	if p.err == nil {
		p.err = fmt.Errorf("%s: %w", name, err)
	}
}

func (p *parser) int(name string, dst *int) {
	if v := p.getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			p.fail(name, err)
		}
		*dst = n
	}
}

func (p *parser) float(name string, dst *float64) {
	if v := p.getenv(name); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			p.fail(name, err)
		}
		*dst = f
	}
}

func (p *parser) bool(name string, dst *bool) {
	if v := p.getenv(name); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			p.fail(name, err)
		}
		*dst = b
	}
}

// MaxRecordBytes is the largest input record (a JSON line) a run reads:
// 4 times MaxDocBytes (room for a document's JSON escapes), at least 32
// MiB; 0 (no limit) when MaxDocBytes is 0. A longer
// record is skipped unread and counted (parse.docs.skipped.too-large):
// its document would be cut at MaxDocBytes anyway, and reading it whole
// could take any amount of memory.
func (c Config) MaxRecordBytes() int64 {
	if c.MaxDocBytes == 0 {
		return 0
	}
	return max(4*int64(c.MaxDocBytes), 32<<20)
}

// Analyzer returns the document analyzer of a run of c: its --extract and
// --max-doc-bytes, which the commands that read the run's documents again
// must apply so that span offsets point at the same text.
func (c Config) Analyzer() *doc.Analyzer {
	return &doc.Analyzer{MaxBytes: c.MaxDocBytes, Main: c.Extract == "main"}
}

// EnvSide names the directory of a job's side inputs (pipeline Stage.Side:
// on Hadoop the task's working directory, where -files links them; in the
// local runner the step's output directory). It is set per job by the
// drivers, not part of a run's Config.
const EnvSide = "PDC_SIDE"
