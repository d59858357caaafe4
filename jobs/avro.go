package jobs

import (
	"fmt"
	"io"

	"github.com/pdc-mr/pdc/lib/avroio"
)

// avroSpanWriter writes spans as an Avro object container file with the
// span schema of lib/avroio (span.avsc). withText selects whether the
// passage texts are written (else text_a and text_b are null); empty URLs
// are written as null.
type avroSpanWriter struct{ sw *avroio.SpanWriter }

func newAvroSpanWriter(w io.Writer, withText bool) (*avroSpanWriter, error) {
	sw, err := avroio.NewSpanWriter(w, withText)
	if err != nil {
		return nil, fmt.Errorf("write avro spans: %w", err)
	}
	return &avroSpanWriter{sw}, nil
}

func (a *avroSpanWriter) write(s *Span) error {
	err := a.sw.Write(avroio.Span{
		DocA: s.DocA, DocB: s.DocB, URLA: s.URLA, URLB: s.URLB,
		StartA: s.StartA, StartB: s.StartB, Length: s.Length,
		CharStartA: s.CharStartA, CharEndA: s.CharEndA,
		CharStartB: s.CharStartB, CharEndB: s.CharEndB,
		Score: s.Score, TextA: s.TextA, TextB: s.TextB,
	})
	if err != nil {
		return fmt.Errorf("write avro spans: %w", err)
	}
	return nil
}

func (a *avroSpanWriter) close() error {
	if err := a.sw.Close(); err != nil {
		return fmt.Errorf("write avro spans: %w", err)
	}
	return nil
}
