#!/usr/bin/env bash
# scale.sh: how pdc's cost grows with the input, for the scale model in
# docs/performance.md ("Scale").
#
#   scripts/scale.sh [--commands] [MB ...]     (default: 100 850 3400)
#
# Corpora (cached in ${PDC_DATA:-~/.cache/pdc-data}/bench): the bench
# corpus of MB megabytes (scripts/corpus.sh bench, hash order, as
# scripts/ab.sh); all the Debian documentation sources give 850 MB, so a
# larger MB is that corpus mirrored: copy k of every page gets the id
# mirrorK/ID and the URL host mirrorK.example.org (whole documentation sites
# mirrored, as the web has them), up to MB.
#
# For each corpus it runs `pdc run --clusters --keep-intermediate` (all
# cores, default flags) under GNU time and prints one line of JSON: MB,
# documents, wall seconds, peak RSS MiB, each job's seconds (OUT/jobs.tsv),
# the bytes each job wrote (du of its output directory: what the next job
# reads, the shuffled bytes of a reduce job's input are of that order), the
# largest posting list (documents), the largest and mean part file of the
# index and join jobs (reducer skew), the rounds of the components
# iteration and the counters that matter. With --commands it then runs
# the commands that read a run on its output (pdc pairs, pairs --groups,
# pairs --expand, clusters --text, report, dedup; output to /dev/null or a
# scratch directory) and adds each one's seconds and peak RSS MiB
# ("commands"); a command still running after PDC_SCALE_TIMEOUT seconds
# (default 1800) is stopped, and its seconds are a lower bound.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
commands=0
limit=${PDC_SCALE_TIMEOUT:-1800} # seconds a command may take
if [ "${1:-}" = --commands ]; then
	commands=1
	shift
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 850 3400)
command -v /usr/bin/time >/dev/null || { echo "scale.sh: needs GNU time" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/pdc" ./jobs/pdc)
mkdir -p "$DATA/bench"
corpus() { # MB -> path
	local mb=$1 f=$DATA/bench/corpus-$1.jsonl
	if [ ! -s "$f" ]; then
		if [ "$mb" -le 850 ]; then
			PDC_CORPUS_ORDER=hash "$ROOT/scripts/corpus.sh" bench "$f" "$mb" >&2
		else
			local base
			base=$(corpus 850)
			python3 - "$base" "$f" "$mb" <<'PY'
import json, sys
base, out, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
limit, n, k = mb * 1000000, 0, 0
with open(out + ".tmp", "w") as w:
    while n < limit:
        k += 1
        with open(base) as r:
            for line in r:
                d = json.loads(line)
                d["id"] = "mirror%d/%s" % (k, d["id"])
                if d.get("url"):
                    d["url"] = "https://mirror%d.example.org/%s" % (k, d["url"].split("://", 1)[-1])
                s = json.dumps(d, ensure_ascii=False) + "\n"
                w.write(s)
                n += len(s.encode())
                if n >= limit:
                    break
import os
os.rename(out + ".tmp", out)
PY
		fi
	fi
	echo "$f"
}
for mb in "${sizes[@]}"; do
	f=$(corpus "$mb")
	out=$WORK/out-$mb
	/usr/bin/time -f "%e %M" -o "$WORK/time" "$WORK/pdc" run --input "$f" --output "$out" --overwrite --quiet \
		--clusters --keep-intermediate 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
	: >"$WORK/commands.tsv"
	if [ "$commands" = 1 ]; then
		for c in "pairs" "pairs --groups" "pairs --expand" "clusters --text" "report" "dedup"; do
			read -r -a cmd <<<"$c"
			extra=()
			case $c in report | dedup) extra=(--output "$WORK/cmd-out") ;; esac
			rm -rf "$WORK/cmd-out"
			rc=0
			/usr/bin/time -f "%e %M" -o "$WORK/ctime" timeout "$limit" "$WORK/pdc" "${cmd[@]}" "$out" "${extra[@]}" >/dev/null 2>"$WORK/cerr" || rc=$?
			case $rc in
			0) ;;
			124) echo "scale.sh: $c stopped after ${limit} s (PDC_SCALE_TIMEOUT): its time is a lower bound" >&2 ;;
			*) cat "$WORK/cerr" >&2; exit 1 ;;
			esac
			printf '%s\t%s\n' "$c" "$(tail -1 "$WORK/ctime")" >>"$WORK/commands.tsv"
		done
		rm -rf "$WORK/cmd-out"
	fi
	python3 - "$mb" "$f" "$out" "$WORK/time" "$WORK/commands.tsv" <<'PY'
import glob, json, os, sys
mb, corpus, out, timef, cmdf = sys.argv[1:]
secs, rss = open(timef).read().split()[-2:]
def du(d):
    return sum(os.path.getsize(p) for p in glob.glob(os.path.join(out, d, "part-*")))
jobs = {}
for line in open(os.path.join(out, "jobs.tsv")):
    if not line.startswith("#"):
        f = line.rstrip("\n").split("\t")
        jobs[f[0]] = float(f[1])
c = {}
for line in open(os.path.join(out, "counters.tsv")):
    k, _, v = line.rstrip("\n").partition("\t")
    c[k] = int(v)
dirs = ["parsed", "stats", "index", "pairs", "spans", "passages", "edges"] + \
    sorted(os.path.basename(d) for d in glob.glob(os.path.join(out, "components-*"))) + ["clusters"]
largest = 0
for p in glob.glob(os.path.join(out, "index", "part-*")):
    for line in open(p, errors="replace"):
        f = line.split("\t", 3)
        if len(f) > 2 and f[1] == "P":
            largest = max(largest, int(f[2]))
def skew(d):
    s = [os.path.getsize(p) for p in glob.glob(os.path.join(out, d, "part-*"))]
    return round(max(s) / (sum(s) / len(s)), 2) if s and sum(s) else None
keys = ["parse.docs.read", "index.postings", "index.lists.over-max-df", "join.hub.lists", "join.hub.postings",
        "join.hub.leftover", "join.hub.leftover.set-partners-capped", "join.pairs.verified", "match.spans", "extend.spans", "clusters.edges", "clusters.clusters",
        "clusters.documents", "clusters.rounds"]
print(json.dumps({"mb": int(mb), "bytes": os.path.getsize(corpus), "seconds": float(secs), "rss_mib": int(rss) // 1024,
                  "jobs": jobs, "written_mb": {d: round(du(d) / 1e6, 2) for d in dirs if os.path.isdir(os.path.join(out, d))},
                  "largest_list": largest, "skew": {"index": skew("index"), "pairs": skew("pairs")},
                  "counters": {k: c.get(k, 0) for k in keys},
                  "commands": {l.split("\t")[0]: {"seconds": float(l.split("\t")[1].split()[0]), "rss_mib": int(l.split("\t")[1].split()[1]) // 1024}
                               for l in open(cmdf).read().splitlines()}}))
PY
	rm -rf "$out"
done
