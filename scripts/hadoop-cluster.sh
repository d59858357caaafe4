#!/usr/bin/env bash
# hadoop-cluster.sh: a real single-machine Hadoop (HDFS + YARN + MapReduce + Streaming) for
# pdc's integration tests, run from the published Maven jars, each daemon its own JVM as
# Hadoop's pseudo-distributed setup runs them: a NameNode, three DataNodes (replication 2),
# a ResourceManager, two NodeManagers and the JobHistory server. No Hadoop tarball, no Docker.
#
# usage: scripts/hadoop-cluster.sh start|stop|status|env|fetch|fs ARGS...|dfsadmin ARGS...|logs APPID|pids|restart NAME
#
#   fetch    download the jars (scripts/hadoop/pom.xml) into $PDC_HADOOP_JARS if missing
#   start    fetch, format HDFS, start the daemons, wait until HDFS is out of safe mode with
#            its DataNodes live and YARN has its NodeManagers; a no-op when it runs
#   stop     stop the daemons (TERM, then KILL; task containers too) and delete the data
#   status   exit 0 when every daemon is up
#   env      print `export HADOOP_CONF_DIR=... PDC_HADOOP_CONF_DIR=... PDC_HADOOP_JARS=...`
#   fs       run the Hadoop shell (`hdfs dfs`) against the cluster: fs -ls /
#   dfsadmin run `hdfs dfsadmin` against the cluster: dfsadmin -setSpaceQuota 8m /dir
#   logs     print the aggregated logs of a YARN application (yarn logs -applicationId)
#   pids     print `NAME PID NODE` per live daemon (nn, dn1..dn3, rm, nm1, nm2, jhs; NODE the
#            address a DataNode or NodeManager registered with, else -): the fault tests
#            kill one
#   restart  start a stopped or killed daemon again (its conf and data kept) and wait until
#            the cluster counts it
#
# Environment:
#   PDC_HADOOP_HOME      cache root (default $HOME/.cache/pdc-hadoop)
#   PDC_HADOOP_JARS      jar dir (default $PDC_HADOOP_HOME/jars)
#   PDC_HADOOP_WORK      cluster dir: conf/ (the clients'), daemons/NAME/ (each daemon's conf),
#                        data/, logs/NAME.log, pids/NAME (default $PDC_HADOOP_HOME/cluster)
#   PDC_HDFS_BLOCK_SIZE  HDFS block size in bytes (default 134217728); small values (>= 4096,
#                        a multiple of 512) make multi-block files cheap in tests
#   PDC_HADOOP_NM_MB     memory of each NodeManager (default 4096); each task container
#                        takes 512 MB
#   PDC_HADOOP_TIMEOUT   seconds to wait for start (default 300)
#
# Liveness is lowered so that a killed node is noticed in seconds, not the defaults' ten
# minutes: DataNodes heartbeat every second and are dead after 2 x 5 s + 10 x 1 s = 20 s
# (dfs.namenode.heartbeat.recheck-interval 5000 ms); a NodeManager is lost after 20 s
# without heartbeat (yarn.nm.liveness-monitor.expiry-interval-ms), heartbeating every 500 ms,
# and an application master gives up stopping a container on a dead node after 10 s
# (yarn.client.nodemanager-connect.max-wait-ms; the default's 3 minutes hold each killed
# attempt that long). The MapReduce AM asks for containers every 250 ms and starts reduces
# with the maps (slowstart 0). Application masters and tasks, short-lived, run with the C1
# compiler only (JVM_FAST in common.sh); every JVM with the serial collector.
#
# Ports (all must be free; RPC and web ports bind to localhost): HDFS 9000 (RPC) 9870 (web),
# YARN 8032 8030 8031 8033 8088, job history 10020 10033 19888. DataNode and NodeManager
# ports (and the shuffle's) are ephemeral.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
POM=$ROOT/scripts/hadoop/pom.xml
HOME_DIR=${PDC_HADOOP_HOME:-${HOME}/.cache/pdc-hadoop}
JARS=${PDC_HADOOP_JARS:-$HOME_DIR/jars}
W=${PDC_HADOOP_WORK:-$HOME_DIR/cluster}
CONF=$W/conf
PIDS=$W/pids
LOGS=$W/logs
PIDFILE=$PIDS/nn
BLOCK=${PDC_HDFS_BLOCK_SIZE:-134217728}
NM_MB=${PDC_HADOOP_NM_MB:-4096}
TIMEOUT=${PDC_HADOOP_TIMEOUT:-300}
NN_PORT=9000
PORTS="9000 9870 8032 8030 8031 8033 8088 10020 10033 19888"
MAIN=org.apache.hadoop.hdfs.server.namenode.NameNode
DAEMONS="nn dn1 dn2 dn3 rm nm1 nm2 jhs"

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

