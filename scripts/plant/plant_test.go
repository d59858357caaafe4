package plant

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/pdc-mr/pdc/lib/eval"
)

// The fixtures are generated: sentences of random words (English) or random
// common characters (Chinese), so they are licence-clean and do not repeat.
var (
	enWords = strings.Fields(`time year people way day man thing woman life child world school state
		family student group country problem hand part place case week company system program question
		work government number night point home water room mother area money story fact month lot right
		study book eye job word business issue side kind head house service friend father power hour game
		line end member law car city community name president team minute idea kid body information back
		parent face others level office door health person art war history party result change morning
		reason research girl guy moment air teacher force education river nation congress union peace
		trade labor energy market budget tax army navy treaty report bill court justice freedom duty`)
	zhChars = []rune(`的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴`)
)

func genEN(rng *rand.Rand, nsent int) string {
	var b strings.Builder
	for i := range nsent {
		if i > 0 {
			b.WriteString(" ")
			if rng.IntN(6) == 0 {
				b.WriteString("\n\n")
			}
		}
		n := 6 + rng.IntN(10)
		for j := range n {
			w := enWords[rng.IntN(len(enWords))]
			if j == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			} else {
				b.WriteString(" ")
			}
			b.WriteString(w)
			if j == n/2 && rng.IntN(2) == 0 {
				b.WriteString(",")
			}
		}
		b.WriteString(".")
	}
	return b.String()
}

func genZH(rng *rand.Rand, nsent int) string {
	var b strings.Builder
	for i := range nsent {
		if i > 0 && rng.IntN(6) == 0 {
			b.WriteString("\n\n")
		}
		n := 8 + rng.IntN(16)
		for j := range n {
			b.WriteRune(zhChars[rng.IntN(len(zhChars))])
			if j == n/2 {
				b.WriteString("，")
			}
		}
		b.WriteString("。")
	}
	return b.String()
}

func fixture(nEN, nZH int) []Source {
	rng := rand.New(rand.NewPCG(1, 2))
	var src []Source
	for i := range nEN {
		src = append(src, Source{ID: fmt.Sprintf("en/%03d", i), Text: genEN(rng, 5+rng.IntN(40)), Lang: "en"})
	}
	for i := range nZH {
		src = append(src, Source{ID: fmt.Sprintf("zh/%03d", i), Text: genZH(rng, 5+rng.IntN(40))})
	}
	return src
}

type built struct {
	docs  map[string]string
	order []string
	cases []eval.Case
	stats Stats
	raw   []byte
	pan   string
}

func build(t *testing.T, cfg Config, src []Source) built {
	t.Helper()
	var docs, truth bytes.Buffer
	pan := filepath.Join(t.TempDir(), "pan")
	st, err := Build(cfg, src, &docs, &truth, pan)
	if err != nil {
		t.Fatal(err)
	}
	out := built{docs: make(map[string]string), stats: st, raw: slices.Concat(docs.Bytes(), truth.Bytes()), pan: pan}
	recs, err := ReadSources(&docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		out.docs[r.ID] = r.Text
		out.order = append(out.order, r.ID)
	}
	if out.cases, err = eval.ReadTruthJSONL(&truth); err != nil {
		t.Fatal(err)
	}
	return out
}

func slice(text string, start, n int) string {
	r := []rune(text)
	return string(r[start : start+n])
}

