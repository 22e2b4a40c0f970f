package ormtest

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strings"
	"testing"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"
	"entgo.io/ent/dialect/sql/sqlgraph"
	"entgo.io/ent/schema/field"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/pgid/pgid/ulidtype"
)

// A row created without an ID must get a fresh one in every setup
// docs/ORMS.md shows, never the zero ULID (which a uuid column
// takes as 00000000-0000-0000-0000-000000000000, so that the second such
// row fails with 23505). The tags and the ent declaration below are the
// guide's, checked word for word by readmeORMs.

// docs/ORMS.md's key declarations, as the tests use them.
const (
	gormKeyTag = `gorm:"primaryKey;default:pgid.gen_ulid_v7()"`
	bunKeyTag  = `bun:",pk,type:uuid,default:pgid.gen_ulid_v7()"`
	entKeyDecl = `field.UUID("id", ulidtype.ULID{}).Default(ulidtype.New)`
	gormHook   = `func (n *Note) BeforeCreate(*gorm.DB) error { if n.ID.IsZero() { n.ID = ulidtype.New() }; return nil }`
)

// readmeORMs fails t unless docs/ORMS.md (the README's ORMs section moved
// there) shows each of want word for word.
func readmeORMs(t *testing.T, want ...string) {
	t.Helper()
	b, err := os.ReadFile("../../docs/ORMS.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(b)
	// Inline code may wrap: compare with the line breaks as spaces.
	sec = strings.Join(strings.Fields(sec), " ")
	for _, w := range want {
		if !strings.Contains(sec, w) {
			t.Errorf("docs/ORMS.md does not show %s (the setup this test runs)", w)
		}
	}
}

// gormNote is docs/ORMS.md's GORM model: no type tag, a default for the key.
type gormNote struct {
	ID   ulidtype.ULID `gorm:"primaryKey;default:pgid.gen_ulid_v7()"`
	Body string
}

// gormHookNote gets its key from docs/ORMS.md's one-line hook instead.
type gormHookNote struct {
	ID   ulidtype.ULID `gorm:"primaryKey"`
	Body string
}

func (n *gormHookNote) BeforeCreate(*gorm.DB) error {
	if n.ID.IsZero() {
		n.ID = ulidtype.New()
	}
	return nil
}

// gormBare is the key with no tag but primaryKey, as the README once showed it
// before: GORM sends the zero ULID.
type gormBare struct {
	ID   ulidtype.ULID `gorm:"primaryKey"`
	Body string
}

func openGORM(t *testing.T, dsn string) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: &sqlRecorder{}})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	return db
}

// distinctNonZero fails t unless ids are non-zero and distinct.
func distinctNonZero(t *testing.T, what string, ids ...ulidtype.ULID) {
	t.Helper()
	seen := map[ulidtype.ULID]bool{}
	for _, id := range ids {
		if id.IsZero() || seen[id] {
			t.Errorf("%s: IDs %v, want fresh ones", what, ids)
			return
		}
		seen[id] = true
	}
}

func TestGORMNewID(t *testing.T) {
	readmeORMs(t, "`"+gormKeyTag+"`", "`"+gormHook+"`")
	dsn := newDB(t)
	db := openGORM(t, dsn)
	if err := db.AutoMigrate(&gormNote{}, &gormHookNote{}); err != nil {
		t.Fatal(err)
	}

	// The default: GORM leaves the zero key out and reads it back.
	a, b := gormNote{Body: "x"}, gormNote{Body: "y"}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := db.Create(&b).Error; err != nil {
		t.Fatalf("second Create: %v", err)
	}
	batch := []gormNote{{Body: "p"}, {Body: "q"}}
	if err := db.Create(&batch).Error; err != nil {
		t.Fatalf("Create a batch: %v", err)
	}
	distinctNonZero(t, "gorm default", a.ID, b.ID, batch[0].ID, batch[1].ID)
	var stored []ulidtype.ULID
	if err := db.Model(&gormNote{}).Order("id").Pluck("id", &stored).Error; err != nil {
		t.Fatal(err)
	}
	created := []ulidtype.ULID{a.ID, b.ID, batch[0].ID, batch[1].ID}
	slices.SortFunc(created, ulidtype.ULID.Compare)
	if !slices.Equal(stored, created) {
		t.Errorf("stored %v, want the four IDs Create read back %v", stored, created)
	}
	// A given key is kept.
	given := gormNote{ID: ulidtype.New(), Body: "given"}
	want := given.ID
	if err := db.Create(&given).Error; err != nil || given.ID != want {
		t.Errorf("Create with a key: %v, ID %v, want %v", err, given.ID, want)
	}
	// The column default AutoMigrate made, and a second AutoMigrate keeps it.
	rec := &sqlRecorder{}
	if err := db.Session(&gorm.Session{Logger: rec}).AutoMigrate(&gormNote{}); err != nil {
		t.Fatal(err)
	}
	if len(rec.stmt) == 0 {
		t.Error("the recorder saw no statement of the second AutoMigrate")
	}
	if ch := rec.changes(); len(ch) > 0 {
		t.Errorf("second AutoMigrate changed the schema: %v", ch)
	}
	assertDefault(t, dsn, "gorm_notes", "pgid.gen_ulid_v7()")

	// The hook.
	h1, h2 := gormHookNote{Body: "x"}, gormHookNote{Body: "y"}
	if err := db.Create(&h1).Error; err != nil {
		t.Fatalf("Create with the hook: %v", err)
	}
	if err := db.Create(&h2).Error; err != nil {
		t.Fatalf("second Create with the hook: %v", err)
	}
	distinctNonZero(t, "gorm hook", h1.ID, h2.ID)
}

