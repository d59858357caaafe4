#!/usr/bin/env bash
# eval.sh: score pdc on the graded planted corpus, in one command.
#
#   scripts/eval.sh [--tier default|hard] [--runs N] [--seed S] [--distractors D] [--copies K]
#                   [--unmatched N] [--json] [--check] [--out DIR] [--corpus DIR] [-- PDC_RUN_FLAGS...]
#   scripts/eval.sh --prepare [--tier default|hard] [--runs N] [--seed S] [--distractors D]
#
# Steps:
#   1. scripts/sources.sh fetches the source texts (State of the Union
#      addresses in English, two Debian books in Chinese; cached).
#   2. scripts/plant (mkcorpus) plants N runs (default 300) of every edit class
#      of the tier (--tier: default, or hard, see below) into them, with
#      the unplanted documents as distractors (default all), from seed S
#      (default 1), each run into K targets (--copies, default 1), each copy
#      edited on its own. The corpus is cached under
#      $PDC_DATA/corpus/, keyed by the parameters, the sources and the
#      mkcorpus binary (so it is rebuilt when scripts/plant changes).
#   3. pdc is built from this tree into a temporary directory (unless
#      PDC_BIN names a pdc binary to use).
#   4. `pdc run` runs on the corpus with its default flags plus
#      PDC_RUN_FLAGS (with --clusters, pdc eval also reports how the
#      planted cases fall into passage clusters), timed, into --out (default $PDC_DATA/eval/out,
#      replaced on every run).
#   5. `pdc eval --input` prints the score table (overall, per class, per
#      language, per language and class), the natural reuse found outside
#      the planted text (listed separately, not counted against
#      "precision (planted)") and the longest false positives with their
#      text (--unmatched, default 5).
#
# --check also checks the quality targets (lib/eval Target: verbatim and
# light plagdet >= 0.97, word-edits plagdet >= 0.90, sentence-rewritten and
# sentence-dropped recall >= 0.90 with granularity <= 1.05, precision
# (planted) >= 0.97, zh plagdet >= en plagdet - 0.02; with --clusters among
# the pdc run flags, 99% of the cases with both passages in one cluster and
# 99% of the planted passages in one cluster with all their copies), prints
# PASS/FAIL per target and exits 1 when one fails. With --copies K > 1 only
# the cluster targets are checked: the truth lists no copy-to-copy case.
#
# --tier hard plants only the classes of the hard tier (scripts/plant
# HardClasses: edits-10, edits-20, edits-30, merge-split), 800 runs by
# default (200 per class: about 115 English and 85 Chinese each; the Chinese
# sources allow about 345 runs in all, so --runs above 800 adds English
# runs only), cached apart from the default tier's corpus (the directory
# name adds -tierhard). After pdc eval's tables it
# prints recall, granularity and boundary error per class and language.
# With --tier hard, --check checks the hard tier's targets instead (lib/eval
# HardTargets: recall >= 0.97 for edits-10, edits-20 and merge-split and
# >= 0.94 for edits-30 in English and in Chinese, granularity <= 1.02,
# precision (planted) >= 0.99).
#
# --json prints one JSON object instead: {"corpus", "flags", "seconds",
# "counters" (OUT/counters.tsv), "eval" (pdc eval --format json)}.
# --prepare only does steps 1-2 and prints the corpus directory
# (docs.jsonl, truth.jsonl, pan/, stats.txt); --corpus DIR skips them.
#
# Needs go, python3, and what scripts/sources.sh needs (npm, apt-get, dpkg).
# Downloads and caches go to ${PDC_DATA:-$HOME/.cache/pdc-data}, never the repo.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}

tier=default runs= seed=1 distractors=-1 copies=1 unmatched=5 json=0 check=0 prepare=0 out= corpus=
usage() {
	sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
die() {
	echo "eval.sh: $*" >&2
	exit 1
}
log() { echo "eval.sh: $*" >&2; }
int() {
	case $2 in '' | - | *[!0-9-]* | ?*-*)
		echo "eval.sh: $1 wants an integer, not '$2'" >&2
		exit 2
		;;
	esac
}

