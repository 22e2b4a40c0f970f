package ormtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/migrations"
)

// baseDSN is the server's DSN; admin is a connection to it that creates
// and drops the tests' databases.
var (
	baseDSN string
	admin   *pgx.Conn
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := pgserver.Find(ctx, pgserver.Options{
		Embedded: pgserver.EmbeddedOptions{Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "orm_test: "+format+"\n", args...)
		}},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "orm_test: FAIL: no PostgreSQL:", err)
		return 1
	}
	defer s.Close()
	baseDSN = s.DSN
	if admin, err = pgx.Connect(ctx, baseDSN); err != nil {
		fmt.Fprintln(os.Stderr, "orm_test: FAIL: connect:", err)
		return 1
	}
	defer admin.Close(context.Background())
	return m.Run()
}

// newDB creates a scratch database with pgid's schema applied (the ORMs
// build pgid.objectid columns), drops it when t ends, and returns its DSN.
func newDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 6)
	rand.Read(b)
	name := "pgid_orm_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	dsn := dsnFor(name)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("migrations.Up: %v", err)
	}
	return dsn
}

// dsnFor returns baseDSN with its database replaced by name.
func dsnFor(name string) string {
	if strings.Contains(baseDSN, "://") {
		if u, err := url.Parse(baseDSN); err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return baseDSN + " dbname=" + name
}

// columnTypes returns table's columns and their types as format_type
// writes them (a domain by its qualified name, e.g. pgid.objectid[]).
func columnTypes(t *testing.T, dsn, table string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)
		FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped`, table)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		got[n] = typ
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// assertColumns fails t unless table has exactly the columns and types of want.
func assertColumns(t *testing.T, dsn, table string, want map[string]string) {
	t.Helper()
	got := columnTypes(t, dsn, table)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("columns of %s:\n got %v\nwant %v", table, got, want)
	}
}
