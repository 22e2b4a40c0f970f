package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// userPrefix is a TypeID prefix for TestParseErrorsMatchGo.
type userPrefix struct{}

func (userPrefix) Prefix() string { return "user" }

// The SQL parsers word a character or overflow error as Go's Parse does for
// the same input (their wording has one source, internal/idtext, which go
// generate ./migrations writes into functions/01_errors.sql): after the
// quoted input, the SQL message of pgid.ulid_from_text,
// pgid.objectid_from_hex and pgid.objectid_from_short ("invalid ULID "…": ")
// is Go's ("ulidtype: parse "…": "); pgid.typeid_uuid's is Go's whole. Only
// lengths differ on purpose: each SQL parser takes one form.
func TestParseErrorsMatchGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	sqlMsg := func(q, in string, args ...any) string {
		t.Helper()
		var out any
		err := conn.QueryRow(ctx, q, append([]any{in}, args...)...).Scan(&out)
		var pg *pgconn.PgError
		if !errors.As(err, &pg) || pg.Code != "22P02" {
			t.Errorf("%s with %q: %v, want SQLSTATE 22P02", q, in, err)
			return ""
		}
		return pg.Message
	}
	// tail is what follows the quoted input: `x "input": tail`.
	tail := func(msg string) string {
		_, after, ok := strings.Cut(msg, `": `)
		if !ok {
			return "(no quoted input in " + msg + ")"
		}
		return after
	}
	for _, c := range []struct{ fn, in string }{
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FAU"},
		{"ulid_from_text", "81ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5Fé"},
		{"objectid_from_hex", "4e70zzcb7cac81af7136236b"},
		{"objectid_from_short", "jD0wOTOIwqZNdyd+"},
		{"objectid_from_short", "jD0wOT\nIwqZNdydH"},
	} {
		var goErr error
		if strings.HasPrefix(c.fn, "ulid") {
			_, goErr = ulidtype.Parse(c.in)
		} else {
			_, goErr = objectidtype.Parse(c.in)
		}
		if goErr == nil {
			t.Fatalf("Go parses %q", c.in)
		}
		msg := sqlMsg("SELECT pgid."+c.fn+"($1)", c.in)
		if got, want := tail(msg), tail(goErr.Error()); got != want {
			t.Errorf("%s(%q):\n SQL %s\n Go  %s", c.fn, c.in, msg, goErr)
		}
	}
	for _, in := range []string{
		"user_01h455vb4pex5vsknk084sn0uq", "user_81h455vb4pex5vsknk084sn02q", "user_01H455VB4PEX5VSKNK084SN02Q",
		"usér_01h455vb4pex5vsknk084sn02q", "order_01h455vb4pex5vsknk084sn02q", "user_01h455vb4pex5vsknk084sn02",
		"_01h455vb4pex5vsknk084sn02q", "01h455vb4pex5vsknk084sn02q", "user__01h455vb4pex5vsknk084sn02q",
		"_user_01h455vb4pex5vsknk084sn02q", strings.Repeat("x", 70) + "_01h455vb4pex5vsknk084sn02q",
	} {
		_, goErr := typeid.Parse[userPrefix](in)
		if goErr == nil {
			t.Fatalf("Go parses %q", in)
		}
		if msg := sqlMsg("SELECT pgid.typeid_uuid($1, $2)", in, "user"); msg != goErr.Error() {
			t.Errorf("typeid_uuid(%q, 'user'):\n SQL %s\n Go  %s", in, msg, goErr)
		}
	}
	// A TypeID of another type where none is wanted, and a type's prefix
	// that breaks the rules.
	in := "user_01h455vb4pex5vsknk084sn02q"
	if _, goErr := typeid.Parse[noPrefix](in); goErr == nil || sqlMsg("SELECT pgid.typeid_uuid($1, $2)", in, "") != goErr.Error() {
		t.Errorf("typeid_uuid(%q, ''): SQL and Go differ (Go %v)", in, goErr)
	}
	for p, parse := range map[string]func(string) error{
		"User": func(s string) error { _, err := typeid.Parse[upperPrefix](s); return err },
		"a_":   func(s string) error { _, err := typeid.Parse[trailingPrefix](s); return err },
	} {
		in := p + "_01h455vb4pex5vsknk084sn02q"
		goErr := parse(in)
		if msg := sqlMsg("SELECT pgid.typeid_uuid($1, $2)", in, p); goErr == nil || msg != goErr.Error() {
			t.Errorf("typeid_uuid(%q, %q):\n SQL %s\n Go  %v", in, p, msg, goErr)
		}
	}
}

// Prefixes that break the rules.
type (
	upperPrefix    struct{}
	trailingPrefix struct{}
)

func (upperPrefix) Prefix() string    { return "User" }
func (trailingPrefix) Prefix() string { return "a_" }

// noPrefix is the empty TypeID prefix.
type noPrefix struct{}

func (noPrefix) Prefix() string { return "" }
