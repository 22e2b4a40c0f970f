package integration_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"testing"

	"github.com/lib/pq"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

func openLibPQ(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	sdb, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sdb.Close() })
	if err := sdb.Ping(); err != nil {
		t.Fatalf("lib/pq: %v", err)
	}
	return sdb
}

// lib/pq. By default it sends parameters as text, which is right for uuid,
// pgid.ulid and plain bytea (it knows bytea's OID and hex-encodes []byte),
// but not for a bytea domain: see TestLibPQByteaDomain.
func TestLibPQ(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, true)
	sdb := openLibPQ(t, dsn)
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	d := sqlDB{sdb}
	t.Run("roundtrip", func(t *testing.T) { checkRoundTrips(t, d, "plain") })

	// binary_parameters=yes sends []byte in binary: every table works.
	bin := sqlDB{openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))}
	t.Run("binary_parameters/roundtrip", func(t *testing.T) { checkRoundTrips(t, bin, tables...) })

	t.Run("arrays", func(t *testing.T) {
		ctx := context.Background()
		for _, table := range tables {
			us := []ulidtype.ULID{ulidtype.New(), ulidtype.New(), ulidtype.New()}
			os := []objectidtype.ObjectID{specialObjectIDs[2], specialObjectIDs[5], specialObjectIDs[6]}
			group := nextKey()
			for i := range us {
				if err := bin.exec(ctx, "INSERT INTO "+table+" (k, u, o) VALUES ($1, $2, $3)", group*1000+int64(i), us[i], os[i]); err != nil {
					t.Fatal(err)
				}
			}
			// pq.Array uses each ULID's Value (the UUID text); bytea arrays
			// need pq.ByteaArray, which hex-encodes (pq.Array would put the
			// raw bytes into the array literal).
			var n int
			err := sdb.QueryRow("SELECT count(*) FROM "+table+" WHERE u = ANY($1) AND o = ANY($2)",
				pq.Array([]ulidtype.ULID{us[0], us[2]}), pq.ByteaArray{os[0][:], os[2][:]}).Scan(&n)
			if err != nil || n != 2 {
				t.Fatalf("%s: = ANY($1): %d rows, %v; want 2", table, n, err)
			}
			var gotU []ulidtype.ULID
			var gotO pq.ByteaArray
			err = sdb.QueryRow("SELECT array_agg(u ORDER BY k), array_agg(o ORDER BY k) FROM "+table+" WHERE k / 1000 = $1", group).
				Scan(pq.Array(&gotU), &gotO)
			if err != nil {
				t.Fatalf("%s: array_agg: %v", table, err)
			}
			if fmt.Sprint(gotU) != fmt.Sprint(us) || len(gotO) != len(os) {
				t.Fatalf("%s: array_agg: %v, %d ObjectIds", table, gotU, len(gotO))
			}
			for i, b := range gotO {
				if o, err := objectidtype.FromBytes(b); err != nil || o != os[i] {
					t.Fatalf("%s: array_agg ObjectId %d: %x, %v; want %s", table, i, b, err, os[i])
				}
			}
		}
	})

	// Driver fact: uuid results reach Scan as a 36-character []byte (not a
	// string, not 16 bytes); ULID.Scan takes it.
	t.Run("uuid_result_type", func(t *testing.T) {
		u := ulidtype.New()
		for _, table := range tables {
			k := nextKey()
			if err := d.exec(context.Background(), "INSERT INTO "+table+" (k, u) VALUES ($1, $2)", k, u); err != nil {
				t.Fatal(err)
			}
			var raw any
			if err := sdb.QueryRow("SELECT u FROM "+table+" WHERE k = $1", k).Scan(&raw); err != nil {
				t.Fatal(err)
			}
			if b, ok := raw.([]byte); !ok || string(b) != u.UUIDString() {
				t.Errorf("%s: uuid reached Scan as %T %q, want []byte %q", table, raw, raw, u.UUIDString())
			}
		}
	})
}

