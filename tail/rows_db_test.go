package tail_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// tailRowsEvent is a row of tailRowsTable, scanned by column name.
type tailRowsEvent struct {
	ID     ulidtype.ULID
	Writer int32
	Note   *string
	Blob   []byte
	Doc    map[string]any
	At     time.Time
	Ref    objectidtype.NullObjectID
}

// tailRowsTable has a column of each kind the typed path must carry: bytea,
// jsonb, timestamptz, a pgid.objectid that is not the key, and NULLs.
const tailRowsTable = `CREATE TABLE ev (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), writer int NOT NULL, note text,
	blob bytea, doc jsonb, at timestamptz NOT NULL, ref pgid.objectid)`

// tailRowsVals makes the values of blob, doc, at and ref for one row: NULL
// now and then (nil blob, nil doc, invalid ref), an empty bytea, bytes of
// every value, JSON with text that needs escaping.
func tailRowsVals(r *rand.Rand, w int) []any {
	var blob []byte
	if r.IntN(4) > 0 {
		blob = make([]byte, r.IntN(40))
		for i := range blob {
			blob[i] = byte(r.IntN(256))
		}
	}
	var doc map[string]any
	if r.IntN(4) > 0 {
		doc = map[string]any{"writer": float64(w), "text": "a \"quoted\" \\ é\n", "n": float64(r.IntN(1000)), "list": []any{true, nil}}
	}
	at := time.UnixMicro(r.Int64N(4e15)).UTC()
	var ref objectidtype.NullObjectID
	if r.IntN(3) > 0 {
		ref = objectidtype.NullObjectID{ObjectID: objectidtype.New(), Valid: true}
	}
	return []any{blob, doc, at, ref}
}

// The adversarial load of TestTailAdversarial, read by a SELECT-only role
// through tail.Collect into structs: every committed row exactly once, in
// ID order, each with the values its writer inserted (bytea byte for byte
// with NULL and empty apart, jsonb, timestamptz, a pgid.objectid column,
// NULLs), on a connection with no pgid registration at all.
func TestTailRowsAdversarial(t *testing.T) {
	t.Parallel()
	reserveTail(t, 16, 2, 1) // owner
	dsn := pgtest.DB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := pgtest.NewRole(t, owner)
	mustExec(t, owner, "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO "+role)
	got := map[ulidtype.ULID]tailRowsEvent{}
	batches := 0
	read := func(ctx context.Context, tl *tail.Tailer[ulidtype.ULID]) ([]ulidtype.ULID, error) {
		evs, err := tail.Collect(ctx, tl, pgx.RowToStructByName[tailRowsEvent])
		ids := make([]ulidtype.ULID, len(evs))
		for i, e := range evs {
			ids[i] = e.ID
			got[e.ID] = e
		}
		if err == nil && len(evs) > 0 {
			batches++
			if tl.Cursor() != ids[len(ids)-1] {
				return ids, fmt.Errorf("cursor %v after a batch ending at %v", tl.Cursor(), ids[len(ids)-1])
			}
		}
		return ids, err
	}
	gen := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-2 * time.Second) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 16, duration: 12 * time.Second, longTx: 2, longTxFor: 6 * time.Second,
		skew: 2 * time.Second, lead: 3 * time.Second, poll: 50 * time.Millisecond,
		readerDSN: pgtest.WithUser(dsn, role), create: tailRowsTable,
		cols: []string{"blob", "doc", "at", "ref"}, vals: tailRowsVals, read: read,
	}, gen.New, ulidtype.MinAt, ulidtype.ULID.Compare, "pgid.ulid", "pgid.gen_ulid_v7()")
	checkExactlyOnce(t, res, ulidtype.ULID.Compare)
	if len(res.committed) < 200 {
		t.Errorf("only %d rows committed of %d transactions (%d refused): the load did not happen", len(res.committed), res.attempts, res.refused)
	}
	if lost := naiveLost(res); lost == 0 {
		t.Errorf("the naive reader lost no row of %d: the load does not test what it should", len(res.committed))
	}
	var nullBlob, emptyBlob, nullDoc, nullRef, nullNote int
	for id, want := range res.inserted {
		e := got[id]
		blob, doc, at, ref := want[0].([]byte), want[1].(map[string]any), want[2].(time.Time), want[3].(objectidtype.NullObjectID)
		if e.ID != id || !bytes.Equal(e.Blob, blob) || (e.Blob == nil) != (blob == nil) || !reflect.DeepEqual(e.Doc, doc) ||
			!e.At.Equal(at) || e.Ref != ref || e.Writer < 0 || (e.Note != nil && *e.Note != "default") {
			t.Errorf("row %v: delivered %+v, inserted %v", id, e, want)
		}
		nullBlob += b2i(e.Blob == nil)
		emptyBlob += b2i(e.Blob != nil && len(e.Blob) == 0)
		nullDoc += b2i(e.Doc == nil)
		nullRef += b2i(!e.Ref.Valid)
		nullNote += b2i(e.Note == nil)
	}
	if nullBlob == 0 || emptyBlob == 0 || nullDoc == 0 || nullRef == 0 || nullNote == 0 || nullNote == len(got) {
		t.Errorf("the load lacks a case: %d NULL blobs, %d empty, %d NULL docs, %d NULL refs, %d NULL notes of %d", nullBlob, emptyBlob, nullDoc, nullRef, nullNote, len(got))
	}
	t.Logf("%d committed (%d by DEFAULT), %d refused; delivered %d in %d batches as structs; lag p50 %v p99 %v; naive lost %d",
		len(res.committed), len(got)-nullNote, res.refused, len(res.delivered), batches,
		percentile(res.lag, 0.5).Round(time.Millisecond), percentile(res.lag, 0.99).Round(time.Millisecond), naiveLost(res))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ObjectId keys through tail.Collect with tail.Values: []any in column