func TestBuildTruth(t *testing.T) {
	src := fixture(60, 60)
	input := make(map[string]string)
	for _, s := range src {
		input[s.ID] = s.Text
	}
	cfg := Config{Seed: 7, Pairs: 100, MinRun: 3, MaxRun: 8, Distractors: 10}
	b := build(t, cfg, src)
	if b.stats.Runs != 100 || b.stats.Cases != 100+b.stats.ByClass[Reordered]/2 || len(b.cases) != b.stats.Cases {
		t.Fatalf("stats %+v, %d cases", b.stats, len(b.cases))
	}
	for _, c := range Classes {
		if b.stats.ByClass[c] == 0 {
			t.Errorf("no case of class %s", c)
		}
	}
	if b.stats.ByLang["en"] == 0 || b.stats.ByLang["zh"] == 0 {
		t.Errorf("cases by language: %v", b.stats.ByLang)
	}
	for _, c := range b.cases {
		if lang, _, _ := strings.Cut(c.Susp, "/"); c.Lang != lang || !strings.HasPrefix(c.Src, lang+"/") {
			t.Errorf("case %s <- %s: lang %q", c.Susp, c.Src, c.Lang)
		}
	}
	if b.stats.Distractors != 10 || b.stats.Docs != b.stats.Targets+b.stats.Sources+10 || len(b.docs) != b.stats.Docs {
		t.Errorf("stats %+v, %d docs", b.stats, len(b.docs))
	}
	if !slices.IsSorted(b.order) {
		t.Error("documents not sorted by id")
	}
	targets := make(map[string]bool)
	for _, c := range b.cases {
		targets[c.Susp] = true
	}
	for id, text := range b.docs {
		if !targets[id] && text != input[id] {
			t.Errorf("unplanted document %s was modified", id)
		}
	}
	for i, c := range b.cases {
		if c.Susp == c.Src || targets[c.Src] {
			t.Fatalf("case %d: source %s is also a target", i, c.Src)
		}
		susp := slice(b.docs[c.Susp], c.SuspStart, c.SuspLen)
		orig := slice(input[c.Src], c.SrcStart, c.SrcLen)
		if got := slice(b.docs[c.Src], c.SrcStart, c.SrcLen); got != orig {
			t.Fatalf("case %d: source slice changed", i)
		}
		if err := checkClass(c, susp, orig); err != nil {
			t.Errorf("case %d (%s %s<-%s):\n%v\nsusp: %q\nsrc:  %q", i, c.Class, c.Susp, c.Src, err, susp, orig)
		}
	}
	checkReordered(t, b.cases)
	// No source text is copied twice, so no two targets share copied text.
	for i, x := range b.cases {
		for _, y := range b.cases[i+1:] {
			if x.Src == y.Src && x.SrcStart < y.SrcStart+y.SrcLen && y.SrcStart < x.SrcStart+x.SrcLen {
				t.Errorf("source text copied twice: %+v and %+v", x, y)
			}
		}
	}
	// Detecting every case exactly scores 1 everywhere.
	var dets []eval.Detection
	for _, c := range b.cases {
		dets = append(dets, eval.Detection{Susp: c.Src, Src: c.Susp, SuspStart: c.SrcStart, SuspLen: c.SrcLen,
			SrcStart: c.SuspStart, SrcLen: c.SuspLen})
	}
	if sc := eval.Evaluate(b.cases, dets); sc.Plagdet != 1 || sc.SpanF1 != 1 {
		t.Errorf("perfect detections score %+v", sc)
	}
	pan, err := eval.ReadPANXML(b.pan)
	if err != nil {
		t.Fatal(err)
	}
	if len(pan) != len(b.cases) || eval.Evaluate(pan, dets).Plagdet != 1 {
		t.Errorf("PAN XML has %d cases, truth %d", len(pan), len(b.cases))
	}
}

// checkClass verifies that the planted text susp is the copied text src with
// the edit of c's class.
func checkClass(c eval.Case, susp, src string) error {
	switch c.Class {
	case Verbatim, Reordered:
		if susp != src {
			return fmt.Errorf("not verbatim")
		}
	case Light:
		if susp == src || fold(susp) != fold(src) {
			return fmt.Errorf("not a light edit")
		}
	case WordEdits:
		return checkWordEdits(susp, src)
	case SentenceRewritten, SentenceDropped:
		a, b := sentences(src), sentences(susp)
		if c.Class == SentenceDropped {
			if len(b) != len(a)-1 || !dropsOneInner(a, b) {
				return fmt.Errorf("not one inner sentence dropped: %d -> %d sentences", len(a), len(b))
			}
			return nil
		}
		diff := 0
		for k := range min(len(a), len(b)) {
			if a[k] != b[k] {
				diff++
			}
		}
		if len(a) != len(b) || diff != 1 {
			return fmt.Errorf("not one sentence rewritten: %d -> %d sentences, %d differ", len(a), len(b), diff)
		}
	default:
		return checkHard(c, susp, src)
	}
	return nil
}

func dropsOneInner(a, b []string) bool {
	for j := 1; j < len(a)-1; j++ {
		if slices.Equal(slices.Concat(a[:j], a[j+1:]), b) {
			return true
		}
	}
	return false
}

