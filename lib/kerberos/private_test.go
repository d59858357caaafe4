package kerberos

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shortTickets writes the secured cluster's krb5.conf (KRB5_CONFIG) asking
// for tickets of the given seconds, and returns its path.
func shortTickets(t *testing.T, seconds int) string {
	t.Helper()
	b, err := os.ReadFile(os.Getenv("KRB5_CONFIG"))
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "krb5.conf")
	short := strings.Replace(string(b), "ticket_lifetime = 24h", "ticket_lifetime = "+strconv.Itoa(seconds), 1)
	if err := os.WriteFile(conf, []byte(short), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// TestPrivateCache: on the KDC of scripts/hadoop-secure-cluster.sh, a
// private cache filled from the keytab holds a ticket-granting ticket that
// MIT klist lists and a ticket-cache login accepts, with the lifetime asked
// for (60 s); Refresh replaces it with a later one; Close removes it.
func TestPrivateCache(t *testing.T) {
	keytab, principal := os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL")
	if keytab == "" || os.Getenv("KRB5_CONFIG") == "" {
		t.Skip("PDC_SECURE_KEYTAB not set; start a secured cluster with scripts/hadoop-secure-cluster.sh start")
	}
	env := map[string]string{"KRB5_CONFIG": shortTickets(t, 60)}
	getenv := func(k string) string { return env[k] }
	p, err := NewPrivateCache(Identity{Principal: principal, Keytab: keytab}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	first := p.End()
	if left := time.Until(first); left <= 0 || left > 61*time.Second {
		t.Errorf("ticket ends in %v, want at most the 60 s asked for", left)
	}
	if home, _ := os.UserHomeDir(); strings.HasPrefix(p.Path, "/tmp/krb5cc_") || strings.HasPrefix(p.Path, home) {
		t.Errorf("private cache at %s", p.Path)
	}
	if fi, err := os.Stat(filepath.Dir(p.Path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	if klist, err := exec.LookPath("klist"); err == nil {
		out, err := exec.Command(klist, "-c", "FILE:"+p.Path).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "Default principal: "+principal) || !strings.Contains(string(out), "krbtgt/EXAMPLE.COM@EXAMPLE.COM") {
			t.Errorf("klist: %v\n%s", err, out)
		}
	}
	env["KRB5CCNAME"] = strings.TrimPrefix(p.Env(), "KRB5CCNAME=")
	if _, err := Login(Identity{}, getenv); err != nil {
		t.Errorf("ticket-cache login from the private cache: %v", err)
	}
	time.Sleep(1100 * time.Millisecond)
	if err := p.Refresh(); err != nil {
		t.Fatal(err)
	}
	if !p.End().After(first) {
		t.Errorf("after Refresh the ticket ends at %v, want after %v", p.End(), first)
	}
	p.Keep(func(err error) { t.Error(err) })
	p.Keep(nil) // a second Keep starts nothing
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	p.Keep(nil) // after Close: nothing
	if _, err := os.Stat(filepath.Dir(p.Path)); !os.IsNotExist(err) {
		t.Errorf("cache directory still there after Close (%v)", err)
	}
}

// TestKeytabLoginRenews: a keytab login outlives its ticket-granting
// ticket (20 s here): after 25 s it still gets a service ticket for the
// NameNode's principal, from a ticket-granting ticket of its own renewal.
func TestKeytabLoginRenews(t *testing.T) {
	keytab, principal := os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL")
	if keytab == "" || os.Getenv("KRB5_CONFIG") == "" {
		t.Skip("PDC_SECURE_KEYTAB not set; start a secured cluster with scripts/hadoop-secure-cluster.sh start")
	}
	if testing.Short() {
		t.Skip("waits 25 s")
	}
	conf := shortTickets(t, 20)
	cl, err := Login(Identity{Principal: principal, Keytab: keytab}, func(k string) string {
		if k == "KRB5_CONFIG" {
			return conf
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Destroy()
	time.Sleep(25 * time.Second)
	if _, _, err := cl.GetServiceTicket("hdfs/localhost"); err != nil {
		t.Fatalf("service ticket after the first ticket-granting ticket ended: %v", err)
	}
}
