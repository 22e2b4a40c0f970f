package objectidtype_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
)

func ExampleNew() {
	a := objectidtype.New()
	b := objectidtype.New()
	fmt.Println(len(a.String()), a.Compare(b), time.Since(a.Timestamp()) < time.Minute)
	// Output: 24 -1 true
}

func ExampleNewGenerator() {
	// A fixed clock and entropy make the IDs reproducible: 5 bytes of
	// process-unique value, then the counter's 3-byte start. (A clock that
	// moves to a new second would read 5 more bytes, a new process-unique
	// value; a source that has run dry makes New panic.)
	clock := func() time.Time { return time.Date(2011, 9, 14, 3, 34, 35, 0, time.UTC) }
	entropy := bytes.NewReader([]byte{0x7c, 0xac, 0x81, 0xaf, 0x71, 0x36, 0x23, 0x6b})
	g := objectidtype.NewGenerator(clock, entropy)
	fmt.Println(g.New())
	fmt.Println(g.New())
	// Output:
	// 4e7020cb7cac81af7136236b
	// 4e7020cb7cac81af7136236c
}

func ExampleParse() {
	for _, s := range []string{"4e7020cb7cac81af7136236b", "jD0wOTOIwqZNdydH", "4e7020cb7cac81af7136236"} {
		id, err := objectidtype.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(id, id.Timestamp())
	}
	// Output:
	// 4e7020cb7cac81af7136236b 2011-09-14 03:34:35 +0000 UTC
	// 4e7020cb7cac81af7136236b 2011-09-14 03:34:35 +0000 UTC
	// objectidtype: parse "4e7020cb7cac81af7136236": invalid length 23, want 24 (hex) or 16 (short form)
}

func ExampleObjectID_Short() {
	id := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	fmt.Println(id.Short())
	// Output: jD0wOTOIwqZNdydH
}

func ExampleShortID() {
	type item struct {
		ID   objectidtype.ShortID  `json:"id"`
		Hex  objectidtype.ObjectID `json:"hex"`
		Next *objectidtype.ShortID `json:"next"`
	}
	id := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	b, _ := json.Marshal(item{ID: objectidtype.ShortID(id), Hex: id})
	fmt.Println(string(b))
	// Output: {"id":"jD0wOTOIwqZNdydH","hex":"4e7020cb7cac81af7136236b","next":null}
}

func ExampleRange() {
	from := time.Date(2011, 9, 14, 3, 34, 35, 900e6, time.UTC)
	to := time.Date(2011, 9, 14, 3, 35, 0, 0, time.UTC)
	lo, hi := objectidtype.Range(from, to)
	// SELECT * FROM items WHERE id >= $1 AND id < $2
	fmt.Println(lo)
	fmt.Println(hi)
	// Output:
	// 4e7020cb0000000000000000
	// 4e7020e40000000000000000
}

func Example_pgx() {
	// Single ObjectIDs need no registration. pgidpgx.Register adds slices
	// in the text modes, pgid.objectid[] results and encoding without
	// allocating; on a pool, set it up on every connection with
	//
	//	cfg.AfterConnect = pgidpgx.AfterConnect
	//
	// Here the connection's type map (conn.TypeMap()) stands alone.
	m := pgtype.NewMap()
	pgidpgx.Register(m)
	id := objectidtype.MustParse("4e7020cb7cac81af7136236b")

	bin, _ := m.Encode(pgtype.ByteaOID, pgtype.BinaryFormatCode, id, nil)
	txt, _ := m.Encode(0, pgtype.TextFormatCode, id, nil) // QueryExecModeExec, simple protocol
	fmt.Printf("%x\n%s\n", bin, txt)

	var back objectidtype.ObjectID
	_ = m.Scan(pgtype.ByteaOID, pgtype.BinaryFormatCode, bin, &back)
	var missing *objectidtype.ObjectID
	_ = m.Scan(pgtype.ByteaOID, pgtype.BinaryFormatCode, nil, &missing)
	fmt.Println(back == id, missing == nil)
	// Output:
	// 4e7020cb7cac81af7136236b
	// \x4e7020cb7cac81af7136236b
	// true true
}

func ExampleShortAlphabet() {
	id := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	fmt.Println(id.Short(), strings.Trim(id.Short(), objectidtype.ShortAlphabet) == "", len(objectidtype.ShortAlphabet))
	// Output: jD0wOTOIwqZNdydH true 64
}
