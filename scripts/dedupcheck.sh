#!/usr/bin/env bash
# dedupcheck.sh: are pdc's passage clusters and pdc dedup's cuts true of the
# text on real documentation trees? For the sample and each Debian
# documentation tree it runs, with pdc built from this tree (and from REV
# with --base REV, in a git worktree, for the comparison),
#
#   pdc run --input TREE --output OUT --clusters;  pdc dedup OUT --output CLEAN
#
# and `go run ./scripts/dedupcheck` (its package comment defines every
# column), printing one markdown row per tree:
#
#   scripts/dedupcheck.sh [--check] [--base REV] [TREE ...]
#
# TREEs: sample git python django postgres (the default: all), from the
# packages git-doc, python3.11-doc, python-django-doc, postgresql-doc-15,
# cached in ${PDC_DATA:-~/.cache/pdc-data}/tree (scripts/debs.sh). With
# --check it fails when a bound of docs/quality.md is broken.
set -euo pipefail
shopt -s inherit_errexit

# It runs on the local disk: with a cluster's HADOOP_CONF_DIR in the
# environment, pdc would take a new absolute --output for an HDFS path.
unset HADOOP_CONF_DIR

DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() {
	echo "dedupcheck.sh: $*" >&2
	exit 1
}
log() { echo "dedupcheck.sh: $*" >&2; }
# shellcheck source=debs.sh
. "$REPO/scripts/debs.sh"

check="" base=""
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=--fail ;;
	--base) base=${2:?--base needs a revision}; shift ;;
	-*) die "unknown flag $1 (usage: scripts/dedupcheck.sh [--check] [--base REV] [TREE ...])" ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- sample git python django postgres

# tree NAME prints the input of a tree.
tree() {
	case $1 in
	sample) echo "$REPO/testdata/sample/pages.jsonl" ;;
	git) echo "$(unpack git-doc)/usr/share/doc/git-doc" ;;
	python) echo "$(unpack python3.11-doc)/usr/share/doc/python3.11/html" ;;
	django) echo "$(unpack python-django-doc)/usr/share/doc/python-django-doc/html" ;;
	postgres) echo "$(unpack postgresql-doc-15)/usr/share/doc/postgresql-doc-15/html" ;;
	*) die "unknown tree $1 (want sample, git, python, django or postgres)" ;;
	esac
}

work=$(mktemp -d)
trap 'git -C "$REPO" worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
(cd "$REPO" && go build -o "$work/pdc" ./jobs/pdc && go build -o "$work/dedupcheck" ./scripts/dedupcheck)
if [ -n "$base" ]; then
	git -C "$REPO" worktree add --detach "$work/base-src" "$base" >/dev/null 2>&1 || die "no revision $base"
	(cd "$work/base-src" && go build -o "$work/pdc-base" ./jobs/pdc)
fi

echo "| tree | documents | clusters | mixed | cut ranges | cut chars | kept range under 50% | chars under 80% | kept range over 1.5x | identical groups | identical all cut | identical under 0.99 | base sound chars still cut | of those with a kept range half as long | chars cut over base's sound | kept range lacks a name | own text lost | run + dedup s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
status=0
for name in "$@"; do
	in=$(tree "$name")
	out=$work/$name clean=$work/$name-clean
	t0=$(date +%s%N)
	"$work/pdc" run --input "$in" --output "$out" --clusters --overwrite --quiet 2>"$work/$name.log" || die "pdc run $name: $(tail -1 "$work/$name.log")"
	"$work/pdc" dedup "$out" --output "$clean" --overwrite 2>>"$work/$name.log" || die "pdc dedup $name: $(tail -1 "$work/$name.log")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	docs=$(awk -F'\t' '$1 == "parse.docs.read" {print $2}' "$out/counters.tsv")
	baseflag=()
	if [ -n "$base" ]; then
		"$work/pdc-base" run --input "$in" --output "$out-base" --clusters --overwrite --quiet 2>/dev/null || die "base run $name failed"
		"$work/pdc-base" dedup "$out-base" --output "$clean-base" --overwrite 2>/dev/null || die "base dedup $name failed"
		baseflag=(--base "$clean-base")
	fi
	"$work/pdc" pairs "$out" >"$work/$name.pairs" 2>>"$work/$name.log" || die "pdc pairs $name: $(tail -1 "$work/$name.log")"
	row=$("$work/dedupcheck" --run "$out" --clean "$clean" --pairs "$work/$name.pairs" "${baseflag[@]}" $check) || status=1
	IFS=$'\t' read -r cut chars u50 u80 c80 wide clusters mixed ident identlost identlow ret retfit vol names lost <<<"$row"
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d.%03d |\n' \
		"$name" "${docs:-?}" "$clusters" "$mixed" "$cut" "$chars" "$u50" "$c80" "$wide" "$ident" "$identlost" "$identlow" "$ret" "$retfit" "$vol" "$names" "$lost" $((ms / 1000)) $((ms % 1000))
done
exit $status
