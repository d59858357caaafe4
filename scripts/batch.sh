#!/usr/bin/env bash
# batch.sh: a batch against a stored collection, against one run over all
# of it, on the bench corpus.
#
#   scripts/batch.sh [MB] [PERCENT]     (defaults: 850 MB, a batch of 10%)
#   scripts/batch.sh --chain [MB] [N]   (the corpus as N batches, default 10)
#   scripts/batch.sh --clusters [MB] [PERCENT]
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
#
# With --clusters the three runs are made with --clusters, and it also
# prints how many of the whole run's clusters with a batch member the
# batch run has, member for member, the document pairs with a batch
# document that share a cluster in each, and the lines of pdc pairs with a
# batch document in each; then pdc dedup of the base run (C0)
# and of the batch run with --stored-clean C0 (C1, timed), the cuts of C1
# against a stored document and those whose kept range meets what C0 cut
# (0 is right), and `go run ./scripts/dedupcheck` of the batch run and C1
# (every document read again; its columns: scripts/dedupcheck).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
CHAIN=0 CLUSTERS=()
case ${1:-} in
--chain) CHAIN=1 && shift ;;
--clusters) CLUSTERS=(--clusters) && shift ;;
esac
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
run whole --input "$WORK/base.jsonl" --input "$WORK/batch.jsonl" ${CLUSTERS[@]+"${CLUSTERS[@]}"}
run base --input "$WORK/base.jsonl" --store ${CLUSTERS[@]+"${CLUSTERS[@]}"}
run batch --input "$WORK/batch.jsonl" --against "$WORK/base" ${CLUSTERS[@]+"${CLUSTERS[@]}"}
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
[ ${#CLUSTERS[@]} -gt 0 ] || exit 0
# The clusters with a batch member, each as one line of its members.
clusters() {
	"$PDC" clusters "$1" | awk -F'\t' 'NR==FNR { b[$1]=1; next }
		{ c[$1] = c[$1] "|" $3 ":" $5 "-" $6; if ($3 in b) has[$1] = 1 }
		END { for (k in has) print k c[k] }' "$WORK/ids" - | sort
}
clusters "$WORK/whole" >"$WORK/wantc"
clusters "$WORK/batch" >"$WORK/gotc"
echo "clusters with a batch member: whole run $(wc -l <"$WORK/wantc"), batch run $(wc -l <"$WORK/gotc"); the same, member for member: $(comm -12 "$WORK/wantc" "$WORK/gotc" | wc -l)"
# The document pairs with a batch document in one cluster.
copairs() {
	"$PDC" clusters "$1" | awk -F'\t' 'NR==FNR { b[$1]=1; next } { m[$1] = m[$1] " " $3 }
		END { for (c in m) { n = split(m[c], d, " "); for (i = 1; i <= n; i++) if (d[i] in b) for (j = 1; j <= n; j++)
			if (j != i && !(d[j] in b && d[j] < d[i])) print d[i] "\t" d[j] } }' "$WORK/ids" - | sort -u
}
copairs "$WORK/whole" >"$WORK/wantp"
copairs "$WORK/batch" >"$WORK/gotp"
# The clusters without a batch member: the base run's, id and members?
"$PDC" clusters "$WORK/base" | awk -F'\t' '{ c[$1] = c[$1] "|" $3 ":" $5 "-" $6 } END { for (k in c) print k c[k] }' | sort >"$WORK/basec"
"$PDC" clusters "$WORK/batch" | awk -F'\t' 'NR==FNR { b[$1]=1; next } { c[$1] = c[$1] "|" $3 ":" $5 "-" $6; if ($3 in b) has[$1] = 1 }
	END { for (k in c) if (!(k in has)) print k c[k] }' "$WORK/ids" - | sort >"$WORK/untouched"
echo "batch run's clusters without a batch member: $(wc -l <"$WORK/untouched"), the base run's (id and members): $(comm -12 "$WORK/basec" "$WORK/untouched" | wc -l)"
echo "document pairs with a batch document in one cluster: whole run $(wc -l <"$WORK/wantp"), batch run $(wc -l <"$WORK/gotp"), both $(comm -12 "$WORK/wantp" "$WORK/gotp" | wc -l)"
"$PDC" pairs "$WORK/whole" | awk -F'\t' 'NR==FNR { b[$1]=1; next } ($1 in b) || ($2 in b)' "$WORK/ids" - | sort >"$WORK/wantpp"
"$PDC" pairs "$WORK/batch" | sort >"$WORK/gotpp"
echo "pdc pairs with a batch document: whole run $(wc -l <"$WORK/wantpp"), batch run $(wc -l <"$WORK/gotpp"), the same line $(comm -12 "$WORK/wantpp" "$WORK/gotpp" | wc -l)"
"$PDC" dedup "$WORK/base" --output "$WORK/c0" 2>/dev/null
/usr/bin/time -f "%e" -o "$WORK/c1.time" "$PDC" dedup "$WORK/batch" --output "$WORK/c1" --stored-clean "$WORK/c0" 2>"$WORK/c1.log" || { cat "$WORK/c1.log" >&2; exit 1; }
tail -n 1 "$WORK/c1.log"
awk -F'\t' 'FNR == 1 { f++ } f == 1 { b[$1]=1; next }
	f == 2 && FNR > 1 { s[$1] = s[$1] " " $2 "-" $3; next }
	f == 3 && FNR > 1 && !($5 in b) { n++; k = split(s[$5], r, " "); for (i = 1; i <= k; i++) { split(r[i], x, "-"); if (x[1] < $7 && $6 < x[2]) { bad++; break } } }
	END { printf "C1: %d cuts against a stored document, %d whose kept range meets what C0 cut\n", n, bad }' "$WORK/ids" "$WORK/c0/removed.tsv" "$WORK/c1/removed.tsv"
(cd "$ROOT" && go run ./scripts/dedupcheck --run "$WORK/batch" --clean "$WORK/c1" --input "$WORK/base.jsonl" --input "$WORK/batch.jsonl")
echo "time: pdc dedup of the batch $(cat "$WORK/c1.time") s"
