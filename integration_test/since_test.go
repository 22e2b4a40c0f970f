package integration_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// insertThenQuery inserts a new ID into table 1,000 times and, at once,
// counts how often the query built by bounds (from the time just after the
// insert) does not return it as the newest row.
func insertThenQuery[T comparable](t *testing.T, conn *pgx.Conn, table string, newID func() T, bounds func(now time.Time) (where string, args []any)) (missed int) {
	t.Helper()
	ctx := context.Background()
	for range 1000 {
		id := newID()
		if _, err := conn.Exec(ctx, "INSERT INTO "+table+" (id) VALUES ($1)", id); err != nil {
			t.Fatal(err)
		}
		where, args := bounds(time.Now())
		var newest T
		err := conn.QueryRow(ctx, "SELECT id FROM "+table+" WHERE "+where+" ORDER BY id DESC LIMIT 1", args...).Scan(&newest)
		if err != nil && err != pgx.ErrNoRows {
			t.Fatal(err)
		}
		if err == pgx.ErrNoRows || newest != id {
			missed++
		}
	}
	return missed
}

// TestSinceFindsNewestRows: the "since t" and "up to now" bounds find the
// row inserted just before the query, every time; the half-open Range(now-1h,
// now) the README used to show does not (TestRangeToNowMisses).
func TestSinceFindsNewestRows(t *testing.T) {
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(context.Background(), "CREATE TABLE su (id pgid.ulid PRIMARY KEY); CREATE TABLE so (id pgid.objectid PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	hour := -time.Hour
	ulidBounds := [][]func(time.Time) any{
		{func(now time.Time) any { return ulidtype.Since(now.Add(hour)) }},
		{func(now time.Time) any { return ulidtype.Since(now.Add(hour)) }, func(now time.Time) any { return ulidtype.Until(now) }},
	}
	oidBounds := [][]func(time.Time) any{
		{func(now time.Time) any { return objectidtype.Since(now.Add(hour)) }},
		{func(now time.Time) any { return objectidtype.Since(now.Add(hour)) }, func(now time.Time) any { return objectidtype.Until(now) }},
	}
	for i := range 2 {
		name := []string{"Since", "Since+Until"}[i]
		if missed := insertThenQuery(t, conn, "su", ulidtype.New, where(ulidBounds[i])); missed != 0 {
			t.Errorf("ulidtype.%s: the row just inserted was missing %d times of 1000", name, missed)
		}
		if missed := insertThenQuery(t, conn, "so", objectidtype.New, where(oidBounds[i])); missed != 0 {
			t.Errorf("objectidtype.%s: the row just inserted was missing %d times of 1000", name, missed)
		}
	}
}

// where returns the bounds function for insertThenQuery that computes the
// lower bound and, if there are two, the upper bound.
func where(bounds []func(time.Time) any) func(now time.Time) (string, []any) {
	return func(now time.Time) (string, []any) {
		args := []any{bounds[0](now)}
		if len(bounds) == 1 {
			return "id >= $1", args
		}
		return "id >= $1 AND id < $2", append(args, bounds[1](now))
	}
}

// TestRangeToNowMisses is the companion that shows the test above can fail:
// Range(now-1h, now) ends before the current tick, so rows inserted in it
// are missing. ObjectIds tick once a second, so most of 1,000 are missed; a
// ULID is missed when the insert took less than the rest of its
// millisecond, which is common but not certain on a loaded machine.
func TestRangeToNowMisses(t *testing.T) {
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(context.Background(), "CREATE TABLE su (id pgid.ulid PRIMARY KEY); CREATE TABLE so (id pgid.objectid PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	ulidMissed := insertThenQuery(t, conn, "su", ulidtype.New, func(now time.Time) (string, []any) {
		lo, hi := ulidtype.Range(now.Add(-time.Hour), now)
		return "id >= $1 AND id < $2", []any{lo, hi}
	})
	oidMissed := insertThenQuery(t, conn, "so", objectidtype.New, func(now time.Time) (string, []any) {
		lo, hi := objectidtype.Range(now.Add(-time.Hour), now)
		return "id >= $1 AND id < $2", []any{lo, hi}
	})
	t.Logf("Range(now-1h, now) missed the row just inserted: ULID %d, ObjectId %d of 1000", ulidMissed, oidMissed)
	if oidMissed < 100 {
		t.Errorf("ObjectId: Range(now-1h, now) missed only %d of 1000 rows inserted in the current second; the test cannot tell a bound that misses them", oidMissed)
	}
}
