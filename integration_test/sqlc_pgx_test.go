package integration_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/sqlc"
	"github.com/pgid/pgid/sqlc/pgxdb"
)

// sqlcDB returns the DSN of a new migrated database with the sqlc example's
// schema applied.
func sqlcDB(t *testing.T) string {
	t.Helper()
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(context.Background(), sqlc.Schema); err != nil {
		t.Fatalf("apply sqlc/schema.sql: %v", err)
	}
	return dsn
}

// sqlcPool opens a pgxpool on dsn in mode with afterConnect (nil: no
// registration at all).
func sqlcPool(t *testing.T, dsn string, mode pgx.QueryExecMode, afterConnect func(context.Context, *pgx.Conn) error) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.DefaultQueryExecMode = mode
	cfg.AfterConnect = afterConnect
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// pgxCopyFrom runs the :copyfrom calls and reads the rows back.
func pgxCopyFrom(q *pgxdb.Queries) func(*testing.T, []pgxdb.CopyLinksParams, []pgxdb.CopyEventsParams) ([]pgxdb.Link, []pgxdb.Event) {
	return func(t *testing.T, links []pgxdb.CopyLinksParams, events []pgxdb.CopyEventsParams) ([]pgxdb.Link, []pgxdb.Event) {
		ctx := context.Background()
		n, err := q.CopyLinks(ctx, links)
		if err != nil || n != int64(len(links)) {
			t.Fatalf("CopyLinks: %d rows, %v", n, err)
		}
		n, err = q.CopyEvents(ctx, events)
		if err != nil || n != int64(len(events)) {
			t.Fatalf("CopyEvents: %d rows, %v", n, err)
		}
		var ls []pgxdb.Link
		for _, l := range links {
			got, err := q.GetLink(ctx, l.ID)
			if err != nil {
				t.Fatalf("GetLink after CopyLinks: %v", err)
			}
			ls = append(ls, got)
		}
		var es []pgxdb.Event
		for _, e := range events {
			got, err := q.GetEvent(ctx, e.ID)
			if err != nil {
				t.Fatalf("GetEvent after CopyEvents: %v", err)
			}
			es = append(es, got)
		}
		return ls, es
	}
}

// The pgx/v5 package through a pgxpool with pgidpgx.AfterConnect, in every
// QueryExecMode: every generated method works.
func TestSqlcPgx(t *testing.T) {
	t.Parallel()
	for _, mode := range allModes {
		t.Run(modeName(mode), func(t *testing.T) {
			q := pgxdb.New(sqlcPool(t, sqlcDB(t), mode, pgidpgx.AfterConnect))
			runSqlcScenario(t, sqlcCase{q: q, copyFrom: pgxCopyFrom(q)})
		})
	}
}

// The same without any registration, in every QueryExecMode: everything
// works but the three calls that bind or scan a domain array
// (GetLinksByIDs, GetEventsByIDs, EventIDsPerLink), which fail.
func TestSqlcPgxUnregistered(t *testing.T) {
	t.Parallel()
	for _, mode := range allModes {
		t.Run(modeName(mode), func(t *testing.T) {
			q := pgxdb.New(sqlcPool(t, sqlcDB(t), mode, nil))
			runSqlcScenario(t, sqlcCase{q: q, copyFrom: pgxCopyFrom(q), domainArraysFail: true})
		})
	}
}

// pgidpgx.Register alone (no query, fits a database that may lack the
// migrations) is enough for the generated code, domain arrays included.
func TestSqlcPgxRegisterOnly(t *testing.T) {
	t.Parallel()
	registerOnly := func(_ context.Context, conn *pgx.Conn) error {
		pgidpgx.Register(conn.TypeMap())
		return nil
	}
	for _, mode := range allModes {
		t.Run(modeName(mode), func(t *testing.T) {
			q := pgxdb.New(sqlcPool(t, sqlcDB(t), mode, registerOnly))
			runSqlcScenario(t, sqlcCase{q: q, copyFrom: pgxCopyFrom(q)})
		})
	}
}
