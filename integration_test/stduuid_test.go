//go:build go1.27

package integration_test

import (
	"context"
	"database/sql"
	"testing"
	"uuid"

	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// TestStdUUIDColumns (Go 1.27): the standard library's uuid.UUID binds to
// and scans from a pgid.ulid column through database/sql (pgx's stdlib and
// lib/pq, which handle it natively since Go 1.27) and through pgx in every
// exec mode, with the same 16 bytes as the ULID and the typed ID.
func TestStdUUIDColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, `CREATE TABLE std_events (id pgid.ulid PRIMARY KEY, parent pgid.ulid, via text NOT NULL)`)

	// What Go made, read back by the other types: the ULID's time in SQL,
	// the typed ID's text in SQL.
	verify := func(what string, std uuid.UUID) {
		t.Helper()
		var u ulidtype.ULID
		var text string
		var ms int64
		if err := setup.QueryRow(ctx, `SELECT id, pgid.typeid_text('user', id), (extract(epoch FROM pgid.ulid_time(id)) * 1000)::int8
			FROM std_events WHERE id = $1`, ulidtype.FromStdUUID(std)).Scan(&u, &text, &ms); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if u.StdUUID() != std || text != typeid.FromStdUUID[tidUser](std).String() || ms != u.UnixMilli() {
			t.Errorf("%s: wrote %s, the table holds %s (%s, %d ms)", what, std, u.UUIDString(), text, ms)
		}
	}

	for _, mode := range allModes {
		conn := connect(t, dsn, mode)
		std := uuid.NewV7()
		if _, err := conn.Exec(ctx, "INSERT INTO std_events VALUES ($1, NULL, $2)", std, mode.String()); err != nil {
			t.Fatalf("pgx %v: bind uuid.UUID: %v", mode, err)
		}
		verify("pgx "+mode.String(), std)
		var got uuid.UUID
		var parent *uuid.UUID
		if err := conn.QueryRow(ctx, "SELECT id, parent FROM std_events WHERE id = $1", std).Scan(&got, &parent); err != nil {
			t.Fatalf("pgx %v: scan into uuid.UUID: %v", mode, err)
		}
		if got != std || parent != nil {
			t.Errorf("pgx %v: scanned %s, parent %v; want %s, nil", mode, got, parent, std)
		}
		// A ULID's column read into the standard type and back.
		u := ulidtype.New()
		if _, err := conn.Exec(ctx, "INSERT INTO std_events VALUES ($1, $2, $3)", u, std, mode.String()); err != nil {
			t.Fatal(err)
		}
		var fromULID, gotParent uuid.UUID
		if err := conn.QueryRow(ctx, "SELECT id, parent FROM std_events WHERE id = $1", u.StdUUID()).Scan(&fromULID, &gotParent); err != nil {
			t.Fatalf("pgx %v: %v", mode, err)
		}
		if ulidtype.FromStdUUID(fromULID) != u || gotParent != std {
			t.Errorf("pgx %v: ULID %s read as %s, parent %s", mode, u, fromULID, gotParent)
		}
		// pgx does not know []uuid.UUID by itself: in the text modes (Exec,
		// SimpleProtocol) a slice parameter needs its PostgreSQL type named,
		// as for any slice type pgx has not registered.
		conn.TypeMap().RegisterDefaultPgType([]uuid.UUID(nil), "_uuid")
		// Slices, as sqlc's = ANY(@ids::uuid[]) binds them, and uuid[] back (a
		// pgid.ulid[] result needs pgidpgx.Register, as for every type).
		var back []uuid.UUID
		if err := conn.QueryRow(ctx, "SELECT array_agg(id::uuid ORDER BY id) FROM std_events WHERE id = ANY($1::uuid[])",
			[]uuid.UUID{std, u.StdUUID()}).Scan(&back); err != nil {
			t.Fatalf("pgx %v: []uuid.UUID: %v", mode, err)
		}
		if len(back) != 2 || back[0] != std || back[1] != u.StdUUID() {
			t.Errorf("pgx %v: array %v, want [%s %s]", mode, back, std, u.StdUUID())
		}
	}

	for _, d := range []struct {
		name string
		db   *sql.DB
	}{{"pgx stdlib", openStdlibSqlc(t, dsn)}, {"lib/pq", openLibPQ(t, dsn)}} {
		std := uuid.NewV7()
		if _, err := d.db.ExecContext(ctx, "INSERT INTO std_events VALUES ($1, NULL, $2)", std, d.name); err != nil {
			t.Fatalf("%s: bind uuid.UUID: %v", d.name, err)
		}
		verify(d.name, std)
		var got uuid.UUID
		var parent sql.Null[uuid.UUID]
		if err := d.db.QueryRowContext(ctx, "SELECT id, parent FROM std_events WHERE id = $1", std).Scan(&got, &parent); err != nil {
			t.Fatalf("%s: scan into uuid.UUID: %v", d.name, err)
		}
		if got != std || parent.Valid {
			t.Errorf("%s: scanned %s, parent %v; want %s, NULL", d.name, got, parent, std)
		}
		var null uuid.UUID
		if err := d.db.QueryRowContext(ctx, "SELECT parent FROM std_events WHERE id = $1", std).Scan(&null); err == nil {
			t.Errorf("%s: NULL scanned into a plain uuid.UUID without an error", d.name)
		}
	}
}
