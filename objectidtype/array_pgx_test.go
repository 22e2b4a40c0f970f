package objectidtype

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestSlicePgxEncode: pgx encodes a Slice or NullSlice through the array
// codec of the parameter's type, as []ObjectID; a single bytea refuses it
// (ErrScalarParameter), a single uuid and uuid[] elements (in binary
// format) too (ErrNotUUID); a nil slice is NULL everywhere.
func TestSlicePgxEncode(t *testing.T) {
	m := pgtype.NewMap()
	o := seedBytes
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		for _, tt := range []struct {
			v, like any
			n       int
		}{
			{Slice{o, {}}, []ObjectID{o, {}}, 2},
			{NullSlice{{o, true}, {}}, []NullObjectID{{o, true}, {}}, 2},
			{Slice{}, []ObjectID{}, 0},
		} {
			got, err := m.Encode(pgtype.ByteaArrayOID, f, tt.v, nil)
			want, err2 := m.Encode(pgtype.ByteaArrayOID, f, tt.like, nil)
			if err != nil || err2 != nil || string(got) != string(want) {
				t.Errorf("format %d %T into bytea[]: %q, %v; want %q (%v)", f, tt.v, got, err, want, err2)
			}
			if buf, err := m.Encode(pgtype.ByteaOID, f, tt.v, nil); !errors.Is(err, ErrScalarParameter) || buf != nil {
				t.Errorf("format %d %T into bytea: %q, %v; want an error wrapping ErrScalarParameter", f, tt.v, buf, err)
			}
			if buf, err := m.Encode(pgtype.UUIDOID, f, tt.v, nil); !errors.Is(err, ErrNotUUID) || buf != nil {
				t.Errorf("format %d %T into uuid: %q, %v; want an error wrapping ErrNotUUID", f, tt.v, buf, err)
			}
			// In text format an ObjectID element is its TextValue, `\x…`,
			// which PostgreSQL refuses for a uuid.
			if f == pgtype.BinaryFormatCode && tt.n > 0 {
				if buf, err := m.Encode(pgtype.UUIDArrayOID, f, tt.v, nil); !errors.Is(err, ErrNotUUID) || buf != nil {
					t.Errorf("%T into uuid[]: %q, %v; want an error wrapping ErrNotUUID", tt.v, buf, err)
				}
			}
		}
		for _, v := range []any{Slice(nil), NullSlice(nil)} {
			for _, oid := range []uint32{pgtype.UUIDOID, pgtype.UUIDArrayOID, pgtype.ByteaOID, pgtype.ByteaArrayOID} {
				if buf, err := m.Encode(oid, f, v, nil); err != nil || buf != nil {
					t.Errorf("format %d nil %T into oid %d: %q, %v; want NULL", f, v, oid, buf, err)
				}
			}
		}
	}
	_, err := Slice{o}.BytesValue()
	if want := "objectidtype: a Slice is bound to a parameter of one value: a Slice of 1 into a bytea; compare with = ANY($1) to bind a bytea[] or pgid.objectid[], or bind one ObjectID"; err == nil || err.Error() != want {
		t.Errorf("BytesValue: %v, want %s", err, want)
	}
}
