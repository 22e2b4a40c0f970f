package main

import (
	"context"
	"strings"
	"testing"
)

// partition ensure refuses a span the parser does not read exactly before
// anything reaches the server (issue 17, reproductions 2 and 4). "1M" was
// lower-cased into one minute and dropped every past daily partition;
// "4294967297months" wrapped through int32 into one month and dropped all
// but the last three monthly partitions.
func TestPartitionEnsureInexactSpan(t *testing.T) {
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE daily (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid()) PARTITION BY RANGE (id);
		CREATE TABLE monthly (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)`); err != nil {
		t.Fatal(err)
	}
	// 19 past days, today and 2 ahead; 13 months up to this one.
	mustRun(t, "partition", "ensure", "--database-url", dsn, "--table", "daily", "--every", "day", "--ahead", "21", "--at", "-456h")
	mustRun(t, "partition", "ensure", "--database-url", dsn, "--table", "monthly", "--every", "month", "--ahead", "12", "--at", "-8760h")
	if _, err := conn.Exec(ctx, `INSERT INTO daily SELECT pgid.ulid_min_at(now() - i * interval '1 hour') FROM generate_series(0, 400) i`); err != nil {
		t.Fatal(err)
	}
	count := func(sql string) int {
		var n int
		if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	parts := func(parent string) int {
		return count("SELECT count(*) FROM pg_inherits WHERE inhparent = '" + parent + "'::regclass")
	}
	dailyParts, monthlyParts := parts("daily"), parts("monthly")
	if dailyParts != 22 || monthlyParts != 13 || count("SELECT count(*) FROM daily") != 401 {
		t.Fatalf("setup: %d daily partitions, %d monthly, %d rows", dailyParts, monthlyParts, count("SELECT count(*) FROM daily"))
	}
	for _, c := range []struct {
		table, every, retain, want string
	}{
		{"daily", "day", "1M", `--retain: invalid plan: span "1M": unknown unit "M"`},
		{"daily", "day", "1 M", `unknown unit "M"`},
		{"daily", "D", "30d", `--every: invalid plan: span "D"`},
		{"monthly", "month", "4294967297months", `--retain: invalid plan: span "4294967297months": 4294967297 months is more than 12000`},
		{"monthly", "month", "1000000000000y", "is more than"},
	} {
		code, out, errOut := runCLI(t, "partition", "ensure", "--database-url", dsn, "--table", c.table, "--every", c.every, "--retain", c.retain)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("--retain %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.retain, code, out, errOut, c.want)
		}
	}
	if n := count("SELECT count(*) FROM daily"); n != 401 || parts("daily") != dailyParts || parts("monthly") != monthlyParts {
		t.Errorf("after the refused spans: %d rows (want 401), %d daily partitions (want %d), %d monthly (want %d)",
			n, parts("daily"), dailyParts, parts("monthly"), monthlyParts)
	}
}

// partition ensure with a partition a NO ACTION foreign key holds: the
// partitions ahead are created, the held one is printed as kept, and the
// exit status is 1 with the reason and PostgreSQL's hint on stderr.
// --dry-run prints the same plan and changes nothing. Rows in the DEFAULT
// partition are printed and fail the run too.
func TestPartitionKeptAndDryRun(t *testing.T) {
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE events (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE event_tags (event_id pgid.ulid NOT NULL REFERENCES events (id), tag text NOT NULL);
		SELECT pgid.ensure_partitions('events', '1 day', 3, at => '2026-11-01Z');
		INSERT INTO events VALUES (pgid.ulid_min_at('2026-11-01 10:00Z')), (pgid.ulid_min_at('2026-11-02 10:00Z'));
		INSERT INTO event_tags VALUES (pgid.ulid_min_at('2026-11-02 10:00Z'), 'x')`); err != nil {
		t.Fatal(err)
	}
	parts := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	args := []string{"partition", "ensure", "--database-url", dsn, "--table", "events", "--every", "day", "--ahead", "3",
		"--retain", "2d", "--at", "2026-11-05T00:00:00Z"}
	code, out, errOut := runCLI(t, append(args, "--dry-run")...)
	for _, want := range []string{"would be created public.events_p20261105", "would be created public.events_p20261108",
		"would be dropped public.events_p20261101", "would be kept public.events_p20261102"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("--dry-run output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || parts() != 4 {
		t.Errorf("--dry-run: exit %d (want 1: a partition would be kept), %d partitions (want the 4 it had)", code, parts())
	}
	// --retain-at moves the retention clock alone: at the 3rd nothing has
	// expired, whatever --at says.
	code, out, errOut = runCLI(t, append(args, "--dry-run", "--retain-at", "2026-11-03T00:00:00Z")...)
	if code != 0 || strings.Contains(out, "dropped") || strings.Contains(out, "kept") || !strings.Contains(out, "would be created public.events_p20261108") {
		t.Errorf("--retain-at: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 1 || !strings.Contains(out, "created   public.events_p20261108") || !strings.Contains(out, "dropped   public.events_p20261101") ||
		!strings.Contains(out, "kept      public.events_p20261102") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
	for _, want := range []string{"1 rows of public.event_tags reference it through event_tags_event_id_fkey (ON DELETE NO ACTION)", "(hint: Delete or re-point"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if parts() != 7 { // the 2nd to the 8th, without the 1st
		t.Errorf("%d partitions after the run, want 7", parts())
	}

	// Rows in a DEFAULT partition: printed, exit 1.
	if _, err := conn.Exec(ctx, `DELETE FROM event_tags; CREATE TABLE events_default PARTITION OF events DEFAULT;
		INSERT INTO events VALUES (pgid.ulid_min_at('2026-12-24 10:00Z'))`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, args...)
	if code != 1 || !strings.Contains(out, "default   public.events_default  1 rows made from 2026-12-24T10:00:00.000Z") ||
		!strings.Contains(errOut, "the DEFAULT partition public.events_default holds 1 rows") {
		t.Errorf("DEFAULT rows: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
