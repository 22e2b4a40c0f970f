package integration_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/sqlc/ids"
	"github.com/pgid/pgid/sqlc/pgxdb"
	"github.com/pgid/pgid/sqlc/sqldb"
	"github.com/pgid/pgid/ulidtype"
)

// sqlAdapter gives sqldb's generated API in pgxdb's types, so that both run
// runSqlcScenario. The structs are identical field for field but for jsonb
// payloads (*json.RawMessage in pgxdb, *string in sqldb; see sqlc.yaml).
type sqlAdapter struct{ q *sqldb.Queries }

var _ sqlcQueries = sqlAdapter{}

func convAll[T, S any](s []S, err error, f func(S) T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out, nil
}

func toEvent(e sqldb.Event) pgxdb.Event {
	return pgxdb.Event{ID: e.ID, LinkID: e.LinkID, Kind: e.Kind, Payload: toRaw(e.Payload)}
}

func toRaw(s *string) *json.RawMessage {
	if s == nil {
		return nil
	}
	r := json.RawMessage(*s)
	return &r
}

func fromRaw(r *json.RawMessage) *string {
	if r == nil {
		return nil
	}
	s := string(*r)
	return &s
}

func toLink(l sqldb.Link) pgxdb.Link { return pgxdb.Link(l) }

func one[T, S any](v S, err error, f func(S) T) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return f(v), nil
}

func (a sqlAdapter) CountEventsInWindow(ctx context.Context, p pgxdb.CountEventsInWindowParams) (int64, error) {
	return a.q.CountEventsInWindow(ctx, sqldb.CountEventsInWindowParams(p))
}

func (a sqlAdapter) CountEventsPerLinkBetween(ctx context.Context, p pgxdb.CountEventsPerLinkBetweenParams) ([]pgxdb.CountEventsPerLinkBetweenRow, error) {
	rows, err := a.q.CountEventsPerLinkBetween(ctx, sqldb.CountEventsPerLinkBetweenParams(p))
	return convAll(rows, err, func(r sqldb.CountEventsPerLinkBetweenRow) pgxdb.CountEventsPerLinkBetweenRow {
		return pgxdb.CountEventsPerLinkBetweenRow(r)
	})
}

func (a sqlAdapter) CreateEvent(ctx context.Context, p pgxdb.CreateEventParams) (pgxdb.Event, error) {
	e, err := a.q.CreateEvent(ctx, sqldb.CreateEventParams{ID: p.ID, LinkID: p.LinkID, Kind: p.Kind, Payload: fromRaw(p.Payload)})
	return one(e, err, toEvent)
}

func (a sqlAdapter) CreateEventDefaultID(ctx context.Context, p pgxdb.CreateEventDefaultIDParams) (pgxdb.Event, error) {
	e, err := a.q.CreateEventDefaultID(ctx, sqldb.CreateEventDefaultIDParams(p))
	return one(e, err, toEvent)
}

func (a sqlAdapter) EventIDsPerLink(ctx context.Context) ([]pgxdb.EventIDsPerLinkRow, error) {
	rows, err := a.q.EventIDsPerLink(ctx)
	return convAll(rows, err, func(r sqldb.EventIDsPerLinkRow) pgxdb.EventIDsPerLinkRow { return pgxdb.EventIDsPerLinkRow(r) })
}

func (a sqlAdapter) GetEvent(ctx context.Context, id ulidtype.ULID) (pgxdb.Event, error) {
	e, err := a.q.GetEvent(ctx, id)
	return one(e, err, toEvent)
}

func (a sqlAdapter) GetEventsByIDs(ctx context.Context, ids []ulidtype.ULID) ([]pgxdb.Event, error) {
	es, err := a.q.GetEventsByIDs(ctx, ids)
	return convAll(es, err, toEvent)
}

func (a sqlAdapter) ListEventsAfter(ctx context.Context, p pgxdb.ListEventsAfterParams) ([]pgxdb.Event, error) {
	es, err := a.q.ListEventsAfter(ctx, sqldb.ListEventsAfterParams(p))
	return convAll(es, err, toEvent)
}

func (a sqlAdapter) ListEventsBefore(ctx context.Context, p pgxdb.ListEventsBeforeParams) ([]pgxdb.Event, error) {
	es, err := a.q.ListEventsBefore(ctx, sqldb.ListEventsBeforeParams(p))
	return convAll(es, err, toEvent)
}

func (a sqlAdapter) ListEventsCreatedBetween(ctx context.Context, p pgxdb.ListEventsCreatedBetweenParams) ([]pgxdb.Event, error) {
	es, err := a.q.ListEventsCreatedBetween(ctx, sqldb.ListEventsCreatedBetweenParams(p))
	return convAll(es, err, toEvent)
}

