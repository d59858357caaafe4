package avroio

import (
	"crypto/sha256"
	_ "embed"
	"errors"
	"fmt"
	"github.com/pdc-mr/pdc/lib/span"
	"io"

	"github.com/linkedin/goavro/v2"
)

//go:embed span.avsc
var spanSchema string

// SpanSchema returns the Avro schema of span records (span.avsc).
func SpanSchema() string { return spanSchema }

var spanCodec = mustCodec(spanSchema)

func mustCodec(schema string) *goavro.Codec {
	c, err := goavro.NewCodec(schema)
	if err != nil {
		panic(fmt.Sprintf("avroio: embedded schema: %v", err)) // a build defect
	}
	return c
}

// spanBatch is the number of spans per container block.
const spanBatch = 4096

// SpanWriter writes spans to an Avro object container file (deflate codec).
// The sync marker is derived from the schema rather than drawn at random.
type SpanWriter struct {
	ocf      *goavro.OCFWriter
	withText bool
	batch    []any
	err      error
}

// NewSpanWriter writes the container header to w. withText selects whether
// the passage texts of spans are written (else text_a and text_b are null).
// Close flushes but does not close w.
func NewSpanWriter(w io.Writer, withText bool) (*SpanWriter, error) {
	ocf, err := newOCFWriter(w, spanCodec)
	if err != nil {
		return nil, fmt.Errorf("write span header: %w", err)
	}
	return &SpanWriter{ocf: ocf, withText: withText}, nil
}

func newOCFWriter(w io.Writer, codec *goavro.Codec) (*goavro.OCFWriter, error) {
	sum := sha256.Sum256([]byte(codec.Schema()))
	var mark [16]byte
	copy(mark[:], sum[:])
	return goavro.NewOCFWriter(goavro.OCFConfig{
		W: w, Codec: codec, CompressionName: goavro.CompressionDeflateLabel, SyncMarker: mark,
	})
}

// Write adds a span; spans are written in blocks.
func (s *SpanWriter) Write(sp *span.Span) error {
	if s.err != nil {
		return s.err
	}
	s.batch = append(s.batch, s.native(sp))
	if len(s.batch) >= spanBatch {
		return s.flush()
	}
	return nil
}

// Close writes the buffered spans. It does not close the underlying writer.
func (s *SpanWriter) Close() error {
	if s.err != nil {
		return s.err
	}
	err := s.flush()
	s.err = errors.New("span writer closed")
	return err
}

func (s *SpanWriter) flush() error {
	if len(s.batch) == 0 {
		return nil
	}
	if err := s.ocf.Append(s.batch); err != nil {
		s.err = fmt.Errorf("write spans: %w", err)
		return s.err
	}
	s.batch = s.batch[:0]
	return nil
}

func (s *SpanWriter) native(sp *span.Span) map[string]any {
	m := map[string]any{
		"doc_a": sp.DocA, "doc_b": sp.DocB,
		"url_a": nullable(sp.URLA, sp.URLA != ""), "url_b": nullable(sp.URLB, sp.URLB != ""),
		"start_a": int32(sp.StartA), "start_b": int32(sp.StartB), "length": int32(sp.Length),
		"char_start_a": int64(sp.CharStartA), "char_end_a": int64(sp.CharEndA),
		"char_start_b": int64(sp.CharStartB), "char_end_b": int64(sp.CharEndB),
		"score": sp.Score, "text_a": nil, "text_b": nil,
	}
	if s.withText {
		m["text_a"] = nullableP(sp.TextA)
		m["text_b"] = nullableP(sp.TextB)
	}
	return m
}

func nullable(s string, ok bool) any {
	if !ok {
		return nil
	}
	return goavro.Union("string", s)
}

func nullableP(p *string) any {
	if p == nil {
		return nil
	}
	return goavro.Union("string", *p)
}

// ReadSpans reads all spans of a file written with the span schema (or a
// compatible one with the same field names).
func ReadSpans(r io.Reader) ([]span.Span, error) {
	ocf, err := newOCFReader(r)
	if err != nil {
		return nil, err
	}
	codec, err := newCodec(string(ocf.meta["avro.schema"]))
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	var out []span.Span
	for {
		n, data, err := ocf.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, fmt.Errorf("read spans: %w", err)
		}
		for ; n > 0; n-- {
			var native any
			native, data, err = codec.NativeFromBinary(data)
			if err != nil {
				return out, fmt.Errorf("read spans: %w", err)
			}
			sp, err := spanFromNative(native)
			if err != nil {
				return out, fmt.Errorf("read spans: %w", err)
			}
			out = append(out, sp)
		}
	}
}

func spanFromNative(native any) (span.Span, error) {
	m, ok := native.(map[string]any)
	if !ok {
		return span.Span{}, errors.New("span is not a record")
	}
	num := func(k string) int {
		switch v := m[k].(type) {
		case int32:
			return int(v)
		case int64:
			return int(v)
		}
		return 0
	}
	text := func(k string) *string {
		s, ok := str(m[k])
		if !ok || m[k] == nil {
			return nil
		}
		return &s
	}
	sp := span.Span{StartA: num("start_a"), StartB: num("start_b"), Length: num("length"),
		CharStartA: num("char_start_a"), CharEndA: num("char_end_a"),
		CharStartB: num("char_start_b"), CharEndB: num("char_end_b"),
		TextA: text("text_a"), TextB: text("text_b")}
	sp.DocA, _ = str(m["doc_a"])
	sp.DocB, _ = str(m["doc_b"])
	sp.URLA, _ = str(m["url_a"])
	sp.URLB, _ = str(m["url_b"])
	sp.Score, _ = m["score"].(float64)
	return sp, nil
}
