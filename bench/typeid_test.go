package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
	jetify "go.jetify.com/typeid"
)

// The same prefix as a pgid type and as a jetify type.
type (
	pgUser     struct{}
	jetifyUser struct{}
)

func (pgUser) Prefix() string     { return "user" }
func (jetifyUser) Prefix() string { return "user" }

type (
	pgUserID     = typeid.ID[pgUser]
	jetifyUserID = jetify.TypeID[jetifyUser]
)

var (
	sinkTypeID pgUserID
	sinkJetify jetifyUserID
	sinkAnyID  jetify.AnyID
	sinkPgAny  typeid.AnyID
)

// TestTypeIDMatchesJetify checks pgid's typeid against jetify's reference
// implementation, go.jetify.com/typeid, on 100,000 random 128-bit values
// (any version; some with the top bit set, some all zero in the low half)
// under prefixes of 0 to 63 characters: the same text both ways, and each
// parses the other's text to the same UUID. Then 100,000 random one-byte
// changes of valid text: both accept or both reject (and an accepted change
// is still the same text both ways).
func TestTypeIDMatchesJetify(t *testing.T) {
	r := mrand.New(mrand.NewPCG(21, 21))
	prefixes := []string{"user", "", "pre_fix", "a", "my__type", strings.Repeat("abcdefghi", 7)}
	const letters = "abcdefghijklmnopqrstuvwxyz_"
	for range 100_000 {
		var u ulidtype.ULID
		rand.Read(u[:])
		if r.IntN(8) == 0 {
			clear(u[8:])
		}
		prefix := prefixes[r.IntN(len(prefixes))]
		ours := typeid.FromULID[pgUser](u)
		j, err := jetify.FromUUIDBytesWithPrefix(prefix, u[:])
		if err != nil {
			t.Fatalf("jetify refuses %x with prefix %q: %v", u[:], prefix, err)
		}
		text := textWithPrefix(prefix, ours)
		if j.String() != text {
			t.Fatalf("%x: pgid %q, jetify %q", u[:], text, j.String())
		}
		if prefix == "user" {
			if ours.String() != text {
				t.Fatalf("String %q, want %q", ours.String(), text)
			}
			jt, err := jetify.Parse[jetifyUserID](text)
			if err != nil || string(jt.UUIDBytes()) != string(u[:]) {
				t.Fatalf("jetify.Parse(%q): %v", text, err)
			}
			back, err := typeid.Parse[pgUser](jt.String())
			if err != nil || back != ours {
				t.Fatalf("typeid.Parse(%q) = %v, %v", jt.String(), back, err)
			}
		}
		back, err := jetify.FromString(text)
		if err != nil || string(back.UUIDBytes()) != string(u[:]) || back.Prefix() != prefix {
			t.Fatalf("jetify.FromString(%q) = %v, %v", text, back, err)
		}
		// The run-time path: pgid's AnyID against jetify's AnyID.
		a, err := typeid.ParseAny(text)
		if err != nil || a.ULID() != u || a.Prefix() != prefix {
			t.Fatalf("typeid.ParseAny(%q) = %v, %v", text, a, err)
		}
		if fromUUID, err := typeid.AnyFromUUID(prefix, a.UUID()); err != nil || fromUUID.String() != j.String() {
			t.Fatalf("typeid.AnyFromUUID(%q, %x) = %v, %v; jetify %q", prefix, u[:], fromUUID, err, j.String())
		}

		// One byte changed: a random byte, or a letter, digit, '_' or
		// upper-case letter, which are the interesting ones.
		b := []byte("user_" + ours.Suffix())
		pos := r.IntN(len(b))
		switch r.IntN(4) {
		case 0:
			b[pos] = byte(r.IntN(256))
		case 1:
			b[pos] = letters[r.IntN(len(letters))]
		case 2:
			b[pos] = byte('0' + r.IntN(10))
		default:
			b[pos] = byte('A' + r.IntN(26))
		}
		mutated := string(b)
		_, ourErr := typeid.Parse[pgUser](mutated)
		theirs, jErr := jetify.Parse[jetifyUserID](mutated)
		if (ourErr == nil) != (jErr == nil) {
			t.Fatalf("%q: pgid %v, jetify %v", mutated, ourErr, jErr)
		}
		if ourErr == nil && theirs.String() != mutated {
			t.Fatalf("%q: jetify writes it back as %q", mutated, theirs.String())
		}
		// Any prefix: pgid's ParseAny and jetify's FromString accept and
		// refuse the same, with the same prefix.
		ourAny, ourAnyErr := typeid.ParseAny(mutated)
		theirAny, jAnyErr := jetify.FromString(mutated)
		if (ourAnyErr == nil) != (jAnyErr == nil) || ourAnyErr == nil && (ourAny.Prefix() != theirAny.Prefix() || ourAny.String() != theirAny.String()) {
			t.Fatalf("%q: pgid ParseAny %v, %v; jetify FromString %v, %v", mutated, ourAny, ourAnyErr, theirAny, jAnyErr)
		}
	}
}

