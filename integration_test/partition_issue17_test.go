package integration_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	for _, c := range []struct {
		kind partition.Kind
		typ  string
		at   func(time.Time) any
	}{
		{partition.ULID, "pgid.ulid", func(t time.Time) any { return ulidtype.MinAt(t) }},
		{partition.ObjectID, "pgid.objectid", func(t time.Time) any { return objectidtype.MinAt(t) }},
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
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, `CREATE TABLE scs_o (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE scs_u (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)`)
	conn := connectWith(t, dsn, map[string]string{"standard_conforming_strings": "off"})
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

// connectWith opens a connection to dsn whose session starts with params
// (sent in the startup packet, so they hold before the first statement).
func connectWith(t testing.TB, dsn string, params map[string]string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect with %v: %v", params, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
