package typeid

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/internal/idtext"
	"github.com/pgid/pgid/ulidtype"
)

// AnyID is a TypeID whose prefix is known only at run time: from
// configuration, or any TypeID in a log line or a request. It holds the
// prefix and the 16 bytes of the UUID; its text is that of an [ID] with the
// same prefix, and [FromAny] turns it into one after checking the prefix.
//
// The zero value has the empty prefix and the nil UUID, and is written
// 00000000000000000000000000. AnyID is comparable with ==: two are equal if
// prefix and UUID are.
//
// In a database, the uuid column holds the UUID only, so the prefix comes
// from the caller: [AnyID.Value] (and, with pgx, [AnyID.UUIDValue]) binds the
// UUID, and [AnyID.Scan] (and [AnyID.ScanUUID]) of a uuid sets the UUID and
// keeps the prefix id already has, as set by [AnyFromUUID] or [NewAny]. A
// TypeID text, from a text column or JSON, carries its own prefix, which
// replaces id's. To store the text itself, bind [AnyID.String].
type AnyID struct {
	prefix string
	b      [16]byte
}

// NewAny returns a new AnyID with the given prefix, its UUID made as by
// [New]. The error wraps [ErrPrefix] if prefix breaks the specification's
// rules (see [ValidPrefix]).
func NewAny(prefix string) (AnyID, error) {
	if err := ValidPrefix(prefix); err != nil {
		return AnyID{}, err
	}
	return AnyID{prefix: prefix, b: generator.New()}, nil
}

// AnyFromUUID returns the AnyID with the given prefix and the 16 bytes of u,
// a UUID of any version. The error wraps [ErrPrefix] if prefix breaks the
// specification's rules.
func AnyFromUUID(prefix string, u uuid.UUID) (AnyID, error) {
	if err := ValidPrefix(prefix); err != nil {
		return AnyID{}, err
	}
	return AnyID{prefix: prefix, b: u}, nil
}

// ParseAny parses the TypeID text s with whatever prefix it has: a prefix,
// '_' and 26 lower-case base32 characters, or the 26 characters alone (the
// empty prefix). It is as strict as [Parse] in everything but the prefix's
// value: a malformed prefix fails with [ErrPrefix], a suffix of another
// length with [ErrLength], upper case or a character outside the alphabet
// with [ErrCharacter], a first suffix character above '7' with
// [ErrOverflow]. To accept one prefix only, use [ParseWithPrefix], or
// [Parse] if the prefix is a type.
func ParseAny(s string) (AnyID, error) {
	var id AnyID
	err := parseAny(s, &id)
	return id, err
}

// MustParseAny is like [ParseAny] but panics on error. It is meant for
// constants in tests and initializers.
func MustParseAny(s string) AnyID {
	id, err := ParseAny(s)
	if err != nil {
		panic(err)
	}
	return id
}

// ParseWithPrefix parses s as the TypeID text of an ID whose prefix, known
// at run time, is prefix: what [Parse] does for a prefix type. Another
// prefix fails with [ErrWrongPrefix], naming both; a prefix argument that
// breaks the rules fails with [ErrPrefix].
func ParseWithPrefix(prefix, s string) (AnyID, error) {
	id := AnyID{prefix: prefix}
	if err := parse(prefix, s, &id.b); err != nil {
		return AnyID{}, err
	}
	return id, nil
}

// parseAny decodes the TypeID text s, of any prefix, into *id, which it
// writes only on success. The prefix is the text before the last '_', as
// the specification splits it (the suffix has no '_').
func parseAny[T string | []byte](s T, id *AnyID) error {
	var b [16]byte
	switch i := len(s) - 1 - suffixLen; {
	case i == -1:
		if decodeSuffix(s, 0, &b) {
			*id = AnyID{b: b}
			return nil
		}
	case i > 0 && s[i] == '_':
		if validPrefix(s[:i]) && decodeSuffix(s, i+1, &b) {
			*id = AnyID{prefix: string(s[:i]), b: b}
			return nil
		}
	}
	in := string(s)
	i := strings.LastIndexByte(in, '_')
	if i < 0 {
		return parseError(in, "")
	}
	if i > 0 && !validPrefix(in[:i]) {
		return prefixError(in, in[:i], true, "the prefix")
	}
	return parseError(in, in[:i])
}

// FromAny returns a as an ID of type P if a's prefix is P's. Otherwise the
// error wraps [ErrWrongPrefix] and names both prefixes, as [Parse] does.
func FromAny[P Prefix](a AnyID) (ID[P], error) {
	if p := prefixOf[P](); a.prefix != p {
		return ID[P]{}, wrongPrefix(a.String(), a.prefix, p)
	}
	return ID[P]{b: a.b}, nil
}

// Any returns id as an [AnyID] with P's prefix.
func (id ID[P]) Any() AnyID { return AnyID{prefix: prefixOf[P](), b: id.b} }

// Prefix returns the type prefix of id, "" for none.
func (id AnyID) Prefix() string { return id.prefix }

// Suffix returns the 26 lower-case base32 characters after the prefix.
func (id AnyID) Suffix() string {
	var b [suffixLen]byte
	idtext.Lower.EncodeID(&id.b, &b)
	return string(b[:])
}

