package input

// Avro: object container files of records with string id, url, html and
// text fields (names configurable with Options.Fields, and a site field
// with Fields.Site); html wins over text when both are set, as in JSON
// Lines. Records with neither are skipped ("neither html nor text");
// lib/avroio's reasons count the rest: a damaged block is damage, a
// damaged datum or an empty block damage counted as records, the others
// skipped records.

import (
	"fmt"

	"github.com/pdc-mr/pdc/lib/avroio"
)

func openAvro(f *File, o Options) (Source, error) {
	dr, err := avroio.NewDocReader(f.R, o.Fields)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	return &rowSource{path: f.Path, format: "avro", r: dr, strict: o.Strict, kind: avroKind}, nil
}

func avroKind(reason string) skipKind {
	switch reason {
	case avroio.SkipBadBlock:
		return damageNotInRecords
	case avroio.SkipBadDatum, avroio.SkipEmptyBlock:
		return damageRecords
	}
	return skipRecord
}
