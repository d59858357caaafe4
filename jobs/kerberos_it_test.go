package jobs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
// (--principal and --keytab, or PDC_PRINCIPAL and PDC_KEYTAB) and from a
// kinit ticket cache; without a
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

	type identity struct{ env, flags []string }
	identities := map[string]identity{
		"keytab flags": {flags: []string{"--principal", principal, "--keytab", keytab}},
		"keytab env":   {env: []string{"PDC_KEYTAB=" + keytab, "PDC_PRINCIPAL=" + principal}},
	}
	if cc := kinitCache(t, env); cc != "" {
		identities["ticket cache"] = identity{env: []string{"KRB5CCNAME=FILE:" + cc}}
	} else {
		t.Log("no kinit (apt-get install krb5-user): ticket cache not tested")
	}
	for name, id := range identities {
		t.Run(name, func(t *testing.T) {
			e := append(append([]string{}, env...), id.env...)
			pdc := func(args ...string) (string, string, int) {
				return runPDCEnv(t, e, append(append([]string{args[0]}, id.flags...), args[1:]...)...)
			}
			dst := nn + "/user/pdc/" + strings.ReplaceAll(name, " ", "-")
			pdc("fs", "rm", dst)
			if _, stderr, code := pdc("fs", "put", out, dst); code != 0 {
				t.Fatalf("fs put: %s", stderr)
			}
			if got, stderr, code := pdc("spans", dst); code != 0 || got != want || want == "" {
				t.Fatalf("spans %s: exit %d, %d bytes, want the local run's %d\n%s", dst, code, len(got), len(want), stderr)
			}
			back := filepath.Join(t.TempDir(), "back")
			if _, stderr, code := pdc("fs", "get", dst+"/counters.tsv", back); code != 0 {
				t.Fatalf("fs get: %s", stderr)
			}
			got, _ := os.ReadFile(back)
			orig, _ := os.ReadFile(filepath.Join(out, "counters.tsv"))
			if string(got) != string(orig) || len(orig) == 0 {
				t.Errorf("counters.tsv changed on the way (%d vs %d bytes)", len(got), len(orig))
			}
		})
	}
	_, stderr, code := runPDCEnv(t, env, "spans", nn+"/user/pdc/keytab-env")
	if code != 1 || !strings.Contains(stderr, "run kinit") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("no ticket: exit %d, stderr %q; want one line saying to run kinit", code, stderr)
	}
}

// TestKerberosHadoopRun: pdc run --hadoop on the secured cluster, logged in
// from a kinit ticket cache and from --principal and --keytab with tickets
// that last 30 s: the parse job, map only, runs and writes its output; the
// first job with reduce tasks fails, since the secure shuffle needs Hadoop's
// native library, which Maven Central does not ship, and the error says so
// (docs/hadoop.md). The keytab run (about a minute) outlives its first
// tickets (the Hadoop client's private cache is refreshed, pdc's own login
// renews itself), ends with its lock on HDFS released and its private cache
// removed, and never writes the user's ticket cache.
func TestKerberosHadoopRun(t *testing.T) {
	env := secureEnv(t)
	keytab, principal := os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL")
	env = append(env, "PDC_BINARY="+pdcBinary, "PDC_HADOOP_JARS="+os.Getenv("PDC_HADOOP_JARS"))
	run := func(t *testing.T, env []string, flags ...string) (string, time.Duration) {
		t.Helper()
		name := strings.ReplaceAll(t.Name(), "/", "-")
		out := "hdfs://" + os.Getenv("PDC_SECURE_NAMENODE") + "/user/pdc/" + name
		start := time.Now()
		_, stderr, code := runPDCEnv(t, env, append([]string{"run", "--hadoop", "--input", sample, "--output", out, "--overwrite", "--keep-intermediate"}, flags...)...)
		took := time.Since(start)
		if code != 1 || !strings.Contains(stderr, "job stats:") || !strings.Contains(stderr, "native library (libhadoop.so)") {
			t.Fatalf("pdc run --hadoop: exit %d, want 1 with the stats job's reduce failure naming the native library\n%s", code, stderr)
		}
		if ls, stderr, code := runPDCEnv(t, env, append([]string{"fs"}, append(flags, "ls", out+"/parsed")...)...); code != 0 || !strings.Contains(ls, "/parsed/_SUCCESS") {
			t.Errorf("the parse job (map only) did not finish: exit %d\n%s%s", code, ls, stderr)
		}
		if ls, stderr, code := runPDCEnv(t, env, append([]string{"fs"}, append(flags, "ls", strings.TrimSuffix(out, "/"+name))...)...); code != 0 || strings.Contains(ls, "."+name+".pdc-lock") {
			t.Errorf("the run's lock is still on HDFS (exit %d):\n%s%s", code, ls, stderr)
		}
		return stderr, took
	}
	t.Run("ticket cache", func(t *testing.T) {
		cc := kinitCache(t, env)
		if cc == "" {
			t.Skip("no kinit (apt-get install krb5-user)")
		}
		run(t, append(env, "KRB5CCNAME=FILE:"+cc))
	})
	t.Run("keytab 30s tickets", func(t *testing.T) {
		const lifetime = 30 * time.Second
		tmp, userCache := t.TempDir(), filepath.Join(t.TempDir(), "user-cache")
		e := append(env, "KRB5_CONFIG="+shortLifetimeConf(t, "30s"), "TMPDIR="+tmp, "KRB5CCNAME=FILE:"+userCache)
		stderr, took := run(t, e, "--principal", principal, "--keytab", keytab)
		if took < lifetime {
			t.Errorf("the run took %v, less than the tickets' %v: it shows nothing about renewal", took, lifetime)
		}
		if strings.Contains(stderr, "renew the Hadoop client's ticket") {
			t.Errorf("a renewal failed:\n%s", stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "pdc-krb5cc-*")); len(left) > 0 {
			t.Errorf("private ticket cache left behind: %v", left)
		}
		if _, err := os.Stat(userCache); !os.IsNotExist(err) {
			t.Errorf("the user's ticket cache %s was written (%v)", userCache, err)
		}
	})
}

// kinitCache runs MIT kinit with the secured cluster's keytab into a new
// ticket cache and returns its path, or "" without kinit.
func kinitCache(t *testing.T, env []string) string {
	t.Helper()
	kinit, err := exec.LookPath("kinit")
	if err != nil {
		return ""
	}
	cc := filepath.Join(t.TempDir(), "cc")
	cmd := exec.Command(kinit, "-c", cc, "-kt", os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL"))
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kinit: %v\n%s", err, b)
	}
	return cc
}

// shortLifetimeConf copies the secured cluster's krb5.conf (KRB5_CONFIG)
// with ticket_lifetime set to lifetime, and returns its path.
func shortLifetimeConf(t *testing.T, lifetime string) string {
	t.Helper()
	b, err := os.ReadFile(os.Getenv("KRB5_CONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "ticket_lifetime") {
			l = "  ticket_lifetime = " + lifetime
		}
		lines = append(lines, l)
	}
	p := filepath.Join(t.TempDir(), "krb5.conf")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
