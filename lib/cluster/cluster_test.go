package cluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/pdc-mr/pdc/lib/hdfsfs"
	"github.com/pdc-mr/pdc/lib/mr"
)

// TestReadPlaces: ReadPlaces returns Read's clusters, in Read's order,
// with every member's document and range and without its URL and input
// position; one string per document id.
func TestReadPlaces(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	for part := range 3 {
		var b []byte
		for c := range 40 {
			cid := fmt.Sprintf("%016x", rng.Uint64())
			n := 1 + rng.IntN(6)
			for range n {
				doc := fmt.Sprintf("site/page\t%d.html", rng.IntN(30))
				start := rng.IntN(5000)
				b = AppendMember(b, []byte(cid), []byte(fmt.Sprintf("in.jsonl@%016d", rng.IntN(1e6))), []byte(mr.Escape(doc)),
					[]byte(fmt.Sprintf("https://x.org/%d/%d", part, c)), start, start+rng.IntN(900), rng.IntN(300))
			}
			b = AppendSummary(b, []byte(cid), int64(n), int64(n))
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-r-%05d", part)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "_SUCCESS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Read(hdfsfs.Local(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadPlaces(hdfsfs.Local(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 120 {
		t.Fatalf("%d clusters, want %d (of 120)", len(got), len(want))
	}
	ids := map[string]*byte{}
	for i := range want {
		w := want[i]
		for j := range w.Members {
			w.Members[j].URL, w.Members[j].Srcpos = "", ""
		}
		if fmt.Sprint(got[i]) != fmt.Sprint(w) {
			t.Fatalf("cluster %d: %v, want %v", i, got[i], w)
		}
		for _, m := range got[i].Members {
			p := unsafe.StringData(m.Doc)
			if q, ok := ids[m.Doc]; ok && q != p {
				t.Fatalf("document %q held twice", m.Doc)
			}
			ids[m.Doc] = p
		}
	}
}
