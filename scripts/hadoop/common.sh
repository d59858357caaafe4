# common.sh: what scripts/hadoop-cluster.sh and scripts/hadoop-secure-cluster.sh share.
# Source it after setting NAME (the messages' prefix), POM, JARS, PIDFILE, MAIN (the cluster
# JVM's main class) and PORTS.

# JDK 17 flags for Hadoop 3.4 (client, daemons and task JVMs).
JPMS="-XX:+IgnoreUnrecognizedVMOptions"
for p in java.lang java.lang.reflect java.util java.util.concurrent java.io java.net java.nio \
	sun.nio.ch java.util.zip sun.security.util sun.security.x509; do
	JPMS="$JPMS --add-opens=java.base/$p=ALL-UNNAMED"
done
JPMS="$JPMS --add-exports=java.base/sun.net.dns=ALL-UNNAMED --add-exports=java.base/sun.net.util=ALL-UNNAMED"

# The JVMs of the test clusters' application masters and tasks live for seconds on a machine
# of few cores: the C1 compiler alone and the serial collector spend a fraction of the CPU
# that C2 and G1's threads take to start them.
JVM_FAST="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"

# client_log4j DIR: the Hadoop client's logging in DIR/log4j.properties.
client_log4j() {
	cat >"$1/log4j.properties" <<-'EOF'
		# Client-side logging (the conf dir comes first on the classpath): stderr only,
		# job progress (mapreduce.Job) and streaming messages at INFO.
		log4j.rootLogger=WARN,stderr
		log4j.appender.stderr=org.apache.log4j.ConsoleAppender
		log4j.appender.stderr.Target=System.err
		log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
		log4j.appender.stderr.layout.ConversionPattern=%d{ISO8601} %-5p %c{1} - %m%n
		log4j.logger.org.apache.hadoop.mapreduce.Job=INFO
		log4j.logger.org.apache.hadoop.streaming=INFO
		log4j.logger.org.apache.hadoop.yarn.client.api.impl.YarnClientImpl=INFO
		log4j.logger.org.apache.hadoop.util.NativeCodeLoader=ERROR
	EOF
}

die() { echo "$NAME: $*" >&2; exit 1; }
say() { echo "$NAME: $*" >&2; }

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH ($2)"
}

# fetch_jars: the jars of $POM in $JARS, fetched by Maven when the pom changed.
fetch_jars() {
	local sum
	need java "install a JDK 17, e.g. apt-get install openjdk-17-jdk-headless"
	sum=$(sha256sum "$POM" | cut -c1-16)
	JARS_SUM=$sum
	if [ -f "$JARS/.complete-$sum" ]; then
		return 0
	fi
	need mvn "install Maven, e.g. apt-get install maven"
	say "fetching Hadoop jars into $JARS (about 100 MB, once)"
	rm -rf "$JARS.tmp"
	mkdir -p "$JARS.tmp"
	mvn -B -q -f "$POM" dependency:copy-dependencies -DincludeScope=runtime \
		-DoutputDirectory="$JARS.tmp" >&2 || die "mvn dependency:copy-dependencies failed"
	touch "$JARS.tmp/.complete-$sum"
	rm -rf "$JARS"
	mv "$JARS.tmp" "$JARS"
}

# running: the pid file names a live JVM of $MAIN.
running() {
	local pid
	[ -f "$PIDFILE" ] || return 1
	pid=$(cat "$PIDFILE")
	[ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep "$MAIN" >/dev/null
}

port_taken() {
	if command -v ss >/dev/null 2>&1; then
		[ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]
	else
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

descendants() { # descendants PID: all child pids, depth first
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		descendants "$c"
		echo "$c"
	done
}

# kill_cluster PID: stop the cluster JVM (TERM, then KILL after 30 s) and the task
# containers its NodeManager started.
kill_cluster() {
	local pid=$1 kids i
	kids=$(descendants "$pid")
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 1 60); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 "$pid" 2>/dev/null; then
		say "pid $pid did not stop in 30s; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	for i in $kids; do kill -KILL "$i" 2>/dev/null || true; done
}
