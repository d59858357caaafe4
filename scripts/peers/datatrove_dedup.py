"""Deduplicate a JSON Lines corpus with datatrove, for the mirrors benchmark.

    python datatrove_dedup.py --method sentence|minhash --input docs.jsonl --out DIR

docs.jsonl holds {"id", "text"} per line (the documents' text as pdc
extracts it, so that both tools see the same words). The output is
DIR/docs.jsonl, {"id", "text"} per document datatrove keeps, in input
order: what `mirrors check --clean` reads. Documents datatrove drops are
missing from it. Prints one JSON line: method, documents in and out,
seconds.

The methods are datatrove's own pipelines with their default settings,
run on one worker per core:

  sentence  SentenceDedupSignature, SentenceFindDedups, SentenceDedupFilter:
            spans of 3 sentences seen before are cut from later documents
  minhash   MinhashDedupSignature, MinhashDedupBuckets, MinhashDedupCluster,
            MinhashDedupFilter: documents of one cluster of near-duplicates
            (5-gram MinHash, 14 buckets of 8 hashes) but one are dropped
"""

import argparse
import json
import os
import shutil
import sys
import time

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup import (
    MinhashDedupBuckets,
    MinhashDedupCluster,
    MinhashDedupFilter,
    MinhashDedupSignature,
    SentenceDedupFilter,
    SentenceDedupSignature,
    SentenceFindDedups,
)
from datatrove.pipeline.dedup.minhash import MinhashConfig
from datatrove.pipeline.dedup.sentence_dedup import SentDedupConfig
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter


def stages(method, src, work):
    """The datatrove pipeline stages of method, each (steps, tasks)."""
    read = lambda: JsonlReader(src, text_key="text", id_key="id")
    out = JsonlWriter(os.path.join(work, "out"), compression=None)
    # The default configurations, given explicitly (datatrove 0.10 reads a
    # config=None before defaulting it).
    if method == "sentence":
        cfg = SentDedupConfig()
        return [
            ([read(), SentenceDedupSignature(output_folder=os.path.join(work, "sigs"), config=cfg)], 1),
            ([SentenceFindDedups(data_folder=os.path.join(work, "sigs"), output_folder=os.path.join(work, "dups"), config=cfg)], 1),
            ([read(), SentenceDedupFilter(data_folder=os.path.join(work, "dups"), config=cfg), out], 1),
        ]
    cfg = MinhashConfig()
    return [
        ([read(), MinhashDedupSignature(output_folder=os.path.join(work, "sigs"), config=cfg)], 1),
        ([MinhashDedupBuckets(input_folder=os.path.join(work, "sigs"), output_folder=os.path.join(work, "buckets"), config=cfg)], cfg.num_buckets),
        ([MinhashDedupCluster(input_folder=os.path.join(work, "buckets"), output_folder=os.path.join(work, "remove"), config=cfg)], 1),
        ([read(), MinhashDedupFilter(input_folder=os.path.join(work, "remove")), out], 1),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", choices=["sentence", "minhash"], required=True)
    ap.add_argument("--input", required=True, help="docs.jsonl: id and text per line")
    ap.add_argument("--out", required=True, help="directory for docs.jsonl and datatrove's work")
    a = ap.parse_args()
    work = os.path.join(a.out, "work")
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(work, "in")
    os.makedirs(src)
    shutil.copy(a.input, os.path.join(src, "docs.jsonl"))
    start = time.monotonic()
    for i, (steps, tasks) in enumerate(stages(a.method, src, work)):
        LocalPipelineExecutor(pipeline=steps, tasks=tasks, workers=min(tasks, os.cpu_count() or 1),
                              logging_dir=os.path.join(work, "logs%d" % i)).run()
    seconds = time.monotonic() - start
    kept = {}
    outdir = os.path.join(work, "out")
    for name in sorted(os.listdir(outdir)):
        with open(os.path.join(outdir, name)) as f:
            for line in f:
                d = json.loads(line)
                kept[d["id"]] = d["text"]
    n_in = 0
    with open(a.input) as f, open(os.path.join(a.out, "docs.jsonl"), "w") as w:
        for line in f:
            n_in += 1
            doc_id = json.loads(line)["id"]
            if doc_id in kept:
                w.write(json.dumps({"id": doc_id, "text": kept[doc_id]}, ensure_ascii=False) + "\n")
    json.dump({"method": a.method, "docs_in": n_in, "docs_out": len(kept), "seconds": round(seconds, 2)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
