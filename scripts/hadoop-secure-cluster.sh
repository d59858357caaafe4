#!/usr/bin/env bash
# hadoop-secure-cluster.sh: a real, Kerberos-secured single-machine Hadoop (KDC + HDFS + YARN
# + MapReduce job history + Streaming) for pdc's tests, run from the published Maven jars in
# one JVM (scripts/hadoop-secure/src/.../SecureCluster.java: MiniKdc, a secured
# MiniDFSCluster and a secured MiniMRYarnCluster). No Hadoop tarball, no Docker. It is
# separate from scripts/hadoop-cluster.sh (own work dir, pid file, jar dir and ports); both
# can run at the same time. See scripts/hadoop-secure/README.md.
#
# usage: scripts/hadoop-secure-cluster.sh start|stop|status|env|fetch|kinit|fs ARGS...
#
#   fetch    download the jars (scripts/hadoop-secure/pom.xml) and compile the launcher
#   start    fetch, start the cluster, wait for its ready marker; a no-op when running
#   stop     stop the cluster (by its pid, children first); delete its data and keytabs
#   status   exit 0 when the cluster is up
#   env      print export lines: HADOOP_CONF_DIR, PDC_SECURE_CONF_DIR, KRB5_CONFIG,
#            KRB5CCNAME, PDC_SECURE_KEYTAB, PDC_SECURE_PRINCIPAL, PDC_SECURE_NAMENODE,
#            PDC_SECURE_JAVA_OPTS, PDC_HADOOP_JARS
#   kinit    MIT kinit of pdc@EXAMPLE.COM from its keytab into $KRB5CCNAME (default
#            $W/krb5cc); needs krb5-user
#   fs       the Hadoop shell (`hdfs dfs`) as the user of the ticket cache: fs -ls /
#
# Environment:
#   PDC_HADOOP_SECURE_HOME  work dir: conf/, data/, keytabs, krb5.conf, pid, log
#                           (default $HOME/.cache/pdc-hadoop-secure)
#   PDC_HADOOP_SECURE_JARS  jar dir (default ${PDC_HADOOP_HOME:-$HOME/.cache/pdc-hadoop}/jars-secure,
#                           beside the unsecured cluster's jars: same Hadoop 3.4.2, plus minikdc)
#   PDC_HDFS_BLOCK_SIZE     HDFS block size in bytes (default 134217728)
#   PDC_HADOOP_NM_MB        NodeManager memory (default 8192)
#   PDC_HADOOP_TIMEOUT      seconds to wait for start (default 300)
#   PDC_HADOOP_SECURE_DATA_PROTECTION  dfs.data.transfer.protection: authentication (default),
#                           integrity, privacy, or none (no SASL on the DataNode port; block
#                           tokens still checked): see README.md on reducers
#   PDC_HADOOP_SECURE_PORTS fixed ports, comma-separated: NameNode RPC, NameNode HTTP, RM,
#                           RM scheduler, RM tracker, RM admin, RM web, JHS, JHS admin, JHS web
#                           (default 9100,9970,8132,8130,8131,8133,8188,10120,10133,19988).
#                           The KDC, DataNode, NodeManager and shuffle ports are ephemeral.
#                           The unsecured cluster's ports (9000 9870 8030-8033 8088 10020
#                           10033 19888) are refused.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SDIR=$ROOT/scripts/hadoop-secure
POM=$SDIR/pom.xml
SRC=$SDIR/src/main/java/pdc/hadoopsecure/SecureCluster.java
W=${PDC_HADOOP_SECURE_HOME:-${HOME}/.cache/pdc-hadoop-secure}
JARS=${PDC_HADOOP_SECURE_JARS:-${PDC_HADOOP_HOME:-${HOME}/.cache/pdc-hadoop}/jars-secure}
CONF=$W/conf
SITE=$W/site # core-site.xml + hdfs-site.xml on the cluster JVM's classpath (must exist first)
CLASSES=$W/classes
PIDFILE=$W/cluster.pid
LOG=$W/cluster.log
READY=$W/ready
KRB5=$W/krb5.conf
BLOCK=${PDC_HDFS_BLOCK_SIZE:-134217728}
NM_MB=${PDC_HADOOP_NM_MB:-8192}
TIMEOUT=${PDC_HADOOP_TIMEOUT:-300}
PROTECTION=${PDC_HADOOP_SECURE_DATA_PROTECTION:-authentication}
PORTS_CSV=${PDC_HADOOP_SECURE_PORTS:-9100,9970,8132,8130,8131,8133,8188,10120,10133,19988}
PORTS=${PORTS_CSV//,/ }
NN_PORT=${PORTS%% *}
UNSECURED_PORTS="9000 9870 8030 8031 8032 8033 8088 10020 10033 19888"
MAIN=pdc.hadoopsecure.SecureCluster
PRINCIPAL=pdc@EXAMPLE.COM

NAME=hadoop-secure-cluster
# shellcheck source=hadoop/common.sh
. "$ROOT/scripts/hadoop/common.sh"

# fetch: the jars, and the launcher compiled against them.
fetch() {
	local csum
	need javac "install a JDK 17 (not only a JRE), e.g. apt-get install openjdk-17-jdk-headless"
	fetch_jars
	csum=$(cat "$SRC" "$JARS/.complete-$JARS_SUM" | sha256sum | cut -c1-16)
	csum=$(printf '%s %s' "$csum" "$JARS_SUM" | sha256sum | cut -c1-16)
	if [ ! -f "$CLASSES/.complete-$csum" ]; then
		rm -rf "$CLASSES"
		mkdir -p "$CLASSES"
		javac -nowarn -d "$CLASSES" -cp "$JARS/*" "$SRC" >&2 || die "javac $SRC failed"
		touch "$CLASSES/.complete-$csum"
	fi
}

check_ports() {
	local p q busy="" n=0
	for p in $PORTS; do
		n=$((n + 1))
		case $p in '' | *[!0-9]*) die "PDC_HADOOP_SECURE_PORTS: '$p' is not a port number" ;; esac
		for q in $UNSECURED_PORTS; do
			[ "$p" != "$q" ] || die "port $p belongs to the unsecured cluster (scripts/hadoop-cluster.sh); choose another in PDC_HADOOP_SECURE_PORTS"
		done
		if port_taken "$p"; then busy="$busy $p"; fi
	done
	[ "$n" -eq 10 ] || die "PDC_HADOOP_SECURE_PORTS needs 10 ports, got $n"
	[ -z "$busy" ] || die "port(s)$busy already in use; stop whatever listens there (ss -ltnp) or set PDC_HADOOP_SECURE_PORTS"
}