// order, the id an objectidtype.ObjectID (pgx alone would give []byte),
// bytea as []byte, NULL as nil.
func TestTailRowsValuesObjectID(t *testing.T) {
	t.Parallel()
	reserveTail(t, 4, 1, 0)
	dsn := pgtest.DB(t)
	var mu sync.Mutex
	got := map[objectidtype.ObjectID][]any{}
	read := func(ctx context.Context, tl *tail.Tailer[objectidtype.ObjectID]) ([]objectidtype.ObjectID, error) {
		rows, err := tail.Collect(ctx, tl, tail.Values)
		ids := make([]objectidtype.ObjectID, 0, len(rows))
		for _, r := range rows {
			id, ok := r[0].(objectidtype.ObjectID)
			if !ok {
				return ids, fmt.Errorf("id column is a %T, want objectidtype.ObjectID", r[0])
			}
			ids = append(ids, id)
			mu.Lock()
			got[id] = r
			mu.Unlock()
		}
		return ids, err
	}
	gen := objectidtype.NewGenerator(func() time.Time { return time.Now().Add(-time.Second) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 4, duration: 3 * time.Second, longTx: 1, longTxFor: 2 * time.Second,
		skew: time.Second, lead: 2 * time.Second, poll: 50 * time.Millisecond,
		create: "CREATE TABLE ev (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(), writer int NOT NULL, note text, blob bytea)",
		cols:   []string{"blob"}, vals: func(r *rand.Rand, w int) []any { return tailRowsVals(r, w)[:1] }, read: read,
	}, gen.New, objectidtype.MinAt, objectidtype.ObjectID.Compare, "pgid.objectid", "pgid.gen_objectid()")
	checkExactlyOnce(t, res, objectidtype.ObjectID.Compare)
	if len(res.committed) < 10 {
		t.Errorf("only %d rows committed", len(res.committed))
	}
	for id, want := range res.inserted {
		r := got[id]
		if len(r) != 4 {
			t.Fatalf("row %v: %d values %v, want 4", id, len(r), r)
		}
		blob, _ := r[3].([]byte)
		if r[0] != id || r[1] == nil || (r[2] != nil && r[2] != "default") || !bytes.Equal(blob, want[0].([]byte)) || (r[3] == nil) != (want[0].([]byte) == nil) {
			t.Errorf("row %v: delivered %#v, inserted blob %v", id, r, want[0])
		}
	}
}