// textWithPrefix is the TypeID text of id's UUID under any prefix, built
// from pgid's suffix.
func textWithPrefix(prefix string, id pgUserID) string {
	if prefix == "" {
		return id.Suffix()
	}
	return prefix + "_" + id.Suffix()
}

// BenchmarkTypeIDString writes a typed ID's text: pgid's typeid.ID and
// jetify's TypeID (which keeps the text it was made from, so String only
// concatenates prefix and suffix).
func BenchmarkTypeIDString(b *testing.B) {
	id := typeid.New[pgUser]()
	j, err := jetify.Parse[jetifyUserID](id.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = id.String()
		}
	})
	b.Run("jetify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = j.String()
		}
	})
	// From the 16 bytes, as after reading a uuid column: jetify encodes and
	// validates then.
	u := id.ULID()
	b.Run("pgid-from-uuid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkStr = typeid.FromULID[pgUser](u).String()
		}
	})
	b.Run("jetify-from-uuid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkJetify, _ = jetify.FromUUIDBytes[jetifyUserID](u[:])
			sinkStr = sinkJetify.String()
		}
	})
}

// BenchmarkTypeIDParse parses a typed ID's text, strictly, in both: pgid
// into 16 bytes, jetify into its prefix and suffix strings (validated by
// decoding).
func BenchmarkTypeIDParse(b *testing.B) {
	s := typeid.New[pgUser]().String()
	b.Run("pgid", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkTypeID, _ = typeid.Parse[pgUser](s)
		}
	})
	b.Run("jetify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkJetify, _ = jetify.Parse[jetifyUserID](s)
		}
	})
	b.Run("jetify.FromString", func(b *testing.B) { // any prefix
		b.ReportAllocs()
		for b.Loop() {
			sinkAnyID, _ = jetify.FromString(s)
		}
	})
}

// BenchmarkTypeIDStorage stores PGID_BENCH_ROWS rows (default 1,000,000)
// of TypeID keys three ways: as uuid (what pgid's typeid.ID binds), and as
// text with the 4-character prefix "user" (31 characters) and with a
// 63-character prefix (90, the longest TypeID). Each table has the key as
// primary key and a second ID column, a foreign key's kind, with an index
// of its own. It reports the average pg_column_size of the key, and the
// sizes of the table and both indexes. Run it once:
//
//	cd bench && go test -run '^$' -bench TypeIDStorage -benchtime 1x .
func BenchmarkTypeIDStorage(b *testing.B) {
	rows := benchRows(b)
	conn := dbLoadDatabase(b)
	fmt.Printf("pgid-bench: TypeIDStorage rows %d\n", rows)
	ids := make([]ulidtype.ULID, rows)
	refs := make([]ulidtype.ULID, rows)
	for i := range ids {
		ids[i] = typeid.New[pgUser]().ULID()
		rand.Read(refs[i][:])
	}
	long := strings.Repeat("abcdefghi", 7)
	kinds := []struct {
		name, colType string
		value         func(u ulidtype.ULID) any
	}{
		{"uuid", "uuid", func(u ulidtype.ULID) any { return u }},
		{"text-user", "text", func(u ulidtype.ULID) any { return typeid.FromULID[pgUser](u).String() }},
		{"text-63", "text", func(u ulidtype.ULID) any { return long + "_" + typeid.FromULID[pgUser](u).Suffix() }},
	}
	ctx := context.Background()
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			table := "typeid_" + strings.ReplaceAll(k.name, "-", "_")
			exec := func(sql string) {
				b.Helper()
				if _, err := conn.Exec(ctx, sql); err != nil {
					b.Fatalf("%s: %v", sql, err)
				}
			}
			var colBytes float64
			var tableBytes, pkBytes, refBytes int64
			for b.Loop() {
				exec("DROP TABLE IF EXISTS " + table)
				exec("CREATE TABLE " + table + " (id " + k.colType + " PRIMARY KEY, ref " + k.colType + " NOT NULL) WITH (autovacuum_enabled = off)")
				exec("CREATE INDEX ON " + table + " (ref)")
				row := make([]any, 2)
				_, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "ref"}, pgx.CopyFromSlice(rows, func(i int) ([]any, error) {
					row[0], row[1] = k.value(ids[i]), k.value(refs[i])
					return row, nil
				}))
				if err != nil {
					b.Fatal(err)
				}
				exec("VACUUM ANALYZE " + table)
				err = conn.QueryRow(ctx, `SELECT (SELECT avg(pg_column_size(id)) FROM `+table+`)::float8,
					pg_table_size($1::regclass), pg_relation_size($2::regclass), pg_relation_size($3::regclass)`,
					table, table+"_pkey", table+"_ref_idx").Scan(&colBytes, &tableBytes, &pkBytes, &refBytes)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.Cleanup(func() { conn.Exec(ctx, "DROP TABLE IF EXISTS "+table) })
			const mib = 1 << 20
			b.ReportMetric(colBytes, "key-bytes")
			b.ReportMetric(float64(tableBytes)/mib, "table-MiB")
			b.ReportMetric(float64(pkBytes)/mib, "pk-index-MiB")
			b.ReportMetric(float64(refBytes)/mib, "ref-index-MiB")
		})
	}
}

