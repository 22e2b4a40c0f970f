package integration_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

const agreeN = 10_000

func randomULIDs(n int) []ulidtype.ULID {
	ids := make([]ulidtype.ULID, n)
	for i := range ids {
		rand.Read(ids[i][:])
	}
	// The extremes, and the ULID spec's example.
	ids[0] = ulidtype.ULID{}
	for i := range ids[1] {
		ids[1][i] = 0xFF
	}
	ids[2] = ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	return ids
}

func randomObjectIDs(n int) []objectidtype.ObjectID {
	ids := make([]objectidtype.ObjectID, n)
	for i := range ids {
		rand.Read(ids[i][:])
	}
	ids[0] = objectidtype.ObjectID{}
	for i := range ids[1] {
		ids[1][i] = 0xFF
	}
	ids[2] = objectidtype.MustParse("4e7020cb7cac81af7136236b")
	return ids
}

// randomTimes returns n times with microsecond precision (what timestamptz
// holds) from 1900 to year 12000, past both types' ranges at each end, plus
// the edges of those ranges.
func randomTimes(n int) []time.Time {
	lo := time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	hi := time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	ts := make([]time.Time, 0, n)
	edges := []time.Time{
		time.Unix(0, 0), time.Unix(-1, 999_999_000), time.UnixMilli(-1),
		time.UnixMilli(1<<48 - 1), time.UnixMilli(1 << 48), time.UnixMilli(1<<48 - 1).Add(999 * time.Microsecond),
		time.Unix(1<<32-1, 999_999_000), time.Unix(1<<32, 0),
		time.Date(2011, 9, 14, 3, 34, 35, 999_999_000, time.UTC),
	}
	ts = append(ts, edges...)
	// Half of them in the years IDs are made, where bounds matter most.
	recentLo := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	recentHi := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for len(ts) < n {
		a, b := lo, hi
		if len(ts)%2 == 0 {
			a, b = recentLo, recentHi
		}
		v, _ := rand.Int(rand.Reader, big.NewInt(b-a))
		ts = append(ts, time.UnixMicro(a+v.Int64()))
	}
	return ts
}

// SQL ULID functions agree with Go on 10,000 random IDs and times, in three
// round trips.
func TestULIDFunctionsAgreeWithGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)

	ids := randomULIDs(agreeN)
	texts := make([]string, len(ids))
	for i, id := range ids {
		texts[i] = id.String()
	}
	rows, err := conn.Query(ctx, `
		SELECT pgid.ulid_to_text(id), pgid.ulid_time(id),
		       pgid.ulid_from_text(s), pgid.ulid_from_text(lower(s)),
		       pgid.ulid_min_at(pgid.ulid_time(id)), pgid.ulid_max_at(pgid.ulid_time(id))
		FROM unnest($1::uuid[], $2::text[]) WITH ORDINALITY AS x(id, s, i) ORDER BY i`, ids, texts)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var text string
		var ts time.Time
		var fromText, fromLower, minAt, maxAt ulidtype.ULID
		if err := rows.Scan(&text, &ts, &fromText, &fromLower, &minAt, &maxAt); err != nil {
			t.Fatal(err)
		}
		id := ids[i]
		if text != id.String() {
			t.Errorf("ulid_to_text(%s) = %s, Go String %s", id.UUIDString(), text, id.String())
		}
		if !ts.Equal(id.Timestamp()) {
			t.Errorf("ulid_time(%s) = %v, Go Time %v", id, ts.UTC(), id.Timestamp())
		}
		if fromText != id || fromLower != id {
			t.Errorf("ulid_from_text(%s) = %s, lower case %s", id, fromText, fromLower)
		}
		if minAt != ulidtype.MinAt(id.Timestamp()) || maxAt != ulidtype.MaxAt(id.Timestamp()) {
			t.Errorf("bounds of %s's time: SQL %s..%s, Go %s..%s", id, minAt, maxAt,
				ulidtype.MinAt(id.Timestamp()), ulidtype.MaxAt(id.Timestamp()))
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("rows: %d, %v", i, err)
	}

	ts := randomTimes(agreeN)
	rows, err = conn.Query(ctx, `
		SELECT pgid.ulid_min_at(t), pgid.ulid_max_at(t)
		FROM unnest($1::timestamptz[]) WITH ORDINALITY AS x(t, i) ORDER BY i`, ts)
	if err != nil {
		t.Fatal(err)
	}
	i = 0
	for rows.Next() {
		var minAt, maxAt ulidtype.ULID
		if err := rows.Scan(&minAt, &maxAt); err != nil {
			t.Fatal(err)
		}
		if minAt != ulidtype.MinAt(ts[i]) || maxAt != ulidtype.MaxAt(ts[i]) {
			t.Errorf("bounds of %v: SQL %s..%s, Go %s..%s", ts[i], minAt, maxAt, ulidtype.MinAt(ts[i]), ulidtype.MaxAt(ts[i]))
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ts) {
		t.Fatalf("rows: %d, %v", i, err)
	}

	// Known vectors, both ways.
	var s1, s2, s3 string
	var u1 ulidtype.ULID
	var ms int64
	err = conn.QueryRow(ctx, `SELECT pgid.ulid_to_text('ffffffff-ffff-ffff-ffff-ffffffffffff'),
		pgid.ulid_to_text('00000000-0000-0000-0000-000000000000'),
		pgid.ulid_to_text('01563e3a-b5d3-d676-4c61-efb99302bd5b'),
		pgid.ulid_from_text('01ARZ3NDEKTSV4RRFFQ69G5FAV'),
		(extract(epoch FROM pgid.ulid_time(pgid.ulid_from_text('01ARZ3NDEKTSV4RRFFQ69G5FAV'))) * 1000)::bigint`).
		Scan(&s1, &s2, &s3, &u1, &ms)
	if err != nil {
		t.Fatal(err)
	}
	if s1 != "7ZZZZZZZZZZZZZZZZZZZZZZZZZ" || s2 != "00000000000000000000000000" || s3 != "01ARZ3NDEKTSV4RRFFQ69G5FAV" {
		t.Errorf("vectors: %s %s %s", s1, s2, s3)
	}
	// 01ARZ3NDEK is 1469922850259 ms (2016-07-30T23:54:10.259Z); the spec's
	// README pairs 1469918176385 with a different ULID (01ARYZ6S41...).
	if u1.UUIDString() != "01563e3a-b5d3-d676-4c61-efb99302bd5b" || ms != 1469922850259 || ms != u1.UnixMilli() {
		t.Errorf("01ARZ3NDEKTSV4RRFFQ69G5FAV: %s, %d ms, Go %d ms", u1.UUIDString(), ms, u1.UnixMilli())
	}
}

