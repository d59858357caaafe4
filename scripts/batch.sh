#!/usr/bin/env bash
# batch.sh: a batch against a stored collection, against one run over all
# of it, on the bench corpus.
#
#   scripts/batch.sh [MB] [PERCENT]     (defaults: 850 MB, a batch of 10%)
#   scripts/batch.sh --chain [MB] [N]   (the corpus as N batches, default 10)
#
# With --chain it splits the corpus into N parts (line number mod N), runs
# the first with --store and each next one --against the run before, and
# prints each batch's time and their sum against one run over the whole
# corpus.
#
# Splits the corpus (scripts/corpus.sh, cached as scripts/ab.sh does) into
# base.jsonl and batch.jsonl (every document whose line number is 0 mod
# 100/PERCENT goes to the batch), then runs bin/pdc three times: over both
# files (the whole run), over base.jsonl with --store, and over batch.jsonl
# --against that. It prints the whole run's document pairs and spans with a
# batch document, how many of them the batch run has (and how many it has
# that the whole run has not), and the wall time of each run with
# batch / whole. Equality is exact by construction (docs/design.md, "Batches
# against a stored collection"); the times are what a batch costs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
CHAIN=0
if [ "${1:-}" = --chain ]; then
	CHAIN=1
	shift
fi
MB=${1:-850}
PCT=${2:-10}
PDC="$ROOT/bin/pdc"
[ -x "$PDC" ] || "$ROOT/scripts/build.sh" >/dev/null
corpus="$DATA/bench/corpus-$MB.jsonl"
mkdir -p "$DATA/bench"
[ -s "$corpus" ] || PDC_CORPUS_ORDER=hash "$ROOT/scripts/corpus.sh" bench "$corpus" "$MB" >&2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() { # name args...
	local name=$1
	shift
	/usr/bin/time -f "%e" -o "$WORK/$name.time" "$PDC" run --quiet --output "$WORK/$name" "$@" >/dev/null
}
if [ "$CHAIN" = 1 ]; then
	n=${2:-10}
	awk -v n="$n" -v w="$WORK" '{ print > (w "/part-" (NR % n) ".jsonl") }' "$corpus"
	run whole --input "$corpus"
	total=0 prev=""
	for i in $(seq 0 $((n - 1))); do
		if [ -z "$prev" ]; then
			run "b$i" --input "$WORK/part-$i.jsonl" --store
		else
			run "b$i" --input "$WORK/part-$i.jsonl" --against "$prev"
		fi
		prev="$WORK/b$i"
		t=$(cat "$WORK/b$i.time")
		total=$(awk -v a="$total" -v b="$t" 'BEGIN { print a + b }')
		echo "batch $((i + 1)) of $n: $t s"
	done
	w=$(cat "$WORK/whole.time")
	echo "whole run $w s; $n batches $total s; batches / whole $(awk -v t="$total" -v w="$w" 'BEGIN { printf "%.2f", t / w }')"
	exit 0
fi
every=$((100 / PCT))
awk -v n="$every" -v b="$WORK/batch.jsonl" -v a="$WORK/base.jsonl" '{ if (NR % n == 0) print > b; else print > a }' "$corpus"
run whole --input "$WORK/base.jsonl" --input "$WORK/batch.jsonl"
run base --input "$WORK/base.jsonl" --store
run batch --input "$WORK/batch.jsonl" --against "$WORK/base"
grep -o '"id": *"[^"]*"' "$WORK/batch.jsonl" | sed 's/"id": *"//; s/"$//' >"$WORK/ids"
"$PDC" spans "$WORK/whole" | awk -F'\t' 'NR==FNR { b[$1]=1; next } ($1 in b) || ($2 in b)' "$WORK/ids" - | sort >"$WORK/want"
"$PDC" spans "$WORK/batch" | sort >"$WORK/got"
pairs() { cut -f1,2 "$1" | sort -u | wc -l; }
echo "batch: $(wc -l <"$WORK/ids") of $(wc -l <"$corpus") documents ($PCT%)"
echo "whole run, with a batch document: $(pairs "$WORK/want") document pairs, $(wc -l <"$WORK/want") spans"
echo "batch run: $(pairs "$WORK/got") document pairs, $(wc -l <"$WORK/got") spans; of the whole run's: $(comm -12 "$WORK/want" "$WORK/got" | wc -l) spans, not in it: $(comm -13 "$WORK/want" "$WORK/got" | wc -l)"
echo "stored: $(du -sm "$WORK/base/parsed" | cut -f1) MB of parsed records for $(du -sm "$WORK/base.jsonl" | cut -f1) MB of input"
w=$(cat "$WORK/whole.time") b=$(cat "$WORK/base.time") n=$(cat "$WORK/batch.time")
echo "time: whole $w s, base (--store) $b s, batch $n s; batch / whole $(awk -v n="$n" -v w="$w" 'BEGIN { printf "%.3f", n / w }')"
