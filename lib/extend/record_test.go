package extend

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/doc"
)

// fields splits a record line (without the document pair) into fields.
func fields(line string) [][]byte { return bytes.Split([]byte(line), []byte{'\t'}) }

// TestSeedRoundTrip shows AppendSeed's record of both kinds, and
// ParseSeed reading it back after the document pair (Score to 4
// decimals).
func TestSeedRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		s    Seed
		line string
	}{
		{"span", Seed{StartA: 1, StartB: 2, EndA: 3, EndB: 4, Length: 3, CharStartA: 10, CharEndA: 20, CharStartB: 30, CharEndB: 40, Score: 0.9123, Span: true, Evidence: 4},
			"d1\td2\ts\t1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9123\t4"},
		{"candidate", Seed{StartA: 7, StartB: 0, EndA: 9, EndB: 1, Length: 2, CharStartA: 500, CharEndA: 612, CharStartB: 0, CharEndB: 98, Score: 0.75},
			"d1\td2\tc\t7\t0\t9\t1\t2\t500\t612\t0\t98\t0.7500\t0"},
		{"single pair", Seed{StartA: 4, StartB: 4, EndA: 4, EndB: 4, Length: 1, CharStartA: 1, CharEndA: 2, CharStartB: 3, CharEndB: 4, Score: 1, Evidence: 1},
			"d1\td2\tc\t4\t4\t4\t4\t1\t1\t2\t3\t4\t1.0000\t1"},
		{"zero", Seed{}, "d1\td2\tc\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0.0000\t0"},
		{"large", Seed{StartA: 123456789, StartB: 1, EndA: 123456799, EndB: 11, Length: 11, CharStartA: 1 << 40, CharEndA: 1<<40 + 5, CharStartB: 9, CharEndB: 99, Score: 0.5, Span: true, Evidence: 33},
			"d1\td2\ts\t123456789\t1\t123456799\t11\t11\t1099511627776\t1099511627781\t9\t99\t0.5000\t33"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := AppendSeed([]byte("x"), []byte("d1\td2"), tt.s)
			if string(line) != "x"+tt.line {
				t.Fatalf("AppendSeed = %q, want %q", line, "x"+tt.line)
			}
			f := fields(string(line[1:]))
			if len(f) != SeedFields {
				t.Fatalf("%d fields, want SeedFields %d", len(f), SeedFields)
			}
			got, err := ParseSeed(f[2:])
			if err != nil || got != tt.s {
				t.Errorf("ParseSeed = %+v, %v; want %+v", got, err, tt.s)
			}
		})
	}

	// A score of more than 4 decimals comes back rounded.
	s := Seed{EndA: 2, EndB: 2, Length: 3, Score: 0.87654321, Span: true}
	got, err := ParseSeed(fields(string(AppendSeed(nil, []byte("a\tb"), s)))[2:])
	if err != nil || got.Score != 0.8765 {
		t.Errorf("ParseSeed(AppendSeed(score 0.87654321)) score %v, %v; want 0.8765", got.Score, err)
	}
}

// TestParseSeedErrors shows the seed records ParseSeed refuses: a wrong
// number of fields, a bad kind, numbers negative, empty or not integers,
// a bad score, and ranges that end before they start.
func TestParseSeedErrors(t *testing.T) {
	const valid = "s\t1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9\t3"
	if _, err := ParseSeed(fields(valid)); err != nil {
		t.Fatalf("ParseSeed(%q): %v", valid, err)
	}
	// with returns valid with field i replaced by v.
	with := func(i int, v string) string {
		f := strings.Split(valid, "\t")
		f[i] = v
		return strings.Join(f, "\t")
	}
	tests := []struct {
		name, line, err string
	}{
		{"11 fields", "s\t1\t2\t3\t4\t3\t10\t20\t30\t40\t0.9", "want 14 fields, got 13"},
		{"13 fields", valid + "\t1", "want 14 fields, got 15"},
		{"with the document pair", "d1\td2\t" + valid, "want 14 fields, got 16"},
		{"empty", "", "want 14 fields, got 3"},
		{"bad kind", with(0, "x"), "bad kind"},
		{"kind w", with(0, KindWindow), "bad kind"},
		{"empty kind", with(0, ""), "bad kind"},
		{"upper-case kind", with(0, "S"), "bad kind"},
		{"negative start", with(1, "-1"), "bad number"},
		{"negative char offset", with(9, "-40"), "bad number"},
		{"non-numeric", with(2, "two"), "bad number"},
		{"empty number", with(5, ""), "bad number"},
		{"decimal number", with(3, "3.0"), "bad number"},
		{"plus sign", with(4, "+4"), "bad number"},
		{"too many digits", with(6, "1234567890123456789"), "bad number"},
		{"bad score", with(10, "high"), "bad score"},
		{"empty score", with(10, ""), "bad score"},
		{"negative evidence", with(11, "-1"), "bad evidence"},
		{"empty evidence", with(11, ""), "bad evidence"},
		{"endA before startA", with(3, "0"), "ends before it starts"},
		{"endB before startB", with(4, "1"), "ends before it starts"},
		{"charEndA before charStartA", with(7, "9"), "ends before it starts"},
		{"charEndB before charStartB", with(9, "29"), "ends before it starts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSeed(fields(tt.line))
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSeed(%q) = %+v, %v; want error %q", tt.line, s, err, tt.err)
			}
			if s != (Seed{}) {
				t.Errorf("ParseSeed(%q) returned %+v with its error", tt.line, s)
			}
		})
	}
}

