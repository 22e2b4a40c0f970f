package objectidtype

import (
	"bytes"
	"encoding/binary"
	"time"
)

// ObjectID is a MongoDB-style object identifier: a big-endian 32-bit Unix
// timestamp in seconds, a 40-bit process-unique random value and a 24-bit
// counter.
//
// The zero value is the nil ID. ObjectID is a comparable value type: == tells
// equality and [ObjectID.Compare] tells order, which is the order of creation
// time (to the second) and, within one process, the order of creation.
type ObjectID [12]byte

// FromBytes returns the ObjectID held in b, which must be exactly 12 bytes.
// The error is otherwise a [*ParseError] wrapping [ErrLength].
func FromBytes(b []byte) (ObjectID, error) {
	if len(b) != len(ObjectID{}) {
		return ObjectID{}, bytesLengthError(b)
	}
	return ObjectID(b), nil
}

// Bytes returns the 12 bytes of o in a new slice.
func (o ObjectID) Bytes() []byte { return o[:] }

// IsZero reports whether o is the zero value, the nil ID.
func (o ObjectID) IsZero() bool { return o == ObjectID{} }

// Compare returns -1, 0 or +1 as o sorts before, equal to or after p. The
// order is the byte order, which is the order of the timestamps and, within
// one second of one generator, the order of creation.
func (o ObjectID) Compare(p ObjectID) int { return bytes.Compare(o[:], p[:]) }

// Timestamp returns the time of o, in UTC, with one-second precision, as the
// MongoDB Go driver's ObjectID.Timestamp does.
func (o ObjectID) Timestamp() time.Time {
	return time.Unix(o.Unix(), 0).UTC()
}

// Unix returns the 32-bit time of o in seconds since the Unix epoch, as
// [time.Time.Unix] counts them.
func (o ObjectID) Unix() int64 {
	return int64(binary.BigEndian.Uint32(o[:4]))
}
