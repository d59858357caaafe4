#!/usr/bin/env python3
"""Converts pdc JSON Lines documents to a Parquet file with pyarrow, as an
independent writer for pdc's Parquet input tests.

Usage: toparquet.py DOCS.jsonl OUT.parquet

Columns id, url, html, text (strings; absent values are null), snappy,
row groups of 7 rows so that a file spans several.
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cols = {"id": [], "url": [], "html": [], "text": []}
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            for k in cols:
                v = d.get(k)
                cols[k].append(None if v is None else str(v))
    table = pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()})
    pq.write_table(table, sys.argv[2], compression="snappy", row_group_size=7)


if __name__ == "__main__":
    main()
