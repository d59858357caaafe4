#!/usr/bin/env python3
"""Interoperability check of lib/parquetio against pyarrow.

Usage:
  interop.py read-spans SPANS.parquet OUT.json   dump the spans Go wrote as JSON
  interop.py write-docs OUT.parquet OUT_INT.parquet
                                                 write two documents files for Go

Needs pyarrow (pip install pyarrow).
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

# String ids under custom names, html as binary, a nullable site column,
# extra columns (one nested, one a list), zstd, dictionary encoding, two row
# groups.
DOCS = pa.table({
    "doc_id": pa.array(["d1", "", None, "d3", "d4"], pa.string()),
    "url": pa.array(["http://example.com/1", None, "http://example.com/x", None,
                     "http://例え.jp/4"], pa.string()),
    "content": pa.array(["<p>Hello, wörld</p>".encode("utf-8"), b"<p>no id</p>", b"<p>null id</p>",
                         None, b"<html><body><h1>T</h1><p>x</p></body></html>"], pa.binary()),
    "text": pa.array([None, None, None, "Plain 文本\n\nsecond", ""], pa.large_string()),
    "site": pa.array(["example.com", "example.com", None, None, "例え.jp"], pa.string()),
    "crawl": pa.array([1, 2, 3, 4, 5], pa.int64()),
    "meta": pa.array([{"lang": "de"}, {"lang": None}, None, {"lang": "zh"}, {"lang": "ja"}],
                     pa.struct([("lang", pa.string())])),
    "tags": pa.array([["a", "b"], [], None, ["c"], ["d"]], pa.list_(pa.string())),
})

# Integer ids (as Hugging Face datasets often have), text only, no url
# column, a nullable integer site column, gzip, plain encoding, data pages v2.
DOCS_INT = pa.table({
    "id": pa.array([0, 12345678901, None, -7], pa.int64()),
    "text": pa.array(["zero", "big", "null id", "日本語のテキスト"], pa.string()),
    "site": pa.array([3, None, 3, -2], pa.int32()),
})


def read_spans(path, out):
    f = pq.ParquetFile(path)
    rows = f.read().to_pylist()
    meta = f.metadata
    schema = {field.name: str(field.type) for field in f.schema_arrow}
    codecs = sorted({meta.row_group(g).column(c).compression
                     for g in range(meta.num_row_groups) for c in range(meta.num_columns)})
    with open(out, "w", encoding="utf-8") as fo:
        json.dump({"codecs": codecs, "row_groups": meta.num_row_groups, "schema": schema,
                   "columns": f.schema_arrow.names, "spans": rows},
                  fo, ensure_ascii=False, sort_keys=True)


def write_docs(path, path_int):
    pq.write_table(DOCS, path, compression="zstd", use_dictionary=True, row_group_size=2)
    pq.write_table(DOCS_INT, path_int, compression="gzip", use_dictionary=False,
                   data_page_version="2.0")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "read-spans":
        read_spans(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "write-docs":
        write_docs(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
