#!/usr/bin/env bash
# hadoop-cluster.sh: a real single-machine Hadoop (HDFS + YARN + MapReduce + Streaming) for
# pdc's integration tests, run from the published Maven jars in one JVM
# (org.apache.hadoop.mapreduce.MiniHadoopClusterManager). No Hadoop tarball, no Docker.
#
# usage: scripts/hadoop-cluster.sh start|stop|status|env|fetch|fs ARGS...|logs APPID
#
#   fetch    download the jars (scripts/hadoop/pom.xml) into $PDC_HADOOP_JARS if missing
#   start    fetch, start the cluster, wait until HDFS is out of safe mode and YARN has a
#            node; a no-op when it is already running
#   stop     stop the cluster (by its pid, children first) and delete its data
#   status   exit 0 when the cluster is up
#   env      print `export HADOOP_CONF_DIR=... PDC_HADOOP_CONF_DIR=... PDC_HADOOP_JARS=...`
#   fs       run the Hadoop shell (`hdfs dfs`) against the cluster: fs -ls /
#   logs     print the aggregated logs of a YARN application (yarn logs -applicationId)
#
# Environment:
#   PDC_HADOOP_HOME      cache root (default $HOME/.cache/pdc-hadoop)
#   PDC_HADOOP_JARS      jar dir (default $PDC_HADOOP_HOME/jars)
#   PDC_HADOOP_WORK      cluster dir: conf/, data/, pid, log (default $PDC_HADOOP_HOME/cluster)
#   PDC_HDFS_BLOCK_SIZE  HDFS block size in bytes (default 134217728); small values (>= 4096,
#                        a multiple of 512) make multi-block files cheap in tests
#   PDC_HADOOP_NM_MB     NodeManager memory (default 8192); each task container takes 512 MB
#   PDC_HADOOP_TIMEOUT   seconds to wait for start (default 300)
#
# Ports (all must be free; RPC and web ports bind to localhost): HDFS 9000 (RPC) 9870 (web),
# YARN 8032 8030 8031 8033 8088, job history 10020 10033 19888. Datanode and NodeManager
# ports are ephemeral.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POM=$ROOT/scripts/hadoop/pom.xml
HOME_DIR=${PDC_HADOOP_HOME:-${HOME}/.cache/pdc-hadoop}
JARS=${PDC_HADOOP_JARS:-$HOME_DIR/jars}
W=${PDC_HADOOP_WORK:-$HOME_DIR/cluster}
CONF=$W/conf
PIDFILE=$W/cluster.pid
LOG=$W/minicluster.log
BLOCK=${PDC_HDFS_BLOCK_SIZE:-134217728}
NM_MB=${PDC_HADOOP_NM_MB:-8192}
TIMEOUT=${PDC_HADOOP_TIMEOUT:-300}
NN_PORT=9000
PORTS="9000 9870 8032 8030 8031 8033 8088 10020 10033 19888"
MAIN=org.apache.hadoop.mapreduce.MiniHadoopClusterManager

NAME=hadoop-cluster
# shellcheck source=hadoop/common.sh
. "$ROOT/scripts/hadoop/common.sh"

fetch() { fetch_jars; }

check_ports() {
	local p busy=""
	for p in $PORTS; do
		if port_taken "$p"; then busy="$busy $p"; fi
	done
	[ -z "$busy" ] || die "port(s)$busy already in use; stop whatever listens there (ss -ltnp)"
}

prop() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }

xmlfile() {
	local f=$1
	shift
	{
		echo '<?xml version="1.0"?>'
		echo '<configuration>'
		while [ $# -gt 1 ]; do prop "$1" "$2"; shift 2; done
		echo '</configuration>'
	} >"$CONF/$f"
}

# write_conf writes a small client configuration usable as HADOOP_CONF_DIR by Java tools
# (put the dir first on the classpath) and by colinmarc/hdfs (which reads core-site.xml,
# hdfs-site.xml and mapred-site.xml; a full dump would add an empty namenode address).
write_conf() {
	mkdir -p "$CONF"
	xmlfile core-site.xml fs.defaultFS "hdfs://localhost:$NN_PORT"
	xmlfile hdfs-site.xml dfs.replication 1 dfs.blocksize "$BLOCK"
	xmlfile yarn-site.xml yarn.resourcemanager.hostname localhost \
		yarn.resourcemanager.address localhost:8032
	xmlfile mapred-site.xml mapreduce.framework.name yarn \
		mapreduce.application.classpath "$JARS/*" \
		mapreduce.jobhistory.address localhost:10020 \
		yarn.app.mapreduce.am.staging-dir /tmp/hadoop-yarn/staging \
		yarn.app.mapreduce.am.command-opts "-Xmx400m $JPMS" \
		mapreduce.map.java.opts "-Xmx400m $JPMS" \
		mapreduce.reduce.java.opts "-Xmx400m $JPMS"
	client_log4j "$CONF"
}

client() { # client CLASS ARGS...: a Hadoop client JVM on the cluster's conf
	local cls=$1
	shift
	java $JPMS -cp "$CONF:$JARS/*" "$cls" "$@"
}

wait_ready() {
	local deadline=$((SECONDS + TIMEOUT)) pid=$1
	say "waiting for the cluster (log: $LOG)"
	until [ -s "$W/details.json" ]; do
		kill -0 "$pid" 2>/dev/null || { tail -n 30 "$LOG" >&2; die "cluster JVM exited during start"; }
		[ $SECONDS -lt $deadline ] || die "timed out after ${TIMEOUT}s waiting for $W/details.json"
		sleep 1
	done
	client org.apache.hadoop.hdfs.tools.DFSAdmin -safemode wait >/dev/null ||
		die "HDFS did not leave safe mode"
	client org.apache.hadoop.fs.FsShell -ls / >/dev/null || die "hdfs dfs -ls / failed"
	# The RM REST API answers 404 in the minicluster; its /jmx servlet works.
	until curl -fsS "http://localhost:8088/jmx" 2>/dev/null |
		grep '"NumActiveNMs" : [1-9]' >/dev/null; do
		[ $SECONDS -lt $deadline ] || die "timed out waiting for a YARN NodeManager"
		sleep 1
	done
}

start() {
	local t0=$SECONDS pid min
	if running; then
		say "already running (pid $(cat "$PIDFILE"))"
		return 0
	fi
	fetch
	need curl "used to poll the ResourceManager"
	check_ports
	rm -rf "$W/data" "$W/details.json" "$PIDFILE"
	mkdir -p "$W/data"
	write_conf
	min=$((BLOCK < 1048576 ? BLOCK : 1048576))
	JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
	export JAVA_HOME # task containers run $JAVA_HOME/bin/java
	cd "$W"
	# setsid: the JVM leads its own session, so the caller's terminal signals do not reach it.
	# Containers inherit the JVM's environment: another cluster's HADOOP_CONF_DIR there
	# would point the MapReduce application master at that cluster.
	env -u HADOOP_CONF_DIR -u PDC_HADOOP_CONF_DIR -u PDC_SECURE_CONF_DIR -u KRB5CCNAME -u KRB5_CONFIG \
		setsid java $JPMS -Xmx2g -Dtest.build.data="$W/data" -cp "$JARS/*" "$MAIN" \
		-format -nnport "$NN_PORT" -nnhttpport 9870 -rmport 8032 -jhsport 10020 \
		-datanodes 1 -nodemanagers 1 \
		-writeConfig "$W/minicluster.xml" -writeDetails "$W/details.json" \
		-D mapreduce.framework.name=yarn -D yarn.is.minicluster=true \
		-D yarn.resourcemanager.hostname=localhost \
		-D mapreduce.jobhistory.admin.address=localhost:10033 \
		-D mapreduce.jobhistory.webapp.address=localhost:19888 \
		-D yarn.app.mapreduce.am.staging-dir=/tmp/hadoop-yarn/staging \
		-D dfs.blocksize="$BLOCK" -D dfs.namenode.fs-limits.min-block-size="$min" \
		-D dfs.safemode.extension=0 \
		-D yarn.minicluster.yarn.nodemanager.resource.memory-mb="$NM_MB" \
		-D yarn.nodemanager.resource.memory-mb="$NM_MB" \
		-D yarn.scheduler.minimum-allocation-mb=256 \
		-D yarn.scheduler.capacity.maximum-am-resource-percent=0.5 \
		-D yarn.nodemanager.vmem-check-enabled=false \
		-D yarn.log-aggregation-enable=true \
		-D yarn.app.mapreduce.am.resource.mb=512 \
		-D mapreduce.map.memory.mb=512 -D mapreduce.reduce.memory.mb=512 \
		-D "yarn.app.mapreduce.am.command-opts=-Xmx400m $JPMS" \
		-D "mapreduce.map.java.opts=-Xmx400m $JPMS" \
		-D "mapreduce.reduce.java.opts=-Xmx400m $JPMS" \
		>"$LOG" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$PIDFILE"
	wait_ready "$pid"
	say "up in $((SECONDS - t0))s (pid $pid); run: eval \"\$($0 env)\""
}

stop() {
	local pid
	if ! running; then
		say "not running"
		rm -f "$PIDFILE"
		return 0
	fi
	pid=$(cat "$PIDFILE")
	kill_cluster "$pid"
	rm -rf "$PIDFILE" "$W/details.json" "$W/data"
	say "stopped (pid $pid)"
}

status() {
	if running && [ -s "$W/details.json" ] && port_taken "$NN_PORT"; then
		echo "running: pid $(cat "$PIDFILE"), HADOOP_CONF_DIR=$CONF"
		return 0
	fi
	echo "not running"
	return 1
}

env_lines() {
	echo "export HADOOP_CONF_DIR=$CONF"
	echo "export PDC_HADOOP_CONF_DIR=$CONF"
	echo "export PDC_HADOOP_JARS=$JARS"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env) env_lines ;;
fetch) fetch ;;
fs)
	shift
	client org.apache.hadoop.fs.FsShell "$@"
	;;
logs)
	[ $# -eq 2 ] || die "usage: $0 logs APPLICATION_ID"
	client org.apache.hadoop.yarn.client.cli.LogsCLI -applicationId "$2"
	;;
*)
	echo "usage: $0 start|stop|status|env|fetch|fs ARGS...|logs APPID" >&2
	exit 2
	;;
esac