// SQL ObjectId functions agree with Go on 10,000 random IDs and times.
func TestObjectIDFunctionsAgreeWithGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)

	ids := randomObjectIDs(agreeN)
	hexes := make([]string, len(ids))
	shorts := make([]string, len(ids))
	for i, id := range ids {
		hexes[i], shorts[i] = id.Hex(), id.Short()
	}
	rows, err := conn.Query(ctx, `
		SELECT pgid.objectid_to_hex(id), pgid.objectid_to_short(id), pgid.objectid_time(id),
		       pgid.objectid_from_hex(h), pgid.objectid_from_hex(upper(h)), pgid.objectid_from_short(s),
		       pgid.objectid_min_at(pgid.objectid_time(id)), pgid.objectid_max_at(pgid.objectid_time(id))
		FROM unnest($1::bytea[], $2::text[], $3::text[]) WITH ORDINALITY AS x(id, h, s, i) ORDER BY i`,
		ids, hexes, shorts)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rows.Next() {
		var hex, short string
		var ts time.Time
		var fromHex, fromUpper, fromShort, minAt, maxAt objectidtype.ObjectID
		if err := rows.Scan(&hex, &short, &ts, &fromHex, &fromUpper, &fromShort, &minAt, &maxAt); err != nil {
			t.Fatal(err)
		}
		id := ids[i]
		if hex != id.Hex() || short != id.Short() {
			t.Errorf("%s: SQL hex %s short %s, Go short %s", id, hex, short, id.Short())
		}
		if !ts.Equal(id.Timestamp()) {
			t.Errorf("objectid_time(%s) = %v, Go Time %v", id, ts.UTC(), id.Timestamp())
		}
		if fromHex != id || fromUpper != id || fromShort != id {
			t.Errorf("%s: from_hex %s, upper case %s, from_short %s", id, fromHex, fromUpper, fromShort)
		}
		if minAt != objectidtype.MinAt(id.Timestamp()) || maxAt != objectidtype.MaxAt(id.Timestamp()) {
			t.Errorf("bounds of %s's time: SQL %s..%s, Go %s..%s", id, minAt, maxAt,
				objectidtype.MinAt(id.Timestamp()), objectidtype.MaxAt(id.Timestamp()))
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("rows: %d, %v", i, err)
	}

	ts := randomTimes(agreeN)
	rows, err = conn.Query(ctx, `
		SELECT pgid.objectid_min_at(t), pgid.objectid_max_at(t)
		FROM unnest($1::timestamptz[]) WITH ORDINALITY AS x(t, i) ORDER BY i`, ts)
	if err != nil {
		t.Fatal(err)
	}
	i = 0
	for rows.Next() {
		var minAt, maxAt objectidtype.ObjectID
		if err := rows.Scan(&minAt, &maxAt); err != nil {
			t.Fatal(err)
		}
		if minAt != objectidtype.MinAt(ts[i]) || maxAt != objectidtype.MaxAt(ts[i]) {
			t.Errorf("bounds of %v: SQL %s..%s, Go %s..%s", ts[i], minAt, maxAt, objectidtype.MinAt(ts[i]), objectidtype.MaxAt(ts[i]))
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ts) {
		t.Fatalf("rows: %d, %v", i, err)
	}

	// The seed's vector.
	var short, hex string
	var ts0 time.Time
	err = conn.QueryRow(ctx, `SELECT pgid.objectid_to_short('\x4e7020cb7cac81af7136236b'),
		pgid.objectid_to_hex(pgid.objectid_from_short('jD0wOTOIwqZNdydH')),
		pgid.objectid_time('\x4e7020cb7cac81af7136236b')`).Scan(&short, &hex, &ts0)
	if err != nil {
		t.Fatal(err)
	}
	if short != "jD0wOTOIwqZNdydH" || hex != "4e7020cb7cac81af7136236b" || !ts0.Equal(time.Date(2011, 9, 14, 3, 34, 35, 0, time.UTC)) {
		t.Errorf("vector: %s %s %v", short, hex, ts0)
	}
}

var (
	positionRE = regexp.MustCompile(`at position (\d+)`)
	lengthRE   = regexp.MustCompile(`length (\d+)`)
)

// Bad text raises 22P02 in SQL wherever Go's Parse fails, naming the same
// problem, position and length. Both count bytes: a string holding a
// multibyte character such as 'é' is a length error in both when its bytes
// are too many, and a character error at the same byte offset when they
// are the right number.
func TestBadTextInSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)

	type goErr struct {
		sentinel error
		pos      int
	}
	check := func(fn, in, word string, g goErr) {
		t.Helper()
		var out any
		err := conn.QueryRow(ctx, "SELECT pgid."+fn+"($1)", in).Scan(&out)
		if sqlState(err) != "22P02" {
			t.Errorf("%s(%q): %v, want SQLSTATE 22P02", fn, in, err)
			return
		}
		if !strings.Contains(err.Error(), word) {
			t.Errorf("%s(%q): message %q does not say %q", fn, in, err, word)
		}
		if g.pos >= 0 {
			m := positionRE.FindStringSubmatch(err.Error())
			if m == nil || m[1] != strconv.Itoa(g.pos) {
				t.Errorf("%s(%q): message %q, want position %d as Go", fn, in, err, g.pos)
			}
		}
	}
	// checkLen checks a length error: Go's sentinel is goSentinel and SQL
	// names the length Go sees, len(s) bytes.
	checkLen := func(fn, s string, goSentinel error) {
		t.Helper()
		var goE error
		if strings.HasPrefix(fn, "ulid") {
			_, goE = ulidtype.Parse(s)
		} else {
			_, goE = objectidtype.Parse(s)
		}
		if !errors.Is(goE, goSentinel) {
			t.Fatalf("Go on %q: %v, want a length error", s, goE)
		}
		check(fn, s, "length", goErr{pos: -1})
		var out any
		err := conn.QueryRow(ctx, "SELECT pgid."+fn+"($1)", s).Scan(&out)
		if m := lengthRE.FindStringSubmatch(fmt.Sprint(err)); m == nil || m[1] != strconv.Itoa(len(s)) {
			t.Errorf("%s(%q): message %q, want length %d as Go", fn, s, err, len(s))
		}
	}
	ulidErr := func(s string) goErr {
		_, err := ulidtype.Parse(s)
		var pe *ulidtype.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Go accepts %q: %v", s, err)
		}
		return goErr{pe.Err, pe.Pos}
	}
	for _, s := range []string{
		"01ARZ3NDEKTSV4RRFFQ69G5FAU", "I1ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAL",
		"01ARZ3NDEKTSV4RRFFQ69G5FAo", "01ARZ3NDEKTSV4-RFFQ69G5FAV", "01ARZ3NDEKTSV4 RFFQ69G5FAV",
	} {
		g := ulidErr(s)
		if !errors.Is(g.sentinel, ulidtype.ErrCharacter) {
			t.Fatalf("Go on %q: %v", s, g.sentinel)
		}
		check("ulid_from_text", s, "invalid character", g)
	}
	for _, s := range []string{"", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAVV",
		// 26 characters, 27 or more bytes.
		"01ARZ3NDEKTSV4RRFFQ69G5FAé", "é1ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4€RFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FA😀",
	} {
		checkLen("ulid_from_text", s, ulidtype.ErrLength)
	}
	// 26 bytes holding a multibyte character: a character error at its
	// first byte, in both.
	for _, s := range []string{
		"01ARZ3NDEKTSV4RRFFQ69G5Fé", "é1ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4€FFQ69G5FA", "😀01ARZ3NDEKTSV4RRFFQ69G",
	} {
		g := ulidErr(s)
		if len(s) != 26 || !errors.Is(g.sentinel, ulidtype.ErrCharacter) {
			t.Fatalf("Go on %q (%d bytes): %v", s, len(s), g.sentinel)
		}
		check("ulid_from_text", s, "invalid character", g)
	}
	for _, s := range []string{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "z0000000000000000000000000"} {
		if g := ulidErr(s); !errors.Is(g.sentinel, ulidtype.ErrOverflow) {
			t.Fatalf("Go on %q: %v", s, g.sentinel)
		}
		check("ulid_from_text", s, "overflows", goErr{pos: -1})
	}
	// The 36-character UUID form is Go's, not ulid_from_text's: uuid casts it.
	check("ulid_from_text", "01563e3a-b5d3-d676-4c61-efb99302bd5b", "length", goErr{pos: -1})

	oidErr := func(s string) goErr {
		_, err := objectidtype.Parse(s)
		var pe *objectidtype.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Go accepts %q: %v", s, err)
		}
		return goErr{pe.Err, pe.Pos}
	}
	// Go's Parse takes both forms, so its length error needs a length
	// neither has; the SQL functions take one each.
	for _, s := range []string{"4e7020cb7cac81af7136236g", "x4e7020cb7cac81af7136236", "4e7020cb7cac81af 136236b",
		"4e7020cb7cac81af713623é", "é4e7020cb7cac81af713623", "4e7020cb7cac81af71€36b"} {
		check("objectid_from_hex", s, "invalid character", oidErr(s))
	}
	for _, s := range []string{"", "4e7020cb7cac81af7136236", "\\x4e7020cb7cac81af7136236b",
		"4e7020cb7cac81af7136236é", "é4e7020cb7cac81af7136236", "4e7020cb7cac81af7136😀6b"} {
		checkLen("objectid_from_hex", s, objectidtype.ErrLength)
	}
	for _, s := range []string{"jD0wOTOIwqZNdyd+", "jD0wOTOIwqZNdyd/", "jD0wOTOIwqZNdyd=", "jD0w.TOIwqZNdydH",
		"jD0wOTOIwqZNdyé", "éjD0wOTOIwqZNdy", "jD0wOTOI€qZNdy", "😀jD0wOTOIwqZN"} {
		check("objectid_from_short", s, "invalid character", oidErr(s))
	}
	for _, s := range []string{"jD0wOTOIwqZNdyd", "jD0wOTOIwqZNdydHH", "jD0wOTOIwqZNdydé", "éjD0wOTOIwqZNdyd"} {
		checkLen("objectid_from_short", s, objectidtype.ErrLength)
	}

	// A bytea of the wrong length is not an ObjectId: the text and time
	// functions raise the domain's check violation.
	for _, fn := range []string{"objectid_to_hex", "objectid_to_short", "objectid_time"} {
		for _, b := range [][]byte{make([]byte, 11), make([]byte, 13)} {
			var out any
			err := conn.QueryRow(ctx, "SELECT pgid."+fn+"($1::bytea)", b).Scan(&out)
			if sqlState(err) != "23514" {
				t.Errorf("%s(%d bytes): %v, want SQLSTATE 23514", fn, len(b), err)
			}
		}
	}
	// STRICT: NULL in, NULL out.
	var n1, n2 *string
	if err := conn.QueryRow(ctx, "SELECT pgid.ulid_to_text(NULL), pgid.objectid_to_hex(pgid.objectid_from_short(NULL))").Scan(&n1, &n2); err != nil || n1 != nil || n2 != nil {
		t.Errorf("NULL: %v %v %v", n1, n2, err)
	}
}