wait_ready() {
	local deadline=$((SECONDS + TIMEOUT)) pid=$1
	say "waiting for the cluster (log: $LOG)"
	until [ -s "$READY" ]; do
		kill -0 "$pid" 2>/dev/null || {
			grep -E 'Exception|Error|pdc-secure' "$LOG" | tail -n 15 >&2
			die "cluster JVM exited during start (log: $LOG)"
		}
		[ $SECONDS -lt $deadline ] || die "timed out after ${TIMEOUT}s waiting for $READY (log: $LOG)"
		sleep 1
	done
}

start() {
	local t0=$SECONDS pid
	if running; then
		say "already running (pid $(cat "$PIDFILE"))"
		return 0
	fi
	case $PROTECTION in authentication | integrity | privacy | none) ;;
	*) die "PDC_HADOOP_SECURE_DATA_PROTECTION must be authentication, integrity, privacy or none" ;;
	esac
	fetch
	check_ports
	rm -rf "$W/data" "$W/kdc" "$W/target" "$READY" "$PIDFILE" "$W/service.keytab" "$W/pdc.keytab"
	mkdir -p "$W/data" "$SITE" "$CONF"
	JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
	export JAVA_HOME # task containers run $JAVA_HOME/bin/java
	client_log4j "$CONF"
	cd "$W"
	# setsid: the JVM leads its own session, so the caller's terminal signals do not reach it.
	# $SITE comes first on the classpath: the NodeManager's container localizer builds a
	# fresh Configuration and must see the security keys. Containers inherit the JVM's
	# environment: another cluster's HADOOP_CONF_DIR there would point the MapReduce
	# application master at that cluster, unsecured.
	env -u HADOOP_CONF_DIR -u PDC_HADOOP_CONF_DIR -u HADOOP_HOME -u HADOOP_MAPRED_HOME \
		setsid java $JPMS -Xmx2g -cp "$SITE:$CLASSES:$JARS/*" \
		-Dpdc.ports="$PORTS_CSV" -Dpdc.siteconf="$SITE" -Dpdc.jars="$JARS" \
		-Dpdc.taskopts="-Xmx400m $JVM_FAST $JPMS" -Dpdc.blocksize="$BLOCK" -Dpdc.nmmb="$NM_MB" \
		-Dpdc.dataprotection="$PROTECTION" \
		"$MAIN" "$W" >"$LOG" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$PIDFILE"
	wait_ready "$pid"
	say "up in $((SECONDS - t0))s (pid $pid); run: eval \"\$($0 env)\""
	sed 's/^/hadoop-secure-cluster:   /' "$READY" >&2
}

