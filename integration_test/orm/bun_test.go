package ormtest

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
)

// bunOrder is gormOrder for bun. bun has no hook through which a type names
// its column type (pgdialect picks it from the Go kind: BYTEA for a byte
// array, JSONB for a struct or another slice), so every ID field carries
// type: in its tag.
type bunOrder struct {
	bun.BaseModel `bun:"table:bun_orders"`

	ID       ulidtype.ULID             `bun:",pk,type:uuid"`
	UserID   userID                    `bun:",type:uuid,notnull"`
	Owner    typeid.NullID[userPrefix] `bun:",type:uuid"`
	ParentID ulidtype.NullULID         `bun:",type:uuid"`
	Ref      objectidtype.ObjectID     `bun:",type:bytea,notnull"`
	OptRef   objectidtype.NullObjectID `bun:",type:bytea"`
	Refs     objectidtype.Slice        `bun:",type:bytea[]"`
	OptRefs  objectidtype.NullSlice    `bun:",type:bytea[]"`
	Related  ulidtype.Slice            `bun:",type:uuid[]"`
	Maybe    ulidtype.NullSlice        `bun:",type:uuid[]"`
	Note     string                    `bun:",type:text,notnull"`
}

func TestBun(t *testing.T) {
	ctx := context.Background()
	dsn := newDB(t)
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn)))
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { db.Close() })

	if _, err := db.NewCreateTable().Model((*bunOrder)(nil)).Exec(ctx); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	assertColumns(t, dsn, "bun_orders", wantOrderColumns)

	f := newFixture()
	parent := ulidtype.NullULID{ULID: f.old, Valid: true}
	owner := typeid.NullID[userPrefix]{ID: f.user, Valid: true}
	rows := []bunOrder{
		{ID: f.old, UserID: f.user, Ref: f.refOld, Note: "old"},
		{ID: f.a, UserID: f.user, Owner: owner, ParentID: parent, Ref: f.refA,
			OptRef: objectidtype.NullObjectID{ObjectID: f.extra, Valid: true},
			Refs:   objectidtype.Slice{f.refOld, f.refA},
			// pgdialect writes a type:…[] column with its own array
			// appender, element by element, which refuses a NULL element
			// ("pgdialect: can't append elem <nil>"): NullSlice values
			// with NULL elements cannot be written through bun's models.
			OptRefs: objectidtype.NullSlice{{ObjectID: f.refA, Valid: true}},
			Related: ulidtype.Slice{f.old}, Maybe: ulidtype.NullSlice{{ULID: f.b, Valid: true}},
			Note: "a"},
		{ID: f.b, UserID: f.user, Ref: f.refB, Refs: objectidtype.Slice{}, Note: "b"},
	}
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		t.Fatalf("Insert: %v", err)
	}

	var got bunOrder
	if err := db.NewSelect().Model(&got).Where("id = ?", f.a).Scan(ctx); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if got.ID != f.a || got.UserID != f.user || got.Owner != owner || got.ParentID != parent || got.Ref != f.refA ||
		got.OptRef != rows[1].OptRef || !slices.Equal(got.Refs, rows[1].Refs) || !slices.Equal(got.OptRefs, rows[1].OptRefs) ||
		!slices.Equal(got.Related, rows[1].Related) || !slices.Equal(got.Maybe, rows[1].Maybe) {
		t.Errorf("read back\n %+v\nwant %+v", got, rows[1])
	}

	// Since window, bun.In with a []ULID, = ANY with a Slice.
	var since, in, anyIDs []ulidtype.ULID
	if err := db.NewSelect().Model((*bunOrder)(nil)).Column("id").Where("id >= ?", ulidtype.Since(f.window)).Order("id").Scan(ctx, &since); err != nil {
		t.Fatalf("Since: %v", err)
	}
	if err := db.NewSelect().Model((*bunOrder)(nil)).Column("id").Where("id IN (?)", bun.In([]ulidtype.ULID{f.old, f.b})).Order("id").Scan(ctx, &in); err != nil {
		t.Fatalf("IN: %v", err)
	}
	if err := db.NewSelect().Model((*bunOrder)(nil)).Column("id").Where("ref = ANY(?)", objectidtype.Slice{f.refA, f.refB}).Order("id").Scan(ctx, &anyIDs); err != nil {
		t.Fatalf("ANY: %v", err)
	}
	if !slices.Equal(since, []ulidtype.ULID{f.a, f.b}) || !slices.Equal(in, []ulidtype.ULID{f.old, f.b}) || !slices.Equal(anyIDs, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("Since %v, IN %v, ANY %v", since, in, anyIDs)
	}

	// NULL.
	n, err := db.NewSelect().Model((*bunOrder)(nil)).Where("parent_id IS NULL AND opt_ref IS NULL AND owner IS NULL AND refs IS NULL").Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("rows with NULL parent_id, opt_ref, owner and refs: %d, want 1", n)
	}
	var old bunOrder
	if err := db.NewSelect().Model(&old).Where("id = ?", f.old).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if old.ParentID.Valid || old.OptRef.Valid || old.Owner.Valid || old.Refs != nil || old.OptRefs != nil {
		t.Errorf("NULLs read back as %+v", old)
	}

	// Update one column, then the whole row.
	if _, err := db.NewUpdate().Model((*bunOrder)(nil)).Set("parent_id = ?", ulidtype.NullULID{ULID: f.a, Valid: true}).Where("id = ?", f.b).Exec(ctx); err != nil {
		t.Fatalf("Update column: %v", err)
	}
	old.OptRef = objectidtype.NullObjectID{ObjectID: f.refB, Valid: true}
	old.Related = ulidtype.Slice{f.a, f.b}
	if _, err := db.NewUpdate().Model(&old).WherePK().Exec(ctx); err != nil {
		t.Fatalf("Update row: %v", err)
	}
	var children []ulidtype.ULID
	if err := db.NewSelect().Model((*bunOrder)(nil)).Column("id").Where("parent_id = ?", f.a).Scan(ctx, &children); err != nil {
		t.Fatal(err)
	}
	var saved bunOrder
	if err := db.NewSelect().Model(&saved).Where("id = ?", f.old).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(children, []ulidtype.ULID{f.b}) || saved.OptRef != old.OptRef || !slices.Equal(saved.Related, old.Related) {
		t.Errorf("after updates: children of a %v, old row %+v", children, saved)
	}

	// A NullSlice with NULL elements goes in as a query argument (its
	// Value, one array literal), not through the model's array appender,
	// and the model reads it back.
	withNulls := ulidtype.NullSlice{{}, {ULID: f.a, Valid: true}}
	if _, err := db.NewUpdate().Model((*bunOrder)(nil)).Set("maybe = ?", withNulls).Where("id = ?", f.b).Exec(ctx); err != nil {
		t.Fatalf("Update NullSlice with a NULL element: %v", err)
	}
	var b bunOrder
	if err := db.NewSelect().Model(&b).Where("id = ?", f.b).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.Maybe, withNulls) {
		t.Errorf("NullSlice with a NULL element read back as %v, want %v", b.Maybe, withNulls)
	}

	// Delete.
	if _, err := db.NewDelete().Model((*bunOrder)(nil)).Where("id = ?", f.a).Exec(ctx); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	var left []ulidtype.ULID
	if err := db.NewSelect().Model((*bunOrder)(nil)).Column("id").Order("id").Scan(ctx, &left); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(left, []ulidtype.ULID{f.old, f.b}) {
		t.Errorf("after Delete: %v", left)
	}

	// A second create, as services run it at start-up, changes nothing.
	if _, err := db.NewCreateTable().Model((*bunOrder)(nil)).IfNotExists().Exec(ctx); err != nil {
		t.Fatalf("second CreateTable: %v", err)
	}
	assertColumns(t, dsn, "bun_orders", wantOrderColumns)
}
