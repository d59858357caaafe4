#!/usr/bin/env bash
# compare.sh: the paper's Table 2 on our planted corpus: every signature
# configuration run by pdc on the same corpus, scored by pdc eval.
#
#   scripts/compare.sh [--runs N] [--seed S] [--distractors D] [-- PDC_RUN_FLAGS...]
#
# pdc is built once from this tree (so a run sees the algorithms as they are
# now), the corpus is prepared (and cached) by scripts/eval.sh --prepare, and
# each configuration below runs through scripts/eval.sh --json with
# PDC_RUN_FLAGS appended. A configuration whose run fails (say, a flag this
# build does not have yet) gets a row with the error instead of numbers.
#
# Prints three markdown tables: per configuration the span-level precision,
# recall and F1, the character-level precision over all detections and
# without natural reuse ("planted"), the natural reuse and false positive
# counts, plagdet, the `pdc run` wall time and the join counters
# (OUT/counters.tsv); then plagdet per edit class; then plagdet per language. Progress
# goes to stderr; $PDC_DATA as in scripts/eval.sh. PDC_COMPARE_CONFIGS, one
# flag set per line (an empty line for the defaults), replaces the list below.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}

# CONFIGS: one pdc run flag set per entry; the empty one is pdc's default.
# PDC_COMPARE_CONFIGS (one flag set per line) replaces the list.
CONFIGS=(
	""
	"--signature imatch"
	"--signature shingle --shingle-n 2"
	"--signature shingle --shingle-n 3"
	"--signature shingle --shingle-n 4"
	"--signature spotsig"
	"--signature words --tau 0.9"
	"--signature words --tau 0.7"
	"--signature words --tau 0.5"
)

if [ -n "${PDC_COMPARE_CONFIGS:-}" ]; then
	mapfile -t CONFIGS <<<"$PDC_COMPARE_CONFIGS"
fi

corpus_args=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs | --seed | --distractors)
		[ $# -ge 2 ] || { echo "compare.sh: $1 wants a value" >&2; exit 2; }
		corpus_args+=("$1" "$2")
		shift 2
		;;
	--) shift; break ;;
	-h | --help) sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	*) echo "compare.sh: unknown argument '$1' (pdc run flags go after --)" >&2; exit 2 ;;
	esac
done
extra=("$@")
command -v python3 >/dev/null || { echo "compare.sh: python3 not found" >&2; exit 1; }

mkdir -p "$DATA/tmp"
tmp=$(mktemp -d "$DATA/tmp/compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

(cd "$ROOT" && go build -o "$tmp/pdc" ./jobs/pdc) || { echo "compare.sh: go build pdc failed" >&2; exit 1; }
rev=$(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo unknown)
corpus=$("$ROOT/scripts/eval.sh" --prepare "${corpus_args[@]}")

i=0
for cfg in "${CONFIGS[@]}"; do
	i=$((i + 1))
	read -r -a flags <<<"$cfg"
	echo "compare.sh: [$i/${#CONFIGS[@]}] ${cfg:-(default)} ${extra[*]}" >&2
	if PDC_BIN=$tmp/pdc "$ROOT/scripts/eval.sh" --corpus "$corpus" --json --out "$tmp/out" \
		-- "${flags[@]}" "${extra[@]}" >"$tmp/res$i.json" 2>"$tmp/err$i.txt"; then
		:
	else
		rm -f "$tmp/res$i.json"
		grep -v '^eval.sh: pdc run' "$tmp/err$i.txt" | tail -n 3 >&2
	fi
done

python3 - "$tmp" "$corpus" "$rev" "${#CONFIGS[@]}" "${extra[*]}" "${CONFIGS[@]}" <<'PY'
import json, os, sys

tmp, corpus, rev, n, extra = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
configs = sys.argv[6:6 + n]
JOIN = ["join.candidates", "join.emitted", "join.pairs.verified"]

def name(cfg):
    s = cfg or "(default)"
    return s + (" " + extra if extra else "")

def error(i):
    try:
        with open(os.path.join(tmp, "err%d.txt" % i)) as f:
            lines = [l.strip() for l in f if l.strip() and not l.startswith("eval.sh: pdc run")]
    except OSError:
        return "failed"
    msg = next((l for l in reversed(lines) if l.startswith("pdc:")), lines[-1] if lines else "failed")
    return msg.replace("|", "\\|")

results = []  # (config, result or None, index)
for i, cfg in enumerate(configs, 1):
    try:
        with open(os.path.join(tmp, "res%d.json" % i)) as f:
            results.append((cfg, json.load(f), i))
    except OSError:
        results.append((cfg, None, i))

stats = ""
try:
    with open(os.path.join(corpus, "stats.txt")) as f:
        stats = f.read().strip()
except OSError:
    pass
print("corpus: %s  \npdc: %s  \n%s\n" % (corpus, rev, stats))

print("| config | spans | span P | span R | span F1 | prec | prec (planted) | natural | false pos | plagdet | time (s) | " + " | ".join(JOIN) + " |")
print("|---|" + "---:|" * (10 + len(JOIN)))
for cfg, r, i in results:
    if r is None:
        print("| `%s` | failed: %s |%s" % (name(cfg), error(i), " |" * (9 + len(JOIN))))
        continue
    e, c = r["eval"], r["counters"]
    o, pl = e["overall"], e["planted"]
    cells = [str(o["detections"]), "%.4f" % o["span_precision"], "%.4f" % o["span_recall"],
             "%.4f" % o["span_f1"], "%.4f" % o["precision"], "%.4f" % pl["precision"],
             str(e["natural_reuse"]), str(e["false_positives"]), "%.4f" % o["plagdet"], "%.2f" % r["seconds"]]
    cells += [str(c[k]) if k in c else "–" for k in JOIN]
    print("| `%s` | %s |" % (name(cfg), " | ".join(cells)))

classes = sorted({k for _, r, _ in results if r for k in r["eval"]["classes"]})
print("\nplagdet per class (char-level; span F1 in parentheses)\n")
print("| config | " + " | ".join(classes) + " | unmatched |")
print("|---|" + "---:|" * (len(classes) + 1))
for cfg, r, _ in results:
    if r is None:
        print("| `%s` | failed |%s" % (name(cfg), " |" * len(classes)))
        continue
    cl = r["eval"]["classes"]
    cells = ["%.4f (%.2f)" % (cl[k]["plagdet"], cl[k]["span_f1"]) if k in cl else "–" for k in classes]
    print("| `%s` | %s | %d |" % (name(cfg), " | ".join(cells), r["eval"]["unmatched"]))

langs = sorted({k for _, r, _ in results if r for k in r["eval"]["languages"]})
print("\nplagdet per language (all classes, natural reuse left out; recall in parentheses)\n")
print("| config | " + " | ".join(langs) + " |")
print("|---|" + "---:|" * len(langs))
for cfg, r, _ in results:
    if r is None:
        print("| `%s` | failed |%s" % (name(cfg), " |" * (len(langs) - 1)))
        continue
    la = r["eval"]["languages"]
    cells = ["%.4f (%.4f)" % (la[k]["plagdet"], la[k]["recall"]) if k in la else "–" for k in langs]
    print("| `%s` | %s |" % (name(cfg), " | ".join(cells)))
PY
