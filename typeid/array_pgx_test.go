package typeid

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/ulidtype"
)

// TestSlicePgxEncode: pgx encodes a Slice or NullSlice through the array
// codec of the parameter's type, as []ID[P]; a bytea or bytea[] parameter
// refuses it (ErrNotBytea), a single uuid too (ErrScalarParameter); a nil
// slice is NULL everywhere.
func TestSlicePgxEncode(t *testing.T) {
	m := pgtype.NewMap()
	id := FromULID[userPrefix](ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG"))
	for _, f := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		for _, tt := range []struct {
			v, like any
		}{
			{Slice[userPrefix]{id, {}}, []ID[userPrefix]{id, {}}},
			{NullSlice[userPrefix]{{id, true}, {}}, []NullID[userPrefix]{{id, true}, {}}},
		} {
			got, err := m.Encode(pgtype.UUIDArrayOID, f, tt.v, nil)
			want, err2 := m.Encode(pgtype.UUIDArrayOID, f, tt.like, nil)
			if err != nil || err2 != nil || string(got) != string(want) {
				t.Errorf("format %d %T into uuid[]: %q, %v; want %q (%v)", f, tt.v, got, err, want, err2)
			}
			for _, oid := range []uint32{pgtype.ByteaOID, pgtype.ByteaArrayOID} {
				if buf, err := m.Encode(oid, f, tt.v, nil); !errors.Is(err, ErrNotBytea) || buf != nil {
					t.Errorf("format %d %T into oid %d: %q, %v; want an error wrapping ErrNotBytea", f, tt.v, oid, buf, err)
				}
			}
			if buf, err := m.Encode(pgtype.UUIDOID, f, tt.v, nil); !errors.Is(err, ErrScalarParameter) || buf != nil {
				t.Errorf("format %d %T into uuid: %q, %v; want an error wrapping ErrScalarParameter", f, tt.v, buf, err)
			}
		}
		for _, v := range []any{Slice[userPrefix](nil), NullSlice[userPrefix](nil)} {
			for _, oid := range []uint32{pgtype.UUIDOID, pgtype.UUIDArrayOID, pgtype.ByteaOID, pgtype.ByteaArrayOID} {
				if buf, err := m.Encode(oid, f, v, nil); err != nil || buf != nil {
					t.Errorf("format %d nil %T into oid %d: %q, %v; want NULL", f, v, oid, buf, err)
				}
			}
		}
	}
}