while [ $# -gt 0 ]; do
	case $1 in
	--tier) tier=${2-}; shift 2 || usage ;;
	--runs) runs=${2-}; int "$1" "$runs"; shift 2 ;;
	--seed) seed=${2-}; int "$1" "$seed"; shift 2 ;;
	--distractors) distractors=${2-}; int "$1" "$distractors"; shift 2 ;;
	--copies) copies=${2-}; int "$1" "$copies"; shift 2 ;;
	--unmatched) unmatched=${2-}; int "$1" "$unmatched"; shift 2 ;;
	--out) out=${2-}; [ -n "$out" ] || usage; shift 2 ;;
	--corpus) corpus=${2-}; [ -n "$corpus" ] || usage; shift 2 ;;
	--json) json=1; shift ;;
	--check) check=1; shift ;;
	--prepare) prepare=1; shift ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) echo "eval.sh: unknown argument '$1' (pdc run flags go after --)" >&2; usage ;;
	esac
done
flags=("$@")
# The classes each tier plants (empty: mkcorpus's default, all of
# scripts/plant Classes) and its default number of runs.
case $tier in
default) classes= ;;
hard) classes=edits-10,edits-20,edits-30,merge-split ;;
*) echo "eval.sh: --tier wants default or hard, not '$tier'" >&2; exit 2 ;;
esac
if [ -z "$runs" ]; then
	runs=300
	[ "$tier" = hard ] && runs=800
fi
command -v go >/dev/null || die "go not found"
command -v python3 >/dev/null || die "python3 not found"

