// Package kerberos logs pdc in to a Kerberos-secured Hadoop cluster, as
// Hadoop's own tools do: from the ticket cache kinit leaves, or from a
// keytab for unattended runs. It also writes ticket caches (ccache.go),
// for the Hadoop client that pdc starts (PrivateCache).
package kerberos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	krb "github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// Identity is who pdc is on a secured cluster (hadoop.security.authentication
// kerberos in its configuration), as Hadoop's own tools take it:
//
//   - a keytab, for unattended runs: Keytab and Principal (the --keytab and
//     --principal flags), else the environment's PDC_KEYTAB and
//     PDC_PRINCIPAL; the login renews itself;
//   - else the ticket cache kinit leaves: KRB5CCNAME ("FILE:" prefix
//     allowed), default /tmp/krb5cc_UID.
//
// The Kerberos configuration is KRB5_CONFIG, default /etc/krb5.conf. Every
// failure is one line that says what to do.
type Identity struct {
	Principal string // USER@REALM, or USER in the default realm
	Keytab    string // path
}

// Environment variables that give a keytab identity when the flags do not.
const (
	EnvKeytab    = "PDC_KEYTAB"
	EnvPrincipal = "PDC_PRINCIPAL"
)

// Resolve fills an empty identity from the environment (getenv).
func (id Identity) Resolve(getenv func(string) string) Identity {
	if id.Principal == "" && id.Keytab == "" {
		return Identity{Principal: getenv(EnvPrincipal), Keytab: getenv(EnvKeytab)}
	}
	return id
}

// Login logs in as id (Resolve'd), or from the ticket cache when id names no
// keytab. getenv reads KRB5_CONFIG, KRB5CCNAME and the PDC_ variables.
func Login(id Identity, getenv func(string) string) (*krb.Client, error) {
	cfg, confPath, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	id = id.Resolve(getenv)
	if id.Keytab != "" {
		c, err := keytabClient(cfg, confPath, id.Keytab, id.Principal)
		if err != nil {
			return nil, err
		}
		if err := c.Login(); err != nil {
			return nil, loginError(c, confPath, err)
		}
		return c, nil
	}
	if id.Principal != "" {
		return nil, errors.New("kerberos: --principal needs --keytab (or drop it and run kinit)")
	}
	return cacheLogin(cfg, ccachePath(getenv))
}

// settings are pdc's gokrb5 client settings.
var settings = []func(*krb.Settings){krb.DisablePAFXFAST(true)}

// loadConfig reads the Kerberos configuration of KRB5_CONFIG.
func loadConfig(getenv func(string) string) (*config.Config, string, error) {
	confPath := getenv("KRB5_CONFIG")
	if confPath == "" {
		confPath = "/etc/krb5.conf"
	}
	cfg, err := config.Load(confPath)
	if err != nil {
		return nil, "", fmt.Errorf("kerberos: read %s: %v (set KRB5_CONFIG to the cluster's krb5.conf)", confPath, err)
	}
	return cfg, confPath, nil
}

// ccachePath is the ticket cache of KRB5CCNAME, else the default file.
func ccachePath(getenv func(string) string) string {
	if p := getenv("KRB5CCNAME"); p != "" {
		return strings.TrimPrefix(p, "FILE:")
	}
	return fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
}

// keytabClient checks a keytab identity and returns its client, not yet
// logged in.
func keytabClient(cfg *config.Config, confPath, ktPath, principal string) (*krb.Client, error) {
	if principal == "" {
		return nil, fmt.Errorf("kerberos: --keytab %s needs --principal USER@REALM", ktPath)
	}
	user, realm, ok := strings.Cut(principal, "@")
	if !ok {
		realm = cfg.LibDefaults.DefaultRealm
	}
	if err := knownRealm(cfg, confPath, realm); err != nil {
		return nil, err
	}
	kt, err := keytab.Load(ktPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("kerberos: keytab %s does not exist (--keytab)", ktPath)
		}
		return nil, fmt.Errorf("kerberos: read keytab %s: %v", ktPath, err)
	}
	if !keytabHolds(kt, user, realm) {
		return nil, fmt.Errorf("kerberos: keytab %s holds no key for %s@%s (klist -kt %s lists its principals)", ktPath, user, realm, ktPath)
	}
	return krb.NewWithKeytab(user, realm, kt, cfg, settings...), nil
}

