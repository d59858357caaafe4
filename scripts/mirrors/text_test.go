package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestHTMLText(t *testing.T) {
	page := `<html><head><title>T</title><style>p{color:red}</style><script>if (a<b) x();</script></head>
<body><!-- a <p>comment</p> --><p>One <b>bold</b> <a href="x">link</a> &amp; more.</p><div>Two</div><P CLASS=x>Three<br/>Four</P></body></html>`
	want := "T\nOne bold link & more.\nTwo\nThree\nFour\n"
	if got := htmlText(page); got != want {
		t.Errorf("htmlText = %q, want %q", got, want)
	}
}

func TestSentences(t *testing.T) {
	text := "Mr. Smith went to Washington. He met Gov. Jones there! Was it U.S. policy? \"Yes,\" he said. And then\nA new block starts here. no capital. Done."
	want := []string{
		"Mr. Smith went to Washington.",
		"He met Gov. Jones there!",
		"Was it U.S. policy?",
		`"Yes," he said.`,
		"And then",
		"A new block starts here. no capital.",
		"Done.",
	}
	if got := sentences(text); !slices.Equal(got, want) {
		t.Errorf("sentences =\n%q\nwant\n%q", got, want)
	}
}

func TestProse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"The committee met on Tuesday to discuss the budget.", true},
		{"Too short to count.", false},
		{"the committee met on Tuesday to discuss the budget.", false},
		{"The committee met on Tuesday to discuss the budget", false},
		{"Returns x = 1 + 2 * 3 / 4 - 5 % 6 == 7 != 8.", false},
	} {
		if got := prose(tc.s); got != tc.want {
			t.Errorf("prose(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestEditOne(t *testing.T) {
	wl := wordList{3: {"cat", "dog"}, 4: {"bird", "fish"}, 5: {"horse", "sheep", "goats"}, 6: {"donkey"}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range []string{
		"The Senate passed the bill, and the House agreed.",
		"PEACE and order prevail across the land today.",
		"We thank Gen. Grant for his service to the nation.",
	} {
		for range 50 {
			e := wl.editOne(s, rng)
			a, b := strings.Fields(s), strings.Fields(e)
			if len(a) != len(b) {
				t.Fatalf("%q -> %q: words added or removed", s, e)
			}
			diff := 0
			for i := range a {
				if a[i] != b[i] {
					diff++
					if strings.HasSuffix(a[i], ".") && i < len(a)-1 {
						t.Errorf("%q -> %q: an abbreviation replaced", s, e)
					}
					if strings.Trim(a[i], ",.") == strings.ToUpper(strings.Trim(a[i], ",.")) && strings.Trim(b[i], ",.") != strings.ToUpper(strings.Trim(b[i], ",.")) {
						t.Errorf("%q -> %q: case not kept", s, e)
					}
				}
			}
			if diff != 1 || len(words(e)) != len(words(s)) {
				t.Errorf("%q -> %q: %d words differ", s, e, diff)
			}
		}
	}
}

func TestParagraphs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 3; n < 60; n++ {
		ps := paragraphs(n, 3, 6, rng)
		sum := 0
		for _, k := range ps {
			sum += k
			if k < 3 || k > 6 {
				t.Errorf("paragraphs(%d) = %v: one of %d", n, ps, k)
			}
		}
		if sum != n {
			t.Errorf("paragraphs(%d) = %v: sum %d", n, ps, sum)
		}
	}
}

// TestNearIndex checks the prefix-filtered index against comparing every
// pair of sets.
func TestNearIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	v := newVocab()
	vocab := make([]string, 60)
	for i := range vocab {
		vocab[i] = strings.Repeat(string(rune('a'+i%26)), 1+i/26)
	}
	var sets [][]int32
	for range 3000 {
		ws := make([]string, 1+rng.IntN(12))
		for j := range ws {
			ws[j] = vocab[min(rng.IntN(len(vocab)), rng.IntN(len(vocab)))] // skewed
		}
		sets = append(sets, v.set(ws))
	}
	for _, th := range []float64{0.5, 0.6, 0.8} {
		x := newNearIndex(th, v.ranks())
		var added [][]int32
		for i, s := range sets {
			want := slices.ContainsFunc(added, func(o []int32) bool { return jaccard(s, o) >= th })
			if got := x.near(s); got != want {
				t.Fatalf("t=%g set %d: near = %v, want %v", th, i, got, want)
			}
			if !want {
				x.add(s)
				added = append(added, s)
			}
		}
	}
}

func TestSplitPoint(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"aaaa\nbbbb\ncccc\n", 10},
		{"aaaa\nbbbbbbbbbbbbbb\n", 5},
		{"one line only", 0},
		{"\n\n\nx", 0},
	} {
		if got := splitPoint(tc.text); got != tc.want {
			t.Errorf("splitPoint(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}
