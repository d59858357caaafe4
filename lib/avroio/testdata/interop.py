#!/usr/bin/env python3
"""Interoperability check of lib/avroio against the Apache Avro Python package.

Usage:
  interop.py read-spans SPANS.avro OUT.json   dump the spans Go wrote as JSON
  interop.py write-docs OUT.avro              write a documents file for Go

Needs the avro package (pip install avro).
"""
import json
import sys

import avro.datafile
import avro.io
import avro.schema

DOC_SCHEMA = {
    "type": "record", "name": "Page", "namespace": "interop",
    "fields": [
        {"name": "doc_id", "type": "string"},
        {"name": "url", "type": ["string", "null"]},
        {"name": "content", "type": ["null", "bytes"], "default": None},
        {"name": "text", "type": ["null", "string"], "default": None},
        {"name": "crawl", "type": "long"},
        {"name": "host", "type": ["null", "string"], "default": None},
    ],
}

DOCS = [
    {"doc_id": "d1", "url": "http://example.com/1",
     "content": "<p>Hello, wörld</p>".encode("utf-8"), "text": None, "crawl": 1,
     "host": "example.com"},
    {"doc_id": "", "url": None, "content": b"<p>no id</p>", "text": None, "crawl": 2,
     "host": "example.com"},
    {"doc_id": "d3", "url": None, "content": None, "text": "Plain 文本\n\nsecond",
     "crawl": 3, "host": None},
]


def read_spans(path, out):
    with open(path, "rb") as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        schema = json.loads(str(reader.meta["avro.schema"], "utf-8"))
        spans = list(reader)
        codec = reader.meta.get("avro.codec", b"null").decode()
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"codec": codec, "schema_name": schema.get("namespace", "") + "." + schema["name"],
                   "spans": spans}, f, ensure_ascii=False, sort_keys=True)


def write_docs(path):
    schema = avro.schema.parse(json.dumps(DOC_SCHEMA))
    with open(path, "wb") as f:
        w = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema, codec="deflate")
        for i, d in enumerate(DOCS):
            w.append(d)
            if i == 0:
                w.flush()  # two blocks
        w.close()


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "read-spans":
        read_spans(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "write-docs":
        write_docs(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