// loginError is the one-line error of a failed keytab login.
func loginError(c *krb.Client, confPath string, err error) error {
	realm := c.Credentials.Domain()
	return fmt.Errorf("kerberos: login as %s@%s: %s (is the KDC of %s in %s up?)", c.Credentials.CName().PrincipalNameString(), realm, oneLine(err), realm, confPath)
}

func cacheLogin(cfg *config.Config, path string) (*krb.Client, error) {
	if kind, _, ok := strings.Cut(path, ":"); ok && !strings.Contains(kind, "/") {
		// KEYRING:, KCM:, DIR:, API:, MEMORY: (FILE: is cut off already).
		return nil, fmt.Errorf("kerberos: ticket cache %s is not a file, and pdc reads file caches only: run kinit -c FILE:/tmp/krb5cc_%d and export KRB5CCNAME=FILE:/tmp/krb5cc_%d, or give --principal and --keytab", path, os.Getuid(), os.Getuid())
	}
	cc, err := loadCCache(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("kerberos: no ticket cache at %s: run kinit, or give --principal and --keytab", path)
		}
		return nil, fmt.Errorf("kerberos: read ticket cache %s: %v (run kinit again)", path, err)
	}
	now := time.Now()
	valid := false
	for _, e := range cc.GetEntries() {
		if strings.HasPrefix(e.Server.PrincipalName.PrincipalNameString(), "krbtgt/") && e.EndTime.After(now) {
			valid = true
		}
	}
	if !valid {
		return nil, fmt.Errorf("kerberos: the ticket in %s has expired: run kinit again (or give --principal and --keytab)", path)
	}
	c, err := krb.NewFromCCache(cc, cfg, settings...)
	if err != nil {
		return nil, fmt.Errorf("kerberos: ticket cache %s: %s (run kinit again)", path, oneLine(err))
	}
	return c, nil
}

// loadCCache is credentials.LoadCCache, whose parser panics on a
// truncated file: that is an error here.
func loadCCache(path string) (cc *credentials.CCache, err error) {
	defer func() {
		if r := recover(); r != nil {
			cc, err = nil, fmt.Errorf("damaged ticket cache: %v", r)
		}
	}()
	return credentials.LoadCCache(path)
}

// knownRealm reports a realm the Kerberos configuration does not name.
func knownRealm(cfg *config.Config, confPath, realm string) error {
	for _, r := range cfg.Realms {
		if r.Realm == realm {
			return nil
		}
	}
	return fmt.Errorf("kerberos: realm %q is not in %s: check the principal's realm, or KRB5_CONFIG", realm, confPath)
}

// keytabHolds reports whether kt has a key for user@realm.
func keytabHolds(kt *keytab.Keytab, user, realm string) bool {
	for _, e := range kt.Entries {
		if e.Principal.Realm == realm && strings.Join(e.Principal.Components, "/") == user {
			return true
		}
	}
	return false
}

// Explain adds what to do to the error of a ticket-cache login whose ticket
// ended while pdc ran (only keytab logins renew themselves); other errors
// pass unchanged.
func Explain(err error) error {
	if err != nil && strings.Contains(err.Error(), "no valid existing session") {
		return fmt.Errorf("%w (the Kerberos ticket has ended: run kinit again, or give --principal and --keytab, whose login renews itself)", err)
	}
	return err
}

// ErrorCode returns the Kerberos error code in a gokrb5 error
// ("KRB_AP_ERR_BAD_INTEGRITY"), or "".
func ErrorCode(err error) string {
	s := err.Error()
	i := strings.Index(s, "KRB_")
	if i < 0 {
		i = strings.Index(s, "KDC_ERR_")
	}
	if i < 0 {
		return ""
	}
	code, _, _ := strings.Cut(s[i:], " ")
	return code
}

// oneLine keeps the first line of a gokrb5 error, which may span several.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(s)
}