// TestNormalize shows ranges sorted, overlapping, touching and contained
// ones merged, and empty ones dropped.
func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		in   []Range
		want []Range
	}{
		{"none", nil, []Range{}},
		{"one", []Range{{3, 5}}, []Range{{3, 5}}},
		{"overlapping", []Range{{0, 5}, {3, 8}}, []Range{{0, 8}}},
		{"touching", []Range{{0, 4}, {5, 9}}, []Range{{0, 9}}},
		{"apart", []Range{{0, 4}, {6, 9}}, []Range{{0, 4}, {6, 9}}},
		{"unsorted", []Range{{20, 22}, {6, 9}, {0, 4}, {8, 12}}, []Range{{0, 4}, {6, 12}, {20, 22}}},
		{"contained", []Range{{0, 10}, {2, 3}, {10, 10}}, []Range{{0, 10}}},
		{"same", []Range{{4, 7}, {4, 7}}, []Range{{4, 7}}},
		{"single sentences", []Range{{3, 3}, {4, 4}, {6, 6}}, []Range{{3, 4}, {6, 6}}},
		{"empty dropped", []Range{{5, 4}, {0, 1}, {9, 2}}, []Range{{0, 1}}},
		{"empty between", []Range{{0, 1}, {3, 2}, {4, 5}}, []Range{{0, 1}, {4, 5}}},
		{"only empty", []Range{{5, 4}}, []Range{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(append([]Range(nil), tt.in...))
			if len(got) != len(tt.want) || len(got) > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Normalize(%v) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestNeeds shows the sentences a seed needs on each side: Window before
// and after its first and last sentences for a span (clipped at 0), its
// whole extent too for a candidate, none for a single pair; appended to
// the ranges given.
func TestNeeds(t *testing.T) {
	tests := []struct {
		name   string
		s      Seed
		a, b   []Range
		before []Range
	}{
		{name: "span", s: Seed{StartA: 10, StartB: 3, EndA: 14, EndB: 5, Length: 5, Span: true},
			a: []Range{{4, 10}, {14, 20}}, b: []Range{{0, 3}, {5, 11}}},
		{name: "span at the start", s: Seed{StartA: 0, StartB: 6, EndA: 2, EndB: 8, Length: 3, Span: true},
			a: []Range{{0, 0}, {2, 8}}, b: []Range{{0, 6}, {8, 14}}},
		{name: "span of one sentence on a side", s: Seed{StartA: 7, StartB: 7, EndA: 7, EndB: 9, Length: 1, Span: true},
			a: []Range{{1, 7}, {7, 13}}, b: []Range{{1, 7}, {9, 15}}},
		{name: "candidate", s: Seed{StartA: 2, StartB: 8, EndA: 4, EndB: 9, Length: 2},
			a: []Range{{0, 10}}, b: []Range{{2, 15}}},
		{name: "single pair", s: Seed{StartA: 5, StartB: 50, EndA: 5, EndB: 50, Length: 1},
			before: []Range{{1, 2}}, a: []Range{{1, 2}}, b: []Range{{1, 2}}},
		{name: "appended", s: Seed{StartA: 20, StartB: 30, EndA: 22, EndB: 32, Length: 3, Span: true},
			before: []Range{{1, 2}}, a: []Range{{1, 2}, {14, 20}, {22, 28}}, b: []Range{{1, 2}, {24, 30}, {32, 38}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Needs(append([]Range(nil), tt.before...), tt.s, true); !reflect.DeepEqual(got, tt.a) {
				t.Errorf("Needs(a) = %v, want %v", got, tt.a)
			}
			if got := Needs(append([]Range(nil), tt.before...), tt.s, false); !reflect.DeepEqual(got, tt.b) {
				t.Errorf("Needs(b) = %v, want %v", got, tt.b)
			}
		})
	}
}

// TestWindowRoundTrip shows a window blob decoded into the sentences it
// was made of within its ranges (clipped at the document's end): offsets,
// tokens cut to their low 16 bits, sorted and distinct, and a sentence
// with no token not content.
func TestWindowRoundTrip(t *testing.T) {
	sents := []doc.Sentence{
		{Start: 0, End: 10, Tokens: []uint64{3, 1, 1<<16 | 3, 2}},
		{Start: 11, End: 20, NotContent: doc.NotContentLinks},
		{Start: 21, End: 30, Tokens: []uint64{7}},
		{Start: 31, End: 45, Tokens: []uint64{2<<16 | 9, 9, 5 << 16, 0xdeadbeef_cafef00d}},
		{Start: 46, End: 46, Tokens: []uint64{4}},
	}
	tests := []struct {
		name   string
		ranges []Range
		want   Side
	}{
		{"all", []Range{{0, 4}}, Side{
			0: {Start: 0, End: 10, Tokens: []uint32{1, 2, 3}, Content: true},
			1: {Start: 11, End: 20, Tokens: []uint32{}},
			2: {Start: 21, End: 30, Tokens: []uint32{7}, Content: true},
			3: {Start: 31, End: 45, Tokens: []uint32{0, 9, 0xf00d}, Content: true},
			4: {Start: 46, End: 46, Tokens: []uint32{4}, Content: true},
		}},
		{"ranges clipped at the end", []Range{{0, 1}, {3, 9}}, Side{
			0: {Start: 0, End: 10, Tokens: []uint32{1, 2, 3}, Content: true},
			1: {Start: 11, End: 20, Tokens: []uint32{}},
			3: {Start: 31, End: 45, Tokens: []uint32{0, 9, 0xf00d}, Content: true},
			4: {Start: 46, End: 46, Tokens: []uint32{4}, Content: true},
		}},
		{"one sentence", []Range{{2, 2}}, Side{2: {Start: 21, End: 30, Tokens: []uint32{7}, Content: true}}},
		{"past the end", []Range{{5, 9}}, Side{}},
		{"none", nil, Side{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blob := AppendWindow([]byte("w\t"), sents, tt.ranges)
			if !bytes.HasPrefix(blob, []byte("w\t")) {
				t.Fatalf("AppendWindow dropped what it appends to: %q", blob)
			}
			side := Side{}
			if err := DecodeWindow(side, blob[2:]); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(side, tt.want) {
				t.Errorf("DecodeWindow = %+v, want %+v", side, tt.want)
			}
		})
	}

	// The format, byte for byte: index 0, start 0, length 5, one token
	// and content (3), token 3 little endian in 16 bits.
	blob := AppendWindow(nil, []doc.Sentence{{Start: 0, End: 5, Tokens: []uint64{3}}}, []Range{{0, 0}})
	if want := base64.RawStdEncoding.EncodeToString([]byte{0, 0, 5, 3, 3, 0}); string(blob) != want {
		t.Errorf("AppendWindow = %q, want %q", blob, want)
	}

	// Decoding adds to the sentences a side has.
	side := Side{9: {Start: 1, End: 2, Content: true}}
	if err := DecodeWindow(side, blob); err != nil || len(side) != 2 || side[9].End != 2 || side[0].End != 5 {
		t.Errorf("DecodeWindow into a side: %+v, %v", side, err)
	}
}

// TestDecodeWindowErrors shows the corrupt blobs DecodeWindow refuses,
// all as ErrBadWindow: bad base64, a truncated or oversized number, and
// fewer token bytes than said.
func TestDecodeWindowErrors(t *testing.T) {
	enc := func(raw ...byte) string { return base64.RawStdEncoding.EncodeToString(raw) }
	big := binary.AppendUvarint(nil, 1<<41)
	tests := []struct{ name, blob string }{
		{"not base64", "!!!!"},
		{"padded", enc(0, 0, 5, 3, 3, 0, 0, 0) + "=="},
		{"truncated varint", enc(0x80)},
		{"record cut short", enc(0, 0, 5)},
		{"tokens cut short", enc(0, 0, 5, 5, 1, 0, 0, 0, 2, 0, 0)},
		{"token count too large", enc(0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x0f)},
		{"index over 2^40", enc(append(big, 0, 1, 0)...)},
		{"length over 2^40", enc(append(append([]byte{0, 0}, big...), 0)...)},
		{"second record cut short", enc(0, 0, 5, 3, 3, 0, 0, 0, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := DecodeWindow(Side{}, []byte(tt.blob)); !errors.Is(err, ErrBadWindow) {
				t.Errorf("DecodeWindow(%q) = %v, want ErrBadWindow", tt.blob, err)
			}
		})
	}
	for _, ok := range []string{"", enc(0, 0, 5, 0), enc(1<<7|1, 1, 0, 0, 1)} {
		if err := DecodeWindow(Side{}, []byte(ok)); err != nil {
			t.Errorf("DecodeWindow(%q) = %v, want no error", ok, err)
		}
	}
}
