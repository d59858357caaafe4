#!/usr/bin/env bash
# ab.sh: end-to-end time of pdc at another revision (A) against this tree
# (B) on the bench corpus, runs alternating so that both see the same
# machine.
#
#   scripts/ab.sh REV [MB] [RUNS]     (defaults: 100 MB, 7 runs each)
#   PDC_AB_FLAGS='--clusters' scripts/ab.sh REV 850 3
#
# Builds bin/pdc as scripts/build.sh does (static, -tags nomainextract) at
# REV (a git worktree) and from the working tree, builds the corpus with
# scripts/corpus.sh (cached in ${PDC_DATA:-~/.cache/pdc-data}, as
# scripts/bench.sh), runs `pdc run $PDC_AB_FLAGS` (default: no flags, all
# cores) A, B, A, B, ... and prints each side's fastest and median wall
# time, peak RSS, and B/A for both. With --clusters among the flags, each
# run is followed by `pdc dedup OUT`, and the times are of both commands
# (the peak RSS the larger).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
REV=${1:?usage: scripts/ab.sh REV [MB] [RUNS]}
MB=${2:-100}
RUNS=${3:-7}
command -v /usr/bin/time >/dev/null || { echo "ab.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$WORK/a" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git -C "$ROOT" worktree add --detach "$WORK/a" "$REV" >/dev/null 2>&1
(cd "$WORK/a" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/pdc-a" ./jobs/pdc)
(cd "$ROOT" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/pdc-b" ./jobs/pdc)
corpus="$DATA/bench/corpus-$MB.jsonl"
mkdir -p "$DATA/bench"
[ -s "$corpus" ] || PDC_CORPUS_ORDER=hash "$ROOT/scripts/corpus.sh" bench "$corpus" "$MB" >&2
read -r -a flags <<<"${PDC_AB_FLAGS:-}"
dedup=0
for f in "${flags[@]}"; do [ "$f" = --clusters ] && dedup=1; done
for _ in $(seq "$RUNS"); do
	for side in a b; do
		/usr/bin/time -f "%e %M" -o "$WORK/t1" "$WORK/pdc-$side" run --input "$corpus" --output "$WORK/out-$side" \
			--overwrite --quiet "${flags[@]}" >/dev/null 2>&1
		echo "0 0" >"$WORK/t2"
		if [ "$dedup" = 1 ]; then
			/usr/bin/time -f "%e %M" -o "$WORK/t2" "$WORK/pdc-$side" dedup "$WORK/out-$side" \
				--output "$WORK/clean-$side" --overwrite >/dev/null 2>&1
		fi
		paste "$WORK/t1" "$WORK/t2" | awk -v s="$side" '{ m = $2 > $4 ? $2 : $4; print s, $1 + $3, m }' >>"$WORK/times"
	done
done
label=""
[ -n "${PDC_AB_FLAGS:-}" ] && label=" (run ${PDC_AB_FLAGS}$([ "$dedup" = 1 ] && echo ', then dedup'))"
awk -v rev="$REV" -v mb="$MB" -v flags="$label" '
	{ t[$1] = t[$1] " " $2; if ($3 > rss[$1]) rss[$1] = $3 }
	function stats(side,   a, n, i, j, x) {
		n = split(substr(t[side], 2), a, " ")
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		best[side] = a[1]; med[side] = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2; runs = n
	}
	END {
		stats("a"); stats("b")
		printf "| side | runs | fastest s | median s | peak RSS MiB |\n|---|---:|---:|---:|---:|\n"
		printf "| A (%s) | %d | %.2f | %.2f | %d |\n", rev, runs, best["a"], med["a"], rss["a"] / 1024
		printf "| B (working tree) | %d | %.2f | %.2f | %d |\n", runs, best["b"], med["b"], rss["b"] / 1024
		printf "\nB/A on %s MB%s: fastest %.3f, median %.3f\n", mb, flags, best["b"] / best["a"], med["b"] / med["a"]
	}' "$WORK/times"
