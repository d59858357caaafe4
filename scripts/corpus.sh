#!/usr/bin/env bash
# corpus.sh builds pdc input corpora (JSONL, one {"id","url","html"} object per line) from the
# real HTML shipped in Debian documentation packages.
#
#   scripts/corpus.sh bench OUT.jsonl [MB]   benchmark corpus of at least MB (default 100) MB
#   scripts/corpus.sh sample [OUT.jsonl]     rebuild testdata/sample/pages.jsonl (the default OUT)
#
# Sources, in this order: rust-doc, openjdk-17-doc, postgresql-doc-15, python3.11-doc (or the
# packages listed in PDC_CORPUS_SOURCES, from these and debian-handbook). Each is
# fetched with `apt-get download` (no root needed; `apt-get update` is tried once if that fails)
# and unpacked with `dpkg-deb -x` into ${PDC_DATA:-$HOME/.cache/pdc-data} (never into the repo):
#   $PDC_DATA/debs/PKG_VERSION_all.deb   the downloaded package (drop one here by hand offline)
#   $PDC_DATA/tree/PKG/                  the unpacked package; tree/PKG/.version holds its version
#
# Pages: every regular *.html file under the package's HTML root, sorted by path (bytewise),
# minus meta-refresh redirect stubs (< 4 KB). The HTML is copied byte for byte (all sources are
# UTF-8; a page that is not is skipped with a warning). The bench corpus takes pages in that
# order until the output reaches MB * 1,000,000 bytes, so a smaller corpus is a prefix of a
# larger one. PDC_CORPUS_ORDER=hash orders pages within each source by SHA-1 of the id instead
# (a uniform sample; still a prefix). Ids are SOURCE/PATH (rust/std/option/index.html), urls the
# matching upstream page.
set -euo pipefail
shopt -s inherit_errexit

DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_PKGS=${PDC_CORPUS_SOURCES:-rust-doc openjdk-17-doc postgresql-doc-15 python3.11-doc}

usage() {
	cat >&2 <<'USAGE'
usage: scripts/corpus.sh bench OUT.jsonl [MB]
       scripts/corpus.sh sample [OUT.jsonl]
Downloads cache in ${PDC_DATA:-$HOME/.cache/pdc-data}.
USAGE
	exit 2
}

die() {
	echo "corpus.sh: $*" >&2
	exit 1
}

log() {
	echo "corpus.sh: $*" >&2
}

# shellcheck source=debs.sh
. "$HERE/debs.sh"

