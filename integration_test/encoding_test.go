package integration_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
)

// eucVector is an ObjectID whose last two bytes, CE 91, are valid UTF-8 (U+0391,
// GREEK CAPITAL LETTER ALPHA) that EUC_JP, EUC_KR and EUC_CN all hold in two
// bytes. Sent as raw text it is converted from UTF-8 to the server encoding and
// keeps its length of 12, so the domain's CHECK passes and a different ID is
// stored without an error. It is the ID issue 13 reported (stored as
// ...52a6a1 in EUC_JP).
var eucVector = objectidtype.MustParse("6b032f597e0944624d52ce91")

// eucStored is what lib/pq's uncast text parameter stores for eucVector in
// each encoding: the server's conversion of U+0391.
var eucStored = map[string]string{
	"EUC_JP": "6b032f597e0944624d52a6a1",
	"EUC_KR": "6b032f597e0944624d52a5c1",
	"EUC_CN": "6b032f597e0944624d52a6a1",
}

// newEncodedDB creates a migrated database with the given server encoding
// and the driver tables, dropped when t ends, and returns its DSN.
func newEncodedDB(t *testing.T, encoding string) string {
	t.Helper()
	ctx := context.Background()
	name := "pgid_t_" + randomHex(6)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+
		" ENCODING '"+encoding+"' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"); err != nil {
		t.Fatalf("create %s database: %v", encoding, err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(context.Background(), name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	dsn := dsnFor(name)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("migrations in %s: %v", encoding, err)
	}
	if _, err := conn.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// Issue 13 §4. The server encoding changes nothing for ObjectIDs sent as
// bytea: pgx in all five modes (binary, or \x hex text), pgx's stdlib, and
// lib/pq with a ::bytea cast or binary_parameters=yes store every ID exactly,
// in plain bytea and in the domain, in every encoding tested. lib/pq's default,
// an uncast pgid.objectid parameter, sends the 12 bytes raw as text (lib/pq
// hex-encodes only for bytea's own OID); no Value form can avoid that while
// binding correctly to plain bytea, so it stays a documented limitation
// (objectidtype.ObjectID.Value): in EUC_JP, EUC_KR and EUC_CN it stores a
// converted ID for eucVector, which this test pins.
func TestServerEncodings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ids := append(append([]objectidtype.ObjectID{eucVector}, specialObjectIDs...), randomObjectIDs(20)...)
	for _, enc := range []string{"UTF8", "SQL_ASCII", "LATIN1", "EUC_JP", "EUC_KR", "EUC_CN"} {
		t.Run(enc, func(t *testing.T) {
			dsn := newEncodedDB(t, enc)
			check := func(t *testing.T, name string, d db, sql string) {
				t.Helper()
				for _, table := range tables {
					for _, o := range ids {
						k := nextKey()
						if err := d.exec(ctx, "INSERT INTO "+table+" (k, o) VALUES ($1, "+sql+")", k, o); err != nil {
							t.Fatalf("%s %s %s: %v", name, table, o, err)
						}
						var got objectidtype.ObjectID
						if err := d.queryRow(ctx, "SELECT o FROM "+table+" WHERE k = $1", k).Scan(&got); err != nil || got != o {
							t.Fatalf("%s %s: stored %s (%v), want %s", name, table, got, err, o)
						}
					}
				}
			}
			// pgx's simple protocol needs client_encoding=UTF8, which is
			// not the default in a database of another encoding.
			utf8DSN := withParam(dsn, "client_encoding", "UTF8")
			for _, mode := range allModes {
				check(t, "pgx "+modeName(mode), pgxDB{connect(t, utf8DSN, mode)}, "$2")
			}
			std, err := sql.Open("pgx", utf8DSN)
			if err != nil {
				t.Fatal(err)
			}
			defer std.Close()
			check(t, "stdlib", sqlDB{std}, "$2")
			pq := openLibPQ(t, dsn)
			check(t, "lib/pq ::bytea", sqlDB{pq}, "$2::bytea")
			check(t, "lib/pq binary_parameters", sqlDB{openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))}, "$2")

			// The limitation: lib/pq, uncast domain parameter.
			k := nextKey()
			err = sqlDB{pq}.exec(ctx, "INSERT INTO dom (k, o) VALUES ($1, $2)", k, eucVector)
			var got objectidtype.ObjectID
			if err == nil {
				err = pq.QueryRow("SELECT o FROM dom WHERE k = $1", k).Scan(&got)
			}
			want, altered := eucStored[enc]
			switch {
			case altered && (err != nil || got.Hex() != want):
				t.Errorf("lib/pq uncast pgid.objectid in %s: stored %s (%v); the known conversion stores %s: update the docs of ObjectID.Value", enc, got, err, want)
			case altered:
				t.Logf("lib/pq uncast pgid.objectid in %s: %s stored as %s (documented limitation)", enc, eucVector, got)
			case err == nil && got != eucVector:
				t.Errorf("lib/pq uncast pgid.objectid in %s: stored %s, want %s or an error", enc, got, eucVector)
			default:
				t.Logf("lib/pq uncast pgid.objectid in %s: %s -> %s, %v", enc, eucVector, got, err)
			}
		})
	}
}
