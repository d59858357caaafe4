#!/usr/bin/env bash
# bench.sh: pdc's throughput and memory on real HTML, against the
# tokenize-only floor, and the scaling when the corpus doubles.
#
#   scripts/bench.sh [MB]            (default 100: runs MB and 2*MB)
#
# 1. scripts/corpus.sh builds corpora of MB and 2*MB megabytes of real HTML
#    pages (rust-doc, then other Debian HTML docs; pages in hash order so
#    both sizes have the same mix), cached in ${PDC_DATA:-~/.cache/pdc-data}.
# 2. The floor: scripts/floor runs the golang.org/x/net/html tokenizer over
#    the same pages on all cores (pages pre-loaded; nothing else).
# 3. pdc run (default flags, local runner, all cores) under /usr/bin/time:
#    per job and end to end, MB/s of input HTML and documents/s; peak RSS.
# Each is run PDC_BENCH_RUNS times (default 3) and the fastest run counts.
# PDC_BENCH_CORPUS=prose benchmarks prose-heavy documentation instead of
# Rust's API pages: Python's and PostgreSQL's manuals, the Debian handbook
# (26 languages, Chinese and Japanese among them), then OpenJDK's pages.
# Prints a markdown table (docs/performance.md) and the ratios.
# PDC_BENCH_PROFILE=1 adds a profiled run per corpus (CPU profiles in
# $PDC_DATA/bench/cpu-MB.prof).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
MB=${1:-100}
RUNS=${PDC_BENCH_RUNS:-3}
case $MB in ''|*[!0-9]*) echo "usage: scripts/bench.sh [MB]" >&2; exit 2;; esac
command -v /usr/bin/time >/dev/null || { echo "bench.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DATA/bench"
(cd "$ROOT" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/pdc" ./jobs/pdc && go build -o "$WORK/floor" ./scripts/floor)

echo "| corpus | docs | floor s | floor MB/s | job | seconds | MB/s | docs/s |"
echo "|---|---:|---:|---:|---|---:|---:|---:|"
case ${PDC_BENCH_CORPUS:-rust} in
rust) kind= sources= ;;
prose) kind=prose- sources="python3.11-doc postgresql-doc-15 debian-handbook openjdk-17-doc" ;;
*) echo "bench.sh: PDC_BENCH_CORPUS must be rust or prose" >&2; exit 2 ;;
esac
declare -A total
for size in "$MB" "$((2 * MB))"; do
	corpus="$DATA/bench/corpus-$kind$size.jsonl"
	[ -s "$corpus" ] || PDC_CORPUS_ORDER=hash PDC_CORPUS_SOURCES=$sources "$ROOT/scripts/corpus.sh" bench "$corpus" "$size" >&2
	# The fastest of RUNS runs of the floor and of pdc (the least disturbed
	# by the machine's other work); peak RSS is the largest of pdc's runs.
	fsec=
	for _ in $(seq "$RUNS"); do
		read -r _ docs _ bytes _ _ _ f _ fm < <("$WORK/floor" "$corpus")
		if [ -z "$fsec" ] || awk -v a="$f" -v b="$fsec" 'BEGIN{exit !(a < b)}'; then fsec=$f fmbs=$fm; fi
	done
	mb=$(awk -v b="$bytes" 'BEGIN{printf "%.1f", b/1e6}')
	best= maxrss=0
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f "TIME %e %M" "$WORK/pdc" run --input "$corpus" --output "$WORK/out" --overwrite \
			2>"$WORK/run" || { cat "$WORK/run" >&2; exit 1; }
		read -r _ w r < <(grep '^TIME' "$WORK/run")
		maxrss=$((r > maxrss ? r : maxrss))
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$w; cp "$WORK/run" "$WORK/log"; fi
	done
	if [ -n "${PDC_BENCH_PROFILE:-}" ]; then # a second, profiled run: where the time goes
		"$WORK/pdc" run --input "$corpus" --output "$WORK/out" --overwrite --quiet \
			--cpuprofile "$DATA/bench/cpu-$size.prof" 2>/dev/null
	fi
	while read -r job secs; do
		case $job in # the parse job's mappers do the stats job's map work (RunFeeding)
		parse) job="parse (+ stats map)" ;;
		stats) job="stats (reduce)" ;;
		esac
		awk -v c="$size MB" -v d="$docs" -v f="$fsec" -v fm="$fmbs" -v j="$job" -v s="$secs" -v mb="$mb" \
			'BEGIN{printf "| %s | %d | %.2f | %.0f | %s | %.2f | %.1f | %.0f |\n", c, d, f, fm, j, s, mb/s, d/s}'
	done < <(sed -n 's/^job \([a-z+]*\): done in \(.*\)$/\1 \2/p' "$WORK/log" | awk '{
		t=$2; s=0
		if (t ~ /ms$/) { sub("ms$", "", t); print $1, t/1000; next }
		if (t ~ /m/) { split(t, a, "m"); s=a[1]*60; t=a[2] }
		sub("s$", "", t); print $1, s+t }')
	read -r _ wall _ < <(grep '^TIME' "$WORK/log")
	total[$size]=$wall
	awk -v c="$size MB" -v d="$docs" -v f="$fsec" -v fm="$fmbs" -v s="$wall" -v mb="$mb" -v r="$maxrss" \
		'BEGIN{printf "| %s | %d | %.2f | %.0f | **end to end** (peak RSS %d MiB, %.2fx floor) | %.2f | %.1f | %.0f |\n", c, d, f, fm, r/1024, s/f, s, mb/s, d/s}'
done
awk -v a="${total[$MB]}" -v b="${total[$((2 * MB))]}" -v n="$MB" 'BEGIN{
	nlogn = 2 * log(2 * n) / log(n)
	printf "\ndoubling %d MB -> %d MB: time x%.2f (linear x2.00, n log n x%.2f)\n", n, 2 * n, b / a, nlogn }'
[ -z "${PDC_BENCH_PROFILE:-}" ] || echo "CPU profiles: $DATA/bench/cpu-*.prof (go build -tags nomainextract -o pdc ./jobs/pdc && go tool pprof -top pdc PROFILE)"
