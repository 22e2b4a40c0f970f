package pgidpgx_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// Register names the PostgreSQL types of the Go types, for parameters of
// unknown OID. (Tests against a server are in integration_test.)
func TestRegister(t *testing.T) {
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	for _, c := range []struct {
		v    any
		want string
	}{
		{ulidtype.ULID{}, "uuid"}, {(*ulidtype.ULID)(nil), "uuid"}, {[]ulidtype.ULID(nil), "_uuid"}, {(*[]ulidtype.ULID)(nil), "_uuid"}, {[]*ulidtype.ULID(nil), "_uuid"},
		{ulidtype.NullULID{}, "uuid"},
		{objectidtype.ObjectID{}, "bytea"}, {(*objectidtype.ObjectID)(nil), "bytea"},
		{[]objectidtype.ObjectID(nil), "_bytea"}, {(*[]objectidtype.ObjectID)(nil), "_bytea"}, {[]*objectidtype.ObjectID(nil), "_bytea"}, {objectidtype.NullObjectID{}, "bytea"},
	} {
		typ, ok := m.TypeForValue(c.v)
		if !ok || typ.Name != c.want {
			t.Errorf("%T: %v %v, want %s", c.v, typ, ok, c.want)
		}
	}
}

func ExampleAfterConnect() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig("postgres://postgres@localhost:5432/app")
	if err != nil {
		panic(err)
	}
	// Domain parameters in binary, domain arrays scannable, slices encodable
	// in every QueryExecMode. Needs the pgid migrations applied.
	cfg.AfterConnect = pgidpgx.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()
}

// After Register, ObjectIDs encode into plain bytea without allocating, and
// bytea still decodes into any as []byte.
func TestRegisterByteaEncoding(t *testing.T) {
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	var v any = objectidtype.New()
	plan := m.PlanEncode(pgtype.ByteaOID, pgtype.BinaryFormatCode, v)
	buf := make([]byte, 0, 32)
	if n := testing.AllocsPerRun(100, func() { buf, _ = plan.Encode(v, buf[:0]) }); n != 0 {
		t.Errorf("ObjectID into bytea: %v allocations, want 0", n)
	}
	o := v.(objectidtype.ObjectID)
	if string(buf) != string(o[:]) {
		t.Errorf("encoded %x, want %x", buf, o[:])
	}
	var a any
	if err := m.Scan(pgtype.ByteaOID, pgtype.BinaryFormatCode, []byte{1, 2}, &a); err != nil {
		t.Fatal(err)
	}
	if b, ok := a.([]byte); !ok || string(b) != "\x01\x02" {
		t.Errorf("bytea into any = %#v", a)
	}
}