xmlfile() { # xmlfile PATH NAME VALUE ...
	local f=$1
	shift
	{
		echo '<?xml version="1.0"?>'
		echo '<configuration>'
		while [ $# -gt 1 ]; do prop "$1" "$2"; shift 2; done
		echo '</configuration>'
	} >"$f"
}

# The settings every daemon and client shares.
core_props() {
	echo fs.defaultFS "hdfs://localhost:$NN_PORT" hadoop.tmp.dir "$W/data/tmp"
}
hdfs_props() {
	local min=$((BLOCK < 1048576 ? BLOCK : 1048576))
	echo dfs.replication 2 dfs.blocksize "$BLOCK" dfs.namenode.fs-limits.min-block-size "$min" \
		dfs.namenode.rpc-address "localhost:$NN_PORT" dfs.namenode.http-address localhost:9870 \
		dfs.namenode.name.dir "$W/data/nn" dfs.safemode.extension 0 \
		dfs.namenode.datanode.registration.ip-hostname-check false \
		dfs.heartbeat.interval 1 dfs.namenode.heartbeat.recheck-interval 5000 \
		dfs.namenode.redundancy.interval.seconds 1 dfs.client.use.datanode.hostname false \
		dfs.permissions.enabled false
}
yarn_props() {
	echo yarn.resourcemanager.hostname localhost yarn.resourcemanager.address localhost:8032 \
		yarn.resourcemanager.scheduler.address localhost:8030 \
		yarn.resourcemanager.resource-tracker.address localhost:8031 \
		yarn.resourcemanager.admin.address localhost:8033 \
		yarn.resourcemanager.webapp.address localhost:8088 \
		yarn.scheduler.minimum-allocation-mb 256 yarn.scheduler.maximum-allocation-mb "$NM_MB" \
		yarn.scheduler.capacity.maximum-am-resource-percent 0.5 \
		yarn.nm.liveness-monitor.expiry-interval-ms 20000 \
		yarn.client.nodemanager-connect.max-wait-ms 10000 \
		yarn.client.nodemanager-connect.retry-interval-ms 1000 \
		yarn.resourcemanager.nodemanagers.heartbeat-interval-ms 500 \
		yarn.nodemanager.resource.memory-mb "$NM_MB" yarn.nodemanager.resource.cpu-vcores 8 \
		yarn.nodemanager.vmem-check-enabled false yarn.nodemanager.pmem-check-enabled false \
		yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage 99.5 \
		yarn.nodemanager.aux-services mapreduce_shuffle \
		yarn.nodemanager.aux-services.mapreduce_shuffle.class org.apache.hadoop.mapred.ShuffleHandler \
		yarn.nodemanager.env-whitelist JAVA_HOME,HADOOP_COMMON_HOME,HADOOP_HDFS_HOME,HADOOP_CONF_DIR,CLASSPATH_PREPEND_DISTCACHE,HADOOP_YARN_HOME,HADOOP_MAPRED_HOME \
		yarn.log-aggregation-enable true yarn.nodemanager.remote-app-log-dir /tmp/logs \
		yarn.application.classpath "$JARS/*"
}
# conf_dir DIR [hdfs NAME VALUE ...] [yarn NAME VALUE ...] [mapred NAME VALUE ...]: the four
# site files in DIR, with a daemon's own settings after the shared ones.
conf_dir() {
	local dir=$1 kind="" extra_hdfs=() extra_yarn=() extra_mapred=()
	local -
	set -f # values such as "$JARS/*" are split into words below, never globbed
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		hdfs | yarn | mapred) kind=$1; shift ;;
		*)
			case $kind in
			hdfs) extra_hdfs+=("$1" "$2") ;;
			yarn) extra_yarn+=("$1" "$2") ;;
			mapred) extra_mapred+=("$1" "$2") ;;
			*) die "conf_dir: a setting before its file" ;;
			esac
			shift 2
			;;
		esac
	done
	mkdir -p "$dir"
	# shellcheck disable=SC2046 # the props functions print NAME VALUE words without spaces
	xmlfile "$dir/core-site.xml" $(core_props)
	# shellcheck disable=SC2046
	xmlfile "$dir/hdfs-site.xml" $(hdfs_props) "${extra_hdfs[@]}"
	local IFS=$'\n'
	# yarn and mapred values hold spaces (JVM options): one word per line
	# shellcheck disable=SC2046
	xmlfile "$dir/yarn-site.xml" $(yarn_props | tr ' ' '\n') "${extra_yarn[@]}"
	# shellcheck disable=SC2046
	xmlfile "$dir/mapred-site.xml" $(mapred_props_lines) "${extra_mapred[@]}"
}

