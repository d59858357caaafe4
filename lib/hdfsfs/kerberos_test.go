package hdfsfs

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdc-mr/pdc/lib/kerberos"
)

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
		t.Setenv(kerberos.EnvKeytab, keytab)
		t.Setenv(kerberos.EnvPrincipal, principal)
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
		t.Setenv(kerberos.EnvKeytab, "")
		t.Setenv(kerberos.EnvPrincipal, "")
		t.Setenv("KRB5CCNAME", "FILE:"+cc)
		roundTrip(t, "ccache.bin")
	})
	t.Run("no ticket", func(t *testing.T) {
		t.Setenv(kerberos.EnvKeytab, "")
		t.Setenv(kerberos.EnvPrincipal, "")
		t.Setenv("KRB5CCNAME", filepath.Join(t.TempDir(), "none"))
		_, err := FromConfDir(conf)
		if err == nil || !strings.Contains(err.Error(), "run kinit") {
			t.Fatalf("error %v, want one saying to run kinit", err)
		}
	})
}
