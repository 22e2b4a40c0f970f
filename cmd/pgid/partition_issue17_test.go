package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Issue 17, reproductions 2 and 4: a span the parser does not read exactly
// is refused before anything reaches the server. "1M" was lower-cased into
// one minute and dropped every past daily partition; "4294967297months"
// wrapped through int32 into one month and dropped all but the last three
// monthly partitions.
func TestPartitionIssue17Spans(t *testing.T) {
	dsn := scratchDB(t)
	mustRun(t, "migrate", "--database-url", dsn)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
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
		{"daily", "day", "1M", `--retain: partition: invalid plan: span "1M": unknown unit "M"`},
		{"daily", "day", "1 M", `unknown unit "M"`},
		{"daily", "D", "30d", `--every: partition: invalid plan: span "D"`},
		{"monthly", "month", "4294967297months", `--retain: partition: invalid plan: span "4294967297months": 4294967297 months is more than 12000`},
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