# mapred_props_lines: mapred_props, one name or value per line (values keep their spaces).
mapred_props_lines() {
	printf '%s\n' mapreduce.framework.name yarn mapreduce.application.classpath "$JARS/*" \
		mapreduce.jobhistory.address localhost:10020 \
		mapreduce.jobhistory.admin.address localhost:10033 \
		mapreduce.jobhistory.webapp.address localhost:19888 \
		yarn.app.mapreduce.am.staging-dir /tmp/hadoop-yarn/staging \
		mapreduce.client.submit.file.replication 2 \
		yarn.app.mapreduce.am.resource.mb 512 mapreduce.map.memory.mb 512 \
		mapreduce.reduce.memory.mb 512 \
		yarn.app.mapreduce.am.scheduler.heartbeat.interval-ms 250 \
		mapreduce.job.reduce.slowstart.completedmaps 0 \
		yarn.app.mapreduce.am.command-opts "-Xmx400m $JVM_FAST $JPMS" \
		mapreduce.map.java.opts "-Xmx400m $JVM_FAST $JPMS" \
		mapreduce.reduce.java.opts "-Xmx400m $JVM_FAST $JPMS"
}

# daemon_log4j DIR: a daemon's logging, to stdout (its log file).
daemon_log4j() {
	cat >"$1/log4j.properties" <<-'EOF'
		log4j.rootLogger=INFO,console
		log4j.appender.console=org.apache.log4j.ConsoleAppender
		log4j.appender.console.layout=org.apache.log4j.PatternLayout
		log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p %c{1} - %m%n
		log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
	EOF
}

# write_conf writes the clients' configuration (HADOOP_CONF_DIR for Java tools, with the
# conf dir first on the classpath, and for colinmarc/hdfs) and each daemon's.
write_conf() {
	local i
	conf_dir "$CONF"
	client_log4j "$CONF"
	conf_dir "$W/daemons/nn"
	for i in 1 2 3; do
		conf_dir "$W/daemons/dn$i" hdfs dfs.datanode.data.dir "$W/data/dn$i" \
			dfs.datanode.address 127.0.0.1:0 dfs.datanode.http.address 127.0.0.1:0 \
			dfs.datanode.ipc.address 127.0.0.1:0
	done
	conf_dir "$W/daemons/rm"
	for i in 1 2; do
		conf_dir "$W/daemons/nm$i" yarn yarn.nodemanager.address localhost:0 \
			yarn.nodemanager.localizer.address localhost:0 \
			yarn.nodemanager.webapp.address localhost:0 \
			yarn.nodemanager.local-dirs "$W/data/nm$i/local" \
			yarn.nodemanager.log-dirs "$W/data/nm$i/logs" \
			yarn.nodemanager.recovery.enabled false mapreduce.shuffle.port 0 \
			mapred mapreduce.shuffle.port 0
	done
	conf_dir "$W/daemons/jhs"
	for i in $DAEMONS; do daemon_log4j "$W/daemons/$i"; done
}

client() { # client CLASS ARGS...: a Hadoop client JVM on the cluster's conf
	local cls=$1
	shift
	java $JPMS -cp "$CONF:$JARS/*" "$cls" "$@"
}

