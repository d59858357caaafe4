package eval

import (
	"slices"
	"unicode"
)

// Summary is the full evaluation of a run: the overall scores, per class,
// per language and per language and class, and the unmatched detections
// classified as natural reuse or false positives (see Classify).
type Summary struct {
	// Overall scores all detections; Planted scores all but the natural
	// reuse, so Planted.Precision is "precision (planted)".
	Overall, Planted Score
	// Classes scores each case class (EvaluateByClass).
	Classes map[string]Score
	// Langs scores each language: its cases against the detections, other
	// than natural reuse, between documents of that language (a detection's
	// language is that of its Susp document, or of its Src document when
	// that one is unknown). LangClasses does so per class too
	// (EvaluateByClass over them).
	Langs       map[string]Score
	LangClasses map[string]map[string]Score
	// Unmatched are the detections that detect no case, classified, in the
	// order of the detections.
	Unmatched []Unplanted
	// Classified reports whether passages were available for all of them,
	// so that natural reuse could be told from false positives.
	Classified bool
}

// Summarize evaluates dets against cases. text reads the passages of
// unmatched detections (nil: none are natural reuse). The language of a
// document is that of the cases it appears in (Case.Lang) or, for documents
// in no case, guessed from a passage of it (GuessLang); cases without a
// Lang take the language of their documents' other cases, if any.
func Summarize(cases []Case, dets []Detection, text Passages) Summary {
	s := Summary{Overall: Evaluate(cases, dets), Classes: EvaluateByClass(cases, dets)}
	s.Unmatched = Classify(cases, dets, text)
	s.Classified = text != nil && !slices.ContainsFunc(s.Unmatched, func(u Unplanted) bool { return !u.Known })
	natural := make(map[Detection]int)
	for _, u := range s.Unmatched {
		if u.Natural {
			natural[u.Detection]++
		}
	}
	var planted []Detection
	for _, d := range dets {
		if natural[d] > 0 {
			natural[d]--
			continue
		}
		planted = append(planted, d)
	}
	s.Planted = Evaluate(cases, planted)
	s.byLang(cases, planted)
	return s
}

// byLang fills Langs and LangClasses.
func (s *Summary) byLang(cases []Case, dets []Detection) {
	docLang := make(map[string]string)
	for _, c := range cases {
		if c.Lang != "" {
			docLang[c.Susp], docLang[c.Src] = c.Lang, c.Lang
		}
	}
	for _, u := range s.Unmatched {
		if u.Known {
			setLang(docLang, u.Susp, u.PassageA)
			setLang(docLang, u.Src, u.PassageB)
		}
	}
	lang := func(d Detection) string { return cmpOr(docLang[d.Susp], docLang[d.Src]) }
	caseLangs := make(map[string][]Case)
	for _, c := range cases {
		l := cmpOr(c.Lang, docLang[c.Susp], docLang[c.Src])
		caseLangs[l] = append(caseLangs[l], c)
	}
	detLangs := make(map[string][]Detection)
	for _, d := range dets {
		detLangs[lang(d)] = append(detLangs[lang(d)], d)
	}
	s.Langs = make(map[string]Score)
	s.LangClasses = make(map[string]map[string]Score)
	for l, cs := range caseLangs {
		s.Langs[l] = Evaluate(cs, detLangs[l])
		s.LangClasses[l] = EvaluateByClass(cs, detLangs[l])
	}
	for l, ds := range detLangs {
		if _, ok := s.Langs[l]; !ok {
			s.Langs[l] = Evaluate(nil, ds)
		}
	}
}

func setLang(docLang map[string]string, doc, passage string) {
	if _, ok := docLang[doc]; !ok {
		docLang[doc] = GuessLang(passage)
	}
}

// cmpOr returns the first non-empty string.
func cmpOr(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// GuessLang returns "zh" when Han characters make up at least a third of
// the letters of text, "en" when it has other letters, and "" when it has
// none.
func GuessLang(text string) string {
	han, letters := 0, 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Han, r) {
				han++
			}
		}
	}
	switch {
	case letters == 0:
		return ""
	case 3*han >= letters:
		return "zh"
	}
	return "en"
}

// Natural returns the natural-reuse detections of s.Unmatched.
func (s Summary) Natural() []Unplanted {
	return slices.DeleteFunc(slices.Clone(s.Unmatched), func(u Unplanted) bool { return !u.Natural })
}

// FalsePositives returns the false-positive detections of s.Unmatched.
func (s Summary) FalsePositives() []Unplanted {
	return slices.DeleteFunc(slices.Clone(s.Unmatched), func(u Unplanted) bool { return u.Natural })
}
