package ormtest

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// TestBunMigrations: pgid's runner needs pgx under a *sql.DB. On bun's own
// driver (pgdriver) Up refuses with ErrConn, naming the package once and
// the way out; docs/ORMS.md's two ways work: bun on pgx's database/sql driver
// (Up on the same *sql.DB), or Up on a pgx connection from the same DSN.
func TestBunMigrations(t *testing.T) {
	readmeORMs(t, "`sqldb, err := sql.Open(\"pgx\", dsn)`", "`migrations.Up(ctx, sqldb)`",
		"`conn, err := pgx.Connect(ctx, dsn)`", "`migrations.Up(ctx, conn)`")
	ctx := context.Background()

	dsn := pgtest.EmptyDB(t)
	pg := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	t.Cleanup(func() { pg.Close() })
	for what, err := range map[string]error{
		"Up":         migrations.Up(ctx, pg),
		"ReadStatus": func() error { _, err := migrations.ReadStatus(ctx, pg); return err }(),
	} {
		if !errors.Is(err, migrations.ErrConn) {
			t.Fatalf("%s on bun's pgdriver: %v, want ErrConn", what, err)
		}
		msg := err.Error()
		if n := strings.Count(msg, "pgid migrations:"); n != 1 || !strings.HasPrefix(msg, "pgid migrations: ") ||
			!strings.Contains(msg, "*pgdriver.Conn") || !strings.Contains(msg, "github.com/jackc/pgx/v5/stdlib") {
			t.Errorf("%s on bun's pgdriver: %q; want the prefix once, the driver found and the one needed", what, msg)
		}
	}

	// bun on pgx's database/sql driver; Up on the same *sql.DB.
	sqldb, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqldb.Close() })
	db := bun.NewDB(sqldb, pgdialect.New())
	if err := migrations.Up(ctx, sqldb); err != nil {
		t.Fatalf("Up on bun's *sql.DB of pgx's driver: %v", err)
	}
	if _, err := db.NewCreateTable().Model((*bunNote)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	n := bunNote{Body: "x"}
	if _, err := db.NewInsert().Model(&n).Exec(ctx); err != nil || n.ID.IsZero() {
		t.Fatalf("insert through bun on pgx: %v, ID %v", err, n.ID)
	}

	// bun stays on pgdriver; Up on a pgx connection from the same DSN.
	dsn2 := pgtest.EmptyDB(t)
	conn, err := pgx.Connect(ctx, dsn2)
	if err != nil {
		t.Fatal(err)
	}
	err = migrations.Up(ctx, conn)
	conn.Close(ctx)
	if err != nil {
		t.Fatalf("Up on a pgx connection: %v", err)
	}
	db2 := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn2))), pgdialect.New())
	t.Cleanup(func() { db2.Close() })
	if _, err := db2.NewCreateTable().Model((*bunNote)(nil)).Exec(ctx); err != nil {
		t.Fatalf("bun on pgdriver after Up (needs pgid.gen_ulid_v7): %v", err)
	}
	m := bunNote{Body: "y"}
	if _, err := db2.NewInsert().Model(&m).Exec(ctx); err != nil || m.ID.IsZero() {
		t.Fatalf("insert through bun on pgdriver: %v, ID %v", err, m.ID)
	}
}
