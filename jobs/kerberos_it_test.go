package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// secureEnv returns the environment for pdc on the secured cluster of
// scripts/hadoop-secure-cluster.sh (PDC_SECURE_CONF_DIR and the rest of its
// `env`), with no identity yet; it skips the test without that cluster.
func secureEnv(t *testing.T) []string {
	t.Helper()
	conf := os.Getenv("PDC_SECURE_CONF_DIR")
	if conf == "" {
		t.Skip("PDC_SECURE_CONF_DIR not set; start a secured cluster with scripts/hadoop-secure-cluster.sh start")
	}
	return []string{"HADOOP_CONF_DIR=" + conf, "KRB5_CONFIG=" + os.Getenv("KRB5_CONFIG"),
		"KRB5CCNAME=" + filepath.Join(t.TempDir(), "no-ticket"), "PDC_KEYTAB=", "PDC_PRINCIPAL="}
}

// TestKerberosCLI: on the secured cluster, pdc fs put and get give back the
// same bytes and pdc spans reads a run from HDFS, logged in from a keytab
// (PDC_KEYTAB, PDC_PRINCIPAL) and from a kinit ticket cache; without a
// ticket, pdc fails in one line that says to run kinit.
func TestKerberosCLI(t *testing.T) {
	env := secureEnv(t)
	nn := "hdfs://" + os.Getenv("PDC_SECURE_NAMENODE")
	keytab, principal := os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	local := []string{"HADOOP_CONF_DIR="} // out is on the local disk
	if _, stderr, code := runPDCEnv(t, local, "run", "--input", sample, "--output", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ := runPDCEnv(t, local, "spans", out)

	identities := map[string][]string{
		"keytab": {"PDC_KEYTAB=" + keytab, "PDC_PRINCIPAL=" + principal},
	}
	if kinit, err := exec.LookPath("kinit"); err == nil {
		cc := filepath.Join(dir, "cc")
		cmd := exec.Command(kinit, "-c", cc, "-kt", keytab, principal)
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kinit: %v\n%s", err, b)
		}
		identities["ticket cache"] = []string{"KRB5CCNAME=FILE:" + cc}
	} else {
		t.Log("no kinit (apt-get install krb5-user): ticket cache not tested")
	}
	for name, id := range identities {
		t.Run(name, func(t *testing.T) {
			e := append(append([]string{}, env...), id...)
			dst := nn + "/user/pdc/" + strings.ReplaceAll(name, " ", "-")
			runPDCEnv(t, e, "fs", "rm", dst)
			if _, stderr, code := runPDCEnv(t, e, "fs", "put", out, dst); code != 0 {
				t.Fatalf("fs put: %s", stderr)
			}
			if got, stderr, code := runPDCEnv(t, e, "spans", dst); code != 0 || got != want || want == "" {
				t.Fatalf("spans %s: exit %d, %d bytes, want the local run's %d\n%s", dst, code, len(got), len(want), stderr)
			}
			back := filepath.Join(t.TempDir(), "back")
			if _, stderr, code := runPDCEnv(t, e, "fs", "get", dst+"/counters.tsv", back); code != 0 {
				t.Fatalf("fs get: %s", stderr)
			}
			got, _ := os.ReadFile(back)
			orig, _ := os.ReadFile(filepath.Join(out, "counters.tsv"))
			if string(got) != string(orig) || len(orig) == 0 {
				t.Errorf("counters.tsv changed on the way (%d vs %d bytes)", len(got), len(orig))
			}
		})
	}
	_, stderr, code := runPDCEnv(t, env, "spans", nn+"/user/pdc/keytab")
	if code != 1 || !strings.Contains(stderr, "run kinit") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("no ticket: exit %d, stderr %q; want one line saying to run kinit", code, stderr)
	}
}

// TestKerberosHadoopRun: pdc run --hadoop on the secured cluster with a
// kinit ticket cache (the Hadoop client reads KRB5_CONFIG and KRB5CCNAME):
// the parse job, map only, runs and writes its output; the first job with
// reduce tasks fails, since the secure shuffle needs Hadoop's native
// library, which Maven Central does not ship, and the error says so
// (docs/hadoop.md).
func TestKerberosHadoopRun(t *testing.T) {
	env := secureEnv(t)
	kinit, err := exec.LookPath("kinit")
	if err != nil {
		t.Skip("no kinit (apt-get install krb5-user)")
	}
	cc := filepath.Join(t.TempDir(), "cc")
	cmd := exec.Command(kinit, "-c", cc, "-kt", os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL"))
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, b)
	}
	env = append(env, "KRB5CCNAME=FILE:"+cc, "PDC_BINARY="+taskBinary(t), "PDC_HADOOP_JARS="+os.Getenv("PDC_HADOOP_JARS"))
	out := "hdfs://" + os.Getenv("PDC_SECURE_NAMENODE") + "/user/pdc/" + strings.ReplaceAll(t.Name(), "/", "-")
	_, stderr, code := runPDCEnv(t, env, "run", "--hadoop", "--input", sample, "--output", out, "--overwrite", "--keep-intermediate")
	if code != 1 || !strings.Contains(stderr, "job stats:") || !strings.Contains(stderr, "native library (libhadoop.so)") {
		t.Fatalf("pdc run --hadoop: exit %d, want 1 with the stats job's reduce failure naming the native library\n%s", code, stderr)
	}
	if ls, stderr, code := runPDCEnv(t, env, "fs", "ls", out+"/parsed"); code != 0 || !strings.Contains(ls, "/parsed/_SUCCESS") {
		t.Errorf("the parse job (map only) did not finish: exit %d\n%s%s", code, ls, stderr)
	}
}
