package ulidtype_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

func ExampleNew() {
	a := ulidtype.New()
	b := ulidtype.New()
	fmt.Println(len(a.String()), a.Compare(b), time.Since(a.Timestamp()) < time.Minute)
	// Output: 26 -1 true
}

// ExampleNewGenerator makes reproducible ULIDs for a test: a fixed clock and
// an endless deterministic entropy source. Each ULID reads exactly the bytes
// it needs from the source, so the same seed always gives the same IDs.
func ExampleNewGenerator() {
	now := time.Date(2022, 10, 16, 13, 44, 44, 272e6, time.UTC)
	clock := func() time.Time { return now }
	g := ulidtype.NewGenerator(clock, rand.NewChaCha8([32]byte{'p', 'g', 'i', 'd'}))
	a, b := g.New(), g.New()
	fmt.Println(a)
	fmt.Println(b)
	now = now.Add(time.Millisecond)
	fmt.Println(g.New())
	fmt.Println(a.Compare(b), a.Timestamp().Equal(b.Timestamp()))
	// Output:
	// 01GFGGMBFGE60AR3B4EDQDSCMD
	// 01GFGGMBFGE60AR3NWFRABGE39
	// 01GFGGMBFHEQB86DGTN966J65Z
	// -1 true
}

// ExampleGenerator_SetLayout shows the two layouts side by side. In the
// default, LayoutV7, a ULID is also a UUIDv7: the version digit 7 and a
// variant digit 8, 9, a or b, where PostgreSQL 18's uuid_extract_timestamp
// and uuid_extract_version look; in LayoutULID those bits are random too.
// Both start with the same 48-bit millisecond, so Time is exact for both and
// they sort by time together.
func ExampleGenerator_SetLayout() {
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	g := ulidtype.NewGenerator(clock, rand.NewChaCha8([32]byte{'p', 'g', 'i', 'd'}))
	v7 := g.New()
	g.SetLayout(ulidtype.LayoutULID)
	plain := g.New() // the next millisecond: layouts do not mix within one
	fmt.Println(v7.UUIDString(), v7.IsV7(), v7.Timestamp().Format(time.RFC3339Nano))
	fmt.Println(plain.UUIDString(), plain.IsV7(), plain.Timestamp().Format(time.RFC3339Nano))
	fmt.Println(v7.Compare(plain))
	// Output:
	// 01a205b3-d000-7180-ac0d-64736edcb28d true 2026-11-23T00:00:00Z
	// 01a205b3-d001-3c7e-14b8-3869fdd6c336 false 2026-11-23T00:00:00.001Z
	// -1
}

func ExampleParse() {
	for _, s := range []string{
		"01GFGGMBFGB5WKXBN7S84ATRDG",           // canonical
		"01gfggmbfgb5wkxbn7s84atrdg",           // any case
		"0183e10a-2df0-5979-3eae-a7ca08ad61b0", // as PostgreSQL prints the uuid
		"0183e10a2df059793eaea7ca08ad61b0",     // hex
	} {
		id, err := ulidtype.Parse(s)
		fmt.Println(id, err)
	}
	id := ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	fmt.Println(id.UUIDString(), id.Timestamp().Format(time.RFC3339Nano))

	_, err := ulidtype.Parse("01GFGGMBFGB5WKXBN7S84ATRDU")
	fmt.Println(err)
	// Output:
	// 01GFGGMBFGB5WKXBN7S84ATRDG <nil>
	// 01GFGGMBFGB5WKXBN7S84ATRDG <nil>
	// 01GFGGMBFGB5WKXBN7S84ATRDG <nil>
	// 01GFGGMBFGB5WKXBN7S84ATRDG <nil>
	// 0183e10a-2df0-5979-3eae-a7ca08ad61b0 2022-10-16T13:44:44.272Z
	// ulidtype: parse "01GFGGMBFGB5WKXBN7S84ATRDU": invalid character 'U' at position 25, want a Crockford base32 character (0-9, A-Z without I, L, O, U)
}

func ExampleRange() {
	from := time.Date(2022, 10, 16, 13, 0, 0, 0, time.UTC)
	lo, hi := ulidtype.Range(from, from.Add(time.Hour))
	// conn.Query(ctx, "SELECT … FROM events WHERE id >= $1 AND id < $2", lo, hi)
	fmt.Println(lo.UUIDString())
	fmt.Println(hi.UUIDString())
	fmt.Println(ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG").Compare(lo) >= 0)
	// Output:
	// 0183e0e1-3880-0000-0000-000000000000
	// 0183e118-2700-0000-0000-000000000000
	// true
}

// Example_pgx shows the pgx side without a server. A ULID encodes as a
// binary uuid with no registration. Where pgx does not know the parameter's
// type, such as a []ULID in QueryExecModeExec (OID 0), it needs
// pgidpgx.Register, which pgidpgx.AfterConnect calls on every pooled
// connection.
func Example_pgx() {
	m := pgtype.NewMap() // with a connection: conn.TypeMap()
	id := ulidtype.MustParse("01GFGGMBFGB5WKXBN7S84ATRDG")
	bin, _ := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, nil)
	fmt.Printf("%x\n", bin)
	var back ulidtype.ULID
	_ = m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, bin, &back)
	fmt.Println(back)

	_, err := m.Encode(0, pgtype.TextFormatCode, []ulidtype.ULID{id}, nil)
	fmt.Println("[]ULID, OID 0, unregistered:", err != nil)
	pgidpgx.Register(m)
	txt, _ := m.Encode(0, pgtype.TextFormatCode, []ulidtype.ULID{id}, nil)
	fmt.Printf("[]ULID, OID 0, registered: %s\n", txt)
	// Output:
	// 0183e10a2df059793eaea7ca08ad61b0
	// 01GFGGMBFGB5WKXBN7S84ATRDG
	// []ULID, OID 0, unregistered: true
	// []ULID, OID 0, registered: {0183e10a-2df0-5979-3eae-a7ca08ad61b0}
}

func ExampleAlphabet() {
	id := ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	fmt.Println(strings.Trim(id.String(), ulidtype.Alphabet) == "", len(ulidtype.Alphabet))
	// Output: true 32
}
