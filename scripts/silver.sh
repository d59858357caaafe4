#!/usr/bin/env bash
# silver.sh measures template noise on real pages whose content is known: the
# Python manual's HTML pages (Debian python3.11-doc, ~530 pages) each ship their reST source in
# html/_sources/PAGE.rst.txt. The source is the page's content; everything else on the page is
# template. pdc runs on the pages (without _sources/) and scripts/silver scores what it reports:
# silver pairs (pages whose sources share a run of >= 3 sentences) found, and reported pairs
# whose passages lie outside both pages' sources (template-only). See docs/quality-templates.md.
#
#   scripts/silver.sh [--with-urls | --dump] [--with-others] [--with-sources] [--check] [-- PDC_RUN_FLAGS...]
#
#   --with-urls      give pdc JSON Lines with url https://docs.python.org/3.11/PATH (same ids),
#                    so that its per-site template filter (--max-site-df) applies
#   --dump           give pdc JSON Lines without url or site: a dump whose sites are unknown
#   --with-others    add go-readability's test pages (pages of many other sites, ids
#                    others/NAME.html, without url; each one's content is its expected.html),
#                    in JSON Lines
#   --with-sources   add the sources as text documents (id _sources/PATH.rst.txt): page/source
#                    pairs are then expected and reported apart
#   --check          exit 1 unless silver recall >= 0.95 and template-only share <= 0.05
#   -- FLAGS         more `pdc run` flags (defaults otherwise)
#
# The package is fetched as scripts/corpus.sh does (apt-get download, dpkg-deb -x, the same
# cache: ${PDC_DATA:-~/.cache/pdc-data}/debs and tree/python3.11-doc). pdc is $PDC, or built
# from this tree. Work files (input, pdc output, spans.jsonl, report.txt, sample.txt: 50
# reported pairs with their passages, to check by hand) go to
# ${PDC_SILVER_WORK:-$PDC_DATA/silver}/MODE, MODE = pages|urls[-sources].
set -euo pipefail
shopt -s inherit_errexit

DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKG=python3.11-doc
HTML_IN_PKG=usr/share/doc/python3.11/html
URL_BASE=https://docs.python.org/3.11/

die() {
	echo "silver.sh: $*" >&2
	exit 1
}

log() {
	echo "silver.sh: $*" >&2
}

# shellcheck source=debs.sh
. "$REPO/scripts/debs.sh"

usage() {
	echo "usage: scripts/silver.sh [--with-urls | --dump] [--with-others] [--with-sources] [--check] [-- PDC_RUN_FLAGS...]" >&2
	exit 2
}

# now prints the time in seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }

urls=false sources=false dump=false others=false check=()
while [ $# -gt 0 ]; do
	case $1 in
	--with-urls) urls=true ;;
	--dump) dump=true ;;
	--with-others) others=true ;;
	--with-sources) sources=true ;;
	--check) check=(-check) ;;
	--) shift; break ;;
	*) usage ;;
	esac
	shift
done
pdc_flags=("$@")

$urls && $dump && usage
$others && ! $urls && ! $dump && die "--with-others needs --dump or --with-urls (the pages go in JSON Lines, where the tree is no site)"
mode=pages
$urls && mode=urls
$dump && mode=dump
$others && mode=$mode-others
$sources && mode=$mode-sources
work=${PDC_SILVER_WORK:-$DATA/silver}/$mode
mkdir -p "$work"

tree=$(unpack "$PKG") || exit 1
html=$tree/$HTML_IN_PKG
[ -d "$html/_sources" ] || die "$html has no _sources/"

bin=${PDC_SILVER_WORK:-$DATA/silver}/bin
mkdir -p "$bin"
(cd "$REPO" && go build -o "$bin/silver" ./scripts/silver) || die "build scripts/silver failed"
pdc=${PDC:-}
label="$pdc (\$PDC)"
if [ -z "$pdc" ]; then
	tags=(-tags nomainextract)
	case " ${pdc_flags[*]-} " in *" --extract"*) tags=() ;; esac
	(cd "$REPO" && CGO_ENABLED=0 go build "${tags[@]}" -o "$bin/pdc" ./jobs/pdc) || die "build pdc failed"
	pdc=$bin/pdc
	label="built from the tree at $(cd "$REPO" && git describe --always --dirty 2>/dev/null || echo '?')"
fi

# The go-readability version whose test pages are the other sites (as scripts/contentcheck).
READABILITY=github.com/go-shiori/go-readability@v0.0.0-20241012063810-92284fa8a71f
prep=(-html "$html" -out "$work/input")
score_others=()
$urls && prep+=(-url-base "$URL_BASE")
$dump && prep+=(-dump)
$sources && prep+=(-sources)
if $others; then
	dir=$(cd "$REPO" && go mod download -json "$READABILITY" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$dir/test-pages" ] || die "go mod download $READABILITY gave no test-pages/"
	prep+=(-others "$dir/test-pages")
	score_others=(-others "$dir/test-pages")
fi
input=$("$bin/silver" prepare "${prep[@]}")

run=("$pdc" run --input "$input" --output "$work/out" --overwrite --quiet ${pdc_flags[@]+"${pdc_flags[@]}"})
log "${run[*]}"
start=$(now)
"${run[@]}" 2>"$work/pdc.log" || { cat "$work/pdc.log" >&2; die "pdc run failed"; }
secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
"$pdc" spans "$work/out" --text --format jsonl --input "$input" >"$work/spans.jsonl" ||
	die "pdc spans failed"

score=("$bin/silver" score -html "$html" ${score_others[@]+"${score_others[@]}"} -spans "$work/spans.jsonl" -sample "$work/sample.txt" ${check[@]+"${check[@]}"})
status=0
{
	echo "mode                           $mode"
	echo "pdc                            $label; flags: ${pdc_flags[*]-(defaults)}"
	echo "pdc run                        $secs s: $(tail -n 1 "$work/pdc.log")"
	"${score[@]}"
} | tee "$work/report.txt" || status=$?
log "report in $work/report.txt, sample in $work/sample.txt"
exit "$status"