// lib/pq binds a []byte to a bytea *domain* parameter as raw text (it only
// hex-encodes for bytea's own OID). The result is always an error, never a
// wrong stored value: 0x00 is not valid text, invalid UTF-8 is rejected, and
// a backslash starts an escape that shortens the value, which the domain's
// 12-byte CHECK then rejects. The safe ways: binary_parameters=yes, or a
// ::bytea cast on the parameter.
func TestLibPQByteaDomain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	sdb := openLibPQ(t, dsn)
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	d := sqlDB{sdb}

	states := map[string]int{}
	for _, o := range specialObjectIDs {
		k := nextKey()
		err := d.exec(ctx, "INSERT INTO dom (k, o) VALUES ($1, $2)", k, o)
		var n int
		var got sql.NullString
		if qerr := sdb.QueryRow("SELECT count(*), max(encode(o, 'hex')) FROM dom WHERE k = $1", k).Scan(&n, &got); qerr != nil {
			t.Fatal(qerr)
		}
		switch {
		case err != nil && n == 0:
			states[libpqState(err)]++
			t.Logf("%s: refused: %v", o, err)
		case err == nil && n == 1 && got.String == o.Hex():
			states["stored exactly"]++
		default:
			t.Errorf("%s: insert error %v, stored %d rows %q: a wrong value got through", o, err, n, got.String)
		}
	}
	t.Logf("lib/pq, []byte into pgid.objectid, text parameters: %v", states)
	// 0x00 bytes: invalid_byte_sequence_for_encoding (22021); a "\000"
	// escape and a "\x" prefix shorten the value: check_violation (23514).
	if states["22021"] == 0 || states["23514"] == 0 {
		t.Errorf("want both 22021 (0x00, invalid UTF-8) and 23514 (escapes caught by the CHECK) among the refusals: %v", states)
	}
	if states["stored exactly"] == 0 {
		t.Errorf("the plain-ASCII ObjectId should pass unchanged: %v", states)
	}

	// Safe: a ::bytea cast makes the parameter bytea, which lib/pq
	// hex-encodes; binary_parameters=yes sends the bytes in binary.
	bin := sqlDB{openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))}
	for _, c := range []struct {
		name string
		d    db
		sql  string
	}{
		{"cast", d, "INSERT INTO dom (k, o) VALUES ($1, $2::bytea)"},
		{"binary_parameters", bin, "INSERT INTO dom (k, o) VALUES ($1, $2)"},
	} {
		for _, o := range specialObjectIDs {
			k := nextKey()
			if err := c.d.exec(ctx, c.sql, k, o); err != nil {
				t.Fatalf("%s: %s: %v", c.name, o, err)
			}
			if _, so := stored(t, d, "dom", k); so != o.Hex() {
				t.Fatalf("%s: stored %s, want %s", c.name, so, o.Hex())
			}
		}
	}
}

func libpqState(err error) string {
	if e, ok := err.(*pq.Error); ok {
		return string(e.Code)
	}
	if s := sqlState(err); s != "" {
		return s
	}
	return "client error"
}

// hexStringValuer is what ObjectID.Value must not do: return text.
type hexStringValuer objectidtype.ObjectID

func (h hexStringValuer) Value() (driver.Value, error) {
	return `\x` + objectidtype.ObjectID(h).Hex(), nil
}

// Driver fact: lib/pq stores a string bound to a plain bytea parameter as
// its literal characters, so a Value() returning `\x4e70…` stores 26 bytes.
// ObjectID.Value returns the raw bytes and stores 12.
func TestLibPQStringIntoBytea(t *testing.T) {
	t.Parallel()
	sdb := openLibPQ(t, newDB(t, true))
	if _, err := sdb.Exec(driverTables); err != nil {
		t.Fatal(err)
	}
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	for _, c := range []struct {
		v    any
		want int
	}{{hexStringValuer(o), 26}, {o, 12}} {
		var n int
		if err := sdb.QueryRow("INSERT INTO plain (k, o) VALUES ($1, $2) RETURNING octet_length(o)", nextKey(), c.v).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("%T into bytea with lib/pq: %d bytes stored, want %d", c.v, n, c.want)
		}
	}
}
