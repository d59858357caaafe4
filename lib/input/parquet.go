package input

// Parquet: files of rows with id, url, html and text columns (names from
// Options.Fields, and a site column with Fields.Site; lib/parquetio says
// which column types are read), as Hugging Face datasets and many crawl
// dumps ship them. As in JSON Lines, html wins over text when both are
// set; rows with neither are skipped ("neither html nor text"), and
// lib/parquetio's reasons count the rest: rows without an id are unusable
// records, damaged row groups are damage (their rows counted as records).

import (
	"fmt"

	"github.com/pdc-mr/pdc/lib/parquetio"
)

func openParquet(f *File, o Options) (Source, error) {
	r, err := parquetio.NewDocReader(f.ReaderAt, f.Size, o.Fields)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.Path, err)
	}
	return &rowSource{path: f.Path, format: "parquet", r: r, strict: o.Strict, kind: parquetKind}, nil
}

func parquetKind(reason string) skipKind {
	switch reason {
	case parquetio.SkipBadRowGroup:
		return damageNotInRecords
	case parquetio.SkipLostRows:
		return damageRecords
	}
	return skipRecord
}
