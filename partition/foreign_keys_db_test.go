package partition_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// Issue 17, reproduction 1: a foreign key to the parent must not stop
// retention, and retention must never stop creation. With no row pointing
// into the expired partition it is retired (DETACH, then DROP); with one
// it is kept and reported, and the partitions ahead are made anyway, so
// inserts keep working.
func TestPartitionIssue17ForeignKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	for _, c := range []struct {
		kind partition.Kind
		typ  string
		at   func(time.Time) any
	}{
		{partition.KindULID, "pgid.ulid", func(t time.Time) any { return ulidtype.MinAt(t) }},
		{partition.KindObjectID, "pgid.objectid", func(t time.Time) any { return objectidtype.MinAt(t) }},
	} {
		ev, tags := "fk_ev_"+c.kind.String(), "fk_tags_"+c.kind.String()
		mustExec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s (id %[3]s PRIMARY KEY, kind text NOT NULL) PARTITION BY RANGE (id);
			CREATE TABLE %[2]s (event_id %[3]s NOT NULL REFERENCES %[1]s (id), tag text NOT NULL)`, ev, tags, c.typ))
		plan := partition.Plan{Parent: ev, Every: partition.Day, Ahead: 3,
			Retain: partition.Span{Duration: 2 * 24 * time.Hour}, Now: day(1, 0)}
		ensure(t, conn, plan)
		// A row on the 1st, no reference to it; a row on the 2nd with one.
		mustExec(t, conn, "INSERT INTO "+ev+" VALUES ($1, 'a'), ($2, 'b')", c.at(day(1, time.Hour)), c.at(day(2, time.Hour)))
		mustExec(t, conn, "INSERT INTO "+tags+" VALUES ($1, 'x')", c.at(day(2, time.Hour)))

		// On the 4th the 1st expires: no row references it.
		plan.Now = day(4, 0)
		rep, err := partition.Ensure(ctx, conn, plan)
		if err != nil {
			t.Fatalf("%s: Ensure on the 4th: %v", ev, err)
		}
		if names(rep.Dropped) != "public."+ev+"_p20261101" || names(rep.Created) != "public."+ev+"_p20261105,public."+ev+"_p20261106,public."+ev+"_p20261107" {
			t.Errorf("%s on the 4th: created %s, dropped %s", ev, names(rep.Created), names(rep.Dropped))
		}
		// On the 5th the 2nd expires, but a tag still points into it: it is
		// kept and reported; the 8th is created all the same.
		plan.Now = day(5, 0)
		rep, err = partition.Ensure(ctx, conn, plan)
		if names(rep.Created) != "public."+ev+"_p20261108" {
			t.Errorf("%s on the 5th: created %s (err %v), want the 8th despite the kept partition", ev, names(rep.Created), err)
		}
		if !errors.Is(err, partition.ErrKept) || len(rep.Kept) != 1 || rep.Kept[0].Name != "public."+ev+"_p20261102" ||
			rep.Kept[0].Constraint != tags+"_event_id_fkey" ||
			!strings.Contains(rep.Kept[0].Reason, "1 rows of public."+tags+" reference it through "+tags+"_event_id_fkey (ON DELETE NO ACTION)") {
			t.Errorf("%s on the 5th: kept %+v, %v; want the 2nd kept for %s_event_id_fkey", ev, rep.Kept, err, tags)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO "+ev+" VALUES ($1, 'c')", c.at(day(8, time.Hour))); err != nil {
			t.Errorf("%s: insert on the 8th: %v", ev, err)
		}
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+ev+" WHERE id < $1", c.at(day(3, 0))).Scan(&n); err != nil || n != 1 {
			t.Errorf("%s: rows before the 3rd: %d, %v; want the referenced one", ev, n, err)
		}
	}
}

// Issue 17, reproduction 3: standard_conforming_strings = off in the
// caller's session (set before the first call, so the plpgsql is compiled
// under it) changes nothing: the bounds of a bytea partition are real
// ObjectIds and list_partitions reads them.
func TestPartitionIssue17StandardConformingStrings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	setup := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, `CREATE TABLE scs_o (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE scs_u (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)`)
	conn := pgtest.ConnectWith(t, dsn, map[string]string{"standard_conforming_strings": "off"})
	var scs string
	if err := conn.QueryRow(ctx, "SHOW standard_conforming_strings").Scan(&scs); err != nil || scs != "off" {
		t.Fatalf("standard_conforming_strings %q, %v", scs, err)
	}
	for _, parent := range []string{"scs_o", "scs_u"} {
		rep, err := partition.Ensure(ctx, conn, partition.Plan{Parent: parent, Every: partition.Day, Ahead: 1, Now: day(22, 0)})
		if err != nil || len(rep.Created) != 2 {
			t.Errorf("%s: Ensure with standard_conforming_strings off: %v, created %s", parent, err, names(rep.Created))
			continue
		}
		parts, err := partition.List(ctx, conn, parent)
		if err != nil || len(parts) != 2 || parts[0].Lower != day(22, 0) || parts[1].Upper != day(24, 0) {
			t.Errorf("%s: List with standard_conforming_strings off: %+v, %v", parent, parts, err)
		}
		if _, err := partition.Expired(ctx, conn, parent, partition.Day, day(25, 0)); err != nil {
			t.Errorf("%s: Expired: %v", parent, err)
		}
	}
	if _, err := setup.Exec(ctx, "INSERT INTO scs_o VALUES ($1)", objectidtype.MinAt(day(22, 12*time.Hour))); err != nil {
		t.Errorf("an ObjectId of the 22nd: %v", err)
	}
	if _, err := setup.Exec(ctx, "INSERT INTO scs_u VALUES ($1)", ulidtype.MinAt(day(23, 12*time.Hour))); err != nil {
		t.Errorf("a ULID of the 23rd: %v", err)
	}
}

// Retention with foreign keys acts as a DELETE of the expired rows would:
// ON DELETE CASCADE deletes the referencing rows, SET NULL and SET DEFAULT
// set them, RESTRICT (like NO ACTION) keeps the partition and reports it
// with the constraint. A dry run reports the same and changes nothing;
// Detach and DetachConcurrentlyThenDrop work with foreign keys too.
func TestPartitionForeignKeyActions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	ev := func(d int) ulidtype.ULID { return ulidtype.MinAt(day(d, time.Hour)) }
	mustExec(t, conn, `CREATE TABLE fa (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('fa', '1 day', 4, at => '2026-11-01Z')`)
	mustExec(t, conn, "INSERT INTO fa VALUES ($1), ($2), ($3), ($4)", ev(1), ev(2), ev(3), ev(4))
	mustExec(t, conn, `CREATE TABLE fa_tags (id pgid.ulid REFERENCES fa ON DELETE CASCADE);
		CREATE TABLE fa_nulls (k int, id pgid.ulid REFERENCES fa ON DELETE SET NULL);
		CREATE TABLE fa_defaults (k int, id pgid.ulid DEFAULT '`+ev(4).UUIDString()+`' REFERENCES fa ON DELETE SET DEFAULT);
		CREATE TABLE fa_restrict (id pgid.ulid REFERENCES fa ON DELETE RESTRICT)`)
	mustExec(t, conn, "INSERT INTO fa_tags VALUES ($1), ($1), ($2)", ev(1), ev(3))
	mustExec(t, conn, "INSERT INTO fa_nulls VALUES (1, $1)", ev(1))
	mustExec(t, conn, "INSERT INTO fa_defaults VALUES (1, $1)", ev(1))
	mustExec(t, conn, "INSERT INTO fa_restrict VALUES ($1)", ev(2))

	state := func() string {
		var s string
		if err := conn.QueryRow(ctx, `SELECT format('%s partitions; tags %s; nulls %s; defaults %s',
			(SELECT count(*) FROM pg_inherits WHERE inhparent = 'fa'::regclass),
			(SELECT count(*) FROM fa_tags), (SELECT count(id) FROM fa_nulls),
			(SELECT string_agg(pgid.ulid_to_text(id), ',') FROM fa_defaults))`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	plan := partition.Plan{Parent: "fa", Every: partition.Day, Ahead: 1, Now: day(5, 0),
		Retain: partition.Span{Duration: 2 * 24 * time.Hour}, DryRun: true}
	check := func(rep partition.Report, err error) {
		t.Helper()
		if !errors.Is(err, partition.ErrKept) || !strings.Contains(err.Error(), "fa_restrict_id_fkey (ON DELETE RESTRICT)") {
			t.Errorf("error %v, want ErrKept naming fa_restrict_id_fkey", err)
		}
		if names(rep.Dropped) != "public.fa_p20261101" || len(rep.Kept) != 1 || rep.Kept[0].Name != "public.fa_p20261102" ||
			rep.Kept[0].Constraint != "fa_restrict_id_fkey" || !strings.Contains(rep.Kept[0].Hint, "referencing rows") {
			t.Errorf("dropped %s, kept %+v", names(rep.Dropped), rep.Kept)
		}
		if names(rep.Created) != "public.fa_p20261106" {
			t.Errorf("created %s", names(rep.Created))
		}
	}
	rep, err := partition.Ensure(ctx, conn, plan)
	check(rep, err)
	if !rep.DryRun || state() != before {
		t.Errorf("dry run changed %s into %s (DryRun %v)", before, state(), rep.DryRun)
	}
	plan.DryRun = false
	rep, err = partition.Ensure(ctx, conn, plan)
	check(rep, err)
	if got, want := state(), "5 partitions; tags 1; nulls 0; defaults "+ev(4).String(); got != want {
		t.Errorf("after retention: %s, want %s", got, want)
	}
	// Every run reports it again; once the reference is gone, a plain
	// detach takes it.
	if _, err := partition.Ensure(ctx, conn, plan); !errors.Is(err, partition.ErrKept) {
		t.Errorf("second run: %v, want ErrKept again", err)
	}
	mustExec(t, conn, "DELETE FROM fa_restrict")
	plan.Retire = partition.Detach
	if rep, err = partition.Ensure(ctx, conn, plan); err != nil || names(rep.Detached) != "public.fa_p20261102" {
		t.Errorf("detach after the reference went: detached %s, %v", names(rep.Detached), err)
	}
	// The concurrent detach (no DEFAULT partition here), then a drop, with
	// a cascading tag on the 3rd.
	plan.Retire, plan.Now = partition.DetachConcurrentlyThenDrop, day(6, 0)
	if rep, err = partition.Ensure(ctx, conn, plan); err != nil || names(rep.Dropped) != "public.fa_p20261103" || names(rep.Detached) != "public.fa_p20261103" {
		t.Errorf("detach concurrently: detached %s, dropped %s, %v", names(rep.Detached), names(rep.Dropped), err)
	}
	if got, want := state(), "4 partitions; tags 0; nulls 0; defaults "+ev(4).String(); got != want {
		t.Errorf("after the concurrent detach: %s, want %s", got, want)
	}
}

// Ensure, List and Expired take a *pgx.Conn, a *pgxpool.Pool, a *sql.DB
// and a *sql.Conn over pgx's stdlib; another database/sql driver and a nil
// connection are refused with ErrPlan.
func TestPartitionDB(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE dbs (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id)")
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	sdb, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	sconn, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sconn.Close()
	retain := partition.Span{Duration: 24 * time.Hour}
	// Each call makes the next day's partition and retires the one before.
	step := func(name string, d int, ensure func(partition.Plan) (partition.Report, error),
		list func() ([]partition.Partition, error), expired func(time.Time) ([]partition.Partition, error)) {
		t.Helper()
		rep, err := ensure(partition.Plan{Parent: "dbs", Every: partition.Day, Now: day(d, 0), Retain: retain})
		if err != nil || len(rep.Created) != 1 || !rep.Created[0].Lower.Equal(day(d, 0)) {
			t.Errorf("%s: Ensure: created %s, %v", name, names(rep.Created), err)
		}
		parts, err := list()
		if err != nil || len(parts) == 0 || !parts[len(parts)-1].Lower.Equal(day(d, 0)) {
			t.Errorf("%s: List: %v, %v", name, parts, err)
		}
		// At d+2 with a day's retention, the partitions up to day d have
		// expired; the one of day d-1 was too young when Ensure ran at d.
		exp, err := expired(day(d+2, 0))
		if err != nil || len(exp) == 0 || !exp[len(exp)-1].Lower.Equal(day(d, 0)) {
			t.Errorf("%s: Expired: %v, %v", name, exp, err)
		}
	}
	step("*pgx.Conn", 10, func(p partition.Plan) (partition.Report, error) { return partition.Ensure(ctx, conn, p) },
		func() ([]partition.Partition, error) { return partition.List(ctx, conn, "dbs") },
		func(at time.Time) ([]partition.Partition, error) {
			return partition.Expired(ctx, conn, "dbs", retain, at)
		})
	step("*pgxpool.Pool", 11, func(p partition.Plan) (partition.Report, error) { return partition.Ensure(ctx, pool, p) },
		func() ([]partition.Partition, error) { return partition.List(ctx, pool, "dbs") },
		func(at time.Time) ([]partition.Partition, error) {
			return partition.Expired(ctx, pool, "dbs", retain, at)
		})
	step("*sql.DB", 12, func(p partition.Plan) (partition.Report, error) { return partition.Ensure(ctx, sdb, p) },
		func() ([]partition.Partition, error) { return partition.List(ctx, sdb, "dbs") },
		func(at time.Time) ([]partition.Partition, error) {
			return partition.Expired(ctx, sdb, "dbs", retain, at)
		})
	step("*sql.Conn", 13, func(p partition.Plan) (partition.Report, error) { return partition.Ensure(ctx, sconn, p) },
		func() ([]partition.Partition, error) { return partition.List(ctx, sconn, "dbs") },
		func(at time.Time) ([]partition.Partition, error) {
			return partition.Expired(ctx, sconn, "dbs", retain, at)
		})

	pq, err := sql.Open(pgtest.ForeignDriver, dsn) // lib/pq in integration_test
	if err != nil {
		t.Fatal(err)
	}
	defer pq.Close()
	if _, err := partition.List(ctx, pq, "dbs"); !errors.Is(err, partition.ErrPlan) || !strings.Contains(err.Error(), "needs pgx's driver") {
		t.Errorf("List over lib/pq: %v, want ErrPlan", err)
	}
	var nilPool *pgxpool.Pool
	if _, err := partition.Ensure(ctx, nilPool, partition.Plan{Parent: "dbs", Every: partition.Day}); !errors.Is(err, partition.ErrPlan) {
		t.Errorf("Ensure with a nil pool: %v, want ErrPlan", err)
	}
}

// Plan.RetainAt is the retention clock, apart from Now (the creation
// clock): preparing partitions for a later date does not retire anything
// earlier than the real retention says.
func TestPartitionRetainAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE ra (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('ra', '1 day', 9, at => '2026-11-01Z')`)
	retain := partition.Span{Duration: 3 * 24 * time.Hour}
	// Creation at the 20th, retention on the 5th: only the 1st is older
	// than 3 days before the 5th.
	rep, err := partition.Ensure(ctx, conn, partition.Plan{Parent: "ra", Every: partition.Day, Now: day(20, 0),
		RetainAt: day(5, 0), Retain: retain})
	if err != nil || names(rep.Created) != "public.ra_p20261120" || names(rep.Dropped) != "public.ra_p20261101" {
		t.Errorf("RetainAt the 5th: created %s, dropped %s, %v", names(rep.Created), names(rep.Dropped), err)
	}
	// Without RetainAt, Now is both clocks: everything up to the 16th goes.
	rep, err = partition.Ensure(ctx, conn, partition.Plan{Parent: "ra", Every: partition.Day, Now: day(20, 0), Retain: retain, DryRun: true})
	if err != nil || len(rep.Dropped) != 9 || rep.Dropped[8].Name != "public.ra_p20261110" {
		t.Errorf("Now as the retention clock (dry run): dropped %s, %v", names(rep.Dropped), err)
	}
}
