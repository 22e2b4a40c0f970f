package ulidtype

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestSlicePgxEncode: pgx encodes a Slice or NullSlice through the array
// codec of the parameter's type, as []ULID; a bytea or bytea[] parameter
// refuses it (ErrNotBytea; an empty one is an empty bytea[]), a single
// uuid too (ErrScalarParameter); a nil slice is NULL everywhere.
func TestSlicePgxEncode(t *testing.T) {
	m := pgtype.NewMap()
	u := vecULID
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		for _, tt := range []struct {
			v, like any
			n       int
		}{
			{Slice{u, {}}, []ULID{u, {}}, 2},
			{NullSlice{{u, true}, {}}, []NullULID{{u, true}, {}}, 2},
			{Slice{}, []ULID{}, 0},
		} {
			got, err := m.Encode(pgtype.UUIDArrayOID, f, tt.v, nil)
			want, err2 := m.Encode(pgtype.UUIDArrayOID, f, tt.like, nil)
			if err != nil || err2 != nil || string(got) != string(want) {
				t.Errorf("format %d %T into uuid[]: %q, %v; want %q (%v)", f, tt.v, got, err, want, err2)
			}
			for _, oid := range []uint32{pgtype.ByteaOID, pgtype.ByteaArrayOID} {
				if oid == pgtype.ByteaArrayOID && tt.n == 0 {
					continue // an empty array has no element to refuse
				}
				if buf, err := m.Encode(oid, f, tt.v, nil); !errors.Is(err, ErrNotBytea) || buf != nil {
					t.Errorf("format %d %T into oid %d: %q, %v; want an error wrapping ErrNotBytea", f, tt.v, oid, buf, err)
				}
			}
			if buf, err := m.Encode(pgtype.UUIDOID, f, tt.v, nil); !errors.Is(err, ErrScalarParameter) || buf != nil {
				t.Errorf("format %d %T into uuid: %q, %v; want an error wrapping ErrScalarParameter", f, tt.v, buf, err)
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
	_, err := Slice{u}.BytesValue()
	if want := "ulidtype: a ULID or TypeID is not a bytea: a Slice of 1 into a bytea (ulidtype: a Slice is bound to a parameter of one value); store ULIDs in uuid[] or pgid.ulid[]"; err == nil || err.Error() != want || !errors.Is(err, ErrScalarParameter) {
		t.Errorf("BytesValue: %v, want %s", err, want)
	}
}
