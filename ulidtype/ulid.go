package ulidtype

import (
	"bytes"
	"encoding/binary"
	"time"

	"github.com/google/uuid"
)

// ULID is a Universally Unique Lexicographically Sortable Identifier: a
// big-endian 48-bit Unix millisecond timestamp followed by 80 bits of entropy
// (in [LayoutV7], 74 random bits and a UUIDv7's version and variant).
//
// The zero value is the nil ID (all zero bits, the nil UUID). ULID is a
// comparable value type: == tells equality and [ULID.Compare] tells order,
// which is the order of creation time.
type ULID [16]byte

// maxTimestamp is the largest timestamp a ULID can hold: 2^48-1 milliseconds
// after the Unix epoch, in the year 10889.
const maxTimestamp = 1<<48 - 1

// FromBytes returns the ULID held in b, which must be exactly 16 bytes. The
// error is otherwise a [*ParseError] wrapping [ErrLength].
func FromBytes(b []byte) (ULID, error) {
	if len(b) != len(ULID{}) {
		return ULID{}, bytesLengthError(b)
	}
	return ULID(b), nil
}

// FromUUID returns the ULID with the same 16 bytes as u. Any UUID converts;
// the result's Time is meaningful only if u was made as a ULID.
func FromUUID(u uuid.UUID) ULID { return ULID(u) }

// UUID returns the same 16 bytes as a [uuid.UUID].
func (u ULID) UUID() uuid.UUID { return uuid.UUID(u) }

// Bytes returns the 16 bytes of u in a new slice.
func (u ULID) Bytes() []byte { return u[:] }

// IsZero reports whether u is the zero value, the nil ID.
func (u ULID) IsZero() bool { return u == ULID{} }

// Compare returns -1, 0 or +1 as u sorts before, equal to or after v. The
// order is the byte order, which is the order of the timestamps and, within one
// millisecond of one generator, the order of creation.
func (u ULID) Compare(v ULID) int { return bytes.Compare(u[:], v[:]) }

// Timestamp returns the time of u, in UTC, with millisecond precision, as
// oklog/ulid's Timestamp does.
func (u ULID) Timestamp() time.Time {
	return time.UnixMilli(u.UnixMilli()).UTC()
}

// UnixMilli returns the 48-bit time of u in milliseconds since the Unix
// epoch, as [time.Time.UnixMilli] counts them.
func (u ULID) UnixMilli() int64 {
	return int64(binary.BigEndian.Uint64(u[:8]) >> 16)
}

// IsV7 reports whether u is also a valid RFC 9562 UUIDv7: version 7 (the top
// 4 bits of byte 6) and variant 10 (the top 2 bits of byte 8). It is true for
// every ULID made in [LayoutV7] and every value of PostgreSQL 18's uuidv7(),
// and by chance for some of [LayoutULID]: about 1 in 32 of those New makes
// (their version bits are the top of the sequence, which starts with its top
// bit 0) and 1 in 64 random ones. [ULID.Timestamp] reads the same 48 bits either
// way.
func (u ULID) IsV7() bool { return u[6]>>4 == 7 && u[8]>>6 == 0b10 }

// halves returns u as two big-endian 64-bit words.
func (u ULID) halves() (hi, lo uint64) {
	return binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(u[8:])
}

// fromHalves is the inverse of halves.
func fromHalves(hi, lo uint64) (u ULID) {
	binary.BigEndian.PutUint64(u[:8], hi)
	binary.BigEndian.PutUint64(u[8:], lo)
	return u
}
