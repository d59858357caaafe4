package kerberos

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
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
	if err := os.WriteFile(expired, ccache(t, "pdc", "EXAMPLE.COM", time.Now().Add(-time.Hour)), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "cc-broken")
	write(t, broken, "not a ticket cache")
	truncated := filepath.Join(dir, "cc-truncated")
	if err := os.WriteFile(truncated, ccache(t, "pdc", "EXAMPLE.COM", time.Now().Add(time.Hour))[:40], 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		id   Identity // the flags
		env  map[string]string
		want string
	}{
		{"no krb5.conf", Identity{}, map[string]string{"KRB5_CONFIG": filepath.Join(dir, "none.conf")}, "set KRB5_CONFIG"},
		{"no ticket", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": "FILE:" + filepath.Join(dir, "cc-none")}, "run kinit"},
		{"expired ticket", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": expired}, "has expired: run kinit again"},
		{"not a ticket cache", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": broken}, "run kinit again"},
		{"kernel keyring cache", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": "KEYRING:persistent:1000"}, "is not a file"},
		{"KCM cache", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": "KCM:"}, "kinit -c FILE:"},
		{"truncated ticket cache", Identity{}, map[string]string{"KRB5_CONFIG": krb5, "KRB5CCNAME": truncated}, "run kinit again"},
		{"principal without keytab", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvPrincipal: "pdc@EXAMPLE.COM"}, "--principal needs --keytab"},
		{"keytab without principal flag", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath}, "needs --principal"},
		{"missing keytab", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: filepath.Join(dir, "none.keytab"), EnvPrincipal: "pdc@EXAMPLE.COM"}, "does not exist (--keytab)"},
		{"wrong realm", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "pdc@WRONG.ORG"}, `realm "WRONG.ORG" is not in`},
		{"keytab without the principal", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "alice@EXAMPLE.COM"}, "holds no key for alice@EXAMPLE.COM"},
		{"flags: keytab without principal", Identity{Keytab: ktPath}, map[string]string{"KRB5_CONFIG": krb5, EnvPrincipal: "pdc@EXAMPLE.COM"}, "needs --principal"},
		{"flags: principal without keytab", Identity{Principal: "pdc@EXAMPLE.COM"}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath}, "--principal needs --keytab"},
		{"flags: wrong realm", Identity{Principal: "pdc@WRONG.ORG", Keytab: ktPath}, map[string]string{"KRB5_CONFIG": krb5}, `realm "WRONG.ORG" is not in`},
		{"flags: missing keytab", Identity{Principal: "pdc", Keytab: filepath.Join(dir, "none.keytab")}, map[string]string{"KRB5_CONFIG": krb5}, "does not exist (--keytab)"},
		{"KDC does not answer", Identity{}, map[string]string{"KRB5_CONFIG": krb5, EnvKeytab: ktPath, EnvPrincipal: "pdc@EXAMPLE.COM"}, "is the KDC of EXAMPLE.COM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Login(tt.id, func(k string) string { return tt.env[k] })
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

// ccache returns a ticket cache with one ticket-granting ticket for
// user@realm ending at end.
func ccache(t *testing.T, user, realm string, end time.Time) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCCache(&b, testCredential(user, realm, end, nil)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestExplain(t *testing.T) {
	ended := fmt.Errorf("open /user/pdc/x: %w", errors.New("[Root cause: KRBMessage_Handling_Error] cannot login, no user credentials available and no valid existing session"))
	if got := Explain(ended).Error(); !strings.Contains(got, "run kinit again") || !strings.HasPrefix(got, ended.Error()) {
		t.Errorf("Explain(ended ticket) = %q", got)
	}
	if !errors.Is(Explain(ended), ended) {
		t.Error("Explain does not wrap the error")
	}
	other := errors.New("connection refused")
	if Explain(other) != other || Explain(nil) != nil {
		t.Error("Explain changed an error that is not an ended ticket")
	}
}

func TestErrorCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"SASL handshake: [Root cause: KDC_Error] KRB Error: (31) KRB_AP_ERR_BAD_INTEGRITY Integrity check failed", "KRB_AP_ERR_BAD_INTEGRITY"},
		{"KRB Error: (6) KDC_ERR_C_PRINCIPAL_UNKNOWN Client not found", "KDC_ERR_C_PRINCIPAL_UNKNOWN"},
		{"connection refused", ""},
	} {
		if got := ErrorCode(fmt.Errorf("%s", tt.in)); got != tt.want {
			t.Errorf("ErrorCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
