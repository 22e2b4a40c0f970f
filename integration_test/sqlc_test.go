package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/sqlc/ids"
	"github.com/pgid/pgid/sqlc/pgxdb"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// The sqlc example (../sqlc): its generated packages pgxdb (pgx/v5) and
// sqldb (database/sql) run one scenario, runSqlcScenario, which calls every
// generated method but the :copyfrom ones (pgx only, sqlc_pgx_test.go).

// sqlcQueries is the generated API both packages share, in pgxdb's types;
// *pgxdb.Queries has it, sqldb's goes through sqlAdapter
// (sqlc_stdlib_test.go), whose structs convert one to one.
type sqlcQueries interface {
	CountEventsInWindow(context.Context, pgxdb.CountEventsInWindowParams) (int64, error)
	CountEventsPerLinkBetween(context.Context, pgxdb.CountEventsPerLinkBetweenParams) ([]pgxdb.CountEventsPerLinkBetweenRow, error)
	CreateEvent(context.Context, pgxdb.CreateEventParams) (pgxdb.Event, error)
	CreateEventDefaultID(context.Context, pgxdb.CreateEventDefaultIDParams) (pgxdb.Event, error)
	EventIDsPerLink(context.Context) ([]pgxdb.EventIDsPerLinkRow, error)
	GetEvent(context.Context, ulidtype.ULID) (pgxdb.Event, error)
	GetEventsByIDs(context.Context, []ulidtype.ULID) ([]pgxdb.Event, error)
	ListEventsAfter(context.Context, pgxdb.ListEventsAfterParams) ([]pgxdb.Event, error)
	ListEventsBefore(context.Context, pgxdb.ListEventsBeforeParams) ([]pgxdb.Event, error)
	ListEventsCreatedBetween(context.Context, pgxdb.ListEventsCreatedBetweenParams) ([]pgxdb.Event, error)
	ListEventsInWindow(context.Context, pgxdb.ListEventsInWindowParams) ([]pgxdb.Event, error)
	NewULID(context.Context) (ulidtype.ULID, error)
	CreateLink(context.Context, pgxdb.CreateLinkParams) (pgxdb.Link, error)
	CreateLinkDefaultID(context.Context, string) (pgxdb.Link, error)
	GetLink(context.Context, objectidtype.ObjectID) (pgxdb.Link, error)
	GetLinksByIDs(context.Context, []objectidtype.ObjectID) ([]pgxdb.Link, error)
	IncrementHits(context.Context, objectidtype.ObjectID) (int64, error)
	ListLinksCreatedBetween(context.Context, pgxdb.ListLinksCreatedBetweenParams) ([]pgxdb.Link, error)
	ListLinksInWindow(context.Context, pgxdb.ListLinksInWindowParams) ([]pgxdb.Link, error)
	SetLastEvent(context.Context, pgxdb.SetLastEventParams) (int64, error)
	CreateUser(context.Context, pgxdb.CreateUserParams) (pgxdb.User, error)
	GetUser(context.Context, ids.UserID) (pgxdb.User, error)
	GetUserByTypeID(context.Context, string) (pgxdb.User, error)
}

var _ sqlcQueries = (*pgxdb.Queries)(nil)

type sqlcCase struct {
	q sqlcQueries // every call but those of w
	// w makes CreateLink, CreateEvent and CreateEventDefaultID, the calls
	// that bind an ObjectID to a pgid.objectid domain parameter (lib/pq's
	// text mode cannot: TestSqlcLibPQTextDomainWrites). Nil: q.
	w sqlcQueries
	// domainArraysFail: pgx without registration. The calls that bind or
	// scan a domain array (GetLinksByIDs, GetEventsByIDs, EventIDsPerLink)
	// must fail, everything else must work.
	domainArraysFail bool
	// objectIDArrayFails: database/sql, where sqlc wraps []ObjectID in
	// pq.Array; GetLinksByIDs must fail (and sqlAdapter checks
	// GetLinksByRawIDs instead).
	objectIDArrayFails bool
	// copyFrom runs the :copyfrom calls (pgx only) and returns the rows as
	// read back.
	copyFrom func(t *testing.T, links []pgxdb.CopyLinksParams, events []pgxdb.CopyEventsParams) ([]pgxdb.Link, []pgxdb.Event)
	// rawIDs runs sqldb's GetLinksByRawIDs (database/sql only).
	rawIDs func(ctx context.Context, ids []objectidtype.ObjectID) ([]pgxdb.Link, error)
}