# class_of NAME: a daemon's main class.
class_of() {
	case $1 in
	nn) echo org.apache.hadoop.hdfs.server.namenode.NameNode ;;
	dn*) echo org.apache.hadoop.hdfs.server.datanode.DataNode ;;
	rm) echo org.apache.hadoop.yarn.server.resourcemanager.ResourceManager ;;
	nm*) echo org.apache.hadoop.yarn.server.nodemanager.NodeManager ;;
	jhs) echo org.apache.hadoop.mapreduce.v2.hs.JobHistoryServer ;;
	esac
}

# alive NAME: the daemon's pid file names a live JVM of its class.
alive() {
	local pid
	[ -f "$PIDS/$1" ] || return 1
	pid=$(cat "$PIDS/$1")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -F "$(class_of "$1")" >/dev/null
}

# launch NAME: start a daemon in its own session, its log in $LOGS/NAME.log.
launch() {
	local name=$1 heap=256m
	case $name in nn | rm) heap=512m ;; esac
	# Containers inherit the NodeManager's environment: another cluster's HADOOP_CONF_DIR
	# there would point the MapReduce application master at that cluster.
	env -u HADOOP_CONF_DIR -u PDC_HADOOP_CONF_DIR -u PDC_SECURE_CONF_DIR -u KRB5CCNAME -u KRB5_CONFIG \
		setsid java $JPMS -XX:+UseSerialGC -Xmx$heap -Dhadoop.log.dir="$LOGS" -Dproc_"$name" \
		-cp "$W/daemons/$name:$JARS/*" "$(class_of "$name")" \
		>"$LOGS/$name.log" 2>&1 </dev/null &
	echo $! >"$PIDS/$name"
}

# hdfs_live: the number of live DataNodes.
hdfs_live() {
	client org.apache.hadoop.hdfs.tools.DFSAdmin -report -live 2>/dev/null |
		sed -n 's/^Live datanodes (\([0-9]*\)).*/\1/p'
}

# yarn_nms: the number of active NodeManagers (the ResourceManager's JMX).
yarn_nms() {
	curl -fsS "http://localhost:8088/jmx?qry=Hadoop:service=ResourceManager,name=ClusterMetrics" 2>/dev/null |
		sed -n 's/.*"NumActiveNMs" : \([0-9]*\).*/\1/p'
}

wait_ready() {
	local deadline=$((SECONDS + TIMEOUT)) name
	say "waiting for the daemons (logs: $LOGS)"
	check_alive() {
		for name in $DAEMONS; do
			alive "$name" || { tail -n 30 "$LOGS/$name.log" >&2; die "$name exited during start (log: $LOGS/$name.log)"; }
		done
		[ $SECONDS -lt $deadline ] || die "timed out after ${TIMEOUT}s waiting for $1"
	}
	until port_taken "$NN_PORT"; do check_alive "the NameNode"; sleep 1; done
	until [ "$(hdfs_live)" = 3 ]; do check_alive "3 live DataNodes"; sleep 1; done
	client org.apache.hadoop.hdfs.tools.DFSAdmin -safemode wait >/dev/null ||
		die "HDFS did not leave safe mode"
	until [ "$(yarn_nms)" = 2 ]; do check_alive "2 NodeManagers"; sleep 1; done
	until port_taken 10020; do check_alive "the JobHistory server"; sleep 1; done
	client org.apache.hadoop.fs.FsShell -ls / >/dev/null || die "hdfs dfs -ls / failed"
}

running() {
	local name
	for name in $DAEMONS; do alive "$name" && return 0; done
	return 1
}

start() {
	local t0=$SECONDS name
	if running; then
		say "already running (pids: $(pids_line))"
		return 0
	fi
	fetch
	need curl "used to poll the ResourceManager"
	check_ports
	rm -rf "$W/data" "$PIDS" "$W/daemons" "$LOGS"
	mkdir -p "$W/data" "$PIDS" "$LOGS"
	write_conf
	JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
	export JAVA_HOME # task containers run $JAVA_HOME/bin/java
	cd "$W"
	java $JPMS -cp "$W/daemons/nn:$JARS/*" "$(class_of nn)" -format -force -nonInteractive \
		>"$LOGS/format.log" 2>&1 || { tail -n 20 "$LOGS/format.log" >&2; die "formatting HDFS failed"; }
	for name in $DAEMONS; do launch "$name"; done
	wait_ready
	say "up in $((SECONDS - t0))s ($(pids_line)); run: eval \"\$($0 env)\""
}