mkdir -p "$DATA/tmp"
tmp=$(mktemp -d "$DATA/tmp/eval.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# prepare_corpus builds (or finds) the cached corpus and prints its directory.
prepare_corpus() {
	"$ROOT/scripts/sources.sh" >&2 || die "scripts/sources.sh failed"
	(cd "$ROOT" && go build -trimpath -o "$tmp/mkcorpus" ./scripts/plant/internal/mkcorpus) ||
		die "go build mkcorpus failed"
	local key dir
	key=$(cat "$DATA/sources.jsonl" "$tmp/mkcorpus" | sha256sum | cut -c1-12)
	dir=$DATA/corpus/runs$runs-seed$seed-distractors$distractors-$key
	[ "$copies" = 1 ] || dir=$DATA/corpus/runs$runs-seed$seed-distractors$distractors-copies$copies-$key
	[ "$tier" = default ] || dir=${dir%-"$key"}-tier$tier-$key
	if [ ! -f "$dir/.done" ]; then
		log "building corpus $dir"
		rm -rf "$dir.tmp"
		"$tmp/mkcorpus" -sources "$DATA/sources.jsonl" -pairs "$runs" -seed "$seed" \
			-distractors "$distractors" -copies "$copies" ${classes:+-classes "$classes"} \
			-out "$dir.tmp" >"$tmp/stats.txt" || die "mkcorpus failed"
		mv "$tmp/stats.txt" "$dir.tmp/stats.txt"
		touch "$dir.tmp/.done"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

if [ -z "$corpus" ]; then
	corpus=$(prepare_corpus)
fi
[ -f "$corpus/docs.jsonl" ] && [ -f "$corpus/truth.jsonl" ] || die "$corpus: no docs.jsonl and truth.jsonl"
if [ "$prepare" = 1 ]; then
	echo "$corpus"
	exit 0
fi

pdc=${PDC_BIN:-}
if [ -z "$pdc" ]; then
	(cd "$ROOT" && go build -o "$tmp/pdc" ./jobs/pdc) || die "go build pdc failed"
	pdc=$tmp/pdc
fi
out=${out:-$DATA/eval/out}
checkflag=()
[ "$check" = 1 ] && checkflag=(--check)
# With copies the truth lists no copy-to-copy case: only the passage-cluster
# targets are checked (pdc run flags must include --clusters).
[ "$check" = 1 ] && [ "$copies" != 1 ] && checkflag=(--check-clusters)
# The hard tier has targets of its own (lib/eval HardTargets).
if [ "$check" = 1 ] && [ "$tier" = hard ]; then
	checkflag=(--check-hard)
fi
mkdir -p "$(dirname "$out")"

log "pdc run ${flags[*]:-(default flags)} on $corpus"
start=$(date +%s%N)
"$pdc" run --input "$corpus/docs.jsonl" --output "$out" --overwrite --quiet "${flags[@]}" >&2 ||
	die "pdc run ${flags[*]:-} failed"
end=$(date +%s%N)
seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')

if [ "$json" = 1 ]; then
	checked=0
	"$pdc" eval --truth "$corpus/truth.jsonl" --spans "$out" --input "$corpus/docs.jsonl" \
		--unmatched "$unmatched" --format json "${checkflag[@]}" >"$tmp/eval.json" || checked=$?
	[ -s "$tmp/eval.json" ] || die "pdc eval failed"
	python3 - "$corpus" "$seconds" "$out/counters.tsv" "$tmp/eval.json" "${flags[@]}" <<'PY'
import json, sys
corpus, seconds, counters, evalfile, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
c = {}
with open(counters) as f:
    for line in f:
        k, _, v = line.rstrip("\n").partition("\t")
        if v:
            c[k] = int(v)
with open(evalfile) as f:
    ev = json.load(f)
print(json.dumps({"corpus": corpus, "flags": flags, "seconds": float(seconds), "counters": c, "eval": ev}))
PY
	[ "$checked" = 0 ] || die "quality targets not met (see \"targets\" in the JSON)"
	exit 0
fi

# recall_table prints recall, granularity and boundary error (bnd: mean
# characters a detection covers outside its cases) per class and language
# from the output of pdc eval --format json in file $1.
recall_table() {
	python3 - "$1" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    ev = json.load(f)
lc = ev["language_classes"]
langs = sorted(l for l in lc if l)
head = ["class"] + [l + " " + x for l in langs for x in ("cases", "rec", "gran", "bnd")] + ["all rec", "all gran", "plagdet"]
rows = []
for c in sorted(ev["classes"]):
    row = [c]
    for l in langs:
        s = lc[l].get(c)
        row += [str(s["cases"]), "%.4f" % s["recall"], "%.4f" % s["granularity"], ("%.1f" % s["boundary_chars"] if "boundary_chars" in s else "-")] if s else ["0", "-", "-", "-"]
    a = ev["classes"][c]
    rows.append(row + ["%.4f" % a["recall"], "%.4f" % a["granularity"], "%.4f" % a["plagdet"]])
w = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
print("recall per class and language")
for r in [head] + rows:
    print("  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip())
PY
}

echo "corpus: $corpus"
echo "        $(cat "$corpus/stats.txt" 2>/dev/null || echo "$(wc -l <"$corpus/docs.jsonl") documents")"
echo "pdc run ${flags[*]:-(default flags)}: ${seconds}s"
echo
"$pdc" eval --truth "$corpus/truth.jsonl" --spans "$out" --input "$corpus/docs.jsonl" \
	--unmatched "$unmatched" "${checkflag[@]}" ||
	die "$([ "$check" = 1 ] && echo "quality targets not met (FAIL lines above)" || echo "pdc eval failed")"
if [ "$tier" = hard ]; then
	echo
	"$pdc" eval --truth "$corpus/truth.jsonl" --spans "$out" --input "$corpus/docs.jsonl" --format json \
		>"$tmp/eval.json" || die "pdc eval failed"
	recall_table "$tmp/eval.json" || die "recall table failed"
fi
[ "$check" = 1 ] && [ ${#checkflag[@]} -gt 0 ] && echo "eval.sh: all quality targets met" >&2
exit 0
