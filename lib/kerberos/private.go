package kerberos

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	krb "github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/messages"
)

// PrivateCache is a ticket cache of pdc's own, in a new directory only its
// user can read, for the Hadoop client (java) that pdc starts: filled from a
// keytab login and refreshed before its ticket ends, so that a run outlives
// the KDC's ticket lifetime and the user's own ticket cache is never
// written. The Hadoop client re-reads the cache when its ticket has ended
// (UserGroupInformation's relogin from the ticket cache).
type PrivateCache struct {
	// Path is the cache file; Env sets KRB5CCNAME to it.
	Path string

	cl   *krb.Client
	dir  string
	mu   sync.Mutex
	end  time.Time // of the ticket in the cache
	stop chan struct{}
	done chan struct{}
}

// NewPrivateCache logs in as id (which must name a keytab, here or in the
// environment) and writes a ticket-granting ticket to a new cache file.
// Keep refreshes it; Close removes it.
func NewPrivateCache(id Identity, getenv func(string) string) (*PrivateCache, error) {
	id = id.Resolve(getenv)
	if id.Keytab == "" {
		return nil, fmt.Errorf("kerberos: a private ticket cache needs --keytab and --principal")
	}
	cl, err := Login(id, getenv)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pdc-krb5cc-")
	if err != nil {
		return nil, fmt.Errorf("kerberos: private ticket cache: %w", err)
	}
	p := &PrivateCache{Path: filepath.Join(dir, "krb5cc"), cl: cl, dir: dir}
	if err := p.Refresh(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

// Env is the KRB5CCNAME=FILE:... entry that points a process at the cache.
func (p *PrivateCache) Env() string { return "KRB5CCNAME=FILE:" + p.Path }

// End is when the ticket in the cache ends.
func (p *PrivateCache) End() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end
}

// Refresh asks the KDC for a new ticket-granting ticket (an AS exchange with
// the keytab's key) and replaces the cache file with it atomically.
func (p *PrivateCache) Refresh() error {
	realm := p.cl.Credentials.Domain()
	cname := p.cl.Credentials.CName()
	req, err := messages.NewASReqForTGT(realm, p.cl.Config, cname)
	if err != nil {
		return fmt.Errorf("kerberos: ticket request for %s@%s: %v", cname.PrincipalNameString(), realm, err)
	}
	rep, err := p.cl.ASExchange(realm, req, 0)
	if err != nil {
		return fmt.Errorf("kerberos: login as %s@%s: %s", cname.PrincipalNameString(), realm, oneLine(err))
	}
	ticket, err := rep.Ticket.Marshal()
	if err != nil {
		return fmt.Errorf("kerberos: encode ticket: %w", err)
	}
	enc := rep.DecryptedEncPart
	var buf bytes.Buffer
	if err := WriteCCache(&buf, Credential{
		Client: cname, Server: rep.Ticket.SName, Realm: realm, Key: enc.Key,
		AuthTime: enc.AuthTime, StartTime: enc.StartTime, EndTime: enc.EndTime, RenewTill: enc.RenewTill,
		Flags: enc.Flags.Bytes, Ticket: ticket,
	}); err != nil {
		return err
	}
	tmp := p.Path + ".new"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("kerberos: write ticket cache: %w", err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		return fmt.Errorf("kerberos: write ticket cache: %w", err)
	}
	p.mu.Lock()
	p.end = enc.EndTime
	p.mu.Unlock()
	return nil
}

// Keep refreshes the cache in the background, when two thirds of its
// ticket's life have passed (and every 10 seconds after a failed attempt),
// until Close. errs, if not nil, receives each failed attempt.
func (p *PrivateCache) Keep(errs func(error)) {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		for {
			wait := time.Until(p.End()) * 2 / 3
			if wait < time.Second {
				wait = time.Second
			}
			select {
			case <-p.stop:
				return
			case <-time.After(wait):
			}
			for err := p.Refresh(); err != nil; err = p.Refresh() {
				if errs != nil {
					errs(err)
				}
				select {
				case <-p.stop:
					return
				case <-time.After(10 * time.Second):
				}
			}
		}
	}()
}

// Close stops Keep and removes the cache and its directory.
func (p *PrivateCache) Close() error {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.cl.Destroy()
	return os.RemoveAll(p.dir)
}