// pgid.gen_ulid and pgid.gen_objectid make distinct IDs of the current time
// that Go reads back. Every entropy bit of a ULID is random: none keeps the
// fixed version and variant bits of the gen_random_uuid() values it is cut
// from. An ObjectId's bytes 4 to 11 are the sequence pgid.objectid_counter:
// each the previous one's plus one.
//
// The time is checked on the server, against its own clock in the same
// statement: no earlier than statement_timestamp() (truncated to the ID's
// unit) and no later than a clock_timestamp() read after the row was
// generated (the outer query reads each row of the materialized CTE only
// after it was made).
func TestSQLGenerators(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	const n = 10_000
	rows, err := conn.Query(ctx, `
		WITH g AS MATERIALIZED (
			SELECT pgid.gen_ulid() AS u, pgid.gen_objectid() AS o FROM generate_series(1, $1))
		SELECT u, o,
		       pgid.ulid_time(u) BETWEEN date_trunc('milliseconds', statement_timestamp()) AND clock_timestamp(),
		       pgid.objectid_time(o) BETWEEN date_trunc('second', statement_timestamp()) AND clock_timestamp(),
		       pgid.ulid_time(u), pgid.objectid_time(o), statement_timestamp(), clock_timestamp()
		FROM g`, n)
	if err != nil {
		t.Fatal(err)
	}
	ulids := map[ulidtype.ULID]bool{}
	oids := map[objectidtype.ObjectID]bool{}
	// Per entropy byte: the OR and the AND of all values. A random bit is 1
	// somewhere and 0 somewhere in 10,000 draws (it fails to with
	// probability 2^-9999); a fixed one is not.
	var uOr, uAnd [16]byte
	for i := range uAnd {
		uAnd[i] = 0xFF
	}
	var prevO objectidtype.ObjectID
	versions := map[byte]int{} // ULID byte 6, high nibble: a UUID's version
	variants := map[byte]int{} // ULID byte 8, top 2 bits: a UUID's variant
	for rows.Next() {
		var u ulidtype.ULID
		var o objectidtype.ObjectID
		var uOK, oOK bool
		var ut, ot, stmt, clock time.Time
		if err := rows.Scan(&u, &o, &uOK, &oOK, &ut, &ot, &stmt, &clock); err != nil {
			t.Fatal(err)
		}
		if !uOK || !oOK {
			t.Fatalf("generated %s (%v), %s (%v): not between statement_timestamp() %v and clock_timestamp() %v on the server",
				u, ut, o, ot, stmt, clock)
		}
		if !ut.Equal(u.Timestamp()) || !ot.Equal(o.Timestamp()) {
			t.Fatalf("generated %s, %s: SQL times %v, %v; Go %v, %v", u, o, ut, ot, u.Timestamp(), o.Timestamp())
		}
		ulids[u], oids[o] = true, true
		for i := 6; i < 16; i++ {
			uOr[i] |= u[i]
			uAnd[i] &= u[i]
		}
		if !prevO.IsZero() && objectIDTail(o) != objectIDTail(prevO)+1 {
			t.Fatalf("gen_objectid: %s after %s: bytes 4-11 not the previous plus one", o, prevO)
		}
		prevO = o
		versions[u[6]>>4]++
		variants[u[8]>>6]++
	}
	if rows.Err() != nil || len(ulids) != n || len(oids) != n {
		t.Fatalf("%d distinct ULIDs, %d distinct ObjectIds of %d, %v", len(ulids), len(oids), n, rows.Err())
	}
	for i := 6; i < 16; i++ {
		if uOr[i] != 0xFF || uAnd[i] != 0 {
			t.Errorf("gen_ulid: entropy byte %d has fixed bits: OR of all %08b, AND %08b", i, uOr[i], uAnd[i])
		}
	}
	// The same, as the UUID fields they would be: all 16 version nibbles
	// and all 4 variant values occur.
	if len(versions) != 16 || len(variants) != 4 {
		t.Errorf("gen_ulid: byte 6 high nibble took %d values, byte 8 top bits %d; want 16 and 4 (no fixed UUIDv4 version/variant): %v %v",
			len(versions), len(variants), versions, variants)
	}
}

