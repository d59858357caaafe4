package hdfsfs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// TestKerberosFailures: each way a Kerberos login can fail before it
// reaches a cluster is one line saying what to do, within seconds (a KDC
// that accepts connections and never answers included), never a hang.
func TestKerberosFailures(t *testing.T) {
	dir := t.TempDir()
	// A KDC that accepts TCP connections and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	krb5 := filepath.Join(dir, "krb5.conf")
	write(t, krb5, fmt.Sprintf(`[libdefaults]
  default_realm = EXAMPLE.COM
  udp_preference_limit = 1
[realms]
  EXAMPLE.COM = {
    kdc = %s
  }
`, ln.Addr()))
	kt := keytab.New()
	if err := kt.AddEntry("pdc", "EXAMPLE.COM", "secret", time.Now(), 1, etypeID.AES128_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	ktBytes, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ktPath := filepath.Join(dir, "pdc.keytab")
	if err := os.WriteFile(ktPath, ktBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	expired := filepath.Join(dir, "cc-expired")
	if err := os.WriteFile(expired, ccache("pdc", "EXAMPLE.COM", time.Now().Add(-time.Hour)), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "cc-broken")
	write(t, broken, "not a ticket cache")
	truncated := filepath.Join(dir, "cc-truncated")
	if err := os.WriteFile(truncated, ccache("pdc", "EXAMPLE.COM", time.Now().Add(time.Hour))[:40], 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no krb5.conf", map[string]string{"KRB5_CONFIG": filepath.Join(dir, "none.conf")}, "set KRB5_CONFIG"},
		{"no ticket", map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": "FILE:" + filepath.Join(dir, "cc-none")}, "run kinit"},
		{"expired ticket", map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": expired}, "has expired: run kinit again"},
		{"not a ticket cache", map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": broken}, "run kinit again"},
		{"truncated ticket cache", map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": truncated}, "run kinit again"},
		{"principal without keytab", map[string]string{"KRB5_CONFIG": krb5, EnvPrincipal: "pdc@EXAMPLE.COM"}, "--principal needs --keytab"},
		{"keytab without principal flag", map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath}, "needs --principal"},
		{"missing keytab", map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: filepath.Join(dir, "none.keytab"), EnvPrincipal: "pdc@EXAMPLE.COM"}, "does not exist (--keytab)"},
		{"wrong realm", map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "pdc@WRONG.ORG"}, `realm "WRONG.ORG" is not in`},
		{"keytab without the principal", map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "alice@EXAMPLE.COM"}, "holds no key for alice@EXAMPLE.COM"},
		{"KDC does not answer", map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "pdc@EXAMPLE.COM"}, "is the KDC of EXAMPLE.COM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := kerberosClient(func(k string) string { return tt.env[k] })
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "kerberos: ") {
				t.Errorf("error %q, want one line starting with kerberos: and holding %q", msg, tt.want)
			}
			if took > 15*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ccache returns a version 4 ticket cache (the format kinit writes) with
// one ticket-granting ticket for user@realm ending at end.
func ccache(user, realm string, end time.Time) []byte {
	var b []byte
	u16 := func(v uint16) { b = binary.BigEndian.AppendUint16(b, v) }
	u32 := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	data := func(s string) { u32(uint32(len(s))); b = append(b, s...) }
	principal := func(comps ...string) {
		u32(1) // name type
		u32(uint32(len(comps)))
		data(realm)
		for _, c := range comps {
			data(c)
		}
	}
	u16(0x0504)
	u16(0) // no header fields
	principal(user)
	principal(user)               // client
	principal("krbtgt", realm)    // server
	u16(17)                       // key type: aes128-cts-hmac-sha1-96
	data(strings.Repeat("k", 16)) // key
	at := uint32(end.Add(-10 * time.Hour).Unix())
	u32(at)                 // auth time
	u32(at)                 // start time
	u32(uint32(end.Unix())) // end time
	u32(uint32(end.Unix())) // renew till
	b = append(b, 0)        // is_skey
	u32(0)                  // flags
	u32(0)                  // addresses
	u32(0)                  // authdata
	data("ticket")          // ticket
	data("")                // second ticket
	return b
}

// TestHDFSKerberos: on the secured cluster of scripts/hadoop-secure-cluster.sh
// (PDC_SECURE_CONF_DIR and the rest of its env), a file written and read
// back is the same bytes, logged in from the keytab and from a ticket cache
// that kinit filled; without a ticket, the error says to run kinit.
func TestHDFSKerberos(t *testing.T) {
	conf := os.Getenv("PDC_SECURE_CONF_DIR")
	if conf == "" {
		t.Skip("PDC_SECURE_CONF_DIR not set; start a secured cluster with scripts/hadoop-secure-cluster.sh start")
	}
	keytab, principal := os.Getenv("PDC_SECURE_KEYTAB"), os.Getenv("PDC_SECURE_PRINCIPAL")
	data := make([]byte, 3<<20+17) // several blocks on a 1 MiB-block cluster
	for i := range data {
		data[i] = byte(i * 7)
	}
	roundTrip := func(t *testing.T, name string) {
		t.Helper()
		fsys, err := FromConfDir(conf)
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.(interface{ Close() error }).Close()
		path := "/user/pdc/" + name
		if err := WriteFile(fsys, path, data); err != nil {
			t.Fatal(err)
		}
		f, err := fsys.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("read back %d bytes (%v), want the %d written", len(got), err, len(data))
		}
	}
	t.Run("keytab", func(t *testing.T) {
		t.Setenv(EnvKeytab, keytab)
		t.Setenv(EnvPrincipal, principal)
		roundTrip(t, "keytab.bin")
	})
	t.Run("ticket cache", func(t *testing.T) {
		kinit, err := exec.LookPath("kinit")
		if err != nil {
			t.Skip("no kinit (apt-get install krb5-user)")
		}
		cc := filepath.Join(t.TempDir(), "cc")
		cmd := exec.Command(kinit, "-c", cc, "-kt", keytab, principal)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kinit: %v\n%s", err, out)
		}
		t.Setenv(EnvKeytab, "")
		t.Setenv(EnvPrincipal, "")
		t.Setenv("KRB5CCNAME", "FILE:"+cc)
		roundTrip(t, "ccache.bin")
	})
	t.Run("no ticket", func(t *testing.T) {
		t.Setenv(EnvKeytab, "")
		t.Setenv(EnvPrincipal, "")
		t.Setenv("KRB5CCNAME", filepath.Join(t.TempDir(), "none"))
		_, err := FromConfDir(conf)
		if err == nil || !strings.Contains(err.Error(), "run kinit") {
			t.Fatalf("error %v, want one saying to run kinit", err)
		}
	})
}

func TestKrbError(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"SASL handshake: [Root cause: KDC_Error] KRB Error: (31) KRB_AP_ERR_BAD_INTEGRITY Integrity check failed", "KRB_AP_ERR_BAD_INTEGRITY"},
		{"KRB Error: (6) KDC_ERR_C_PRINCIPAL_UNKNOWN Client not found", "KDC_ERR_C_PRINCIPAL_UNKNOWN"},
		{"connection refused", ""},
	} {
		if got := krbError(fmt.Errorf("%s", tt.in)); got != tt.want {
			t.Errorf("krbError(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
