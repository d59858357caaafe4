package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pdc-mr/pdc/lib/mr"
)

// BenchmarkSortMerge measures the shuffle: map tasks emit pre-generated
// records (16-hex-digit key, ~40-byte value), which are partitioned, sorted,
// spilled, merged and fed to a reducer that discards them.
func BenchmarkSortMerge(b *testing.B) {
	const tasks, perTask = 4, 100_000
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([][]byte, tasks)
	var total int64
	for i := range inputs {
		var buf bytes.Buffer
		for j := range perTask {
			fmt.Fprintf(&buf, "%016x\tdoc-%07d\t%07d\tsome value bytes\n", rng.Uint64(), j, i)
		}
		inputs[i] = buf.Bytes()
		total += int64(buf.Len())
	}
	splits := make([]Split, tasks)
	for i := range splits {
		splits[i] = Split{Name: fmt.Sprint("mem", i), Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(nil)), nil
		}}
	}
	mapper := func(t *mr.Task) error {
		var i int
		fmt.Sscan(t.Getenv(mr.EnvInputFile)[3:], &i)
		_, err := t.Stdout.Write(inputs[i])
		return err
	}
	discard := func(t *mr.Task) error {
		_, err := io.Copy(io.Discard, t.Stdin)
		return err
	}
	for _, mem := range []int64{256 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("sortmem=%dMiB", mem>>20), func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				out := filepath.Join(b.TempDir(), fmt.Sprint("out", n))
				n++
				r := &Runner{Workers: 2, SortMem: mem, TempDir: b.TempDir()}
				if _, err := r.Run(context.Background(), &Job{
					Name: "bench", Map: mapper, Reduce: discard, Reducers: 4, Inputs: splits, Output: out,
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(tasks*perTask)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkSortBuffer measures sorting a full sort buffer of 16-hex-digit
// keys (many repeated), of keys sharing a long prefix, and of posting-list
// keys (8 hex digits, about 250 records each).
func BenchmarkSortBuffer(b *testing.B) {
	keys := map[string]func(r *rand.Rand) string{
		"hex":      func(r *rand.Rand) string { return fmt.Sprintf("%016x", r.Uint64N(100_000)) },
		"postings": func(r *rand.Rand) string { return fmt.Sprintf("%08x", r.Uint32N(2000)*0x9e3779b1) },
		"docpair": func(r *rand.Rand) string {
			return fmt.Sprintf("rust/src/core/doc-%04d.html\tdoc-%04d\t%07d\t%07d", r.IntN(2000), r.IntN(2000), r.IntN(100), r.IntN(100))
		},
	}
	for _, name := range []string{"hex", "postings", "docpair"} {
		b.Run(name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			buf := &sortBuffer{keyFields: 4, reducers: 4, limit: 1 << 30}
			if name == "postings" {
				buf.keyFields = 1 // as the index job's
			}
			for range 500_000 {
				buf.add(fmt.Appendf(nil, "%s\tvalue", keys[name](r)))
			}
			orig := slices.Clone(buf.ents)
			b.ReportAllocs()
			for b.Loop() {
				copy(buf.ents, orig)
				buf.sort()
			}
		})
	}
}

// BenchmarkWritePart: writing a sorted buffer's records, which lie in the
// arena in arrival order, in key order (the spill writer's gather).
func BenchmarkWritePart(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := &sortBuffer{keyFields: 1, reducers: 1, limit: 1 << 31}
	value := bytes.Repeat([]byte("v"), 120)
	var total int64
	for range 1_000_000 {
		line := fmt.Appendf(nil, "%08x\t%s", r.Uint32(), value)
		buf.add(line)
		total += int64(len(line))
	}
	buf.sort()
	w := newRunWriter(io.Discard)
	b.SetBytes(total)
	for b.Loop() {
		if err := buf.writePart(w, buf.ents, nil); err != nil {
			b.Fatal(err)
		}
	}
}