// quotedInputRE finds the quoted input in an SQL or Go parse error.
var quotedInputRE = regexp.MustCompile(`^(?:invalid [A-Za-z ]+ |[a-z]+: parse )("(?:[^"\\]|\\.)*")`)

// The SQL parsers quote the input as Go's strconv.Quote does (cut to 64
// bytes), so control characters such as newlines never reach the message
// raw, and describe an invalid byte as Go's ParseError does.
func TestSQLErrorQuotingMatchesGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	long := strings.Repeat("0", 63) + "€" // cut inside the euro sign
	cases := []struct{ fn, in string }{
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA\n"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5F\r\n"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA\t"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA\""},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA\\"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA'"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FA\x1b"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5Fé"},
		{"ulid_from_text", "line one\nline two\r\n"},
		{"ulid_from_text", long},
		{"ulid_from_text", "\u0085 next line, \u00a0 no-break space"},
		{"objectid_from_hex", "4e7020cb7cac81af7136236\n"},
		{"objectid_from_hex", "4e7020cb7cac81af\r\n36236b"},
		{"objectid_from_short", "jD0wOTOIwqZNdyd\n"},
		{"objectid_from_short", "jD0w\"TOIwqZNdydH"},
	}
	for _, c := range cases {
		var goErr error
		if strings.HasPrefix(c.fn, "ulid") {
			_, goErr = ulidtype.Parse(c.in)
		} else {
			_, goErr = objectidtype.Parse(c.in)
		}
		var out any
		sqlErr := conn.QueryRow(ctx, "SELECT pgid."+c.fn+"($1)", c.in).Scan(&out)
		if sqlState(sqlErr) != "22P02" || goErr == nil {
			t.Errorf("%s(%q): SQL %v, Go %v", c.fn, c.in, sqlErr, goErr)
			continue
		}
		var pgMsg string
		if i := strings.Index(sqlErr.Error(), "invalid "); i >= 0 {
			pgMsg = strings.TrimSuffix(sqlErr.Error()[i:], " (SQLSTATE 22P02)")
		}
		if strings.ContainsAny(pgMsg, "\n\r\t\x1b") {
			t.Errorf("%s(%q): SQL message has raw control characters: %q", c.fn, c.in, pgMsg)
		}
		sq, gq := quotedInputRE.FindStringSubmatch(pgMsg), quotedInputRE.FindStringSubmatch(goErr.Error())
		if sq == nil || gq == nil || sq[1] != gq[1] {
			t.Errorf("%s(%q): SQL quotes the input as %v, Go as %v\nSQL: %s\nGo:  %s", c.fn, c.in, sq, gq, pgMsg, goErr)
		}
		// Same invalid character, quoted the same, at the same position.
		if i := strings.Index(goErr.Error(), "invalid character "); i >= 0 {
			goChar, _, _ := strings.Cut(goErr.Error()[i:], ", want")
			if !strings.Contains(pgMsg, goChar+", want") {
				t.Errorf("%s(%q): SQL %q does not say %q as Go", c.fn, c.in, pgMsg, goChar)
			}
		}
	}
}

