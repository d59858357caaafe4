package kerberos

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jcmturner/gokrb5/v8/types"
)

// A ticket cache file, as kinit writes it and as Java, Hadoop and MIT
// Kerberos read it (the FILE credential cache, version 4). All integers
// are big-endian; a "counted string" is a uint32 length and the bytes.
//
//	uint16 version            0x0504
//	uint16 header length      12, then one header field:
//	  uint16 tag 1, uint16 length 8, int32 seconds, int32 microseconds
//	                          (the KDC's clock offset: 0 here)
//	principal                 the cache's default principal (the client)
//	credential...             to the end of the file
//
// A principal is a uint32 name type, a uint32 number of components, the
// realm and the components as counted strings. A credential is
//
//	principal client, principal server
//	uint16 key type, counted string key
//	uint32 auth time, start time, end time, renew till (Unix seconds)
//	uint8 is_skey (0)
//	uint32 ticket flags (the KDC's flag bits, bit 0 the most significant)
//	uint32 0 addresses, uint32 0 authorization data
//	counted string ticket (its DER encoding), counted string second ticket ("")
const ccacheVersion = 0x0504

// Credential is one ticket of a ticket cache with its session key.
type Credential struct {
	Client, Server types.PrincipalName
	Realm          string // of both
	Key            types.EncryptionKey
	AuthTime       time.Time
	StartTime      time.Time
	EndTime        time.Time
	RenewTill      time.Time
	Flags          []byte // the KDC's ticket flags as a bit string (up to 4 bytes)
	Ticket         []byte // DER
}

// WriteCCache writes a ticket cache holding creds, whose default principal is
// the first credential's client.
func WriteCCache(w io.Writer, creds ...Credential) error {
	if len(creds) == 0 {
		return errors.New("ticket cache: no credential")
	}
	var b []byte
	u16 := func(v uint16) { b = binary.BigEndian.AppendUint16(b, v) }
	u32 := func(v uint32) { b = binary.BigEndian.AppendUint32(b, v) }
	data := func(s []byte) { u32(uint32(len(s))); b = append(b, s...) }
	principal := func(p types.PrincipalName, realm string) {
		u32(uint32(p.NameType))
		u32(uint32(len(p.NameString)))
		data([]byte(realm))
		for _, c := range p.NameString {
			data([]byte(c))
		}
	}
	unix := func(t time.Time) {
		if t.IsZero() {
			u32(0)
			return
		}
		u32(uint32(t.Unix()))
	}
	u16(ccacheVersion)
	u16(12)
	u16(1) // header tag: KDC clock offset
	u16(8)
	u32(0)
	u32(0)
	principal(creds[0].Client, creds[0].Realm)
	for _, c := range creds {
		if len(c.Flags) > 4 {
			return fmt.Errorf("ticket cache: %d bytes of ticket flags, want at most 4", len(c.Flags))
		}
		principal(c.Client, c.Realm)
		principal(c.Server, c.Realm)
		u16(uint16(c.Key.KeyType))
		data(c.Key.KeyValue)
		unix(c.AuthTime)
		unix(c.StartTime)
		unix(c.EndTime)
		unix(c.RenewTill)
		b = append(b, 0) // is_skey
		var flags [4]byte
		copy(flags[:], c.Flags)
		b = append(b, flags[:]...)
		u32(0) // addresses
		u32(0) // authorization data
		data(c.Ticket)
		data(nil)
	}
	_, err := w.Write(b)
	return err
}