// TestGORMBareKey records what docs/ORMS.md warns about: with neither the
// default nor the hook, GORM stores the zero ULID and the second row fails.
func TestGORMBareKey(t *testing.T) {
	readmeORMs(t, "without either, GORM stores the zero ULID")
	db := openGORM(t, newDB(t))
	if err := db.AutoMigrate(&gormBare{}); err != nil {
		t.Fatal(err)
	}
	a := gormBare{Body: "x"}
	if err := db.Create(&a).Error; err != nil {
		t.Fatal(err)
	}
	err := db.Create(&gormBare{Body: "y"}).Error
	if !a.ID.IsZero() || err == nil || !strings.Contains(err.Error(), "23505") {
		t.Errorf("GORM with a bare key: first ID %v, second Create %v; docs/ORMS.md says it stores the zero ULID, then fails with 23505", a.ID, err)
	}
}

// bunNote is docs/ORMS.md's bun model.
type bunNote struct {
	bun.BaseModel `bun:"table:bun_notes"`

	ID   ulidtype.ULID `bun:",pk,type:uuid,default:pgid.gen_ulid_v7()"`
	Body string
}

func TestBunNewID(t *testing.T) {
	readmeORMs(t, "`"+bunKeyTag+"`")
	ctx := context.Background()
	dsn := newDB(t)
	db := bun.NewDB(sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn))), pgdialect.New())
	t.Cleanup(func() { db.Close() })
	if _, err := db.NewCreateTable().Model((*bunNote)(nil)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	assertDefault(t, dsn, "bun_notes", "pgid.gen_ulid_v7()")
	a, b := bunNote{Body: "x"}, bunNote{Body: "y"}
	if _, err := db.NewInsert().Model(&a).Exec(ctx); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if _, err := db.NewInsert().Model(&b).Exec(ctx); err != nil {
		t.Fatalf("second Insert: %v", err)
	}
	batch := []bunNote{{Body: "p"}, {Body: "q"}}
	if _, err := db.NewInsert().Model(&batch).Exec(ctx); err != nil {
		t.Fatalf("Insert a batch: %v", err)
	}
	distinctNonZero(t, "bun default", a.ID, b.ID, batch[0].ID, batch[1].ID)
	var stored []ulidtype.ULID
	if err := db.NewSelect().Model((*bunNote)(nil)).Column("id").Where("id = ?", a.ID).Scan(ctx, &stored); err != nil || len(stored) != 1 {
		t.Errorf("the ID bun read back is not stored: %v %v", stored, err)
	}
	given := bunNote{ID: ulidtype.New(), Body: "given"}
	want := given.ID
	if _, err := db.NewInsert().Model(&given).Exec(ctx); err != nil || given.ID != want {
		t.Errorf("Insert with a key: %v, ID %v, want %v", err, given.ID, want)
	}
}

func TestEntNewID(t *testing.T) {
	readmeORMs(t, "`"+entKeyDecl+"`")
	ctx := context.Background()
	d := field.UUID("id", ulidtype.ULID{}).Default(ulidtype.New).Descriptor()
	if d.Err != nil {
		t.Fatal(d.Err)
	}
	// entc's generated create builder calls the descriptor's Default when
	// the ID is not set (order.DefaultID), then inserts through sqlgraph.
	newID, ok := d.Default.(func() ulidtype.ULID)
	if !ok {
		t.Fatalf("the ID field's Default is a %T, want func() ulidtype.ULID", d.Default)
	}
	dsn := newDB(t)
	pool, err := entsql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	if _, err := pool.DB().ExecContext(ctx, "CREATE TABLE ent_notes (id uuid PRIMARY KEY, body text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	drv := entsql.OpenDB(dialect.Postgres, pool.DB())
	var ids []ulidtype.ULID
	for _, body := range []string{"x", "y"} {
		id := newID()
		spec := sqlgraph.NewCreateSpec("ent_notes", sqlgraph.NewFieldSpec("id", field.TypeUUID))
		spec.ID.Value = &id
		spec.SetField("body", field.TypeString, body)
		if err := sqlgraph.CreateNode(ctx, drv, spec); err != nil {
			t.Fatalf("create: %v", err)
		}
		ids = append(ids, id)
	}
	distinctNonZero(t, "ent Default", ids...)
	var n int
	if err := pool.DB().QueryRowContext(ctx, "SELECT count(DISTINCT id) FROM ent_notes WHERE id <> '00000000-0000-0000-0000-000000000000'").Scan(&n); err != nil || n != 2 {
		t.Errorf("ent_notes holds %d distinct non-zero IDs (%v), want 2", n, err)
	}
}

// assertDefault fails t unless table's id column has the DEFAULT want.
func assertDefault(t *testing.T, dsn, table, want string) {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var def sql.NullString
	err = db.QueryRow(`SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d
		JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
		WHERE d.adrelid = $1::regclass AND a.attname = 'id'`, table).Scan(&def)
	if err != nil && err != sql.ErrNoRows {
		t.Fatal(err)
	}
	if def.String != want {
		t.Errorf("%s.id DEFAULT %q, want %q", table, def.String, want)
	}
}
