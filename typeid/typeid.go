package typeid

import (
	"bytes"
	"time"

	"github.com/google/uuid"
	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/ulidtype"
)

// Prefix is the constraint on an ID's prefix type. Its Prefix method returns
// the type prefix, a constant, when called on the type's zero value; the
// usual prefix type is an empty struct:
//
//	type UserPrefix struct{}
//
//	func (UserPrefix) Prefix() string { return "user" }
type Prefix interface {
	Prefix() string
}

// ID is a TypeID whose prefix is given by the type P: ID[UserPrefix] and
// ID[OrderPrefix] are distinct types, and neither is assignable or
// convertible to the other. Its value is the 16 bytes of the UUID,
// big-endian, as PostgreSQL stores a uuid, in 16 bytes of memory; the prefix
// is in the type, not in the value. [ID.UUID], [ID.ULID] and [ID.Bytes] give
// the bytes, [FromUUID], [FromULID] and [FromBytes] make an ID of them.
//
// The zero value is the nil UUID (IsZero), written as
// prefix_00000000000000000000000000. ID is comparable with == and ordered by
// [ID.Compare], which for IDs made by [New] is the order of creation.
type ID[P Prefix] struct {
	// p makes ID[P] and ID[Q] different structs, so that neither converts
	// to the other; a zero-length array takes no space, and of pointers it
	// is comparable whatever P is.
	p [0]*P
	b [16]byte
}

// maxPrefixLen is the longest prefix the specification allows.
const maxPrefixLen = 63

// suffixLen is the length of the base32 suffix.
const suffixLen = 26

// prefixOf returns P's prefix.
func prefixOf[P Prefix]() string {
	var p P
	return p.Prefix()
}

// FromULID returns the ID with the 16 bytes of u.
func FromULID[P Prefix](u ulidtype.ULID) ID[P] { return ID[P]{b: u} }

// FromUUID returns the ID with the 16 bytes of u, which may be a UUID of any
// version: the specification lets parsers and converters accept them all.
func FromUUID[P Prefix](u uuid.UUID) ID[P] { return ID[P]{b: u} }

// FromBytes returns the ID held in b, which must be exactly 16 bytes; the
// error is otherwise a [*ParseError] wrapping [ErrLength], with
// [ulidtype.FromBytes]'s message.
func FromBytes[P Prefix](b []byte) (ID[P], error) {
	u, err := ulidtype.FromBytes(b)
	if err != nil {
		return ID[P]{}, fromULIDError(err)
	}
	return ID[P]{b: u}, nil
}

// Prefix returns the type prefix of id, P's prefix.
func (ID[P]) Prefix() string { return prefixOf[P]() }

// Suffix returns the 26 lower-case base32 characters after the prefix.
func (id ID[P]) Suffix() string {
	var b [suffixLen]byte
	idtext.Lower.EncodeID(&id.b, &b)
	return string(b[:])
}

// ULID returns the same 16 bytes as a [ulidtype.ULID].
func (id ID[P]) ULID() ulidtype.ULID { return ulidtype.ULID(id.b) }

// UUID returns the same 16 bytes as a github.com/google/uuid [uuid.UUID].
func (id ID[P]) UUID() uuid.UUID { return uuid.UUID(id.b) }

// UUIDString returns the 36-character UUID form, lower case, as PostgreSQL
// prints a uuid.
func (id ID[P]) UUIDString() string { return ulidtype.ULID(id.b).UUIDString() }

// Bytes returns the 16 bytes of id in a new slice.
func (id ID[P]) Bytes() []byte { return id.b[:] }

// IsZero reports whether id is the zero value, the nil UUID.
func (id ID[P]) IsZero() bool { return id == ID[P]{} }

// IsV7 reports whether id is a UUIDv7 (version 7, variant 10), as every ID
// that [New] makes is. Parsed and converted IDs may be other versions.
func (id ID[P]) IsV7() bool { return ulidtype.ULID(id.b).IsV7() }

// Compare returns -1, 0 or +1 as id sorts before, equal to or after v: the
// byte order, as PostgreSQL orders uuid, and for UUIDv7 the order of their
// millisecond timestamps.
func (id ID[P]) Compare(v ID[P]) int { return bytes.Compare(id.b[:], v.b[:]) }

// Timestamp returns the time in the first 48 bits of id, in UTC with
// millisecond precision: the creation time of a UUIDv7 or a ULID, and
// meaningless for other UUID versions.
func (id ID[P]) Timestamp() time.Time { return ulidtype.ULID(id.b).Timestamp() }

// UnixMilli returns the first 48 bits of id as Unix milliseconds.
func (id ID[P]) UnixMilli() int64 { return ulidtype.ULID(id.b).UnixMilli() }
