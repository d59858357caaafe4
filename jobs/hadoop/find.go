package hadoop

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
)

// JDK17Flags are the JVM flags Hadoop 3.4 needs on JDK 17 and later; harmless on older JVMs.
var JDK17Flags = []string{
	"-XX:+IgnoreUnrecognizedVMOptions",
	"--add-opens=java.base/java.lang=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
	"--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
	"--add-opens=java.base/java.io=ALL-UNNAMED",
	"--add-opens=java.base/java.net=ALL-UNNAMED",
	"--add-opens=java.base/java.nio=ALL-UNNAMED",
	"--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
	"--add-opens=java.base/java.util.zip=ALL-UNNAMED",
	"--add-opens=java.base/sun.security.util=ALL-UNNAMED",
	"--add-opens=java.base/sun.security.x509=ALL-UNNAMED",
	"--add-exports=java.base/sun.net.dns=ALL-UNNAMED",
	"--add-exports=java.base/sun.net.util=ALL-UNNAMED",
}

// ClientFlags are the JVM flags of the streaming client pdc starts with java: it submits one
// job and polls it, so the C1 compiler alone and the serial collector serve it and spend less
// CPU than C2 and G1's threads would to start it.
var ClientFlags = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

// finder holds FindStreaming's view of the machine, replaceable in tests.
type finder struct {
	getenv   func(string) string
	lookPath func(string) (string, error)
	glob     func(string) ([]string, error)
}

// FindStreaming returns the command prefix that runs Hadoop Streaming, looking in turn for:
//
//  1. HADOOP_STREAMING_JAR: `hadoop jar JAR` when hadoop is on PATH, else
//     `java -cp JAR:$PDC_HADOOP_JARS/* HadoopStreaming`;
//  2. HADOOP_HOME or HADOOP_MAPRED_HOME: `$HOME/bin/hadoop jar` with
//     share/hadoop/tools/lib/hadoop-streaming-*.jar;
//  3. `mapred streaming` when mapred is on PATH;
//  4. PDC_HADOOP_JARS (the jar dir of scripts/hadoop-cluster.sh):
//     `java FLAGS -cp "$PDC_HADOOP_JARS/*" org.apache.hadoop.streaming.HadoopStreaming`
//     with JDK17Flags and ClientFlags; java is $JAVA_HOME/bin/java when JAVA_HOME is set.
func FindStreaming(getenv func(string) string) ([]string, error) {
	return finder{getenv: getenv, lookPath: exec.LookPath, glob: filepath.Glob}.find()
}

func (f finder) find() ([]string, error) {
	jars := f.getenv("PDC_HADOOP_JARS")
	if jar := f.getenv("HADOOP_STREAMING_JAR"); jar != "" {
		if hadoop, err := f.lookPath("hadoop"); err == nil {
			return []string{hadoop, "jar", jar}, nil
		}
		if jars == "" {
			return nil, errors.New("HADOOP_STREAMING_JAR is set but neither hadoop (on PATH) nor PDC_HADOOP_JARS is")
		}
		return f.java(jar + ":" + filepath.Join(jars, "*")), nil
	}
	for _, key := range []string{"HADOOP_HOME", "HADOOP_MAPRED_HOME"} {
		if home := f.getenv(key); home != "" {
			if argv := f.fromHome(home); argv != nil {
				return argv, nil
			}
		}
	}
	if mapred, err := f.lookPath("mapred"); err == nil {
		return []string{mapred, "streaming"}, nil
	}
	if jars != "" {
		if m, _ := f.glob(filepath.Join(jars, "hadoop-streaming-*.jar")); len(m) > 0 {
			return f.java(filepath.Join(jars, "*")), nil
		}
		return nil, errors.New("no hadoop-streaming jar in PDC_HADOOP_JARS=" + jars)
	}
	return nil, errors.New("hadoop streaming not found: set HADOOP_HOME, HADOOP_STREAMING_JAR or " +
		"PDC_HADOOP_JARS (eval \"$(scripts/hadoop-cluster.sh env)\")")
}

// fromHome is `hadoop jar` with the streaming jar of a Hadoop install, or nil.
func (f finder) fromHome(home string) []string {
	jars, _ := f.glob(filepath.Join(home, "share", "hadoop", "tools", "lib", "hadoop-streaming-*.jar"))
	var jar string
	for _, j := range jars {
		if !strings.Contains(filepath.Base(j), "-sources") && !strings.Contains(filepath.Base(j), "-tests") {
			jar = j
		}
	}
	if jar == "" {
		return nil
	}
	hadoop := filepath.Join(home, "bin", "hadoop")
	if m, _ := f.glob(hadoop); len(m) == 0 {
		var err error
		if hadoop, err = f.lookPath("hadoop"); err != nil {
			return nil
		}
	}
	return []string{hadoop, "jar", jar}
}

func (f finder) java(classpath string) []string {
	java := "java"
	if home := f.getenv("JAVA_HOME"); home != "" {
		java = filepath.Join(home, "bin", "java")
	}
	argv := append(append([]string{java}, JDK17Flags...), ClientFlags...)
	if krb5 := f.getenv("KRB5_CONFIG"); krb5 != "" {
		// A secured cluster: the JVM reads the same Kerberos
		// configuration as pdc (and the ticket cache of KRB5CCNAME).
		argv = append(argv, "-Djava.security.krb5.conf="+krb5)
	}
	return append(argv, "-cp", classpath, streamingClass)
}

// ClientEnv is the environment a Hadoop client started through the hadoop
// or mapred scripts needs for a secured cluster: the JVM does not read
// KRB5_CONFIG, so HADOOP_CLIENT_OPTS (which those scripts pass to java,
// yarn's too) gets -Djava.security.krb5.conf=$KRB5_CONFIG. Nil without
// KRB5_CONFIG. (A "java -cp" prefix has the flag already: FindStreaming.)
func ClientEnv(getenv func(string) string) []string {
	krb5 := getenv("KRB5_CONFIG")
	if krb5 == "" {
		return nil
	}
	return []string{"HADOOP_CLIENT_OPTS=" + strings.TrimSpace(getenv("HADOOP_CLIENT_OPTS")+" -Djava.security.krb5.conf="+krb5)}
}
