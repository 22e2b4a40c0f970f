package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// runCLI runs the program with args and returns its exit status, stdout and
// stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// mustRun runs args and fails unless the exit status is 0.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("pgid %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"new", "-h"}, {"inspect", "-h"}, {"convert", "--help"}, {"range", "-h"}, {"migrate", "-h"}, {"demo", "-h"}, {"partition", "-h"}, {"partition", "ensure", "-h"}, {"partition", "list", "-h"}} {
		code, out, _ := runCLI(t, args...)
		if code != 0 || !strings.Contains(out, "pgid") {
			t.Errorf("pgid %v: exit %d, stdout %q", args, code, out)
		}
	}
	code, _, errOut := runCLI(t)
	if code != 2 || !strings.Contains(errOut, "Usage:") {
		t.Errorf("no arguments: exit %d, stderr %q", code, errOut)
	}
}

func TestBadInput(t *testing.T) {
	ulid := ulidtype.New().String()
	cases := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"new"}, "want one kind, ulid or objectid"},
		{[]string{"new", "uuid"}, `unknown kind "uuid"`},
		{[]string{"new", "ulid", "-n", "0"}, "-n 0: want at least 1"},
		{[]string{"new", "ulid", "-n", "x"}, `invalid value "x" for flag -n`},
		{[]string{"new", "ulid", "--format", "short"}, `--format "short": want one of text, uuid, hex, json`},
		{[]string{"new", "objectid", "--format", "uuid"}, `--format "uuid": want one of text, hex, short, json`},
		{[]string{"new", "ulid", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"inspect"}, "want at least one ID"},
		{[]string{"inspect", "01ARZ3NDEKTSV4RRFFQ69G5FAI"}, `invalid character 'I' at position 25`},
		{[]string{"inspect", "81ARZ3NDEKTSV4RRFFQ69G5FAV"}, "overflow"},
		{[]string{"inspect", "4e7020cb7cac81af7136236g"}, "position 23"},
		{[]string{"inspect", "jD0wOTOIwqZNdyd!"}, "position 15"},
		{[]string{"inspect", "0190b6f5-6c3b-7a4e-9f2c+1234567890ab"}, `invalid character '+' at position 23`},
		// Lengths count characters, and a non-ASCII one is named.
		{[]string{"inspect", "01ARZ3NDEKTSV4RRFFQ69G5FA\u00c4"}, `invalid character 'Ä' at position 25`},
		{[]string{"inspect", "a"}, `"a": 1 character; want`},
		{[]string{"inspect", "\u00e9t\u00e9"}, `invalid character 'é' at position 0`},
		{[]string{"inspect", "abc"}, `"abc": 3 characters; want a ULID (26), a UUID (36)`},
		{[]string{"convert", ulid}, "--to is required"},
		{[]string{"convert", ulid, "--to", "short"}, ": a ULID has no short form; it has ulid, uuid, hex"},
		{[]string{"convert", "jD0wOTOIwqZNdydH", "--to", "uuid"}, "jD0wOTOIwqZNdydH: an ObjectId has no uuid form"},
		{[]string{"convert", ulid, "--to", "base64"}, `--to "base64": want one of ulid, uuid, hex, short`},
		{[]string{"range"}, "--from is required"},
		{[]string{"range", "--from", "yesterday"}, `--from "yesterday": want RFC 3339`},
		{[]string{"range", "--from", "-1h", "--to", "2026-13-01"}, `--to "2026-13-01"`},
		{[]string{"range", "--from", "-1h", "--kind", "uuid"}, `--kind "uuid": want one of ulid, objectid`},
		{[]string{"range", "--from", "2026-01-02", "--to", "2026-01-01"}, "is not after --from"},
		{[]string{"range", "--from", "2026-01-01T00:00:00.2Z", "--to", "2026-01-01T00:00:00.9Z", "--kind", "objectid"}, "at second precision"},
		{[]string{"migrate", "sideways"}, `unknown direction "sideways"`},
		{[]string{"migrate", "up", "--database-url", "postgres://%zz"}, "--database-url:"},
		{[]string{"demo", "--rows", "10"}, "--rows 10: want at least 1000"},
		{[]string{"partition"}, "want a subcommand: ensure or list"},
		{[]string{"partition", "split"}, `unknown subcommand "split"`},
		{[]string{"partition", "ensure"}, "--table is required"},
		{[]string{"partition", "ensure", "--table", "events", "--every", "fortnight"}, "--every:"},
		{[]string{"partition", "ensure", "--table", "events", "--retain", "-3d"}, "--retain:"},
		{[]string{"partition", "ensure", "--table", "events", "--retire", "shred"}, `--retire:`},
		{[]string{"partition", "ensure", "--table", "events", "--kind", "uuid"}, "--kind:"},
		{[]string{"partition", "ensure", "--table", "events", "--at", "someday"}, "--at:"},
		{[]string{"partition", "list"}, "--table is required"},
		{[]string{"partition", "list", "--table", "events", "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 {
			t.Errorf("pgid %s: exit %d, want 2 (stderr %q)", strings.Join(c.args, " "), code, errOut)
		}
		if !strings.Contains(errOut, c.want) {
			t.Errorf("pgid %s: stderr %q, want it to contain %q", strings.Join(c.args, " "), errOut, c.want)
		}
		if out != "" {
			t.Errorf("pgid %s: wrote to stdout: %q", strings.Join(c.args, " "), out)
		}
	}
}

