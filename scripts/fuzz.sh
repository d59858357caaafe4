#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module for a time budget each and
# fails if any of them finds a crash.
#
#   scripts/fuzz.sh [SECONDS [PATTERN]]   (default 60 s per target, all targets)
#
# Targets are found as `func FuzzX` in *_test.go files; PATTERN (an
# extended regexp) keeps those whose "package target" matches it. Each
# runs alone (`go test -run '^$' -fuzz '^FuzzX$' -fuzztime Ns
# -fuzzminimizetime ${PDC_FUZZ_MINIMIZE:-5s} -parallel
# ${PDC_FUZZ_PARALLEL:-1}`), from its committed seed corpus
# (testdata/fuzz/FuzzX/) and the cache of earlier runs. A crash makes go
# test write the input to testdata/fuzz/FuzzX/ of the package: commit it,
# and it becomes a seed that `go test ./...` replays.
#
# A target fails when it crashes, when it stalls (go test's progress line,
# every 3 s, shows no new execution for ${PDC_FUZZ_STALL:-30} s, or half
# the budget if that is less: an input
# that hangs, or a minimization that never ends; go test's default of 60 s
# to minimize each new input shows as a stall), or when it runs fewer than
# ${PDC_FUZZ_MIN_RATE:-10} executions per second. The stall check is
# exact with one worker (the default): with several, one stuck worker hides
# behind the others. Targets whose inputs may hang or allocate without
# bound also run each input under lib/fuzzbound's deadline and allocation
# bound, which fails the input itself (and writes it to testdata/fuzz).
#
# Prints a markdown table (package, target, seconds, executions,
# executions per second, longest stretch without a new execution, result),
# the one in docs/robustness.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${1:-60}
PATTERN=${2:-.}
STALL=${PDC_FUZZ_STALL:-30}
[ "$STALL" -gt $((SECS / 2)) ] && STALL=$((SECS / 2)) # a short run stalls sooner
MIN_RATE=${PDC_FUZZ_MIN_RATE:-10}
case $SECS in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS [PATTERN]]" >&2; exit 2 ;; esac
cd "$ROOT"
failed=0
# stalled LOG prints the longest stretch, in seconds, over which go test's
# progress lines show no new execution (or, while gathering the baseline,
# no new seed completed), then the count it was stuck at.
stalled() {
	awk '
	function secs(t,   n, s, u) { # 1h2m3.5s
		s = 0
		while (match(t, /^[0-9.]+[hms]/)) {
			n = substr(t, 1, RLENGTH - 1); u = substr(t, RLENGTH, 1)
			s += n * (u == "h" ? 3600 : u == "m" ? 60 : 1)
			t = substr(t, RLENGTH + 1)
		}
		return s
	}
	/^fuzz: elapsed: / {
		t = $3; sub(/,$/, "", t); t = secs(t)
		if (match($0, /execs: [0-9]+/)) c = "e" substr($0, RSTART + 7, RLENGTH - 7)
		else if (match($0, /coverage: [0-9]+/)) c = "b" substr($0, RSTART + 10, RLENGTH - 10)
		else next
		if (c != last) { last = c; since = t }
		if (t - since > worst) { worst = t - since; at = c }
	}
	END { printf "%d %s\n", worst, substr(at, 2) + 0 }' "$1"
}
echo "| package | target | seconds | executions | per second | longest stall (s) | result |"
echo "|---|---|---:|---:|---:|---:|---|"
while IFS=: read -r file _ rest; do
	target=${rest#func }
	target=${target%%(*}
	pkg=./$(dirname "${file#./}")
	log=$(mktemp)
	echo "${pkg#./} $target" | grep -qE -- "$PATTERN" || continue
	run() { go test -run '^$' -fuzz "^${target}\$" -fuzztime "${SECS}s" -fuzzminimizetime "${PDC_FUZZ_MINIMIZE:-5s}" -parallel "${PDC_FUZZ_PARALLEL:-1}" "$pkg" >"$log" 2>&1; }
	ok=0
	for attempt in 1 2; do
		if run; then
			ok=1
			break
		fi
		# go test -fuzz can end a run that found nothing with "context
		# deadline exceeded" when a worker is slow to stop on a loaded
		# machine: no input is written then, and the target runs again.
		if grep -q 'Failing input written to' "$log" || ! grep -q 'context deadline exceeded' "$log"; then
			break
		fi
	done
	if [ "$ok" = 1 ]; then
		result=ok
		[ "$attempt" = 2 ] && result="ok (second run: the first ended on go test's deadline, no failing input)"
	else
		result="FAILED: $(grep -m1 -E 'Failing input written to|panic:|--- FAIL' "$log" | sed 's/|/\\|/g')"
		failed=1
		sed 's/^/    /' "$log" >&2
	fi
	execs=$(grep -oE 'execs: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo 0)
	rate=$((execs / SECS))
	read -r stall stuck < <(stalled "$log")
	if [ "$ok" = 1 ] && [ "$stall" -ge "$STALL" ]; then
		result="FAILED: stalled: no new execution for ${stall} s (at ${stuck}): an input that hangs, or a minimization that does not end"
		failed=1
	elif [ "$ok" = 1 ] && [ "$rate" -lt "$MIN_RATE" ]; then
		result="FAILED: slow: ${rate} executions per second, under ${MIN_RATE}"
		failed=1
	fi
	echo "| ${pkg#./} | $target | $SECS | $execs | $rate | $stall | $result |"
	rm -f "$log"
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | sort)
exit $failed
