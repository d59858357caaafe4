#!/usr/bin/env bash
# hadoop-jobs.sh: jobs per run and wall time on the pseudo-distributed
# cluster, pdc at another revision (A, optional) against this tree (B), on
# one start of the cluster, with the floor of a Streaming job measured on
# the same start.
#
#   PDC_HADOOP_WORK=/tmp/hc PDC_HDFS_BLOCK_SIZE=1048576 scripts/hadoop-cluster.sh start
#   eval "$(PDC_HADOOP_WORK=/tmp/hc scripts/hadoop-cluster.sh env)"
#   scripts/hadoop-jobs.sh [--before REV] [INPUT ...]
#
# INPUT defaults to the sample (testdata/sample) and the mirrors corpus
# at N = 1,000 (scripts/mirrors.sh builds it). For each input it runs
#   floor     a Streaming job, `cat` map and `cat` reduce (2 reducers),
#             over the input uploaded to HDFS: what any job costs here
#   then, for A (if --before) and B:
#   default   pdc run --hadoop --input INPUT --output hdfs:///pdc-jobs/...
#   clusters  the same with --clusters
#   dedup     pdc dedup of the --clusters run as jobs (CLEAN on HDFS)
# (PDC_JOBS_RUNS="clusters dedup" picks some) and prints one markdown row
# per run: jobs (the "job NAME: ... done in" lines pdc printed) and wall
# seconds. Nothing else should run on the
# machine meanwhile; times are comparable within one run of this script.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=${PDC_DATA:-$HOME/.cache/pdc-data}
before=
if [ "${1:-}" = --before ]; then
	before=${2:?--before needs a revision}
	shift 2
fi
[ -n "${PDC_HADOOP_CONF_DIR:-}" ] && [ -n "${PDC_HADOOP_JARS:-}" ] ||
	{ echo "hadoop-jobs.sh: start the cluster and eval \"\$(scripts/hadoop-cluster.sh env)\" first" >&2; exit 1; }
inputs=("$@")
if [ ${#inputs[@]} -eq 0 ]; then
	mirrors=$(ls "$DATA"/mirrors/mirrors-1000-s1-o5000-[0-9a-f]*.jsonl 2>/dev/null | head -n 1) ||
		true
	[ -n "$mirrors" ] || { echo "hadoop-jobs.sh: no mirrors corpus; run scripts/mirrors.sh 1000 first" >&2; exit 1; }
	inputs=("$ROOT/testdata/sample" "$mirrors")
fi
WORK=$(mktemp -d)
trap '[ -z "$before" ] || git -C "$ROOT" worktree remove --force "$WORK/a" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
sides=b
if [ -n "$before" ]; then
	git -C "$ROOT" worktree add --detach "$WORK/a" "$before" >/dev/null 2>&1
	(cd "$WORK/a" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/bin-a/pdc" ./jobs/pdc)
	sides="a b"
fi
# Named pdc: the tasks run `pdc map ...` (-files ships it under its name).
(cd "$ROOT" && CGO_ENABLED=0 go build -tags nomainextract -o "$WORK/bin-b/pdc" ./jobs/pdc)
hjava() { java -cp "$PDC_HADOOP_CONF_DIR:$PDC_HADOOP_JARS/*" "$@"; }
streaming=$(ls "$PDC_HADOOP_JARS"/hadoop-streaming-*.jar | head -n 1)
H=/pdc-jobs
"$WORK/bin-b/pdc" fs rm "hdfs://$H" >/dev/null 2>&1 || true

echo "| input | pdc | run | jobs | wall s |"
echo "|---|---|---|---:|---:|"
i=0
for in in "${inputs[@]}"; do
	i=$((i + 1))
	name=$(basename "$in")
	"$WORK/bin-b/pdc" fs put "$in" "hdfs://$H/in-$i" >/dev/null
	t0=$(date +%s.%N)
	hjava org.apache.hadoop.streaming.HadoopStreaming -D mapreduce.job.reduces=2 \
		-input "$H/in-$i" -output "$H/floor-$i" -mapper cat -reducer cat >"$WORK/floor.log" 2>&1 ||
		{ tail -n 20 "$WORK/floor.log" >&2; exit 1; }
	printf '| %s | - | floor (`cat` job) | 1 | %.1f |\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
	for side in $sides; do
		rev=$([ "$side" = a ] && echo "$before" || git -C "$ROOT" rev-parse --short HEAD)
		for run in ${PDC_JOBS_RUNS:-default clusters dedup}; do
			out="hdfs://$H/$side-$i-run"
			case $run in
			default) cmd=("$WORK/bin-$side/pdc" run --hadoop --input "$in" --output "$out-default") ;;
			clusters) cmd=("$WORK/bin-$side/pdc" run --hadoop --input "$in" --output "$out-clusters" --clusters) ;;
			dedup) cmd=("$WORK/bin-$side/pdc" dedup "$out-clusters" --output "hdfs://$H/$side-$i-clean" --jobs) ;;
			esac
			if [ "$run" = dedup ] && ! "$WORK/bin-$side/pdc" dedup --help 2>&1 | grep -q -- -jobs; then
				printf '| %s | %s | %s | 0 | (in the client, not timed) |\n' "$name" "$rev" "$run"
				continue
			fi
			t0=$(date +%s.%N)
			"${cmd[@]}" >"$WORK/run.log" 2>&1 || { tail -n 20 "$WORK/run.log" >&2; exit 1; }
			took=$(echo "$(date +%s.%N) - $t0" | bc)
			jobs=$(grep -c '^job .* done in' "$WORK/run.log" || true)
			printf '| %s | %s | %s | %d | %.1f |\n' "$name" "$rev" "$run" "$jobs" "$took"
		done
	done
done
