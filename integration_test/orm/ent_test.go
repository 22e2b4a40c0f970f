package ormtest

import (
	"context"
	"slices"
	"testing"

	"ariga.io/atlas/sql/migrate"
	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	entschema "entgo.io/ent/dialect/sql/schema"
	"entgo.io/ent/schema/field"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// entFields are the fields an ent schema declares for pgid's types: a ULID
// as ent's UUID field (ent's Postgres migration makes it uuid), an
// ObjectID as an Other field with its PostgreSQL type named.
func entFields() []*field.Descriptor {
	return []*field.Descriptor{
		field.UUID("id", ulidtype.ULID{}).Default(ulidtype.New).Descriptor(),
		field.UUID("parent_id", ulidtype.ULID{}).Optional().Nillable().Descriptor(),
		field.Other("ref", objectidtype.ObjectID{}).SchemaType(map[string]string{dialect.Postgres: "pgid.objectid"}).Descriptor(),
		field.Other("refs", objectidtype.Slice{}).SchemaType(map[string]string{dialect.Postgres: "pgid.objectid[]"}).Optional().Descriptor(),
	}
}

// TestEnt checks that ent accepts the field declarations (code generation
// with entc is not run here) and that ent's SQL layer, which the generated
// code runs on, binds and scans the types.
func TestEnt(t *testing.T) {
	for _, d := range entFields() {
		if d.Err != nil {
			t.Errorf("field %s: %v", d.Name, d.Err)
		}
	}
	ctx := context.Background()
	dsn := newDB(t)
	// pgx's database/sql driver under ent's Postgres dialect.
	pool, err := entsql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	drv := entsql.OpenDB(dialect.Postgres, pool.DB())

	// The table as entc writes it into ent/migrate/schema.go for the
	// fields of entFields, created by ent's migration (Atlas), as
	// client.Schema.Create does.
	cols := []*entschema.Column{
		{Name: "id", Type: field.TypeUUID},
		{Name: "parent_id", Type: field.TypeUUID, Nullable: true},
		{Name: "ref", Type: field.TypeOther, SchemaType: map[string]string{dialect.Postgres: "pgid.objectid"}},
		{Name: "refs", Type: field.TypeOther, Nullable: true, SchemaType: map[string]string{dialect.Postgres: "pgid.objectid[]"}},
	}
	table := &entschema.Table{Name: "orders", Columns: cols, PrimaryKey: cols[:1]}
	var changes int
	count := func(next entschema.Applier) entschema.Applier {
		return entschema.ApplyFunc(func(ctx context.Context, conn dialect.ExecQuerier, plan *migrate.Plan) error {
			changes += len(plan.Changes)
			return next.Apply(ctx, conn, plan)
		})
	}
	for i := range 2 {
		changes = 0
		m, err := entschema.NewMigrate(drv, entschema.WithApplyHook(count))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Create(ctx, table); err != nil {
			t.Fatalf("migrate %d: %v", i+1, err)
		}
		if i == 0 && changes == 0 {
			t.Errorf("first migrate planned no change (the hook counts nothing)")
		}
		if i == 1 && changes != 0 {
			t.Errorf("second migrate planned %d changes, want none", changes)
		}
	}
	assertColumns(t, dsn, "orders", map[string]string{"id": "uuid", "parent_id": "uuid", "ref": "pgid.objectid", "refs": "pgid.objectid[]"})
	f := newFixture()
	ins := entsql.Dialect(dialect.Postgres).Insert("orders").Columns("id", "parent_id", "ref", "refs").
		Values(f.old, nil, f.refOld, nil).
		Values(f.a, ulidtype.NullULID{ULID: f.old, Valid: true}, f.refA, objectidtype.Slice{f.refOld}).
		Values(f.b, nil, f.refB, objectidtype.Slice{})
	q, args := ins.Query()
	if err := drv.Exec(ctx, q, args, nil); err != nil {
		t.Fatalf("insert: %v", err)
	}

	sel := entsql.Dialect(dialect.Postgres).Select("id").From(entsql.Table("orders")).
		Where(entsql.GTE("id", ulidtype.Since(f.window))).OrderBy("id")
	if got := entIDs(ctx, t, drv, sel); !slices.Equal(got, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("Since window: %v", got)
	}
	sel = entsql.Dialect(dialect.Postgres).Select("id").From(entsql.Table("orders")).
		Where(entsql.In("id", f.old, f.b)).OrderBy("id")
	if got := entIDs(ctx, t, drv, sel); !slices.Equal(got, []ulidtype.ULID{f.old, f.b}) {
		t.Errorf("IN: %v", got)
	}
	sel = entsql.Dialect(dialect.Postgres).Select("id").From(entsql.Table("orders")).
		Where(entsql.ExprP("ref = ANY($1)", objectidtype.Slice{f.refA, f.refB})).OrderBy("id")
	if got := entIDs(ctx, t, drv, sel); !slices.Equal(got, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("ANY: %v", got)
	}
	sel = entsql.Dialect(dialect.Postgres).Select("id").From(entsql.Table("orders")).
		Where(entsql.IsNull("parent_id")).OrderBy("id")
	if got := entIDs(ctx, t, drv, sel); !slices.Equal(got, []ulidtype.ULID{f.old, f.b}) {
		t.Errorf("IS NULL: %v", got)
	}

	// Update, then Delete.
	q, args = entsql.Dialect(dialect.Postgres).Update("orders").Set("parent_id", f.a).Where(entsql.EQ("id", f.b)).Query()
	if err := drv.Exec(ctx, q, args, nil); err != nil {
		t.Fatalf("update: %v", err)
	}
	q, args = entsql.Dialect(dialect.Postgres).Delete("orders").Where(entsql.EQ("id", f.a)).Query()
	if err := drv.Exec(ctx, q, args, nil); err != nil {
		t.Fatalf("delete: %v", err)
	}
	sel = entsql.Dialect(dialect.Postgres).Select("id").From(entsql.Table("orders")).
		Where(entsql.NotNull("parent_id")).OrderBy("id")
	if got := entIDs(ctx, t, drv, sel); !slices.Equal(got, []ulidtype.ULID{f.b}) {
		t.Errorf("after update and delete, rows with a parent: %v, want [%v]", got, f.b)
	}
}

// entIDs runs sel and scans its one column of ULIDs.
func entIDs(ctx context.Context, t *testing.T, drv *entsql.Driver, sel *entsql.Selector) []ulidtype.ULID {
	t.Helper()
	q, args := sel.Query()
	var rows entsql.Rows
	if err := drv.Query(ctx, q, args, &rows); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var ids []ulidtype.ULID
	for rows.Next() {
		var id ulidtype.ULID
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
