#!/usr/bin/env bash
# releases.sh: two releases of one manual side by side in one tree, as a
# documentation mirror keeps them: are the pages that stayed the same
# grouped with their other release by `pdc pairs --groups`, with defaults?
#
#   scripts/releases.sh [--check] [--html-only]
#
# Debian's git-doc of bookworm (git 2.39, scripts/debs.sh) and of trixie
# (git 2.47, fetched with a private apt state: no change to the system's
# sources) are copied as git-2.39/ and git-2.47/ of one tree, as shipped
# (HTML pages with their asciidoc .txt sources; --html-only: the pages
# only). Then `pdc run --clusters` and `pdc pairs --groups`, and an
# independent checker (scripts/releases.py: Python's html.parser and
# difflib, no pdc code) takes a page as a copy of its other release when
# each holds at least 0.9 of the other's words in order, and counts those
# grouped with it. --check fails under 0.95 (issue: trees and dumps).
# Cached in ${PDC_DATA:-~/.cache/pdc-data}.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
CHECK=0
HTML=0
for a in "$@"; do
	case $a in
	--check) CHECK=1 ;;
	--html-only) HTML=1 ;;
	*) echo "usage: scripts/releases.sh [--check] [--html-only]" >&2; exit 2 ;;
	esac
done
die() {
	echo "releases.sh: $*" >&2
	exit 1
}
log() { echo "releases.sh: $*" >&2; }
# shellcheck source=debs.sh
. "$REPO/scripts/debs.sh"
command -v python3 >/dev/null || die "python3 not found (the checker is scripts/releases.py)"

old=$(unpack git-doc)/usr/share/doc/git-doc
new=$DATA/tree/git-doc-trixie
if [ ! -f "$new/.done" ]; then
	apt=$(mktemp -d)
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
	log "fetching trixie's git-doc"
	apt-get "${opts[@]}" update -qq >&2 || die "apt-get update of trixie failed (needs deb.debian.org)"
	(cd "$apt" && apt-get "${opts[@]}" download git-doc >&2) || die "apt-get download git-doc (trixie) failed"
	rm -rf "$new.tmp"
	mkdir -p "$new.tmp"
	dpkg-deb -x "$apt"/git-doc_*.deb "$new.tmp"
	touch "$new.tmp/.done"
	rm -rf "$new" "$apt"
	mv "$new.tmp" "$new"
fi
new=$new/usr/share/doc/git-doc

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for r in "2.39:$old" "2.47:$new"; do
	src=${r#*:}
	dst=$WORK/tree/git-${r%%:*}
	if [ "$HTML" = 1 ]; then
		(cd "$src" && find . -name '*.html' -print0 | while IFS= read -r -d '' f; do
			mkdir -p "$dst/$(dirname "$f")"
			cp "$f" "$dst/$f"
		done)
	else
		mkdir -p "$(dirname "$dst")"
		cp -rL "$src" "$dst"
	fi
done
(cd "$REPO" && scripts/build.sh >/dev/null)
"$REPO/bin/pdc" run --input "$WORK/tree" --output "$WORK/out" --clusters --quiet >&2
"$REPO/bin/pdc" pairs "$WORK/out" --groups >"$WORK/groups.tsv"
result=$(python3 "$REPO/scripts/releases.py" "$WORK/tree" git-2.39 git-2.47 "$WORK/groups.tsv")
echo "$result"
if [ "$CHECK" = 1 ]; then
	share=$(echo "$result" | sed -n 's/.*grouped with their copy [0-9]* (\([0-9.]*\)).*/\1/p')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.95) }' || die "grouped share $share < 0.95"
fi
