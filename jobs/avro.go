package jobs

import (
	"fmt"
	"io"

	"github.com/pdc-mr/pdc/lib/avroio"
)

// writeAvroSpans writes spans as an Avro object container file with the
// span schema of lib/avroio (span.avsc). withText selects whether the
// passage texts are written (else text_a and text_b are null); empty URLs
// are written as null.
func writeAvroSpans(w io.Writer, spans []Span, withText bool) error {
	sw, err := avroio.NewSpanWriter(w, withText)
	if err != nil {
		return fmt.Errorf("write avro spans: %w", err)
	}
	for _, s := range spans {
		err := sw.Write(avroio.Span{
			DocA: s.DocA, DocB: s.DocB, URLA: s.URLA, URLB: s.URLB,
			StartA: s.StartA, StartB: s.StartB, Length: s.Length,
			CharStartA: s.CharStartA, CharEndA: s.CharEndA,
			CharStartB: s.CharStartB, CharEndB: s.CharEndB,
			Score: s.Score, TextA: s.TextA, TextB: s.TextB,
		})
		if err != nil {
			return fmt.Errorf("write avro spans: %w", err)
		}
	}
	if err := sw.Close(); err != nil {
		return fmt.Errorf("write avro spans: %w", err)
	}
	return nil
}
