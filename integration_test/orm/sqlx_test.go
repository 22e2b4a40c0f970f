package ormtest

import (
	"slices"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// sqlxOrder is a row as sqlx scans it, by db tags.
type sqlxOrder struct {
	ID       ulidtype.ULID             `db:"id"`
	ParentID ulidtype.NullULID         `db:"parent_id"`
	Ref      objectidtype.ObjectID     `db:"ref"`
	OptRef   objectidtype.NullObjectID `db:"opt_ref"`
	Refs     objectidtype.Slice        `db:"refs"`
	Related  ulidtype.Slice            `db:"related"`
}

func TestSQLX(t *testing.T) {
	dsn := newDB(t)
	db, err := sqlx.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.MustExec(`CREATE TABLE orders (id uuid PRIMARY KEY, parent_id uuid, ref pgid.objectid NOT NULL,
		opt_ref pgid.objectid, refs pgid.objectid[], related uuid[])`)

	f := newFixture()
	rows := []sqlxOrder{
		{ID: f.old, Ref: f.refOld},
		{ID: f.a, ParentID: ulidtype.NullULID{ULID: f.old, Valid: true}, Ref: f.refA,
			OptRef: objectidtype.NullObjectID{ObjectID: f.extra, Valid: true}, Refs: objectidtype.Slice{f.refOld}, Related: ulidtype.Slice{f.old}},
		{ID: f.b, Ref: f.refB},
	}
	if _, err := db.NamedExec(`INSERT INTO orders (id, parent_id, ref, opt_ref, refs, related)
		VALUES (:id, :parent_id, :ref, :opt_ref, :refs, :related)`, rows); err != nil {
		t.Fatalf("NamedExec: %v", err)
	}

	var got sqlxOrder
	if err := db.Get(&got, "SELECT * FROM orders WHERE id = $1", f.a); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.ID != f.a || got.ParentID != rows[1].ParentID || got.Ref != f.refA || got.OptRef != rows[1].OptRef ||
		!slices.Equal(got.Refs, rows[1].Refs) || !slices.Equal(got.Related, rows[1].Related) {
		t.Errorf("Get: %+v, want %+v", got, rows[1])
	}

	var since []sqlxOrder
	if err := db.Select(&since, "SELECT * FROM orders WHERE id >= $1 ORDER BY id", ulidtype.Since(f.window)); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if len(since) != 2 || since[0].ID != f.a || since[1].ID != f.b || since[1].ParentID.Valid || since[1].Refs != nil {
		t.Errorf("Since window: %+v", since)
	}

	// sqlx.In expands a []ULID into one parameter per element.
	q, args, err := sqlx.In("SELECT id FROM orders WHERE id IN (?) ORDER BY id", []ulidtype.ULID{f.old, f.b})
	if err != nil {
		t.Fatalf("sqlx.In: %v", err)
	}
	var in []ulidtype.ULID
	if err := db.Select(&in, db.Rebind(q), args...); err != nil {
		t.Fatalf("Select IN: %v", err)
	}
	var anyIDs []ulidtype.ULID
	if err := db.Select(&anyIDs, "SELECT id FROM orders WHERE ref = ANY($1) ORDER BY id", objectidtype.Slice{f.refA, f.refB}); err != nil {
		t.Fatalf("Select ANY: %v", err)
	}
	if !slices.Equal(in, []ulidtype.ULID{f.old, f.b}) || !slices.Equal(anyIDs, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("IN %v, ANY %v", in, anyIDs)
	}
}