// checkWordEdits checks that the word-level edit distance is positive and
// at most the per-sentence budget max(1, round(10%)) summed over sentences.
// Words are space-separated, or, in text with Han characters, characters.
func checkWordEdits(susp, src string) error {
	budget := 0
	for _, s := range sentences(src) {
		n := len(strings.Split(s, " "))
		if strings.ContainsFunc(s, isHan) {
			n = len(slices.DeleteFunc([]rune(s), func(r rune) bool { return !isHan(r) }))
		}
		budget += max(1, (n+5)/10)
	}
	words := strings.Fields
	if strings.ContainsFunc(src, isHan) {
		words = func(s string) []string { return strings.Split(strings.Join(strings.Fields(s), ""), "") }
	}
	d := editDistance(words(src), words(susp))
	if d == 0 || d > budget {
		return fmt.Errorf("word edit distance %d, budget %d", d, budget)
	}
	return nil
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func editDistance(a, b []string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// fold keeps letters and digits, lower-cased.
func fold(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// checkReordered checks that reordered cases come in adjacent pairs: the
// later source part planted first, then "\n\n", then the earlier part.
func checkReordered(t *testing.T, cases []eval.Case) {
	t.Helper()
	var ro []eval.Case
	for _, c := range cases {
		if c.Class == Reordered {
			ro = append(ro, c)
		}
	}
	if len(ro)%2 != 0 {
		t.Fatalf("%d reordered cases", len(ro))
	}
	for _, x := range ro {
		paired := slices.ContainsFunc(ro, func(y eval.Case) bool {
			return y.Susp == x.Susp && y.Src == x.Src && (y.SuspStart == x.SuspStart+x.SuspLen+2 && y.SrcStart+y.SrcLen <= x.SrcStart ||
				x.SuspStart == y.SuspStart+y.SuspLen+2 && x.SrcStart+x.SrcLen <= y.SrcStart)
		})
		if !paired {
			t.Errorf("reordered case %+v has no swapped partner", x)
		}
	}
}

func TestBuildDeterministic(t *testing.T) {
	src := fixture(12, 12)
	cfg := Config{Seed: 3, Pairs: 20, Distractors: -1}
	a, b := build(t, cfg, src), build(t, cfg, src)
	if !bytes.Equal(a.raw, b.raw) {
		t.Error("same seed, different output")
	}
	cfg.Seed = 4
	if c := build(t, cfg, src); bytes.Equal(a.raw, c.raw) {
		t.Error("different seed, same output")
	}
	if a.stats.Docs != len(src) {
		t.Errorf("Distractors -1 wrote %d of %d documents", a.stats.Docs, len(src))
	}
}

func TestBuildErrors(t *testing.T) {
	src := fixture(6, 0)
	tests := []struct {
		name string
		cfg  Config
		src  []Source
	}{
		{"unknown class", Config{Pairs: 1, Classes: []string{"paraphrase"}}, src},
		{"bad runs", Config{Pairs: 1, MinRun: 5, MaxRun: 4}, src},
		{"negative pairs", Config{Pairs: -1}, src},
		{"duplicate id", Config{Pairs: 1}, append(slices.Clone(src), src[0])},
		{"no material", Config{Pairs: 1}, []Source{{ID: "x", Text: "Too short."}}},
		{"sources exhausted", Config{Pairs: 200}, src},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var docs, truth bytes.Buffer
			if _, err := Build(tt.cfg, tt.src, &docs, &truth, ""); err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestBuildReal plants into the real sources written by scripts/sources.sh
// when they are present ($PDC_DATA/sources.jsonl).
func TestBuildReal(t *testing.T) {
	src, input := realSources(t)
	for seed := range int64(2) {
		b := build(t, Config{Seed: seed, Pairs: 300, Distractors: 50}, src)
		for i, c := range b.cases {
			susp := slice(b.docs[c.Susp], c.SuspStart, c.SuspLen)
			orig := slice(input[c.Src], c.SrcStart, c.SrcLen)
			if err := checkClass(c, susp, orig); err != nil {
				t.Errorf("case %d (%s %s<-%s): %v\nsusp: %q\nsrc:  %q", i, c.Class, c.Susp, c.Src, err, susp, orig)
			}
		}
		t.Logf("real corpus: %+v", b.stats)
	}
}

// FuzzBuild plants into fuzzed documents next to generated ones and checks
// that every case lies inside its documents and verbatim copies are exact.
func FuzzBuild(f *testing.F) {
	f.Add("One. Two! Three? Four.\n\nFive. Six.", "甲乙。丙丁！“戊己？”庚辛。", int64(1))
	f.Add("Mr. A. B. went. \"Quoted.\" (Paren.) End", "a\n\n\nb. c. d.", int64(2))
	// A small base keeps one execution in the milliseconds (see
	// FuzzBuildHard).
	base := fixture(3, 3)
	f.Fuzz(func(t *testing.T, a, b string, seed int64) {
		src := append(slices.Clone(base), Source{ID: "fa", Text: a, Lang: "en"}, Source{ID: "fb", Text: b})
		var docs, truth bytes.Buffer
		if _, err := Build(Config{Seed: seed, Pairs: 4, MinRun: 1, MaxRun: 4, Distractors: -1}, src, &docs, &truth, ""); err != nil {
			t.Fatal(err)
		}
		recs, err := ReadSources(&docs)
		if err != nil {
			t.Fatal(err)
		}
		text := make(map[string][]rune)
		for _, r := range recs {
			text[r.ID] = []rune(r.Text)
		}
		cases, err := eval.ReadTruthJSONL(&truth)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			s, r := text[c.Susp], text[c.Src]
			if c.SuspStart+c.SuspLen > len(s) || c.SrcStart+c.SrcLen > len(r) || c.SuspLen == 0 || c.SrcLen == 0 {
				t.Fatalf("case out of bounds: %+v", c)
			}
			if c.Class == Verbatim && string(s[c.SuspStart:c.SuspStart+c.SuspLen]) != string(r[c.SrcStart:c.SrcStart+c.SrcLen]) {
				t.Fatalf("verbatim case differs: %+v", c)
			}
		}
	})
}

// realSources reads the real sources written by scripts/sources.sh
// ($PDC_DATA/sources.jsonl) and their texts by id; it skips the test
// without them.
func realSources(t *testing.T) ([]Source, map[string]string) {
	t.Helper()
	dir := os.Getenv("PDC_DATA")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "pdc-data")
	}
	f, err := os.Open(filepath.Join(dir, "sources.jsonl"))
	if err != nil {
		t.Skip("no real sources; run scripts/sources.sh")
	}
	src, err := ReadSources(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	input := make(map[string]string)
	for _, s := range src {
		input[s.ID] = s.Text
	}
	return src, input
}