// Text the server refuses never reaches the pgid parsers: a NUL byte fails
// with 22021 as a bound parameter and with 08P01 when it is part of the query
// text (simple protocol, where NUL ends the message), invalid UTF-8 with
// 22021, before any function runs. The README says so.
func TestServerRejectsNULAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	for _, c := range []struct {
		mode pgx.QueryExecMode
		in   string
		want string
	}{
		{pgx.QueryExecModeSimpleProtocol, "01ARZ3NDEKTSV4RRFFQ69G5FA\x00", "08P01"},
		{pgx.QueryExecModeExec, "01ARZ3NDEKTSV4RRFFQ69G5FA\x00", "22021"},
		{pgx.QueryExecModeCacheStatement, "01ARZ3NDEKTSV4RRFFQ69G5FA\x00", "22021"},
		{pgx.QueryExecModeSimpleProtocol, "01ARZ3NDEKTSV4RRFFQ69G5FA\xff", "22021"},
		{pgx.QueryExecModeExec, "01ARZ3NDEKTSV4RRFFQ69G5FA\xff", "22021"},
		{pgx.QueryExecModeCacheStatement, "01ARZ3NDEKTSV4RRFFQ69G5FA\xff", "22021"},
	} {
		conn := connect(t, dsn, c.mode)
		var out any
		err := conn.QueryRow(ctx, "SELECT pgid.ulid_from_text($1::text)", c.in).Scan(&out)
		if got := sqlState(err); got != c.want {
			t.Errorf("%v, %q: %v (SQLSTATE %q), want SQLSTATE %s", c.mode, c.in, err, got, c.want)
		}
	}
}