func sortedIDs[T interface{ Compare(T) int }](ids []T) []T {
	s := slices.Clone(ids)
	slices.SortFunc(s, func(a, b T) int { return a.Compare(b) })
	return s
}

func eventIDs(es []pgxdb.Event) []ulidtype.ULID {
	ids := make([]ulidtype.ULID, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

func linkIDs(ls []pgxdb.Link) []objectidtype.ObjectID {
	ids := make([]objectidtype.ObjectID, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

func sameEvent(a, b pgxdb.Event) bool {
	return a.ID == b.ID && a.LinkID == b.LinkID && a.Kind == b.Kind && samePayload(a.Payload, b.Payload)
}

func samePayload(a, b *json.RawMessage) bool {
	return a == nil && b == nil || a != nil && b != nil && bytes.Equal(*a, *b)
}

func payload(s string) *json.RawMessage {
	p := json.RawMessage(s)
	return &p
}

// near reports whether t is within a minute of now: IDs made by the
// server's DEFAULT pgid.gen_*() carry the server's clock.
// linkCodec makes the example application's public link codes.
var linkCodec = func() *opaque.Codec {
	c, err := opaque.NewCodec(opaque.NewKey(0, []byte("sqlc example key (a test only!)!")))
	if err != nil {
		panic(err)
	}
	return c
}()

func near(t time.Time) bool { return time.Since(t).Abs() < time.Minute }

func runSqlcScenario(t *testing.T, c sqlcCase) {
	ctx := context.Background()
	q, w := c.q, c.w
	if w == nil {
		w = q
	}
	must := func(err error, what string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var allEvents []pgxdb.Event
	var allLinks []pgxdb.Link

	// Links: an ID from objectidtype.New() and one from DEFAULT
	// pgid.gen_objectid(), side by side.
	goID := objectidtype.New()
	l1, err := w.CreateLink(ctx, pgxdb.CreateLinkParams{ID: goID, Url: "https://example.com/a"})
	must(err, "CreateLink")
	if l1.ID != goID || l1.Url != "https://example.com/a" || l1.Hits != 0 || l1.LastEventID.Valid {
		t.Fatalf("CreateLink returned %+v, want ID %v", l1, goID)
	}
	l2, err := q.CreateLinkDefaultID(ctx, "https://example.com/b")
	must(err, "CreateLinkDefaultID")
	if l2.ID.IsZero() || l2.ID == goID || !near(l2.ID.Timestamp()) || l2.LastEventID.Valid {
		t.Fatalf("CreateLinkDefaultID returned %+v (time %v)", l2, l2.ID.Timestamp())
	}
	allLinks = append(allLinks, l1, l2)
	for _, l := range allLinks {
		got, err := q.GetLink(ctx, l.ID)
		must(err, "GetLink")
		if got != l {
			t.Fatalf("GetLink(%v) = %+v, want %+v", l.ID, got, l)
		}
		// The public link: an opaque code made and read in Go.
		code := linkCodec.ObjectIDCode(l.ID)
		id, err := linkCodec.OpenObjectID(code)
		must(err, "OpenObjectID")
		got, err = q.GetLink(ctx, id)
		must(err, "GetLink by code")
		if got != l || code == l.ID.Short() {
			t.Fatalf("GetLink(OpenObjectID(%q)) = %+v, want %+v", code, got, l)
		}
	}

	// Events: NULL and non-NULL link and payload, IDs from ulidtype.New()
	// and from pgid.gen_ulid().
	e1, err := w.CreateEvent(ctx, pgxdb.CreateEventParams{ID: ulidtype.New(), Kind: "orphan"})
	must(err, "CreateEvent NULL link")
	e2, err := w.CreateEvent(ctx, pgxdb.CreateEventParams{
		ID: ulidtype.New(), LinkID: objectidtype.NullObjectID{ObjectID: l1.ID, Valid: true},
		Kind: "click", Payload: payload(`{"ua": "x"}`),
	})
	must(err, "CreateEvent")
	if e1.LinkID.Valid || e1.Payload != nil || e1.Kind != "orphan" {
		t.Fatalf("CreateEvent with NULLs returned %+v", e1)
	}
	if !e2.LinkID.Valid || e2.LinkID.ObjectID != l1.ID || !samePayload(e2.Payload, payload(`{"ua": "x"}`)) {
		t.Fatalf("CreateEvent returned %+v", e2)
	}
	e3, err := w.CreateEventDefaultID(ctx, pgxdb.CreateEventDefaultIDParams{
		LinkID: objectidtype.NullObjectID{ObjectID: l2.ID, Valid: true}, Kind: "click",
	})
	must(err, "CreateEventDefaultID")
	e4, err := w.CreateEventDefaultID(ctx, pgxdb.CreateEventDefaultIDParams{Kind: "orphan"})
	must(err, "CreateEventDefaultID NULL link")
	for _, e := range []pgxdb.Event{e3, e4} {
		if e.ID.IsZero() || !near(e.ID.Timestamp()) || e.Payload != nil {
			t.Fatalf("CreateEventDefaultID returned %+v (time %v)", e, e.ID.Timestamp())
		}
	}
	if e3.LinkID != (objectidtype.NullObjectID{ObjectID: l2.ID, Valid: true}) || e4.LinkID.Valid {
		t.Fatalf("CreateEventDefaultID links: %+v, %+v", e3.LinkID, e4.LinkID)
	}
	allEvents = append(allEvents, e1, e2, e3, e4)
	for _, e := range allEvents {
		got, err := q.GetEvent(ctx, e.ID)
		must(err, "GetEvent")
		if !sameEvent(got, e) {
			t.Fatalf("GetEvent(%v) = %+v, want %+v", e.ID, got, e)
		}
	}
	nu, err := q.NewULID(ctx)
	must(err, "NewULID")
	if nu.IsZero() || !near(nu.Timestamp()) {
		t.Fatalf("NewULID = %v (time %v)", nu, nu.Timestamp())
	}

	// A typed ID in a uuid column (a column override): written and read as
	// ids.UserID, found by its TypeID text parsed in SQL, refused with
	// 22P02 for another prefix.
	uid := typeid.New[ids.UserPrefix]()
	u, err := q.CreateUser(ctx, pgxdb.CreateUserParams{ID: uid, Name: "ada"})
	must(err, "CreateUser")
	if u.ID != uid || u.Name != "ada" {
		t.Fatalf("CreateUser returned %+v, want ID %v", u, uid)
	}
	if got, err := q.GetUser(ctx, uid); err != nil || got != u {
		t.Fatalf("GetUser(%v) = %+v, %v", uid, got, err)
	}
	if got, err := q.GetUserByTypeID(ctx, uid.String()); err != nil || got != u {
		t.Fatalf("GetUserByTypeID(%q) = %+v, %v", uid.String(), got, err)
	}
	if b, _ := json.Marshal(u); string(b) != `{"id":"`+uid.String()+`","name":"ada"}` {
		t.Fatalf("User as JSON: %s", b)
	}
	// (lib/pq's errors are not pgconn's: read the message.)
	if _, err := q.GetUserByTypeID(ctx, "order_"+uid.Suffix()); err == nil || !strings.Contains(err.Error(), `prefix "order", want "user"`) {
		t.Fatalf("GetUserByTypeID of an order's TypeID: %v, want 22P02 naming both prefixes", err)
	}

	// A nullable reference, set and cleared through sqlc.narg.
	for _, set := range []ulidtype.NullULID{{ULID: e2.ID, Valid: true}, {}, {ULID: e1.ID, Valid: true}} {
		n, err := q.SetLastEvent(ctx, pgxdb.SetLastEventParams{EventID: set, ID: l1.ID})
		must(err, "SetLastEvent")
		got, err := q.GetLink(ctx, l1.ID)
		must(err, "GetLink")
		if n != 1 || got.LastEventID != set {
			t.Fatalf("SetLastEvent(%+v): %d rows, then last_event_id %+v", set, n, got.LastEventID)
		}
	}
	for want := int64(1); want <= 2; want++ {
		hits, err := q.IncrementHits(ctx, l2.ID)
		must(err, "IncrementHits")
		if hits != want {
			t.Fatalf("IncrementHits = %d, want %d", hits, want)
		}
	}

	// :copyfrom (pgx only), NULL references included.
	if c.copyFrom != nil {
		cl := []pgxdb.CopyLinksParams{{ID: objectidtype.New(), Url: "https://example.com/c1"}, {ID: objectidtype.New(), Url: "https://example.com/c2"}}
		ce := []pgxdb.CopyEventsParams{
			{ID: ulidtype.New(), LinkID: objectidtype.NullObjectID{ObjectID: cl[0].ID, Valid: true}, Kind: "copy", Payload: payload(`{"n": 1}`)},
			{ID: ulidtype.New(), Kind: "copy"},
			{ID: ulidtype.New(), LinkID: objectidtype.NullObjectID{ObjectID: cl[1].ID, Valid: true}, Kind: "copy"},
			{ID: ulidtype.New(), LinkID: objectidtype.NullObjectID{ObjectID: l1.ID, Valid: true}, Kind: "copy"},
			{ID: ulidtype.New(), Kind: "copy", Payload: payload(`[]`)},
		}
		links, events := c.copyFrom(t, cl, ce)
		for i, l := range links {
			if l != (pgxdb.Link{ID: cl[i].ID, Url: cl[i].Url}) {
				t.Fatalf("copied link %d reads back as %+v", i, l)
			}
		}
		for i, e := range events {
			if want := pgxdb.Event(ce[i]); !sameEvent(e, want) {
				t.Fatalf("copied event %d reads back as %+v, want %+v", i, e, want)
			}
		}
		allLinks = append(allLinks, links...)
		allEvents = append(allEvents, events...)
	}

	// Time windows, with IDs made for fixed past times: before, inside and
	// after [from, to). Each query must return exactly the IDs inside.
	var clock time.Time
	ug := ulidtype.NewGenerator(func() time.Time { return clock }, nil)
	og := objectidtype.NewGenerator(func() time.Time { return clock }, nil)
	uFrom := time.Date(2021, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
	uTo := uFrom.Add(10 * time.Millisecond)
	var inside []ulidtype.ULID
	perLink := map[objectidtype.NullObjectID]int64{}
	for i, at := range []time.Duration{-1, 0, 0, 1, 4, 9, 9, 9, 10, 11} {
		clock = uFrom.Add(at * time.Millisecond)
		p := pgxdb.CreateEventParams{ID: ug.New(), Kind: "window"}
		if i%3 == 0 {
			p.LinkID = objectidtype.NullObjectID{ObjectID: l2.ID, Valid: true}
		}
		e, err := w.CreateEvent(ctx, p)
		must(err, "CreateEvent in window")
		allEvents = append(allEvents, e)
		if at >= 0 && at < 10 {
			inside = append(inside, e.ID)
			perLink[e.LinkID]++
		}
	}
	lo, hi := ulidtype.Range(uFrom, uTo)
	es, err := q.ListEventsInWindow(ctx, pgxdb.ListEventsInWindowParams{Lo: lo, Hi: hi})
	must(err, "ListEventsInWindow")
	if got := eventIDs(es); !slices.Equal(got, inside) {
		t.Fatalf("ListEventsInWindow = %v, want %v", got, inside)
	}
	es, err = q.ListEventsCreatedBetween(ctx, pgxdb.ListEventsCreatedBetweenParams{FromTime: uFrom, ToTime: uTo})
	must(err, "ListEventsCreatedBetween")
	if got := eventIDs(es); !slices.Equal(got, inside) {
		t.Fatalf("ListEventsCreatedBetween = %v, want %v", got, inside)
	}
	n, err := q.CountEventsInWindow(ctx, pgxdb.CountEventsInWindowParams{Lo: lo, Hi: hi})
	must(err, "CountEventsInWindow")
	if n != int64(len(inside)) {
		t.Fatalf("CountEventsInWindow = %d, want %d", n, len(inside))
	}
	counts, err := q.CountEventsPerLinkBetween(ctx, pgxdb.CountEventsPerLinkBetweenParams{FromTime: uFrom, ToTime: uTo})
	must(err, "CountEventsPerLinkBetween")
	wantCounts := []pgxdb.CountEventsPerLinkBetweenRow{
		{LinkID: objectidtype.NullObjectID{}, N: perLink[objectidtype.NullObjectID{}]},
		{LinkID: objectidtype.NullObjectID{ObjectID: l2.ID, Valid: true}, N: perLink[objectidtype.NullObjectID{ObjectID: l2.ID, Valid: true}]},
	}
	if !slices.Equal(counts, wantCounts) {
		t.Fatalf("CountEventsPerLinkBetween = %+v, want %+v", counts, wantCounts)
	}

	oFrom := time.Date(2022, 5, 6, 7, 8, 9, 0, time.UTC)
	oTo := oFrom.Add(3 * time.Second)
	var insideLinks []objectidtype.ObjectID
	for _, at := range []time.Duration{-1000, -1, 0, 0, 999, 1000, 2999, 3000, 5000} {
		clock = oFrom.Add(at * time.Millisecond)
		l, err := w.CreateLink(ctx, pgxdb.CreateLinkParams{ID: og.New(), Url: "https://example.com/w"})
		must(err, "CreateLink in window")
		allLinks = append(allLinks, l)
		if at >= 0 && at < 3000 {
			insideLinks = append(insideLinks, l.ID)
		}
	}
	olo, ohi := objectidtype.Range(oFrom, oTo)
	ls, err := q.ListLinksInWindow(ctx, pgxdb.ListLinksInWindowParams{Lo: olo, Hi: ohi})
	must(err, "ListLinksInWindow")
	if got := linkIDs(ls); !slices.Equal(got, insideLinks) {
		t.Fatalf("ListLinksInWindow = %v, want %v", got, insideLinks)
	}
	ls, err = q.ListLinksCreatedBetween(ctx, pgxdb.ListLinksCreatedBetweenParams{FromTime: oFrom, ToTime: oTo})
	must(err, "ListLinksCreatedBetween")
	if got := linkIDs(ls); !slices.Equal(got, insideLinks) {
		t.Fatalf("ListLinksCreatedBetween = %v, want %v", got, insideLinks)
	}

	// Arrays: = ANY(@ids::pgid.objectid[]) and = ANY(@ids::pgid.ulid[]),
	// with an ID that matches nothing.
	wantLinks := []objectidtype.ObjectID{l1.ID, l2.ID, insideLinks[0]}
	// The IDs that match nothing: one from New() and one with a NUL byte,
	// so that the pq.Array failure does not depend on random bytes.
	noMatch := []objectidtype.ObjectID{objectidtype.New(), {0x6b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
	ls, err = q.GetLinksByIDs(ctx, append(slices.Clone(wantLinks), noMatch...))
	switch {
	case c.domainArraysFail || c.objectIDArrayFails:
		if err == nil {
			t.Fatalf("GetLinksByIDs worked (%v); this combination is documented to fail", linkIDs(ls))
		}
		t.Logf("GetLinksByIDs fails as documented: %v", err)
	case err != nil:
		t.Fatalf("GetLinksByIDs: %v", err)
	case !slices.Equal(linkIDs(ls), sortedIDs(wantLinks)):
		t.Fatalf("GetLinksByIDs = %v, want %v", linkIDs(ls), sortedIDs(wantLinks))
	}
	if c.rawIDs != nil {
		ls, err := c.rawIDs(ctx, append(slices.Clone(wantLinks), noMatch...))
		must(err, "GetLinksByRawIDs")
		if !slices.Equal(linkIDs(ls), sortedIDs(wantLinks)) {
			t.Fatalf("GetLinksByRawIDs = %v, want %v", linkIDs(ls), sortedIDs(wantLinks))
		}
	}
	wantEvents := []ulidtype.ULID{e4.ID, e1.ID, inside[3]}
	es, err = q.GetEventsByIDs(ctx, append(slices.Clone(wantEvents), ulidtype.New()))
	switch {
	case c.domainArraysFail:
		if err == nil {
			t.Fatalf("GetEventsByIDs worked without registration (%v); update the docs", eventIDs(es))
		}
		t.Logf("GetEventsByIDs fails as documented: %v", err)
	case err != nil:
		t.Fatalf("GetEventsByIDs: %v", err)
	case !slices.Equal(eventIDs(es), sortedIDs(wantEvents)):
		t.Fatalf("GetEventsByIDs = %v, want %v", eventIDs(es), sortedIDs(wantEvents))
	}

	// array_agg(id)::pgid.ulid[] per link.
	byLink := map[objectidtype.ObjectID][]ulidtype.ULID{}
	for _, e := range allEvents {
		if e.LinkID.Valid {
			byLink[e.LinkID.ObjectID] = append(byLink[e.LinkID.ObjectID], e.ID)
		}
	}
	var wantAgg []pgxdb.EventIDsPerLinkRow
	for _, id := range sortedIDs(slices.Collect(func(yield func(objectidtype.ObjectID) bool) {
		for id := range byLink {
			if !yield(id) {
				return
			}
		}
	})) {
		wantAgg = append(wantAgg, pgxdb.EventIDsPerLinkRow{
			LinkID: objectidtype.NullObjectID{ObjectID: id, Valid: true}, EventIds: sortedIDs(byLink[id]),
		})
	}
	agg, err := q.EventIDsPerLink(ctx)
	switch {
	case c.domainArraysFail:
		if err == nil {
			t.Fatalf("EventIDsPerLink worked without registration (%+v); update the docs", agg)
		}
		t.Logf("EventIDsPerLink fails as documented: %v", err)
	case err != nil:
		t.Fatalf("EventIDsPerLink: %v", err)
	default:
		if len(agg) != len(wantAgg) {
			t.Fatalf("EventIDsPerLink = %+v, want %+v", agg, wantAgg)
		}
		for i := range agg {
			if agg[i].LinkID != wantAgg[i].LinkID || !slices.Equal(agg[i].EventIds, wantAgg[i].EventIds) {
				t.Fatalf("EventIDsPerLink row %d = %+v, want %+v", i, agg[i], wantAgg[i])
			}
		}
	}

	// Keyset pagination over every event, both directions: all rows, in
	// order, no gaps, no repeats.
	all := sortedIDs(eventIDs(allEvents))
	const page = 3
	var asc []ulidtype.ULID
	for cursor := (ulidtype.ULID{}); ; {
		es, err := q.ListEventsAfter(ctx, pgxdb.ListEventsAfterParams{Cursor: cursor, N: page})
		must(err, "ListEventsAfter")
		if len(es) > page {
			t.Fatalf("ListEventsAfter returned %d rows, limit %d", len(es), page)
		}
		if len(es) == 0 {
			break
		}
		asc = append(asc, eventIDs(es)...)
		cursor = es[len(es)-1].ID
	}
	if !slices.Equal(asc, all) {
		t.Fatalf("ListEventsAfter walk = %v, want %v", asc, all)
	}
	var desc []ulidtype.ULID
	max := ulidtype.ULID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	for cursor := max; ; {
		es, err := q.ListEventsBefore(ctx, pgxdb.ListEventsBeforeParams{Cursor: cursor, N: page})
		must(err, "ListEventsBefore")
		if len(es) > page {
			t.Fatalf("ListEventsBefore returned %d rows, limit %d", len(es), page)
		}
		if len(es) == 0 {
			break
		}
		desc = append(desc, eventIDs(es)...)
		cursor = es[len(es)-1].ID
	}
	slices.Reverse(desc)
	if !slices.Equal(desc, all) {
		t.Fatalf("ListEventsBefore walk (reversed) = %v, want %v", desc, all)
	}
}