// BenchmarkTypeIDInterleaved times String and Parse of pgid and jetify in
// alternation (and, for a prefix known at run time, pgid's ParseAny and
// jetify's FromString), PGID_BENCH_ROUNDS rounds (default 20) of 200,000 calls each,
// and reports the fastest round of each in ns per call and the ratios
// pgid/jetify: on a shared machine the minimum of interleaved rounds is
// steadier than one long run per function, whose load differs. One
// iteration is the whole measurement; run it with -benchtime 1x:
//
//	cd bench && GOMAXPROCS=1 go test -run '^$' -bench TypeIDInterleaved -benchtime 1x .
func BenchmarkTypeIDInterleaved(b *testing.B) {
	rounds := 20
	if s := os.Getenv("PGID_BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PGID_BENCH_ROUNDS=%q: want a positive integer", s)
		}
		rounds = n
	}
	const calls = 200_000
	id := typeid.New[pgUser]()
	s := id.String()
	j, err := jetify.Parse[jetifyUserID](s)
	if err != nil {
		b.Fatal(err)
	}
	fns := []struct {
		name string
		fn   func()
	}{
		{"pgid-String", func() {
			for range calls {
				sinkStr = id.String()
			}
		}},
		{"jetify-String", func() {
			for range calls {
				sinkStr = j.String()
			}
		}},
		{"pgid-Parse", func() {
			for range calls {
				sinkTypeID, _ = typeid.Parse[pgUser](s)
			}
		}},
		{"jetify-Parse", func() {
			for range calls {
				sinkJetify, _ = jetify.Parse[jetifyUserID](s)
			}
		}},
		{"pgid-ParseAny", func() {
			for range calls {
				sinkPgAny, _ = typeid.ParseAny(s)
			}
		}},
		{"jetify-FromString", func() {
			for range calls {
				sinkAnyID, _ = jetify.FromString(s)
			}
		}},
	}
	best := map[string]float64{}
	for b.Loop() {
		for range rounds {
			for _, f := range fns {
				start := time.Now()
				f.fn()
				ns := float64(time.Since(start).Nanoseconds()) / calls
				if best[f.name] == 0 || ns < best[f.name] {
					best[f.name] = ns
				}
			}
		}
	}
	for _, f := range fns {
		b.ReportMetric(best[f.name], f.name+"-ns")
	}
	b.ReportMetric(best["pgid-String"]/best["jetify-String"], "String-ratio")
	b.ReportMetric(best["pgid-Parse"]/best["jetify-Parse"], "Parse-ratio")
	b.ReportMetric(best["pgid-ParseAny"]/best["jetify-FromString"], "ParseAny-ratio")
}
