#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module for a time budget each and
# fails if any of them finds a crash.
#
#   scripts/fuzz.sh [SECONDS]        (default 60 per target)
#
# Targets are found as `func FuzzX` in *_test.go files. Each runs alone
# (`go test -run '^$' -fuzz '^FuzzX$' -fuzztime Ns -parallel
# ${PDC_FUZZ_PARALLEL:-1}`), from its committed seed corpus
# (testdata/fuzz/FuzzX/) and the cache of earlier runs. A crash makes go
# test write the input to testdata/fuzz/FuzzX/ of the package: commit it,
# and it becomes a seed that `go test ./...` replays. Prints a markdown
# table (package, target, seconds, executions, result), the one in
# docs/fuzzing.md.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${1:-60}
case $SECS in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS]" >&2; exit 2 ;; esac
cd "$ROOT"
failed=0
echo "| package | target | seconds | executions | result |"
echo "|---|---|---:|---:|---|"
while IFS=: read -r file _ rest; do
	target=${rest#func }
	target=${target%%(*}
	pkg=./$(dirname "${file#./}")
	log=$(mktemp)
	run() { go test -run '^$' -fuzz "^${target}\$" -fuzztime "${SECS}s" -parallel "${PDC_FUZZ_PARALLEL:-1}" "$pkg" >"$log" 2>&1; }
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
	echo "| ${pkg#./} | $target | $SECS | $execs | $result |"
	rm -f "$log"
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(' . | sort)
exit $failed