# node_of NAME: the address a DataNode or NodeManager registered with (the last start's),
# as the NameNode and the ResourceManager name the node; - for the others.
node_of() {
	local line
	case $1 in
	dn*) line=$(grep -o 'Opened streaming server at /[0-9.:]*' "$LOGS/$1.log" | tail -n 1) && echo "${line##*/}" ;;
	nm*) line=$(grep -o 'Registered with ResourceManager as [^ ]*' "$LOGS/$1.log" | tail -n 1) && echo "${line##* }" ;;
	*) echo - ;;
	esac
}

# restart NAME: start a daemon that was stopped or killed again (its conf and data kept), and
# wait until the cluster counts it again.
restart() {
	local name=$1 deadline=$((SECONDS + TIMEOUT))
	alive "$name" && die "$name is running (pid $(cat "$PIDS/$name"))"
	JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
	export JAVA_HOME
	mv "$LOGS/$name.log" "$LOGS/$name.log.$(date +%s)" 2>/dev/null || true
	cd "$W"
	launch "$name"
	case $name in
	dn*) until [ "$(hdfs_live)" = 3 ]; do
		alive "$name" || die "$name exited during restart (log: $LOGS/$name.log)"
		[ $SECONDS -lt $deadline ] || die "timed out waiting for 3 live DataNodes"
		sleep 1
	done ;;
	nm*) until [ "$(yarn_nms)" = 2 ]; do
		alive "$name" || die "$name exited during restart (log: $LOGS/$name.log)"
		[ $SECONDS -lt $deadline ] || die "timed out waiting for 2 NodeManagers"
		sleep 1
	done ;;
	nn) until client org.apache.hadoop.hdfs.tools.DFSAdmin -safemode wait >/dev/null 2>&1; do
		alive "$name" || die "$name exited during restart (log: $LOGS/$name.log)"
		[ $SECONDS -lt $deadline ] || die "timed out waiting for the NameNode"
		sleep 1
	done ;;
	esac
	say "$name restarted (pid $(cat "$PIDS/$name"))"
}

pids_line() {
	local name out=""
	for name in $DAEMONS; do
		[ -f "$PIDS/$name" ] && out="$out $name $(cat "$PIDS/$name")"
	done
	echo "${out# }"
}

stop() {
	local name pid pids="" kids=""
	if ! running; then
		say "not running"
		rm -rf "$PIDS"
		return 0
	fi
	for name in $DAEMONS; do
		alive "$name" || continue
		pid=$(cat "$PIDS/$name")
		pids="$pids $pid"
		kids="$kids $(descendants "$pid")"
	done
	# YARN first (its containers write to HDFS), then HDFS.
	for name in jhs nm1 nm2 rm dn1 dn2 dn3 nn; do
		alive "$name" && kill -TERM "$(cat "$PIDS/$name")" 2>/dev/null || true
	done
	for _ in $(seq 1 60); do
		running || break
		sleep 0.5
	done
	for pid in $pids $kids; do kill -KILL "$pid" 2>/dev/null || true; done
	rm -rf "$PIDS" "$W/data"
	say "stopped (pids$pids)"
}

status() {
	local name down=""
	for name in $DAEMONS; do alive "$name" || down="$down $name"; done
	if [ -z "$down" ] && port_taken "$NN_PORT"; then
		echo "running: $(pids_line), HADOOP_CONF_DIR=$CONF"
		return 0
	fi
	if running; then
		echo "partly running: down:$down"
	else
		echo "not running"
	fi
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
dfsadmin)
	shift
	client org.apache.hadoop.hdfs.tools.DFSAdmin "$@"
	;;
logs)
	[ $# -eq 2 ] || die "usage: $0 logs APPLICATION_ID"
	client org.apache.hadoop.yarn.client.cli.LogsCLI -applicationId "$2"
	;;
pids)
	for name in $DAEMONS; do
		alive "$name" && echo "$name $(cat "$PIDS/$name") $(node_of "$name")"
	done
	;;
restart)
	[ $# -eq 2 ] && [ -n "$(class_of "$2")" ] || die "usage: $0 restart nn|dn1|dn2|dn3|rm|nm1|nm2|jhs"
	restart "$2"
	;;
*)
	echo "usage: $0 start|stop|status|env|fetch|fs ARGS...|dfsadmin ARGS...|logs APPID|pids|restart NAME" >&2
	exit 2
	;;
esac