# write_jsonl runs the embedded Python that lists, filters and writes the pages.
write_jsonl() {
	python3 - "$@" <<'PY'
import hashlib, json, os, re, sys

# package: (id prefix, HTML root inside the package, url base; {v} = upstream version)
SOURCES = {
    "rust-doc": ("rust", "usr/share/doc/rust-doc/html", "https://doc.rust-lang.org/{v}/"),
    "openjdk-17-doc": ("openjdk", "usr/share/doc/openjdk-17-jre-headless/api",
                       "https://docs.oracle.com/en/java/javase/17/docs/api/"),
    "postgresql-doc-15": ("postgresql", "usr/share/doc/postgresql-doc-15/html",
                          "https://www.postgresql.org/docs/15/"),
    "python3.11-doc": ("python", "usr/share/doc/python3.11/html", "https://docs.python.org/3.11/"),
    "debian-handbook": ("debian-handbook", "usr/share/doc/debian-handbook/html",
                        "https://debian-handbook.info/browse/"),
}

# The pages of testdata/sample/pages.jsonl, in file order (see testdata/sample/README.md).
SAMPLE = [
    ("rust-doc", p) for p in [
        "std/option/index.html", "core/option/index.html",
        "std/result/index.html", "core/result/index.html",
        "std/iter/index.html", "core/iter/index.html",
        "std/fmt/index.html", "alloc/fmt/index.html",
        "std/rc/index.html", "alloc/rc/index.html",
        "std/vec/index.html", "alloc/vec/index.html",
        "std/ffi/index.html", "alloc/ffi/index.html",
        "std/arch/index.html", "core/arch/index.html",
        "book/ch12-04-testing-the-librarys-functionality.html",
        "book/ch12-05-working-with-environment-variables.html",
        "book/ch13-03-improving-our-io-project.html",
        "book/ch04-01-what-is-ownership.html",
        "nomicon/races.html",
        "reference/items/functions.html",
    ]
] + [
    ("python3.11-doc", p) for p in [
        "library/email.compat32-message.html", "library/email.message.html",
        "library/bz2.html", "library/lzma.html",
        "library/cmath.html", "library/math.html",
        "tutorial/introduction.html",
        "howto/sorting.html",
        "faq/general.html",
    ]
]

REDIRECT = re.compile(rb"http-equiv\s*=\s*[\"']?refresh", re.I)

def log(msg):
    print("corpus.sh: " + msg, file=sys.stderr, flush=True)

def source(pkg, tree):
    """Returns (id prefix, HTML root, url base, package version) of an unpacked package."""
    if pkg not in SOURCES:
        sys.exit("corpus.sh: unknown source package %s (known: %s)" % (pkg, " ".join(sorted(SOURCES))))
    prefix, root, url = SOURCES[pkg]
    with open(os.path.join(tree, ".version")) as f:
        version = f.read().strip()
    root = os.path.join(tree, root)
    if not os.path.isdir(root):
        sys.exit("corpus.sh: %s %s has no %s" % (pkg, version, root))
    return prefix, root, url.format(v=re.split(r"[+~-]", version)[0]), version

def pages(root):
    """Returns the paths of the regular .html files under root, relative, sorted bytewise."""
    out = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            if name.endswith(".html") and not os.path.islink(path) and os.path.isfile(path):
                out.append(os.path.relpath(path, root))
    out.sort(key=os.fsencode)
    return out

def record(prefix, root, base, rel):
    """Returns the JSONL line (bytes) of one page, or None for redirect stubs and non-UTF-8."""
    with open(os.path.join(root, rel), "rb") as f:
        raw = f.read()
    if len(raw) < 4096 and REDIRECT.search(raw):
        return None
    try:
        html = raw.decode("utf-8")
    except UnicodeDecodeError:
        log("skip %s/%s: not UTF-8" % (prefix, rel))
        return None
    doc = {"id": prefix + "/" + rel, "url": base + rel, "html": html}
    return (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8")

def bench(out, target, nbytes, ndocs, pkg, tree):
    prefix, root, base, version = source(pkg, tree)
    rels = pages(root)
    if os.environ.get("PDC_CORPUS_ORDER", "path") == "hash":
        rels.sort(key=lambda r: hashlib.sha1((prefix + "/" + r).encode()).digest())
    log("%s %s: %d .html files" % (pkg, version, len(rels)))
    step = 10 * 1000 * 1000
    with open(out, "ab") as f:
        for rel in rels:
            if nbytes >= target:
                break
            line = record(prefix, root, base, rel)
            if line is None:
                continue
            f.write(line)
            if (nbytes + len(line)) // step > nbytes // step:
                log("%d MB, %d docs" % ((nbytes + len(line)) // 1000000, ndocs + 1))
            nbytes += len(line)
            ndocs += 1
    print(nbytes, ndocs)

def sample(out, trees):
    srcs = {pkg: source(pkg, tree) for pkg, tree in trees.items()}
    for pkg, (_, _, _, version) in sorted(srcs.items()):
        log("%s %s" % (pkg, version))
    nbytes = 0
    with open(out + ".tmp", "wb") as f:
        for pkg, rel in SAMPLE:
            prefix, root, base, _ = srcs[pkg]
            line = record(prefix, root, base, rel)
            if line is None:
                sys.exit("corpus.sh: sample page %s/%s is a redirect or not UTF-8" % (prefix, rel))
            f.write(line)
            nbytes += len(line)
    os.replace(out + ".tmp", out)
    log("wrote %s: %d bytes, %d docs" % (out, nbytes, len(SAMPLE)))

if sys.argv[1] == "bench":
    bench(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7])
else:
    sample(sys.argv[2], dict(zip(sys.argv[3::2], sys.argv[4::2])))
PY
}

command -v python3 >/dev/null || die "python3 not found: it writes the JSONL"
[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
bench)
	[ $# -ge 1 ] && [ $# -le 2 ] || usage
	out=$1
	mb=${2:-100}
	case $mb in '' | *[!0-9]* | 0) die "MB must be a positive integer, not '$mb'" ;; esac
	target=$((mb * 1000000))
	tmp=$out.tmp
	trap 'rm -f "$tmp"' EXIT
	mkdir -p "$(dirname "$out")" || die "cannot create the directory of $out"
	: >"$tmp" || die "cannot write $tmp"
	start=$(date +%s)
	bytes=0 docs=0
	for pkg in $BENCH_PKGS; do
		[ "$bytes" -lt "$target" ] || break
		tree=$(unpack "$pkg") || exit 1
		res=$(write_jsonl bench "$tmp" "$target" "$bytes" "$docs" "$pkg" "$tree") || exit 1
		read -r bytes docs <<<"$res"
	done
	[ "$bytes" -ge "$target" ] ||
		die "all sources together give only $((bytes / 1000000)) MB ($docs docs), less than $mb MB"
	mv "$tmp" "$out"
	log "wrote $out: $bytes bytes ($((bytes / 1000000)) MB), $docs docs in $(($(date +%s) - start)) s"
	;;
sample)
	[ $# -le 1 ] || usage
	out=${1:-$HERE/../testdata/sample/pages.jsonl}
	rust=$(unpack rust-doc) || exit 1
	py=$(unpack python3.11-doc) || exit 1
	write_jsonl sample "$out" rust-doc "$rust" python3.11-doc "$py"
	;;
*)
	usage
	;;
esac
