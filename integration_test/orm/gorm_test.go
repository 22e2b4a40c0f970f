package ormtest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// gormOrder has no type tags: every column type comes from the ID types'
// GormDataType methods.
type gormOrder struct {
	ID       ulidtype.ULID `gorm:"primaryKey"`
	UserID   userID
	Owner    typeid.NullID[userPrefix]
	ParentID ulidtype.NullULID
	Ref      objectidtype.ObjectID
	OptRef   objectidtype.NullObjectID
	Refs     objectidtype.Slice
	OptRefs  objectidtype.NullSlice
	Related  ulidtype.Slice
	Maybe    ulidtype.NullSlice
	Note     string
}

// wantOrderColumns is the table every ORM test builds, as format_type
// names its column types.
var wantOrderColumns = map[string]string{
	"id": "uuid", "user_id": "uuid", "owner": "uuid", "parent_id": "uuid",
	"ref": "bytea", "opt_ref": "bytea",
	"refs": "bytea[]", "opt_refs": "bytea[]",
	"related": "uuid[]", "maybe": "uuid[]", "note": "text",
}

// sqlRecorder is a GORM logger that keeps the SQL GORM runs.
type sqlRecorder struct {
	mu   sync.Mutex
	stmt []string
}

func (r *sqlRecorder) LogMode(logger.LogLevel) logger.Interface { return r }
func (r *sqlRecorder) Info(context.Context, string, ...any)     {}
func (r *sqlRecorder) Warn(context.Context, string, ...any)     {}
func (r *sqlRecorder) Error(context.Context, string, ...any)    {}
func (r *sqlRecorder) Trace(_ context.Context, _ time.Time, fc func() (string, int64), _ error) {
	sql, _ := fc()
	r.mu.Lock()
	r.stmt = append(r.stmt, sql)
	r.mu.Unlock()
}

// changes returns the statements that changed the schema.
func (r *sqlRecorder) changes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.stmt {
		if u := strings.ToUpper(strings.TrimSpace(s)); strings.HasPrefix(u, "ALTER") || strings.HasPrefix(u, "CREATE") || strings.HasPrefix(u, "DROP") {
			out = append(out, s)
		}
	}
	return out
}

