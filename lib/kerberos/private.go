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

	cl       *krb.Client
	confPath string
	dir      string
	mu       sync.Mutex
	end      time.Time // of the ticket in the cache
	next     time.Time // when Keep refreshes it
	keep     sync.Once
	close    sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// MinRefresh is the least time between two refreshes of a private cache,
// whatever the ticket's life: a KDC that hands out short tickets is not
// asked every second.
const MinRefresh = 10 * time.Second

// NewPrivateCache logs in as id (which must name a keytab, here or in the
// environment) and writes a ticket-granting ticket to a new cache file.
// Keep refreshes it; Close removes it.
func NewPrivateCache(id Identity, getenv func(string) string) (*PrivateCache, error) {
	id = id.Resolve(getenv)
	if id.Keytab == "" {
		return nil, fmt.Errorf("kerberos: a private ticket cache needs --keytab and --principal")
	}
	cfg, confPath, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	// The client only does the AS exchanges of Refresh: no Login, whose
	// own renewal would run beside Keep.
	cl, err := keytabClient(cfg, confPath, id.Keytab, id.Principal)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pdc-krb5cc-")
	if err != nil {
		return nil, fmt.Errorf("kerberos: private ticket cache: %w (set TMPDIR to a writable directory)", err)
	}
	p := &PrivateCache{Path: filepath.Join(dir, "krb5cc"), cl: cl, confPath: confPath, dir: dir}
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
// the keytab's key) and replaces the cache file with it atomically. The
// cache names the client as the KDC's reply does.
func (p *PrivateCache) Refresh() error {
	received := time.Now()
	realm := p.cl.Credentials.Domain()
	req, err := messages.NewASReqForTGT(realm, p.cl.Config, p.cl.Credentials.CName())
	if err != nil {
		return fmt.Errorf("kerberos: ticket request for %s@%s: %v", p.cl.Credentials.CName().PrincipalNameString(), realm, err)
	}
	rep, err := p.cl.ASExchange(realm, req, 0)
	if err != nil {
		return loginError(p.cl, p.confPath, err)
	}
	if rep.CRealm != rep.Ticket.Realm {
		return fmt.Errorf("kerberos: the KDC of %s gave a ticket of realm %s for a client of realm %s: pdc writes caches for one realm (use kinit)", realm, rep.Ticket.Realm, rep.CRealm)
	}
	ticket, err := rep.Ticket.Marshal()
	if err != nil {
		return fmt.Errorf("kerberos: encode the KDC's ticket: %w", err)
	}
	enc := rep.DecryptedEncPart
	var buf bytes.Buffer
	if err := WriteCCache(&buf, Credential{
		Client: rep.CName, Server: rep.Ticket.SName, Realm: rep.CRealm, Key: enc.Key,
		AuthTime: enc.AuthTime, StartTime: enc.StartTime, EndTime: enc.EndTime, RenewTill: enc.RenewTill,
		Flags: enc.Flags.Bytes, Ticket: ticket,
	}); err != nil {
		return err
	}
	tmp := p.Path + ".new"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("kerberos: write ticket cache %s: %w (is TMPDIR full?)", tmp, err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		return fmt.Errorf("kerberos: write ticket cache %s: %w", p.Path, err)
	}
	// Two thirds of the ticket's own life after it was received, and
	// never sooner than MinRefresh.
	start := enc.StartTime
	if start.IsZero() {
		start = enc.AuthTime
	}
	life := enc.EndTime.Sub(start)
	p.mu.Lock()
	p.end = enc.EndTime
	p.next = received.Add(max(life*2/3, MinRefresh))
	p.mu.Unlock()
	return nil
}

// nextRefresh is when Keep refreshes the cache next.
func (p *PrivateCache) nextRefresh() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next
}

// Keep refreshes the cache in the background, when two thirds of its
// ticket's life have passed (at least MinRefresh apart, and MinRefresh
// after a failed attempt), until Close. errs, if not nil, receives each
// failed attempt. Calls after the first do nothing.
func (p *PrivateCache) Keep(errs func(error)) {
	p.keep.Do(func() {
		p.mu.Lock()
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		stop, done := p.stop, p.done
		p.mu.Unlock()
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Until(p.nextRefresh())):
				}
				for err := p.Refresh(); err != nil; err = p.Refresh() {
					if errs != nil {
						errs(err)
					}
					select {
					case <-stop:
						return
					case <-time.After(MinRefresh):
					}
				}
			}
		}()
	})
}

// Close stops Keep and removes the cache and its directory. Calls after the
// first do nothing.
func (p *PrivateCache) Close() error {
	var err error
	p.close.Do(func() {
		p.keep.Do(func() {}) // no Keep after Close
		p.mu.Lock()
		stop, done := p.stop, p.done
		p.mu.Unlock()
		if stop != nil {
			close(stop)
			<-done
		}
		p.cl.Destroy()
		err = os.RemoveAll(p.dir)
	})
	return err
}