func TestNew(t *testing.T) {
	lines := strings.Fields(mustRun(t, "new", "ulid", "-n", "10000"))
	if len(lines) != 10000 {
		t.Fatalf("%d lines, want 10000", len(lines))
	}
	var prev ulidtype.ULID
	for _, l := range lines {
		u, err := ulidtype.Parse(l)
		if err != nil || len(l) != 26 {
			t.Fatalf("%q: %v", l, err)
		}
		if u.Compare(prev) <= 0 {
			t.Fatalf("not increasing: %s after %s", u, prev)
		}
		prev = u
	}
	for _, c := range []struct {
		kind, format string
		n            int
	}{{"ulid", "uuid", 36}, {"ulid", "hex", 32}, {"ulid", "text", 26}, {"objectid", "text", 24}, {"objectid", "hex", 24}, {"objectid", "short", 16}} {
		out := mustRun(t, "new", c.kind, "--format", c.format, "-n", "3")
		for _, l := range strings.Fields(out) {
			if len(l) != c.n {
				t.Errorf("new %s --format %s: %q, want %d characters", c.kind, c.format, l, c.n)
			}
			if _, err := parseAny(l); err != nil {
				t.Error(err)
			}
		}
	}
	for _, args := range [][]string{{"new", "ulid", "--json", "-n", "5000"}, {"new", "objectid", "--format", "json", "-n", "5000"}} {
		var ids []string
		if err := json.Unmarshal([]byte(mustRun(t, args...)), &ids); err != nil || len(ids) != 5000 {
			t.Fatalf("%v: %d IDs, %v", args, len(ids), err)
		}
		if args[1] == "ulid" {
			var us []ulidtype.ULID
			if err := json.Unmarshal([]byte(mustRun(t, args...)), &us); err != nil {
				t.Fatal(err)
			}
		} else {
			var os []objectidtype.ObjectID
			if err := json.Unmarshal([]byte(mustRun(t, args...)), &os); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestInspectKinds(t *testing.T) {
	u := ulidtype.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	ulidTime := "2016-07-30T23:54:10.259Z"
	v7 := "0190b6f5-6c3b-7a4e-9f2c-1234567890ab"
	v4 := "550e8400-e29b-41d4-a716-446655440000"
	v1 := "6ba7b810-9dad-11d1-80b4-00c04fd430c8" // RFC 9562's namespace DNS: a v1
	cases := []struct {
		in, kind, form, time string
		uuidVersion          int
		isV7                 bool
		agrees               *bool
	}{
		{u.String(), "ulid", "ulid", ulidTime, 0, false, nil},
		{strings.ToLower(u.String()), "ulid", "ulid", ulidTime, 0, false, nil},
		// A plain ULID read as a UUID: version nibble 0xd, variant bits not 10.
		{u.UUIDString(), "ulid", "uuid", ulidTime, 13, false, nil},
		{hex.EncodeToString(u[:]), "ulid", "hex", ulidTime, 13, false, nil},
		{v7, "ulid", "uuid", "2024-07-15T15:14:15.739Z", 7, true, ptr(true)},
		{strings.ReplaceAll(v7, "-", ""), "ulid", "hex", "2024-07-15T15:14:15.739Z", 7, true, ptr(true)},
		// Not ULIDs: no time is shown for them.
		{v4, "uuid", "uuid", "", 4, false, nil},
		{v1, "uuid", "uuid", "", 1, false, ptr(false)},
		{o.String(), "objectid", "hex", "2011-09-14T03:34:35.000Z", 0, false, nil},
		{"jD0wOTOIwqZNdydH", "objectid", "short", "2011-09-14T03:34:35.000Z", 0, false, nil},
	}
	for _, c := range cases {
		out := mustRun(t, "inspect", "--json", c.in)
		var infos []idInfo
		if err := json.Unmarshal([]byte(out), &infos); err != nil || len(infos) != 1 {
			t.Fatalf("%s: %v\n%s", c.in, err, out)
		}
		got := infos[0]
		if got.Kind != c.kind || got.Form != c.form || (c.time != "" && got.Time != c.time) || (c.kind == "uuid") != (got.Time == "") {
			t.Errorf("%s: kind %s form %s time %q, want %s %s %s", c.in, got.Kind, got.Form, got.Time, c.kind, c.form, c.time)
		}
		if c.kind != "objectid" {
			p, _ := ulidtype.Parse(c.in)
			if got.Forms["ulid"] != p.String() || got.Forms["uuid"] != p.UUIDString() || got.Forms["hex"] != hex.EncodeToString(p[:]) || got.Bytes != spacedHex(p[:]) {
				t.Errorf("%s: forms %v bytes %s", c.in, got.Forms, got.Bytes)
			}
		} else if got.Forms["hex"] != o.String() || got.Forms["short"] != "jD0wOTOIwqZNdydH" || got.Bytes != "4e 70 20 cb 7c ac 81 af 71 36 23 6b" {
			t.Errorf("%s: forms %v bytes %s", c.in, got.Forms, got.Bytes)
		}
		if (got.UUID != nil) != (c.uuidVersion != 0) {
			t.Fatalf("%s: uuid section %+v, want version %d", c.in, got.UUID, c.uuidVersion)
		}
		if got.UUID != nil {
			if got.UUID.Version != c.uuidVersion || got.UUID.IsV7 != c.isV7 || (got.UUID.Agrees == nil) != (c.agrees == nil) ||
				(c.agrees != nil && *got.UUID.Agrees != *c.agrees) {
				t.Errorf("%s: uuid %+v, want version %d v7 %v agrees %v", c.in, got.UUID, c.uuidVersion, c.isV7, c.agrees)
			}
		}
		// The text output says the same.
		text := mustRun(t, "inspect", c.in)
		for _, want := range []string{got.Time, got.Bytes} {
			if !strings.Contains(text, want) {
				t.Errorf("inspect %s: text lacks %q:\n%s", c.in, want, text)
			}
		}
		if c.isV7 && !strings.Contains(text, "agrees with the ULID time: yes") {
			t.Errorf("inspect %s: text does not say the v7 time agrees:\n%s", c.in, text)
		}
		// A UUIDv4 or v1 is said to be no ULID on the kind line, before
		// anything else, and the meaningless ULID-reading time is not shown.
		if c.kind == "uuid" {
			lines := strings.Split(text, "\n")
			if f := strings.Fields(lines[1]); len(f) < 2 || f[0] != "kind" || f[1] != fmt.Sprintf("UUIDv%d,", c.uuidVersion) || !strings.Contains(lines[1], "not a ULID") {
				t.Errorf("inspect %s: second line %q, want the kind explained", c.in, lines[1])
			}
			p, _ := ulidtype.Parse(c.in)
			if strings.Contains(text, fmtTime(p.Timestamp())) || strings.Contains(text, "\ntime ") {
				t.Errorf("inspect %s: shows the ULID reading's time:\n%s", c.in, text)
			}
		}
	}
	// Several IDs at once.
	var infos []idInfo
	if err := json.Unmarshal([]byte(mustRun(t, "inspect", "--json", u.String(), o.String())), &infos); err != nil || len(infos) != 2 {
		t.Fatalf("%v, %d", err, len(infos))
	}
}

func ptr[T any](v T) *T { return &v }

func TestConvert(t *testing.T) {
	u := ulidtype.New()
	o := objectidtype.New()
	cases := []struct{ in, to, want string }{
		{u.String(), "uuid", u.UUIDString()},
		{u.UUIDString(), "ulid", u.String()},
		{u.UUIDString(), "hex", hex.EncodeToString(u[:])},
		{hex.EncodeToString(u[:]), "ulid", u.String()},
		{o.String(), "short", o.Short()},
		{o.Short(), "hex", o.String()},
	}
	for _, c := range cases {
		if got := strings.TrimSpace(mustRun(t, "convert", c.in, "--to", c.to)); got != c.want {
			t.Errorf("convert %s --to %s = %s, want %s", c.in, c.to, got, c.want)
		}
		// Flags before the ID work too.
		var j map[string]string
		if err := json.Unmarshal([]byte(mustRun(t, "convert", "--json", "--to", c.to, c.in)), &j); err != nil {
			t.Fatal(err)
		}
		if j["output"] != c.want || j["to"] != c.to || j["input"] != c.in {
			t.Errorf("convert --json: %v", j)
		}
	}
	// A short form starting with "-" needs "--".
	dash := objectidtype.New()
	dash[0] = 0xf8 // top six bits 111110: '-' in the short alphabet
	if got := strings.TrimSpace(mustRun(t, "convert", "--to", "hex", "--", dash.Short())); got != dash.String() {
		t.Errorf("convert -- %s = %s, want %s", dash.Short(), got, dash.String())
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"now":                           now,
		"2026-01-02":                    time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		"2026-01-02T03:04:05Z":          time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"2026-01-02T03:04:05.123+01:00": time.Date(2026, 1, 2, 2, 4, 5, 123e6, time.UTC),
		"2026-01-02T03:04:05":           time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		"2026-01-02T03:04":              time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		"-24h":                          now.Add(-24 * time.Hour),
		"-90m":                          now.Add(-90 * time.Minute),
		"+1h30m":                        now.Add(90 * time.Minute),
		"-7d":                           now.Add(-7 * 24 * time.Hour),
		"-1.5d":                         now.Add(-36 * time.Hour),
		"-1w":                           now.Add(-7 * 24 * time.Hour),
		"-2weeks":                       now.Add(-14 * 24 * time.Hour),
		"-3mo":                          time.Date(2026, 8, 22, 12, 0, 0, 0, time.UTC),
		"+1y":                           time.Date(2027, 11, 22, 12, 0, 0, 0, time.UTC),
		"-500ms":                        now.Add(-500 * time.Millisecond),
	}
	for in, want := range cases {
		got, err := parseWhen(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseWhen(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "yesterday", "2026-02-30", "-7x", "d", "1w", "-1M"} {
		if _, err := parseWhen(bad, now); err == nil {
			t.Errorf("parseWhen(%q) succeeded", bad)
		}
	}
}

func TestRange(t *testing.T) {
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	var r rangeOut
	if err := json.Unmarshal([]byte(mustRun(t, "range", "--from", "2026-01-01", "--to", "2026-01-02T00:00:00Z", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	lo, hi := ulidtype.Range(from, to)
	if r.Kind != "ulid" || r.Lo.Forms["ulid"] != lo.String() || r.Hi.Forms["uuid"] != hi.UUIDString() || r.Lo.Forms["hex"] != hex.EncodeToString(lo[:]) {
		t.Errorf("range: %+v", r)
	}
	if want := fmt.Sprintf("WHERE id >= '%s' AND id < '%s'", lo.UUIDString(), hi.UUIDString()); r.Where != want {
		t.Errorf("where %q, want %q", r.Where, want)
	}

	if err := json.Unmarshal([]byte(mustRun(t, "range", "--kind", "objectid", "--from", "2026-01-01T00:00:00.7Z", "--to", "2026-01-02", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	olo, ohi := objectidtype.Range(from, to)
	if r.Kind != "objectid" || r.Lo.Forms["hex"] != olo.String() || r.Hi.Forms["short"] != ohi.Short() || r.Lo.Time != "2026-01-01T00:00:00.000Z" {
		t.Errorf("range objectid: %+v", r)
	}
	if want := fmt.Sprintf(`WHERE id >= '\x%s' AND id < '\x%s'`, olo, ohi); r.Where != want {
		t.Errorf("where %q, want %q", r.Where, want)
	}

	// Relative: the last 24 hours end within a few seconds of now.
	before := time.Now()
	if err := json.Unmarshal([]byte(mustRun(t, "range", "--from", "-24h", "--json")), &r); err != nil {
		t.Fatal(err)
	}
	hiTime, _ := time.Parse(time.RFC3339, r.Hi.Time)
	loTime, _ := time.Parse(time.RFC3339, r.Lo.Time)
	if hiTime.Sub(loTime).Round(time.Second) != 24*time.Hour || hiTime.Before(before.Add(-time.Second)) || hiTime.After(time.Now().Add(time.Second)) {
		t.Errorf("range --from -24h: %s to %s", r.Lo.Time, r.Hi.Time)
	}
	text := mustRun(t, "range", "--from", "-1h")
	if !regexp.MustCompile(`(?m)^WHERE id >= '[0-9a-f-]{36}' AND id < '[0-9a-f-]{36}'$`).MatchString(text) {
		t.Errorf("range text lacks the WHERE clause:\n%s", text)
	}
}

// TestMain gives the database tests their server (internal/pgserver/pgtest:
// DATABASE_URL, the docker-compose DSN, else an embedded PostgreSQL) and
// scratch databases; the CLI's own migrate applies pgid's schema to them.
//
// With PGID_TEST_CLI set (arguments, one a line), the test binary is pgid
// instead: it runs those arguments and exits, as the key file tests run it
// as another user.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("PGID_TEST_CLI"); ok {
		os.Exit(run(context.Background(), strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(pgtest.Main(m, pgtest.Options{Name: "cmd/pgid"}))
}

// serverDSN is the PostgreSQL the database tests use. They fail, never
// skip, without one.
func serverDSN(t *testing.T) string {
	t.Helper()
	return pgtest.ServerDSN(t)
}

// migratedDB is scratchDB with pgid's migrations applied through the CLI,
// and a connection to it closed when t ends.
func migratedDB(t *testing.T) (string, *pgx.Conn) {
	dsn := scratchDB(t)
	mustRun(t, "migrate", "--database-url", dsn)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return dsn, conn
}

// scratchDB creates a database dropped when t ends and returns its DSN.
func scratchDB(t *testing.T) string {
	t.Helper()
	return pgtest.EmptyDB(t)
}

func TestMigrate(t *testing.T) {
	dsn := scratchDB(t)
	var res map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "migrate", "--database-url", dsn, "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res["direction"] != "up" || res["from_version"] != 0.0 || res["to_version"].(float64) < 3 {
		t.Errorf("migrate up: %v", res)
	}
	top := res["to_version"].(float64)
	out := mustRun(t, "migrate", "up", "--database-url", dsn)
	if want := fmt.Sprintf(", version %.0f, up to date (nothing to apply)\n", top); !strings.HasSuffix(out, want) || strings.Contains(out, "->") {
		t.Errorf("second migrate up: %q, want it to end %q", out, want)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'").Scan(&n)
	if n != 1 {
		t.Fatal("no schema pgid after migrate up")
	}
	// DATABASE_URL is read when there is no flag.
	var e env
	var stdout, stderr bytes.Buffer
	e.stdout, e.stderr = &stdout, &stderr
	e.getenv = func(k string) string {
		if k == "DATABASE_URL" {
			return dsn
		}
		return ""
	}
	if code := runEnv(ctx, []string{"migrate", "down", "--json"}, &e); code != 0 {
		t.Fatalf("migrate down: exit %d: %s", code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || res["direction"] != "down" || res["to_version"] != 0.0 {
		t.Errorf("migrate down: %v %v", res, err)
	}
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'").Scan(&n)
	if n != 0 {
		t.Fatal("schema pgid left after migrate down")
	}
	if out := mustRun(t, "migrate", "down", "--database-url", dsn); !strings.HasSuffix(out, ", version 0 (nothing to remove)\n") {
		t.Errorf("second migrate down: %q", out)
	}
	if out := mustRun(t, "migrate", "up", "--database-url", dsn); !strings.HasSuffix(out, fmt.Sprintf(", version 0 -> %.0f (%.0f migrations, recorded in pgid.schema_migrations)\n", top, top)) {
		t.Errorf("migrate up after down: %q", out)
	}
	// No database given: a usage error.
	e.getenv = func(string) string { return "" }
	stderr.Reset()
	if code := runEnv(ctx, []string{"migrate"}, &e); code != 2 || !strings.Contains(stderr.String(), "Give --database-url or set DATABASE_URL") {
		t.Errorf("migrate without a database: exit %d, %s", code, stderr.String())
	}
	// An unreachable server: a failure, exit 1.
	code, _, errOut := runCLI(t, "migrate", "--database-url", "postgres://postgres@127.0.0.1:1/x?connect_timeout=2")
	if code != 1 || !strings.Contains(errOut, "pgid migrate:") {
		t.Errorf("migrate against a dead server: exit %d, %s", code, errOut)
	}
}

func TestDemo(t *testing.T) {
	dsn := serverDSN(t)
	code, out, errOut := runCLI(t, "demo", "--database-url", dsn, "--rows", "20000")
	if code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Log("\n" + out)
	for _, re := range []string{
		`(?m)^server +PostgreSQL \d+\.\d+ at .* from --database-url$`,
		`(?m)^database +pgid_demo_[0-9a-f]{8} \(scratch, dropped at the end\)`,
		`(?m)^load time \(generate\+copy\) +\d+\.\d\d s +\d+\.\d\d s$`,
		`(?m)^primary key index size +\d+\.\d MB +\d+\.\d MB$`,
		`(?m)^index leaf fill +(\d+\.\d %|n/a) +(\d+\.\d %|n/a)$`,
		`(?m)^  rows +\d[\d,]* of 20,000 .* in \d+\.\d ms$`,
		`(?m)^  plan +Index (Only )?Scan using ulid_keys_pkey on ulid_keys`,
		`(?m)^  link +https://sho\.rt/[0-9A-Za-z_-]{16} -> https://`,
		`(?m)^  lookup +codec\.OpenObjectID\("[0-9A-Za-z_-]{16}"\) in Go, then WHERE id = \$1: found`,
		`(?m)^ +[0-9a-f]{24}  short form [0-9A-Za-z_-]{16}  code [0-9A-Za-z_-]{16}$`,
		`(?m)^done in \d+\.\d s; database pgid_demo_[0-9a-f]{8} dropped$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("demo output lacks %s", re)
		}
	}
	if !strings.Contains(errOut, "ULID keys   20,000 / 20,000") || !strings.Contains(errOut, "UUIDv4 keys 20,000 / 20,000") {
		t.Errorf("no progress on stderr: %q", errOut)
	}
	db := regexp.MustCompile(`pgid_demo_[0-9a-f]{8}`).FindString(out)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	conn.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", db).Scan(&n)
	if n != 0 {
		t.Errorf("database %s left behind", db)
	}
}

// TestDemoFlagBeatsEnvironment: an explicit --database-url wins over
// PGID_POSTGRES=embedded and DATABASE_URL (here both would fail).
func TestDemoFlagBeatsEnvironment(t *testing.T) {
	dsn := serverDSN(t)
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		return map[string]string{"PGID_POSTGRES": "embedded", "PGID_POSTGRES_BINARIES": "/nonexistent", "DATABASE_URL": "postgres://nowhere:1/x"}[k]
	}}
	if code := runEnv(context.Background(), []string{"demo", "--database-url", dsn, "--rows", "1000"}, e); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !regexp.MustCompile(`(?m)^server +PostgreSQL \d+\.\d+ at .* from --database-url$`).MatchString(stdout.String()) {
		t.Errorf("the demo did not use --database-url:\n%s", stdout.String())
	}
}

// TestDemoEmbedded runs the demo the way CI does: PGID_POSTGRES=embedded
// with local binaries (PGID_POSTGRES_BINARIES, or .ci/pg-binaries 18).
func TestDemoEmbedded(t *testing.T) {
	bins := os.Getenv("PGID_POSTGRES_BINARIES")
	if bins == "" {
		out, err := execOutput("../../.ci/pg-binaries", "18")
		if err != nil {
			t.Fatalf("set PGID_POSTGRES_BINARIES, or let ../../.ci/pg-binaries 18 fetch PostgreSQL 18: %v", err)
		}
		bins = out
	}
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		return map[string]string{"PGID_POSTGRES": "embedded", "PGID_POSTGRES_BINARIES": bins, "DATABASE_URL": "postgres://nowhere:1/x"}[k]
	}}
	if code := runEnv(context.Background(), []string{"demo", "--rows", "10000"}, e); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	t.Log("\n" + out)
	for _, want := range []string{"server    embedded PostgreSQL 18.", "forced by PGID_POSTGRES=embedded", "embedded server stopped and removed", "Index Scan using ulid_keys_pkey"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	dataDir := regexp.MustCompile(`data in (\S+),`).FindStringSubmatch(out)
	if dataDir == nil {
		t.Fatal("no data directory in the output")
	}
	if _, err := os.Stat(dataDir[1]); !os.IsNotExist(err) {
		t.Errorf("data directory %s left behind: %v", dataDir[1], err)
	}
}

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// TestPartition runs partition ensure and list on a table partitioned by
// RANGE (id): created, listed with time ranges, idempotent, retired by
// retention, and the server's specific error for a table that is not
// partitioned.
func TestPartition(t *testing.T) {
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE events (id pgid.ulid PRIMARY KEY, body text) PARTITION BY RANGE (id);
		CREATE TABLE plain (id pgid.ulid PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Created []map[string]any `json:"created"`
		DryRun  bool             `json:"dry_run"`
	}
	out := mustRun(t, "partition", "ensure", "--database-url", dsn, "--table", "events", "--every", "day",
		"--ahead", "2", "--at", "2026-11-22T12:00:00Z", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{"public.events_p20261122", "public.events_p20261123", "public.events_p20261124"}
	if len(res.Created) != len(want) {
		t.Fatalf("created %v, want %v", res.Created, want)
	}
	for i, p := range res.Created {
		if p["name"] != want[i] {
			t.Errorf("created[%d] = %v, want %s", i, p["name"], want[i])
		}
	}
	if res.Created[0]["lower"] != "2026-11-22T00:00:00.000Z" || res.Created[0]["upper"] != "2026-11-23T00:00:00.000Z" {
		t.Errorf("first partition's range: %v", res.Created[0])
	}
	// A ULID made in the first partition's day lands there.
	gen := ulidtype.NewGenerator(func() time.Time { return time.Date(2026, 11, 22, 23, 59, 59, 999e6, time.UTC) }, nil)
	if _, err := conn.Exec(ctx, "INSERT INTO events VALUES ($1, 'x')", gen.New()); err != nil {
		t.Fatal(err)
	}
	var where string
	if err := conn.QueryRow(ctx, "SELECT tableoid::regclass::text FROM events").Scan(&where); err != nil || where != "events_p20261122" {
		t.Errorf("row landed in %q (%v), want events_p20261122", where, err)
	}

	again := mustRun(t, "partition", "ensure", "--database-url", dsn, "--table", "events", "--at", "2026-11-22T12:00:00Z")
	if !strings.Contains(again, "events: nothing to do") {
		t.Errorf("second ensure: %q", again)
	}
	list := mustRun(t, "partition", "list", "--database-url", dsn, "--table", "events")
	for _, name := range want {
		if !strings.Contains(list, name) {
			t.Errorf("list lacks %s:\n%s", name, list)
		}
	}
	if !strings.Contains(list, "[2026-11-23T00:00:00.000Z, 2026-11-24T00:00:00.000Z)") {
		t.Errorf("list lacks the time range of the second partition:\n%s", list)
	}
	// Two days later with one day of retention: the 22nd is retired, the
	// 23rd (whose range ends at the cut) too, the 24th stays.
	retired := mustRun(t, "partition", "ensure", "--database-url", dsn, "--table", "events", "--ahead", "0",
		"--retain", "1d", "--at", "2026-11-25T00:00:00Z")
	for _, line := range []string{"dropped   public.events_p20261122", "dropped   public.events_p20261123", "created   public.events_p20261125"} {
		if !strings.Contains(retired, line) {
			t.Errorf("retention run lacks %q:\n%s", line, retired)
		}
	}
	if strings.Contains(retired, "events_p20261124") {
		t.Errorf("retention touched the 24th, younger than the cut:\n%s", retired)
	}

	code, _, errOut := runCLI(t, "partition", "list", "--database-url", dsn, "--table", "plain")
	if code != 1 || !strings.Contains(errOut, "plain") {
		t.Errorf("list of an unpartitioned table: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "partition", "ensure", "--database-url", dsn, "--table", "plain")
	if code != 1 || !strings.Contains(errOut, "public.plain is not a partitioned table") {
		t.Errorf("ensure on an unpartitioned table: exit %d, stderr %q", code, errOut)
	}
}

// dashID returns an ObjectId whose short form starts with '-', built
// directly: the first short-form character holds the top six bits.
func dashID() objectidtype.ObjectID {
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	o[0] = 0xf8 // 111110: '-' in the short alphabet
	return o
}

func TestDashIDsAreArguments(t *testing.T) {
	d := dashID()
	if d.Short()[0] != '-' {
		t.Fatalf("short form %s does not start with '-'", d.Short())
	}
	// With or without "--", before or after flags.
	for _, args := range [][]string{
		{"convert", "--to", "hex", d.Short()},
		{"convert", d.Short(), "--to", "hex"},
		{"convert", "--to", "hex", "--", d.Short()},
	} {
		if got := strings.TrimSpace(mustRun(t, args...)); got != d.String() {
			t.Errorf("pgid %s = %q, want %s", strings.Join(args, " "), got, d.String())
		}
	}
	if out := mustRun(t, "inspect", d.Short()); !strings.Contains(out, d.String()) {
		t.Errorf("inspect %s:\n%s", d.Short(), out)
	}
	// Something dash-led that is no ID: one line, naming "--".
	bad := "-" + d.Short()[1:15] + "!"
	code, _, errOut := runCLI(t, "inspect", bad)
	if code != 2 || !strings.Contains(errOut, `put it after "--": pgid inspect -- `+bad) {
		t.Errorf("inspect %s: exit %d, stderr %q", bad, code, errOut)
	}
}

// TestErrorsAreOneLine checks every bad-input path prints exactly one line,
// starting "pgid CMD: ", with no prefix said twice.
func TestErrorsAreOneLine(t *testing.T) {
	cases := [][]string{
		{"new", "ulid", "--bogus"},
		{"new", "ulid", "-n"},
		{"new", "ulid", "-n", "x"},
		{"inspect", "--frobnicate", "x"},
		{"range", "--from"},
		{"range", "--from", "-1fortnight"},
		{"convert", "--to", "uuid", "jD0wOTOIwqZNdydH"},
		{"partition", "ensure", "--table", "t", "--every", "fortnight"},
		{"seal", "--key-file"},
		{"migrate", "--database-url", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"},
		{"partition", "list", "--table", "t", "--database-url", "postgres://nobody@127.0.0.1:1/none?connect_timeout=1"},
	}
	for _, args := range cases {
		code, out, errOut := runCLI(t, args...)
		name := "pgid " + args[0] + ": "
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code == 0 || out != "" || len(lines) != 1 || !strings.HasPrefix(errOut, name) {
			t.Errorf("pgid %s: exit %d, stdout %q, stderr %q: want one line starting %q", strings.Join(args, " "), code, out, errOut, name)
			continue
		}
		seen := map[string]bool{}
		for _, seg := range strings.Split(errOut, ": ") {
			for _, prefix := range []string{"pgid " + args[0], "pgid", "partition", "migrations", "pgid migrations", "ulidtype", "objectidtype", "opaque"} {
				if seg == prefix && seen[seg] {
					t.Errorf("pgid %s: %q says %q twice", strings.Join(args, " "), errOut, seg)
				}
			}
			seen[seg] = true
		}
	}
	// Flag errors say where the flags are listed.
	_, _, errOut := runCLI(t, "new", "ulid", "--bogus")
	if want := "pgid new: flag provided but not defined: -bogus (pgid new -h lists the flags)\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

func TestStdin(t *testing.T) {
	ids := []string{ulidtype.New().String(), objectidtype.New().String(), dashID().Short()}
	runIn := func(in string, args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := runEnv(context.Background(), args, &env{stdin: strings.NewReader(in), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }})
		return code, out.String(), errOut.String()
	}
	code, out, errOut := runIn(strings.Join(ids, "\n")+"\n\n", "convert", "--to", "hex")
	want := []string{}
	for _, s := range ids {
		info, err := parseAny(s)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, info.Forms["hex"])
	}
	if code != 0 || out != strings.Join(want, "\n")+"\n" {
		t.Errorf("convert from stdin: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	code, out, _ = runIn(strings.Join(ids, "\n"), "inspect", "--json")
	var infos []idInfo
	if err := json.Unmarshal([]byte(out), &infos); code != 0 || err != nil || len(infos) != 3 || infos[2].Kind != "objectid" {
		t.Errorf("inspect from stdin: exit %d, %v, %+v", code, err, infos)
	}
	// Arguments win over stdin; no arguments and empty stdin is an error.
	code, out, _ = runIn("garbage\n", "convert", "--to", "hex", ids[1])
	if code != 0 || strings.TrimSpace(out) != ids[1] {
		t.Errorf("arguments and stdin: exit %d, %q", code, out)
	}
	if code, _, errOut = runIn("", "inspect"); code != 2 || !strings.Contains(errOut, "want at least one ID") {
		t.Errorf("empty stdin: exit %d, %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		out := mustRun(t, arg)
		if !strings.HasPrefix(out, "pgid ") || !strings.Contains(out, "go1.") || strings.Count(out, "\n") != 1 {
			t.Errorf("pgid %s = %q", arg, out)
		}
	}
}

func TestRangeToNowIncludesTheCurrentTick(t *testing.T) {
	for _, kind := range []string{"ulid", "objectid"} {
		var r rangeOut
		if err := json.Unmarshal([]byte(mustRun(t, "range", "--from", "-1w", "--kind", kind, "--json")), &r); err != nil {
			t.Fatal(err)
		}
		// hi is the start of the tick after now, the command's --to: an ID
		// made in now's millisecond (second), before or after the command
		// ran, is below it. Range(from, now) gave the start of now's tick.
		to := mustTime(t, r.To)
		var hi, inTick, rangeHi string
		if kind == "ulid" {
			hi, inTick = r.Hi.Forms["uuid"], ulidtype.MaxAt(to).UUIDString()
			_, h := ulidtype.Range(to, to)
			rangeHi = h.UUIDString()
		} else {
			hi, inTick = r.Hi.Forms["hex"], objectidtype.MaxAt(to).String()
			_, h := objectidtype.Range(to, to)
			rangeHi = h.String()
		}
		if !(inTick < hi) || !(rangeHi < hi) {
			t.Errorf("%s: hi %s, want above %s, the largest ID of now's tick (Range's hi was %s)", kind, hi, inTick, rangeHi)
		}
		if !strings.Contains(r.SQL, "open at the top") {
			t.Errorf("%s: SQL %q has an upper bound for --to now", kind, r.SQL)
		}
		from := mustTime(t, r.From)
		if d := mustTime(t, r.To).Sub(from); d != 7*24*time.Hour {
			t.Errorf("%s: -1w is %v before now", kind, d)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(timeFormat, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchema(t *testing.T) {
	out := mustRun(t, "schema")
	for _, want := range []string{"CREATE SCHEMA IF NOT EXISTS pgid", "CREATE DOMAIN pgid.ulid", "pgid.ulid_min_at", "pgid.objectid_min_at"} {
		if !strings.Contains(out, want) {
			t.Errorf("schema lacks %q", want)
		}
	}
	if strings.Contains(out, "drop below") || strings.Contains(out, "DROP SCHEMA") {
		t.Errorf("schema holds the reverse SQL of a migration")
	}
	dir := t.TempDir()
	file := dir + "/pgid.sql"
	os.WriteFile(file, []byte(out), 0o644)
	if got := mustRun(t, "schema", "--check", file); !strings.Contains(got, "is current") {
		t.Errorf("--check of a current file: %q", got)
	}
	os.WriteFile(file, []byte(strings.Replace(out, "pgid.ulid_min_at", "pgid.ulid_min", 1)), 0o644)
	if code, _, errOut := runCLI(t, "schema", "--check", file); code != 1 || !strings.Contains(errOut, "regenerate it with pgid schema > "+file) {
		t.Errorf("--check of a stale file: exit %d, %q", code, errOut)
	}
}

// TestSchemaAppliesLikeMigrate applies `pgid schema` as another migration
// tool would, in one transaction, twice, and checks the result is what
// `pgid migrate` makes: the same functions (definition, attributes, ACL)
// and domains, and the session's search_path untouched.
func TestSchemaAppliesLikeMigrate(t *testing.T) {
	ctx := context.Background()
	_, migrated := migratedDB(t)
	conn, err := pgx.Connect(ctx, scratchDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	sql := mustRun(t, "schema")
	var before string
	conn.QueryRow(ctx, "SHOW search_path").Scan(&before)
	for range 2 {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("applying pgid schema: %v", err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var after string
	conn.QueryRow(ctx, "SHOW search_path").Scan(&after)
	if after != before {
		t.Errorf("search_path %q after applying, was %q", after, before)
	}
	const catalog = `
SELECT p.oid::regprocedure::text || ' ' || pg_get_functiondef(p.oid) || ' ' || p.provolatile::text || p.proparallel::text ||
       p.proisstrict::text || coalesce(p.proconfig::text, '') || coalesce(p.proacl, acldefault('f', p.proowner))::text
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgid'
UNION ALL
SELECT t.typname || ' ' || format_type(t.typbasetype, t.typtypmod) || ' ' || coalesce(string_agg(pg_get_constraintdef(c.oid), ', '), '')
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_constraint c ON c.contypid = t.oid
WHERE n.nspname = 'pgid' AND t.typtype = 'd' GROUP BY t.typname, t.typbasetype, t.typtypmod
ORDER BY 1`
	read := func(c *pgx.Conn) []string {
		rows, err := c.Query(ctx, catalog)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return defs
	}
	got, want := read(conn), read(migrated)
	if len(want) < 20 {
		t.Fatalf("only %d functions and domains after pgid migrate", len(want))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pgid schema applied differs from pgid migrate:\n got %d: %q\nwant %d: %q", len(got), got, len(want), want)
	}
	var text string
	if err := conn.QueryRow(ctx, "SELECT pgid.ulid_to_text('01890a5d-ac96-774b-bcce-b302099a8057')").Scan(&text); err != nil || text != "01H455VB4PEX5VSKNK084SN02Q" {
		t.Errorf("ulid_to_text = %q, %v", text, err)
	}
}

func TestMigrateStatus(t *testing.T) {
	dsn := scratchDB(t)
	status := func() map[string]any {
		t.Helper()
		var st map[string]any
		if err := json.Unmarshal([]byte(mustRun(t, "migrate", "status", "--json", "--database-url", dsn)), &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	latest := float64(migrations.Latest())
	// A new database: nothing applied, everything pending, and status
	// changes nothing.
	st := status()
	if st["version"] != 0.0 || st["latest"] != latest || st["pending"] != latest || st["functions_current"] != false || st["functions_checksum"] != "" {
		t.Errorf("status of a new database: %v", st)
	}
	if st = status(); st["version"] != 0.0 {
		t.Errorf("status applied something: %v", st)
	}
	mustRun(t, "migrate", "--database-url", dsn)
	st = status()
	if st["version"] != latest || st["pending"] != 0.0 || st["functions_current"] != true || st["functions_checksum"] != migrations.FunctionsChecksum() {
		t.Errorf("status after up: %v", st)
	}
	if out := mustRun(t, "migrate", "status", "--database-url", dsn); !strings.Contains(out, fmt.Sprintf("%.0f of %.0f (0 to apply)", latest, latest)) ||
		!strings.Contains(out, "functions  current") {
		t.Errorf("status text after up:\n%s", out)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// This pgid's definitions with another server's body of gen_ulid_v7
	// (uuidv7() on 18 and later only; below 18 one of schema public plays
	// it): said so, and up installs them again.
	var v int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		t.Fatal(err)
	}
	moved := "CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid LANGUAGE sql RETURN pg_catalog.gen_random_uuid()"
	if v < 180000 {
		moved = `CREATE FUNCTION public.uuidv7() RETURNS uuid LANGUAGE sql RETURN pg_catalog.gen_random_uuid();
			CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid LANGUAGE sql RETURN public.uuidv7()`
	}
	if _, err := conn.Exec(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "migrate", "status", "--database-url", dsn); !strings.Contains(out, "installed for another PostgreSQL version") {
		t.Errorf("status with another server's gen_ulid_v7:\n%s", out)
	}
	if out := mustRun(t, "migrate", "--database-url", dsn); strings.Contains(out, "nothing to apply") {
		t.Errorf("migrate up that installed gen_ulid_v7 again: %s", out)
	}
	if st = status(); st["functions_current"] != true {
		t.Errorf("status after up reinstalled gen_ulid_v7: %v", st)
	}
	// Definitions recorded by another pgid: said so.
	tag, err := conn.Exec(ctx, "UPDATE "+migrations.VersionTable+" SET checksum = repeat('0', 64) WHERE name = $1", migrations.FunctionsStep)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("recording other definitions: %v, %v", tag, err)
	}
	if out := mustRun(t, "migrate", "status", "--database-url", dsn); !strings.Contains(out, "not this pgid's") {
		t.Errorf("status with other definitions:\n%s", out)
	}
	if code, _, errOut := runCLI(t, "migrate", "sideways", "--database-url", dsn); code != 2 || !strings.Contains(errOut, "want up, down or status") {
		t.Errorf("migrate sideways: exit %d, %q", code, errOut)
	}
}
