package kerberos

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/iana/nametype"
	"github.com/jcmturner/gokrb5/v8/types"
)

func testCredential(user, realm string, end time.Time, flags []byte) Credential {
	return Credential{
		Client:    types.NewPrincipalName(nametype.KRB_NT_PRINCIPAL, user),
		Server:    types.NewPrincipalName(nametype.KRB_NT_SRV_INST, "krbtgt/"+realm),
		Realm:     realm,
		Key:       types.EncryptionKey{KeyType: etypeID.AES128_CTS_HMAC_SHA1_96, KeyValue: bytes.Repeat([]byte{0xab}, 16)},
		AuthTime:  end.Add(-time.Hour),
		StartTime: end.Add(-time.Hour),
		EndTime:   end,
		RenewTill: end.Add(time.Hour),
		Flags:     flags,
		Ticket:    []byte("\x61\x03der"),
	}
}

// TestWriteCCache: what WriteCCache writes, gokrb5's reader (an independent
// implementation) reads back field for field.
func TestWriteCCache(t *testing.T) {
	end := time.Unix(1900000000, 0)
	for _, tt := range []struct {
		name string
		cred Credential
	}{
		{"user", testCredential("pdc", "EXAMPLE.COM", end, []byte{0x40, 0xe1, 0, 0})},
		{"two components, no flags", testCredential("etl/host.example.com", "CORP.EXAMPLE.ORG", end, nil)},
		{"short flags", testCredential("a", "R", end, []byte{0x50})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteCCache(&b, tt.cred); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "cc")
			if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			cc, err := credentials.LoadCCache(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := cc.DefaultPrincipal.PrincipalName.PrincipalNameString(), tt.cred.Client.PrincipalNameString(); got != want || cc.DefaultPrincipal.Realm != tt.cred.Realm {
				t.Errorf("default principal %s@%s, want %s@%s", got, cc.DefaultPrincipal.Realm, want, tt.cred.Realm)
			}
			entries := cc.GetEntries()
			if len(entries) != 1 {
				t.Fatalf("%d entries, want 1", len(entries))
			}
			e := entries[0]
			if got := e.Server.PrincipalName.PrincipalNameString(); got != tt.cred.Server.PrincipalNameString() {
				t.Errorf("server %s, want %s", got, tt.cred.Server.PrincipalNameString())
			}
			if e.Key.KeyType != tt.cred.Key.KeyType || !bytes.Equal(e.Key.KeyValue, tt.cred.Key.KeyValue) {
				t.Errorf("key %v, want %v", e.Key, tt.cred.Key)
			}
			for _, tm := range []struct {
				name      string
				got, want time.Time
			}{{"auth", e.AuthTime, tt.cred.AuthTime}, {"start", e.StartTime, tt.cred.StartTime}, {"end", e.EndTime, tt.cred.EndTime}, {"renew", e.RenewTill, tt.cred.RenewTill}} {
				if !tm.got.Equal(tm.want) {
					t.Errorf("%s time %v, want %v", tm.name, tm.got, tm.want)
				}
			}
			var wantFlags [4]byte
			copy(wantFlags[:], tt.cred.Flags)
			if !bytes.Equal(e.TicketFlags.Bytes, wantFlags[:]) {
				t.Errorf("flags %x, want %x", e.TicketFlags.Bytes, wantFlags)
			}
			if !bytes.Equal(e.Ticket, tt.cred.Ticket) {
				t.Errorf("ticket %q, want %q", e.Ticket, tt.cred.Ticket)
			}
		})
	}
}

func TestWriteCCacheErrors(t *testing.T) {
	if err := WriteCCache(&bytes.Buffer{}); err == nil {
		t.Error("no credentials: no error")
	}
	if err := WriteCCache(&bytes.Buffer{}, testCredential("a", "R", time.Now(), make([]byte, 5))); err == nil {
		t.Error("5 bytes of flags: no error")
	}
}

// TestWriteCCacheKlist: MIT Kerberos's klist (Debian krb5-user) lists the
// principal, the ticket and its flags of a cache WriteCCache wrote.
func TestWriteCCacheKlist(t *testing.T) {
	klist, err := exec.LookPath("klist")
	if err != nil {
		t.Skip("no klist (apt-get install krb5-user)")
	}
	var b bytes.Buffer
	// forwardable (bit 1), renewable (8), initial (9), pre-authent (10)
	if err := WriteCCache(&b, testCredential("pdc", "EXAMPLE.COM", time.Now().Add(time.Hour), []byte{0x40, 0xe0, 0, 0})); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cc")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(klist, "-f", "-c", "FILE:"+path).CombinedOutput()
	if err != nil {
		t.Fatalf("klist: %v\n%s", err, out)
	}
	for _, want := range []string{"Default principal: pdc@EXAMPLE.COM", "krbtgt/EXAMPLE.COM@EXAMPLE.COM", "Flags: FRIA"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("klist output lacks %q:\n%s", want, out)
		}
	}
}