stop() {
	local pid
	if ! running; then
		say "not running"
		rm -f "$PIDFILE" "$READY"
		return 0
	fi
	pid=$(cat "$PIDFILE")
	kill_cluster "$pid"
	rm -rf "$PIDFILE" "$READY" "$W/data" "$W/kdc" "$W/target" "$W/service.keytab" "$W/pdc.keytab"
	say "stopped (pid $pid)"
}

status() {
	if running && [ -s "$READY" ] && port_taken "$NN_PORT"; then
		echo "running: pid $(cat "$PIDFILE"), HADOOP_CONF_DIR=$CONF"
		sed 's/^/  /' "$READY"
		return 0
	fi
	echo "not running"
	return 1
}

env_lines() {
	echo "export HADOOP_CONF_DIR=$CONF"
	echo "export PDC_SECURE_CONF_DIR=$CONF"
	echo "export KRB5_CONFIG=$KRB5"
	echo "export KRB5CCNAME=$W/krb5cc"
	echo "export PDC_SECURE_KEYTAB=$W/pdc.keytab"
	echo "export PDC_SECURE_PRINCIPAL=$PRINCIPAL"
	echo "export PDC_SECURE_NAMENODE=localhost:$NN_PORT"
	# Java does not read KRB5_CONFIG: a Hadoop client JVM needs this flag (or the same in
	# JAVA_TOOL_OPTIONS) to find the KDC.
	echo "export PDC_SECURE_JAVA_OPTS=-Djava.security.krb5.conf=$KRB5"
	echo "export PDC_HADOOP_JARS=$JARS"
}

do_kinit() {
	need kinit "install MIT Kerberos clients, e.g. apt-get install krb5-user"
	[ -s "$W/pdc.keytab" ] || die "no $W/pdc.keytab: start the cluster first"
	KRB5_CONFIG=$KRB5 KRB5CCNAME=${KRB5CCNAME:-$W/krb5cc} kinit -kt "$W/pdc.keytab" "$PRINCIPAL"
}

client() { # client CLASS ARGS...: a Hadoop client JVM on the cluster's conf, ticket cache login
	local cls=$1
	shift
	KRB5CCNAME=${KRB5CCNAME:-$W/krb5cc} java $JPMS -Djava.security.krb5.conf="$KRB5" \
		-cp "$CONF:$JARS/*" "$cls" "$@"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env) env_lines ;;
fetch) fetch ;;
kinit) do_kinit ;;
fs)
	shift
	client org.apache.hadoop.fs.FsShell "$@"
	;;
*)
	echo "usage: $0 start|stop|status|env|fetch|kinit|fs ARGS..." >&2
	exit 2
	;;
esac