func (a sqlAdapter) ListEventsInWindow(ctx context.Context, p pgxdb.ListEventsInWindowParams) ([]pgxdb.Event, error) {
	es, err := a.q.ListEventsInWindow(ctx, sqldb.ListEventsInWindowParams(p))
	return convAll(es, err, toEvent)
}

func (a sqlAdapter) NewULID(ctx context.Context) (ulidtype.ULID, error) { return a.q.NewULID(ctx) }

func (a sqlAdapter) CreateLink(ctx context.Context, p pgxdb.CreateLinkParams) (pgxdb.Link, error) {
	l, err := a.q.CreateLink(ctx, sqldb.CreateLinkParams(p))
	return one(l, err, toLink)
}

func (a sqlAdapter) CreateLinkDefaultID(ctx context.Context, url string) (pgxdb.Link, error) {
	l, err := a.q.CreateLinkDefaultID(ctx, url)
	return one(l, err, toLink)
}

func (a sqlAdapter) GetLink(ctx context.Context, id objectidtype.ObjectID) (pgxdb.Link, error) {
	l, err := a.q.GetLink(ctx, id)
	return one(l, err, toLink)
}

func (a sqlAdapter) GetLinksByIDs(ctx context.Context, ids []objectidtype.ObjectID) ([]pgxdb.Link, error) {
	ls, err := a.q.GetLinksByIDs(ctx, ids)
	return convAll(ls, err, toLink)
}

// GetLinksByRawIDs is the working form of GetLinksByIDs for database/sql:
// the IDs as [][]byte, which pq.Array hex-encodes.
func (a sqlAdapter) GetLinksByRawIDs(ctx context.Context, ids []objectidtype.ObjectID) ([]pgxdb.Link, error) {
	raw := make([][]byte, len(ids))
	for i := range ids {
		raw[i] = ids[i][:]
	}
	ls, err := a.q.GetLinksByRawIDs(ctx, raw)
	return convAll(ls, err, toLink)
}

func (a sqlAdapter) IncrementHits(ctx context.Context, id objectidtype.ObjectID) (int64, error) {
	return a.q.IncrementHits(ctx, id)
}

func (a sqlAdapter) ListLinksCreatedBetween(ctx context.Context, p pgxdb.ListLinksCreatedBetweenParams) ([]pgxdb.Link, error) {
	ls, err := a.q.ListLinksCreatedBetween(ctx, sqldb.ListLinksCreatedBetweenParams(p))
	return convAll(ls, err, toLink)
}

func (a sqlAdapter) ListLinksInWindow(ctx context.Context, p pgxdb.ListLinksInWindowParams) ([]pgxdb.Link, error) {
	ls, err := a.q.ListLinksInWindow(ctx, sqldb.ListLinksInWindowParams(p))
	return convAll(ls, err, toLink)
}

func (a sqlAdapter) SetLastEvent(ctx context.Context, p pgxdb.SetLastEventParams) (int64, error) {
	return a.q.SetLastEvent(ctx, sqldb.SetLastEventParams(p))
}

func (a sqlAdapter) CreateUser(ctx context.Context, p pgxdb.CreateUserParams) (pgxdb.User, error) {
	u, err := a.q.CreateUser(ctx, sqldb.CreateUserParams(p))
	return one(u, err, toUser)
}

func (a sqlAdapter) GetUser(ctx context.Context, id ids.UserID) (pgxdb.User, error) {
	u, err := a.q.GetUser(ctx, id)
	return one(u, err, toUser)
}

func (a sqlAdapter) GetUserByTypeID(ctx context.Context, text string) (pgxdb.User, error) {
	u, err := a.q.GetUserByTypeID(ctx, text)
	return one(u, err, toUser)
}

func toUser(u sqldb.User) pgxdb.User { return pgxdb.User(u) }

func openStdlibSqlc(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	sdb := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { sdb.Close() })
	return sdb
}