// A failing RowToFunc or handler leaves the cursor where it was, and the
// next read delivers the same rows; a struct that does not fit the columns
// fails with pgx's error; a read of a Tailer that has stopped returns its
// error through Collect as through Next.
func TestTailRowsErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE ev (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), n int NOT NULL)")
	if err := tail.Enable(ctx, conn, "ev", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, "INSERT INTO ev (n) SELECT g FROM generate_series(1, 5) g")
	// Wait until the rows are all below the horizon: a first Tailer has
	// read them all.
	probe, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	for n, deadline := 0, time.Now().Add(30*time.Second); n < 5; {
		if time.Now().After(deadline) {
			t.Fatalf("%d rows of 5 within 30 s", n)
		}
		r, err := probe.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(r)
	}
	tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "ev", Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		ID ulidtype.ULID
		N  int32
	}
	rows, err := conn.Query(ctx, "SELECT id, n FROM ev ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	all, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ev])
	if err != nil {
		t.Fatal(err)
	}
	var first []ev
	for deadline := time.Now().Add(30 * time.Second); len(first) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no rows within 30 s")
		}
		if first, err = tail.Collect(ctx, tl, pgx.RowToStructByName[ev]); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(first, all[:3]) || tl.Cursor() != first[2].ID {
		t.Fatalf("first batch %+v, cursor %v", first, tl.Cursor())
	}
	boom := errors.New("boom")
	seen := 0
	_, err = tail.Collect(ctx, tl, func(row pgx.CollectableRow) (ev, error) {
		if seen++; seen == 2 {
			return ev{}, boom
		}
		return pgx.RowToStructByName[ev](row)
	})
	if !errors.Is(err, boom) || tl.Cursor() != first[2].ID {
		t.Fatalf("failing RowToFunc: %v, cursor %v, want boom and %v", err, tl.Cursor(), first[2].ID)
	}
	type wrong struct {
		ID      ulidtype.ULID
		Missing string
	}
	if _, err := tail.Collect(ctx, tl, pgx.RowToStructByName[wrong]); err == nil || tl.Cursor() != first[2].ID {
		t.Fatalf("struct without a column: %v, cursor %v", err, tl.Cursor())
	}
	err = tail.RunCollect(ctx, tl, pgx.RowToStructByName[ev], func(_ context.Context, evs []ev) error {
		if tl.Cursor() != evs[len(evs)-1].ID {
			t.Errorf("cursor %v in the handler of a batch ending at %v", tl.Cursor(), evs[len(evs)-1].ID)
		}
		return boom
	})
	if !errors.Is(err, boom) || tl.Cursor() != first[2].ID {
		t.Fatalf("failing handler: %v, cursor %v", err, tl.Cursor())
	}
	rest, err := tail.Collect(ctx, tl, pgx.RowToStructByName[ev])
	if err != nil || !slices.Equal(rest, all[3:]) {
		t.Fatalf("after the failures: %+v, %v; want %+v", rest, err, all[3:])
	}
	// Stopped for good: pgid's triggers replaced (a lead change).
	if err := tail.Enable(ctx, conn, "ev", 60*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, err = tail.Collect(ctx, tl, tail.Values)
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !errors.Is(err, tail.ErrBelowCursor) {
		t.Fatalf("after the triggers changed: %v, want ErrBelowCursor", err)
	}
	if _, err := tl.Next(ctx); !errors.Is(err, tail.ErrBelowCursor) {
		t.Errorf("Next after Collect stopped: %v", err)
	}
}

// tail.Collect through each kind of DB (a pool, database/sql), with the
// simple protocol too (text format results): the same rows, IDs and bytea
// decoded alike.
func TestTailRowsDBs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE ev (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(), ref pgid.ulid, blob bytea)")
	if err := tail.Enable(ctx, conn, "ev", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	type ev struct {
		ID   objectidtype.ObjectID
		Ref  ulidtype.NullULID
		Blob []byte
	}
	want := []ev{{Ref: ulidtype.NullULID{ULID: ulidtype.New(), Valid: true}, Blob: []byte{0, 1, 0xff}}, {Blob: []byte{}}, {}}
	for i := range want {
		want[i].ID = objectidtype.New()
		mustExec(t, conn, "INSERT INTO ev VALUES ($1, $2, $3)", want[i].ID, want[i].Ref, want[i].Blob)
	}
	slices.SortFunc(want, func(a, b ev) int { return a.ID.Compare(b.ID) })
	// Collect reads with a new Tailer until it has all three rows.
	collect := func(name string, tl *tail.Tailer[objectidtype.ObjectID]) {
		var got []ev
		for deadline := time.Now().Add(30 * time.Second); len(got) < len(want); {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d rows of %d within 30 s", name, len(got), len(want))
			}
			evs, err := tail.Collect(ctx, tl, pgx.RowToStructByName[ev])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, evs...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", name, got, want)
		}
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.DefaultQueryExecMode = mode
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		tl, err := tail.New(pool, tail.Config[objectidtype.ObjectID]{Table: "ev"})
		if err != nil {
			t.Fatal(err)
		}
		collect("pool/"+modeName(mode), tl)
		db := stdlib.OpenDBFromPool(pool)
		defer db.Close()
		tls, err := tail.New(db, tail.Config[objectidtype.ObjectID]{Table: "ev"})
		if err != nil {
			t.Fatal(err)
		}
		collect("database/sql/"+modeName(mode), tls)
	}
}