func TestGORM(t *testing.T) {
	dsn := newDB(t)
	rec := &sqlRecorder{}
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: rec})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })

	if err := db.AutoMigrate(&gormOrder{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	assertColumns(t, dsn, "gorm_orders", wantOrderColumns)

	f := newFixture()
	parent := ulidtype.NullULID{ULID: f.old, Valid: true}
	owner := typeid.NullID[userPrefix]{ID: f.user, Valid: true}
	rows := []gormOrder{
		{ID: f.old, UserID: f.user, Ref: f.refOld, Note: "old"},
		{ID: f.a, UserID: f.user, Owner: owner, ParentID: parent, Ref: f.refA,
			OptRef:  objectidtype.NullObjectID{ObjectID: f.extra, Valid: true},
			Refs:    objectidtype.Slice{f.refOld, f.refA},
			OptRefs: objectidtype.NullSlice{{ObjectID: f.refA, Valid: true}, {}},
			Related: ulidtype.Slice{f.old}, Maybe: ulidtype.NullSlice{{}, {ULID: f.b, Valid: true}},
			Note: "a"},
		{ID: f.b, UserID: f.user, Ref: f.refB, Refs: objectidtype.Slice{}, Note: "b"},
	}
	if err := db.Create(&rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}

	// Read back whole.
	var got gormOrder
	if err := db.First(&got, "id = ?", f.a).Error; err != nil {
		t.Fatalf("First: %v", err)
	}
	if got.ID != rows[1].ID || got.UserID != f.user || got.Owner != owner || got.ParentID != parent || got.Ref != f.refA ||
		got.OptRef != rows[1].OptRef || !slices.Equal(got.Refs, rows[1].Refs) || !slices.Equal(got.OptRefs, rows[1].OptRefs) ||
		!slices.Equal(got.Related, rows[1].Related) || !slices.Equal(got.Maybe, rows[1].Maybe) {
		t.Errorf("First read back\n %+v\nwant %+v", got, rows[1])
	}

	// The Since window: the old row is an hour before it.
	var since []ulidtype.ULID
	if err := db.Model(&gormOrder{}).Where("id >= ?", ulidtype.Since(f.window)).Order("id").Pluck("id", &since).Error; err != nil {
		t.Fatalf("Since: %v", err)
	}
	if !slices.Equal(since, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("Since window: got %v, want [%v %v]", since, f.a, f.b)
	}

	// IN with a []ULID (GORM expands it) and = ANY with a Slice (one array parameter).
	var in, anyIDs []ulidtype.ULID
	if err := db.Model(&gormOrder{}).Where("id IN ?", []ulidtype.ULID{f.old, f.b}).Order("id").Pluck("id", &in).Error; err != nil {
		t.Fatalf("IN: %v", err)
	}
	if err := db.Model(&gormOrder{}).Where("ref = ANY(?)", objectidtype.Slice{f.refA, f.refB}).Order("id").Pluck("id", &anyIDs).Error; err != nil {
		t.Fatalf("ANY: %v", err)
	}
	if !slices.Equal(in, []ulidtype.ULID{f.old, f.b}) || !slices.Equal(anyIDs, []ulidtype.ULID{f.a, f.b}) {
		t.Errorf("IN got %v, ANY got %v", in, anyIDs)
	}

	// NULL: the Null types are NULL in the database, and read back not Valid.
	var nulls int64
	if err := db.Model(&gormOrder{}).Where("parent_id IS NULL AND opt_ref IS NULL AND owner IS NULL AND refs IS NULL").Count(&nulls).Error; err != nil {
		t.Fatal(err)
	}
	if nulls != 1 { // old; b has an empty (not NULL) refs
		t.Errorf("rows with NULL parent_id, opt_ref, owner and refs: %d, want 1", nulls)
	}
	var old gormOrder
	if err := db.First(&old, "id = ?", f.old).Error; err != nil {
		t.Fatal(err)
	}
	if old.ParentID.Valid || old.OptRef.Valid || old.Owner.Valid || old.Refs != nil || old.OptRefs != nil {
		t.Errorf("NULLs read back as %+v", old)
	}

	// Update one column, then Save the whole row.
	if err := db.Model(&gormOrder{ID: f.b}).Update("parent_id", ulidtype.NullULID{ULID: f.a, Valid: true}).Error; err != nil {
		t.Fatalf("Update: %v", err)
	}
	old.OptRef = objectidtype.NullObjectID{ObjectID: f.refB, Valid: true}
	old.Related = ulidtype.Slice{f.a, f.b}
	if err := db.Save(&old).Error; err != nil {
		t.Fatalf("Save: %v", err)
	}
	var children []ulidtype.ULID
	if err := db.Model(&gormOrder{}).Where("parent_id = ?", f.a).Pluck("id", &children).Error; err != nil {
		t.Fatal(err)
	}
	var saved gormOrder
	if err := db.First(&saved, "id = ?", f.old).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(children, []ulidtype.ULID{f.b}) || saved.OptRef != old.OptRef || !slices.Equal(saved.Related, old.Related) {
		t.Errorf("after Update and Save: children of a %v, old row %+v", children, saved)
	}

	// Delete.
	if err := db.Delete(&gormOrder{}, "id = ?", f.a).Error; err != nil {
		t.Fatalf("Delete: %v", err)
	}
	var left []ulidtype.ULID
	if err := db.Model(&gormOrder{}).Order("id").Pluck("id", &left).Error; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(left, []ulidtype.ULID{f.old, f.b}) {
		t.Errorf("after Delete: %v", left)
	}

	// A second AutoMigrate changes nothing.
	rec.mu.Lock()
	rec.stmt = nil
	rec.mu.Unlock()
	if err := db.AutoMigrate(&gormOrder{}); err != nil {
		t.Fatalf("second AutoMigrate: %v", err)
	}
	if ch := rec.changes(); len(ch) > 0 {
		t.Errorf("second AutoMigrate changed the schema:\n%s", strings.Join(ch, "\n"))
	}
	assertColumns(t, dsn, "gorm_orders", wantOrderColumns)
}

// gormDomains names pgid's domains in type tags, which docs/ORMS.md warns
// against, and checks an ObjectID's length with a check tag instead.
type gormDomains struct {
	ID      ulidtype.ULID         `gorm:"primaryKey"`
	Parent  ulidtype.ULID         `gorm:"type:pgid.ulid"`
	Ref     objectidtype.ObjectID `gorm:"type:pgid.objectid"`
	Checked objectidtype.ObjectID `gorm:"check:checked_len,octet_length(checked) = 12"`
}

// TestGORMDomainTags shows why GormDataType names uuid and bytea and not
// pgid's domains: GORM compares a column's type with the base type's name
// (information_schema's udt_name), so every AutoMigrate alters a column
// whose type tag names a domain again. A check tag is stable.
func TestGORMDomainTags(t *testing.T) {
	dsn := newDB(t)
	rec := &sqlRecorder{}
	db, err := gorm.Open(postgres.Open(dsn), &gorm.Config{Logger: rec})
	if err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sqlDB.Close() })
	if err := db.AutoMigrate(&gormDomains{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"id": "uuid", "parent": "pgid.ulid", "ref": "pgid.objectid", "checked": "bytea"}
	assertColumns(t, dsn, "gorm_domains", want)
	rec.mu.Lock()
	rec.stmt = nil
	rec.mu.Unlock()
	if err := db.AutoMigrate(&gormDomains{}); err != nil {
		t.Fatal(err)
	}
	ch := strings.Join(rec.changes(), "\n")
	for _, col := range []string{`"parent" TYPE pgid.ulid`, `"ref" TYPE pgid.objectid`} {
		if !strings.Contains(ch, col) {
			t.Errorf("second AutoMigrate did not alter %s again (GORM now keeps domain columns: docs/ORMS.md's GORM notes can change); it ran:\n%s", col, ch)
		}
	}
	if strings.Contains(ch, `"checked"`) {
		t.Errorf("second AutoMigrate altered the checked column:\n%s", ch)
	}
	assertColumns(t, dsn, "gorm_domains", want)

	// The check tag refuses an 11-byte value, as the domain would.
	err = db.Exec(`INSERT INTO gorm_domains (id, parent, ref, checked) VALUES (?, ?, ?, '\x0102030405060708090a0b'::bytea)`,
		ulidtype.New(), ulidtype.New(), objectidtype.New()).Error
	if err == nil || !strings.Contains(err.Error(), "checked_len") {
		t.Errorf("11-byte value into the checked column: %v, want a violation of checked_len", err)
	}
}