// The database/sql package through pgx's stdlib (no registration) and
// lib/pq with binary_parameters=yes: every generated method works but
// GetLinksByIDs, whose pq.Array([]ObjectID) fails (GetLinksByRawIDs works).
// lib/pq's default text mode reads and updates through the package, while
// the three calls that write ObjectIDs into pgid.objectid columns go through
// a binary_parameters=yes connection (TestSqlcLibPQTextDomainWrites pins
// why).
func TestSqlcStdlib(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open func(t *testing.T, dsn string) (q, w *sql.DB)
	}{
		{"pgx_stdlib", func(t *testing.T, dsn string) (*sql.DB, *sql.DB) { return openStdlibSqlc(t, dsn), nil }},
		{"libpq_binary_parameters", func(t *testing.T, dsn string) (*sql.DB, *sql.DB) {
			return openLibPQ(t, withParam(dsn, "binary_parameters", "yes")), nil
		}},
		{"libpq_text", func(t *testing.T, dsn string) (*sql.DB, *sql.DB) {
			return openLibPQ(t, dsn), openLibPQ(t, withParam(dsn, "binary_parameters", "yes"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qdb, wdb := tc.open(t, sqlcDB(t))
			a := sqlAdapter{sqldb.New(qdb)}
			c := sqlcCase{q: a, objectIDArrayFails: true, rawIDs: a.GetLinksByRawIDs}
			if wdb != nil {
				c.w = sqlAdapter{sqldb.New(wdb)}
			}
			runSqlcScenario(t, c)
		})
	}
}

// lib/pq's default text mode sends a []byte bound to a parameter of a type
// other than bytea raw, so CreateLink, CreateEvent and CreateEventDefaultID,
// whose ObjectIDs go to pgid.objectid domain parameters, fail for an ID
// with a NUL byte or bytes that are not UTF-8 (most objectidtype.New() IDs),
// and store nothing. A NULL reference works. binary_parameters=yes makes
// every call work (TestSqlcStdlib).
func TestSqlcLibPQTextDomainWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := sqlcDB(t)
	sdb := openLibPQ(t, dsn)
	q := sqldb.New(sdb)
	bad := []objectidtype.ObjectID{
		{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b},
		{0x65, 0xff, 0xfe, 0x80, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48},
		{0x5c, 0x78, 0x30, 0x30, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48}, // `\x00ABCDEFGH`
		{0x5c, 0x31, 0x30, 0x31, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48}, // `\101ABCDEFGH`
	}
	link, err := q.CreateLinkDefaultID(ctx, "https://example.com/ok")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range bad {
		if l, err := q.CreateLink(ctx, sqldb.CreateLinkParams{ID: id, Url: "https://example.com/bad"}); err == nil {
			t.Errorf("CreateLink(%x) worked in lib/pq text mode: stored %x", id[:], l.ID[:])
		}
		ev := ulidtype.New()
		if _, err := q.CreateEvent(ctx, sqldb.CreateEventParams{ID: ev, LinkID: objectidtype.NullObjectID{ObjectID: id, Valid: true}, Kind: "bad"}); err == nil {
			t.Errorf("CreateEvent with link %x worked in lib/pq text mode", id[:])
		}
		if _, err := q.CreateEventDefaultID(ctx, sqldb.CreateEventDefaultIDParams{LinkID: objectidtype.NullObjectID{ObjectID: id, Valid: true}, Kind: "bad"}); err == nil {
			t.Errorf("CreateEventDefaultID with link %x worked in lib/pq text mode", id[:])
		}
	}
	// The existing link, bound raw too, fails as well if its bytes are not
	// valid text; whatever happens, no wrong value is stored.
	_, err = q.CreateEvent(ctx, sqldb.CreateEventParams{ID: ulidtype.New(), LinkID: objectidtype.NullObjectID{ObjectID: link.ID, Valid: true}, Kind: "maybe"})
	t.Logf("CreateEvent with link %x in lib/pq text mode: %v", link.ID[:], err)
	var badLinks, wrongRefs int
	if err := sdb.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM links WHERE url <> 'https://example.com/ok'),
	       (SELECT count(*) FROM events WHERE link_id IS DISTINCT FROM NULL AND link_id <> $1::bytea)`,
		link.ID[:]).Scan(&badLinks, &wrongRefs); err != nil || badLinks != 0 || wrongRefs != 0 {
		t.Fatalf("%d bad links and %d wrong references stored, %v", badLinks, wrongRefs, err)
	}
	if _, err := q.CreateEvent(ctx, sqldb.CreateEventParams{ID: ulidtype.New(), Kind: "null link"}); err != nil {
		t.Fatalf("CreateEvent with a NULL link in lib/pq text mode: %v", err)
	}
}

// WithTx, the one generated method the scenario leaves out, in both
// packages: a link created in a rolled-back transaction is gone.
func TestSqlcWithTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := sqlcDB(t)

	pool := sqlcPool(t, dsn, pgx.QueryExecModeCacheStatement, pgidpgx.AfterConnect)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, err := pgxdb.New(pool).WithTx(tx).CreateLinkDefaultID(ctx, "https://example.com/tx")
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pgxdb.New(pool).GetLink(ctx, l.ID); !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("pgxdb: GetLink after rollback: %v, want pgx.ErrNoRows", err)
	}

	sdb := openStdlibSqlc(t, dsn)
	stx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sl, err := sqldb.New(sdb).WithTx(stx).CreateLinkDefaultID(ctx, "https://example.com/tx")
	if err != nil {
		t.Fatal(err)
	}
	if err := stx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if _, err := sqldb.New(sdb).GetLink(ctx, sl.ID); !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("sqldb: GetLink after rollback: %v, want sql.ErrNoRows", err)
	}
}