// ULID returns the UUID's 16 bytes as a [ulidtype.ULID].
func (id AnyID) ULID() ulidtype.ULID { return id.b }

// UUID returns the UUID as a github.com/google/uuid [uuid.UUID].
func (id AnyID) UUID() uuid.UUID { return id.b }

// UUIDString returns the 36-character UUID form, lower case.
func (id AnyID) UUIDString() string { return ulidtype.ULID(id.b).UUIDString() }

// Bytes returns the UUID's 16 bytes in a new slice.
func (id AnyID) Bytes() []byte { return id.b[:] }

// IsZero reports whether id's UUID is the nil UUID, whatever its prefix.
func (id AnyID) IsZero() bool { return id.b == [16]byte{} }

// IsV7 reports whether id's UUID is a UUIDv7.
func (id AnyID) IsV7() bool { return ulidtype.ULID(id.b).IsV7() }

// Compare returns -1, 0 or +1 as id sorts before, equal to or after v: by
// prefix, then by UUID in byte order.
func (id AnyID) Compare(v AnyID) int {
	if c := strings.Compare(id.prefix, v.prefix); c != 0 {
		return c
	}
	return bytes.Compare(id.b[:], v.b[:])
}

// Timestamp returns the time in the first 48 bits of the UUID, as
// [ID.Timestamp].
func (id AnyID) Timestamp() time.Time { return ulidtype.ULID(id.b).Timestamp() }

// String returns the TypeID text: the prefix, '_' and the 26-character
// suffix, or the suffix alone if the prefix is empty.
func (id AnyID) String() string { return format(id.prefix, &id.b) }

// AppendText implements the [encoding.TextAppender] interface: it appends
// the TypeID text to b. An AnyID made by this package always has a valid
// prefix, so it does not fail.
func (id AnyID) AppendText(b []byte) ([]byte, error) { return appendText(b, id.prefix, &id.b), nil }

// MarshalText implements the [encoding.TextMarshaler] interface.
func (id AnyID) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, len(id.prefix)+1+suffixLen))
}

// UnmarshalText implements the [encoding.TextUnmarshaler] interface. It
// accepts what [ParseAny] does, and takes the text's prefix; on error id is
// left unchanged.
func (id *AnyID) UnmarshalText(text []byte) error {
	return parseAny(text, id)
}

// MarshalJSON implements the [encoding/json.Marshaler] interface: a JSON
// string holding the TypeID text.
func (id AnyID) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, len(id.prefix)+3+suffixLen)
	b = append(b, '"')
	b, _ = id.AppendText(b)
	return append(b, '"'), nil
}

// UnmarshalJSON implements the [encoding/json.Unmarshaler] interface: a JSON
// string holding what [ParseAny] accepts. JSON null leaves id unchanged, as
// for [ID.UnmarshalJSON]. On error id is left unchanged.
func (id *AnyID) UnmarshalJSON(data []byte) error {
	s, null, err := jsonText(data)
	if null || err != nil {
		return err
	}
	return id.UnmarshalText(s)
}

// Scan implements the [database/sql.Scanner] interface. A uuid, in every
// form [ID.Scan] takes (the 36-character text, the raw 16 bytes), sets the
// UUID and keeps id's prefix: the column holds no prefix. A TypeID text, from
// a text column, sets prefix and UUID as [ParseAny] does. NULL is an error
// wrapping [ErrNull] (scan into *AnyID or sql.Null[AnyID]). On error id is
// left unchanged.
func (id *AnyID) Scan(src any) error {
	switch src := src.(type) {
	case string:
		if isUUIDText(src) {
			return scanText(src, &id.b, "")
		}
		return parseAny(src, id)
	case []byte:
		if len(src) == len(id.b) {
			id.b = [16]byte(src)
			return nil
		}
		if src == nil {
			return errNullAny
		}
		if isUUIDText(src) {
			return scanText(src, &id.b, "")
		}
		return parseAny(src, id)
	case nil:
		return errNullAny
	}
	return fmt.Errorf("%w: cannot scan %T into an AnyID", ErrScanType, src)
}

// errNullAny is the error for NULL scanned into an AnyID.
var errNullAny = idtext.NullError(ErrNull, "an AnyID", "sql.Null[AnyID] or *AnyID")

// Value implements the [database/sql/driver.Valuer] interface: the
// 36-character UUID text, for a uuid column; the prefix is not stored.
func (id AnyID) Value() (driver.Value, error) { return id.UUIDString(), nil }

// SkipUnderlyingTypePlan implements the [pgtype.SkipUnderlyingTypePlanner] interface.
func (AnyID) SkipUnderlyingTypePlan() {}

// ScanUUID implements the [pgtype.UUIDScanner] interface: it sets the UUID
// and keeps id's prefix. NULL is an error wrapping [ErrNull].
func (id *AnyID) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return errNullAny
	}
	id.b = v.Bytes
	return nil
}

// UUIDValue implements the [pgtype.UUIDValuer] interface: the UUID, without
// the prefix.
func (id AnyID) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: id.b, Valid: true}, nil
}

// BytesValue implements the [pgtype.BytesValuer] interface, to refuse: it
// returns an error wrapping [ErrNotBytea].
func (id AnyID) BytesValue() ([]byte, error) { return nil, notByteaError(id) }
