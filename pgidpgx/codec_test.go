package pgidpgx

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// domainOID stands for the OID of a pgid domain, as LoadTypes registers it;
// its array type is domainOID+1.
const domainOID = 98765

var (
	vecULID     = ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	vecULIDText = "0183e10a-2df0-5979-3eae-a7ca08ad61b0"
	vecOID      = objectidtype.MustParse("4e7020cb7cac81af7136236b")
)

// wire returns the bytea form of the seed ObjectID in format f.
func wire(f int16) []byte {
	if f == pgtype.BinaryFormatCode {
		return vecOID[:]
	}
	return []byte(`\x` + vecOID.Hex())
}

// withDomain returns a map with codec registered for a domain and its array,
// as LoadTypes does.
func withDomain(name string, codec pgtype.Codec) *pgtype.Map {
	m := pgtype.NewMap()
	dom := &pgtype.Type{Name: name, OID: domainOID, Codec: codec}
	m.RegisterType(dom)
	m.RegisterType(&pgtype.Type{Name: "_" + name, OID: domainOID + 1, Codec: &pgtype.ArrayCodec{ElementType: dom}})
	return m
}

var formats = []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode}

// objectIDCodec, the pgid.objectid domain's: ObjectIDs encode as bytea,
// other values as pgx's bytea codec encodes them, and values decode into any
// as ObjectIDs, also in arrays.
func TestObjectIDCodec(t *testing.T) {
	m := withDomain("objectid", objectIDCodec{})
	o := vecOID
	for _, v := range []any{o, &o, objectidtype.ShortID(o), &[]objectidtype.ShortID{objectidtype.ShortID(o)}[0], objectidtype.NullObjectID{ObjectID: o, Valid: true}} {
		for _, f := range formats {
			if got, err := m.Encode(domainOID, f, v, nil); err != nil || string(got) != string(wire(f)) {
				t.Errorf("format %d %T: %q, %v", f, v, got, err)
			}
		}
	}
	for _, v := range []any{(*objectidtype.ObjectID)(nil), objectidtype.NullObjectID{}, (*objectidtype.NullObjectID)(nil)} {
		if got, err := m.Encode(domainOID, pgtype.BinaryFormatCode, v, nil); err != nil || got != nil {
			t.Errorf("NULL %T: %q, %v", v, got, err)
		}
	}
	if got, err := m.Encode(domainOID, pgtype.BinaryFormatCode, []byte{1, 2}, nil); err != nil || string(got) != "\x01\x02" {
		t.Errorf("[]byte: %q, %v", got, err)
	}
	for _, f := range formats {
		var a any
		if err := m.Scan(domainOID, f, wire(f), &a); err != nil || a != o {
			t.Errorf("format %d into any: %#v, %v", f, a, err)
		}
		if err := m.Scan(domainOID, f, nil, &a); err != nil || a != nil {
			t.Errorf("format %d NULL into any: %#v, %v", f, a, err)
		}
		// A value of the wrong length is an error, not a zero ObjectID.
		bad := []byte{1, 2, 3}
		if f == pgtype.TextFormatCode {
			bad = []byte(`\x010203`)
		}
		if err := m.Scan(domainOID, f, bad, &a); !errors.Is(err, objectidtype.ErrLength) {
			t.Errorf("format %d, 3 bytes into any: %#v, %v", f, a, err)
		}
		arr, err := m.Encode(domainOID+1, f, []objectidtype.NullObjectID{{ObjectID: o, Valid: true}, {}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Scan(domainOID+1, f, arr, &a); err != nil {
			t.Fatal(err)
		}
		if vals, ok := a.([]any); !ok || len(vals) != 2 || vals[0] != o || vals[1] != nil {
			t.Errorf("format %d array into any: %#v", f, a)
		}
	}
}

// The plan byteaCodec returns for ObjectIDs refuses anything else instead
// of encoding a zero ID.
func TestEncodePlanObjectIDMisuse(t *testing.T) {
	plan := byteaCodec{}.PlanEncode(pgtype.NewMap(), pgtype.ByteaOID, pgtype.BinaryFormatCode, vecOID)
	if buf, err := plan.Encode(vecOID.Hex(), nil); err == nil {
		t.Fatalf("plan encoded a string as %x", buf)
	}
}

// ulidCodec decodes into any as ULID, in both formats and in arrays; typed
// scans and encoding are pgx's.
func TestULIDCodec(t *testing.T) {
	u := vecULID
	for _, m := range []*pgtype.Map{withDomain("ulid", ulidCodec{}), decodeUUIDMap()} {
		oid := uint32(domainOID)
		if _, ok := m.TypeForOID(oid); !ok {
			oid = pgtype.UUIDOID
		}
		arrOID := oid + 1
		if oid == pgtype.UUIDOID {
			arrOID = pgtype.UUIDArrayOID
		}
		for _, src := range []struct {
			format int16
			data   []byte
		}{{pgtype.BinaryFormatCode, u[:]}, {pgtype.TextFormatCode, []byte(vecULIDText)}} {
			var a any
			if err := m.Scan(oid, src.format, src.data, &a); err != nil || a != u {
				t.Errorf("oid %d format %d: into any = %#v, %v", oid, src.format, a, err)
			}
			if err := m.Scan(oid, src.format, nil, &a); err != nil || a != nil {
				t.Errorf("oid %d format %d: NULL into any = %#v, %v", oid, src.format, a, err)
			}
			var p pgtype.UUID
			if err := m.Scan(oid, src.format, src.data, &p); err != nil || p.Bytes != u {
				t.Errorf("oid %d format %d: pgtype.UUID scan = %v, %v", oid, src.format, p, err)
			}
			if got, err := m.Encode(oid, src.format, u, nil); err != nil || string(got) != string(src.data) {
				t.Errorf("oid %d format %d: encode = %q, %v", oid, src.format, got, err)
			}
			arr, err := m.Encode(arrOID, src.format, []*ulidtype.ULID{&u, nil}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Scan(arrOID, src.format, arr, &a); err != nil {
				t.Fatal(err)
			}
			if vals, ok := a.([]any); !ok || len(vals) != 2 || vals[0] != u || vals[1] != nil {
				t.Errorf("oid %d format %d: array into any = %#v", arrOID, src.format, a)
			}
		}
	}
	// A corrupt value is an error, not a zero ULID.
	m := pgtype.NewMap()
	if v, err := (ulidCodec{}).DecodeValue(m, pgtype.UUIDOID, pgtype.BinaryFormatCode, []byte{1, 2, 3}); !errors.Is(err, ulidtype.ErrLength) {
		t.Errorf("DecodeValue of 3 bytes = %v, %v", v, err)
	}
	if v, err := (ulidCodec{}).DecodeValue(m, pgtype.UUIDOID, pgtype.TextFormatCode, []byte("zz")); !errors.Is(err, ulidtype.ErrLength) {
		t.Errorf("DecodeValue of bad text = %v, %v", v, err)
	}
}

func decodeUUIDMap() *pgtype.Map {
	m := pgtype.NewMap()
	DecodeUUIDAsULID(m)
	return m
}

// Without DecodeUUIDAsULID, pgx decodes a uuid into any as [16]byte.
func TestDecodeUUIDDefault(t *testing.T) {
	var a any
	if err := pgtype.NewMap().Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, vecULID[:], &a); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.([16]byte); !ok {
		t.Fatalf("default decode into any: %T", a)
	}
}
