package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// TestLogicalReplication runs PostgreSQL's logical replication between two
// servers of its own (logical_servers_test.go): a publisher with
// wal_level = logical and a subscriber that connects to it over loopback.
// Each subtest has its own tables, publication and subscription, dropped at
// its end, so that one stalled subscription holds up no other.
// docs/PARTITIONING.md ("Logical replication") and docs/TAIL.md ("Logical
// replication subscribers") describe what it shows.
func TestLogicalReplication(t *testing.T) {
	t.Parallel()
	began := time.Now()
	pub, sub := startLogicalPair(t)
	t.Logf("servers up in %v", time.Since(began).Round(time.Millisecond))
	t.Run("PartitionsMonth", func(t *testing.T) { lrPartitionsMonth(t, pub, sub) })
	t.Run("MissingPartition", func(t *testing.T) { lrMissingPartition(t, pub, sub) })
	t.Run("DefaultPartition", func(t *testing.T) { lrDefaultPartition(t, pub, sub) })
	t.Run("GeneratedDefaults", func(t *testing.T) { lrGeneratedDefaults(t, pub, sub) })
	t.Run("TailEnable", func(t *testing.T) { lrTailEnable(t, pub, sub) })
	t.Logf("all of it in %v", time.Since(began).Round(time.Millisecond))
}

// lrSubscribe publishes tables on pub (publish_via_partition_root) and
// subscribes sub to them, under name; both are dropped when t ends.
func lrSubscribe(t *testing.T, pub, sub *lrServer, name string, tables ...string) {
	t.Helper()
	pub.exec(t, fmt.Sprintf("CREATE PUBLICATION %s FOR TABLE %s WITH (publish_via_partition_root = true)",
		name, strings.Join(tables, ", ")))
	sub.exec(t, fmt.Sprintf("CREATE SUBSCRIPTION %s CONNECTION '%s' PUBLICATION %s",
		name, strings.ReplaceAll(pub.DSN, "'", "''"), name))
	t.Cleanup(func() {
		ctx := context.Background()
		if _, err := sub.conn.Exec(ctx, "DROP SUBSCRIPTION IF EXISTS "+name); err != nil {
			t.Errorf("drop subscription %s: %v", name, err)
		}
		if _, err := pub.conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+name); err != nil {
			t.Errorf("drop publication %s: %v", name, err)
		}
	})
}

// lrWait polls query on s (one integer) until it returns want, for up to
// 30 s, and fails the test with what it saw last otherwise.
func lrWait(t *testing.T, s *lrServer, what string, want int64, query string, args ...any) {
	t.Helper()
	var got int64
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err = s.conn.QueryRow(context.Background(), query, args...).Scan(&got); err == nil && got == want {
			return
		}
	}
	t.Fatalf("%s: %d after 30 s (%v), want %d; subscriber log:\n%s", what, got, err, want, lrLogTail(s))
}

// lrCount is count(*) of a table on s.
func lrCount(t *testing.T, s *lrServer, table string) int64 {
	t.Helper()
	var n int64
	if err := s.conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// lrLogTail is the end of s's server log.
func lrLogTail(s *lrServer) string {
	b, _ := os.ReadFile(s.logPath())
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// lrErrors is the subscription's apply and sync error counts
// (pg_stat_subscription_stats, PostgreSQL 15 and later; -1 before).
func lrErrors(t *testing.T, sub *lrServer, name string) int64 {
	t.Helper()
	if sub.version < 15 {
		return -1
	}
	var n int64
	if err := sub.conn.QueryRow(context.Background(),
		"SELECT coalesce(sum(apply_error_count + sync_error_count), 0) FROM pg_stat_subscription_stats WHERE subname = $1",
		name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// lrEnsure runs partition.Ensure and fails the test on an error.
func lrEnsure(t *testing.T, s *lrServer, p partition.Plan) partition.Report {
	t.Helper()
	rep, err := partition.Ensure(context.Background(), s.conn, p)
	if err != nil {
		t.Fatalf("Ensure %s at %s: %v", p.Parent, p.Now.Format(time.DateOnly), err)
	}
	return rep
}

// A ULID-partitioned table, daily partitions on the publisher (2 ahead, 7
// days kept, dropped) and weekly ones on the subscriber (1 ahead, 14 days
// kept, detached concurrently then dropped), both kept by partition.Ensure
// with the clock stepping a day at a time through 35 days; rows of day 0
// are on the publisher before the subscription exists (the initial copy),
// every later day's rows are inserted after that day's maintenance ran on
// both sides, one transaction each. Every day the subscriber holds exactly
// the rows of its partitions: none lost through creation and retirement on
// either side, and the publisher's retirement removes nothing there.
func lrPartitionsMonth(t *testing.T, pub, sub *lrServer) {
	ctx := context.Background()
	const days, perDay = 35, 24
	ddl := "CREATE TABLE lr_events (id uuid PRIMARY KEY, day int NOT NULL, n int NOT NULL) PARTITION BY RANGE (id)"
	pub.exec(t, ddl)
	sub.exec(t, ddl)
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC) // a Monday
	day := func(d int) time.Time { return start.AddDate(0, 0, d) }
	pubPlan := partition.Plan{Parent: "lr_events", Kind: partition.KindULID, Every: partition.Day, Ahead: 2,
		Retain: partition.Span{Duration: 7 * 24 * time.Hour}}
	subPlan := partition.Plan{Parent: "lr_events", Kind: partition.KindULID, Every: partition.Week, Ahead: 1,
		Retain: partition.Span{Duration: 14 * 24 * time.Hour}, Retire: partition.DetachConcurrentlyThenDrop}

	var clock time.Time
	gen := ulidtype.NewGenerator(func() time.Time { return clock }, nil)
	var ids []ulidtype.ULID // in insertion (= ID) order
	insertDay := func(d int) {
		for i := range perDay {
			clock = day(d).Add(time.Duration(i) * time.Hour).Add(time.Duration(i) * time.Minute)
			id := gen.New()
			pub.exec(t, "INSERT INTO lr_events (id, day, n) VALUES ($1, $2, $3)", id, d, i)
			ids = append(ids, id)
		}
	}
	var created, dropped [2]int
	maintain := func(d int) {
		pubPlan.Now, subPlan.Now = day(d), day(d)
		r := lrEnsure(t, pub, pubPlan)
		created[0] += len(r.Created)
		dropped[0] += len(r.Dropped)
		r = lrEnsure(t, sub, subPlan)
		created[1] += len(r.Created)
		dropped[1] += len(r.Dropped)
	}
	// expect is what the subscriber must hold: every row inserted at or
	// after the lower bound of its oldest partition.
	expect := func() []ulidtype.ULID {
		parts, err := partition.List(ctx, sub.conn, "lr_events")
		if err != nil || len(parts) == 0 {
			t.Fatalf("List on the subscriber: %v %v", parts, err)
		}
		lo := ulidtype.MinAt(parts[0].Lower)
		i, _ := slices.BinarySearchFunc(ids, lo, ulidtype.ULID.Compare)
		return ids[i:]
	}

	maintain(0)
	insertDay(0)
	lrSubscribe(t, pub, sub, "lr_month", "lr_events")
	for d := 0; d < days; d++ {
		if d > 0 {
			maintain(d)
			insertDay(d)
		}
		lrWait(t, sub, fmt.Sprintf("day %d: rows on the subscriber", d), int64(len(expect())), "SELECT count(*) FROM lr_events")
	}
	var got []ulidtype.ULID
	rows, err := sub.conn.Query(ctx, "SELECT id FROM lr_events ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	got, err = pgx.CollectRows(rows, pgx.RowTo[ulidtype.ULID])
	if err != nil {
		t.Fatal(err)
	}
	if want := expect(); !slices.Equal(got, want) {
		t.Fatalf("subscriber holds %d rows, want the %d of its partitions", len(got), len(want))
	}
	// The publisher dropped its partitions older than 7 days; the
	// subscriber keeps 14 (DROP TABLE is not replicated).
	var pubOldest, subOldest int
	if err := pub.conn.QueryRow(ctx, "SELECT min(day) FROM lr_events").Scan(&pubOldest); err != nil {
		t.Fatal(err)
	}
	if err := sub.conn.QueryRow(ctx, "SELECT min(day) FROM lr_events").Scan(&subOldest); err != nil {
		t.Fatal(err)
	}
	if subOldest >= pubOldest || created[0] < days || created[1] < days/7 || dropped[0] < days-10 || dropped[1] < 2 {
		t.Errorf("oldest day publisher %d, subscriber %d; created %v, dropped %v (publisher, subscriber)",
			pubOldest, subOldest, created, dropped)
	}
	if n := lrErrors(t, sub, "lr_month"); n > 0 {
		t.Errorf("%d apply errors", n)
	}
	t.Logf("%d days, %d rows inserted, %d on the subscriber (days %d-%d), publisher from day %d; partitions created %d/%d, dropped %d/%d (publisher/subscriber)",
		days, len(ids), len(got), subOldest, days-1, pubOldest, created[0], created[1], dropped[0], dropped[1])
}

// A row whose partition does not exist on the subscriber (no DEFAULT
// partition there): the apply worker fails on it ("no partition of
// relation ... found for row"), exits, and retries the same transaction,
// again and again; the transactions after it wait behind it. Once
// partition.Ensure makes the partition, the row and everything after it
// arrive, and nothing is lost.
func lrMissingPartition(t *testing.T, pub, sub *lrServer) {
	ddl := "CREATE TABLE lr_gap (id uuid PRIMARY KEY, n int NOT NULL) PARTITION BY RANGE (id)"
	pub.exec(t, ddl)
	sub.exec(t, ddl)
	base := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	lrEnsure(t, pub, partition.Plan{Parent: "lr_gap", Kind: partition.KindULID, Every: partition.Day, Ahead: 10, Now: base})
	lrEnsure(t, sub, partition.Plan{Parent: "lr_gap", Kind: partition.KindULID, Every: partition.Day, Now: base})
	lrSubscribe(t, pub, sub, "lr_gap", "lr_gap")
	at := func(d time.Duration) ulidtype.ULID { return ulidtype.MinAt(base.Add(d)) }
	pub.exec(t, "INSERT INTO lr_gap VALUES ($1, 1)", at(time.Hour))
	lrWait(t, sub, "first row", 1, "SELECT count(*) FROM lr_gap")

	errsBefore := lrErrors(t, sub, "lr_gap")
	pub.exec(t, "INSERT INTO lr_gap VALUES ($1, 2)", at(72*time.Hour)) // no partition on the subscriber
	pub.exec(t, "INSERT INTO lr_gap VALUES ($1, 3)", at(2*time.Hour))  // has one, but comes after
	stalled := time.Now()
	want := `no partition of relation "lr_gap" found for row`
	for !strings.Contains(lrLogTail(sub), want) {
		if time.Since(stalled) > 30*time.Second {
			t.Fatalf("no %q in the subscriber's log:\n%s", want, lrLogTail(sub))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(2 * time.Second)
	if n := lrCount(t, sub, "lr_gap"); n != 1 {
		t.Fatalf("the subscription went on past the row without a partition: %d rows", n)
	}
	errs := lrErrors(t, sub, "lr_gap")
	if sub.version >= 15 && errs-errsBefore < 2 {
		t.Errorf("pg_stat_subscription_stats: %d errors, want the apply worker's retries", errs-errsBefore)
	}
	lrEnsure(t, sub, partition.Plan{Parent: "lr_gap", Kind: partition.KindULID, Every: partition.Day, Now: base.Add(72 * time.Hour)})
	lrWait(t, sub, "rows once the partition exists", 3, "SELECT count(*) FROM lr_gap")
	counted := fmt.Sprintf("%d apply errors counted", errs-errsBefore)
	if sub.version < 15 {
		counted = "the error in the log (no pg_stat_subscription_stats before 15)"
	}
	t.Logf("stalled %v with %s (PostgreSQL %d), then all 3 rows arrived", time.Since(stalled).Round(100*time.Millisecond), counted, sub.version)
}

// The same with a DEFAULT partition on the subscriber: the row lands there
// and the subscription goes on, but the subscriber's partition.Ensure for
// that range then stops with ErrDefaultHasRows until the row is moved,
// docs/PARTITIONING.md's way (in one transaction, which the apply worker
// waits for); the range's next rows then go to their own partition.
func lrDefaultPartition(t *testing.T, pub, sub *lrServer) {
	ctx := context.Background()
	ddl := "CREATE TABLE lr_def (id uuid PRIMARY KEY, n int NOT NULL) PARTITION BY RANGE (id)"
	pub.exec(t, ddl)
	sub.exec(t, ddl)
	sub.exec(t, "CREATE TABLE lr_def_default PARTITION OF lr_def DEFAULT")
	base := time.Date(2026, 4, 6, 0, 0, 0, 0, time.UTC)
	plan := partition.Plan{Parent: "lr_def", Kind: partition.KindULID, Every: partition.Day, Now: base}
	lrEnsure(t, pub, partition.Plan{Parent: "lr_def", Kind: partition.KindULID, Every: partition.Day, Ahead: 10, Now: base})
	lrEnsure(t, sub, plan)
	lrSubscribe(t, pub, sub, "lr_def", "lr_def")
	at := func(d time.Duration) ulidtype.ULID { return ulidtype.MinAt(base.Add(d)) }
	pub.exec(t, "INSERT INTO lr_def VALUES ($1, 1)", at(72*time.Hour))
	pub.exec(t, "INSERT INTO lr_def VALUES ($1, 2)", at(time.Hour))
	lrWait(t, sub, "rows", 2, "SELECT count(*) FROM lr_def")
	lrWait(t, sub, "rows in the DEFAULT partition", 1, "SELECT count(*) FROM lr_def_default")

	plan.Now = base.Add(72 * time.Hour)
	if _, err := partition.Ensure(ctx, sub.conn, plan); !errors.Is(err, partition.ErrDefaultHasRows) {
		t.Fatalf("Ensure over the DEFAULT partition's row: %v, want ErrDefaultHasRows", err)
	}
	if rep := lrEnsure(t, sub, partition.Plan{Parent: "lr_def", Kind: partition.KindULID, Every: partition.Day, Now: base}); rep.Default.Rows != 1 {
		t.Fatalf("Ensure's report of the DEFAULT partition: %+v, want 1 row", rep.Default)
	}
	tx, err := sub.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "ALTER TABLE lr_def DETACH PARTITION lr_def_default"); err != nil {
		t.Fatal(err)
	}
	if _, err := partition.Ensure(ctx, tx.Conn(), plan); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"WITH moved AS (DELETE FROM lr_def_default RETURNING *) INSERT INTO lr_def SELECT * FROM moved",
		"ALTER TABLE lr_def ATTACH PARTITION lr_def_default DEFAULT",
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	pub.exec(t, "INSERT INTO lr_def VALUES ($1, 3)", at(73*time.Hour))
	lrWait(t, sub, "rows", 3, "SELECT count(*) FROM lr_def")
	if n := lrCount(t, sub, "lr_def_default"); n != 0 {
		t.Errorf("DEFAULT partition holds %d rows after the move", n)
	}
	if n := lrErrors(t, sub, "lr_def"); n > 0 {
		t.Errorf("%d apply errors", n)
	}
}

// Rows replicated into columns with DEFAULT pgid.gen_ulid_v7() and
// DEFAULT pgid.gen_objectid() keep the publisher's IDs, through the
// initial copy and through streaming alike: the apply worker sends every
// column, and the subscriber's defaults do not run.
func lrGeneratedDefaults(t *testing.T, pub, sub *lrServer) {
	ctx := context.Background()
	ddl := `CREATE TABLE lr_gen_u (id uuid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), n int NOT NULL);
		CREATE TABLE lr_gen_o (id bytea PRIMARY KEY DEFAULT pgid.gen_objectid(), n int NOT NULL)`
	pub.exec(t, ddl)
	sub.exec(t, ddl)
	fill := "INSERT INTO lr_gen_u (n) SELECT g FROM generate_series($1::int, $2) g; INSERT INTO lr_gen_o (n) SELECT g FROM generate_series($1::int, $2) g"
	for _, q := range strings.Split(fill, "; ") {
		pub.exec(t, q, 1, 50) // before the subscription: the initial copy
	}
	lrSubscribe(t, pub, sub, "lr_gen", "lr_gen_u", "lr_gen_o")
	for _, q := range strings.Split(fill, "; ") {
		pub.exec(t, q, 51, 100) // after: streamed
	}
	for _, table := range []string{"lr_gen_u", "lr_gen_o"} {
		lrWait(t, sub, table, 100, "SELECT count(*) FROM "+table)
		q := "SELECT string_agg(id::text || ':' || n, ',' ORDER BY n) FROM " + table
		var a, b string
		if err := pub.conn.QueryRow(ctx, q).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := sub.conn.QueryRow(ctx, q).Scan(&b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Errorf("%s: the subscriber's IDs differ from the publisher's", table)
		}
	}
}

// pgid.tail_enable and a subscription target. The guard's rule for
// replicated rows: the apply and table-sync workers' rows pass unchecked
// (their IDs are the publisher's, older by the replication lag, which no
// lead bounds), so that the subscription never fails on them; in turn
// the table's setup reports the subscription at every read (PGI23), so no
// Tailer reads it, and tail_enable refuses such a table. Both orders:
// the subscription first, and tail_enable first.
func lrTailEnable(t *testing.T, pub, sub *lrServer) {
	ctx := context.Background()
	ddl := "CREATE TABLE lr_tail_a (id uuid PRIMARY KEY, n int NOT NULL); CREATE TABLE lr_tail_b (id uuid PRIMARY KEY, n int NOT NULL)"
	pub.exec(t, ddl)
	sub.exec(t, ddl)
	hourAgo := func() ulidtype.ULID { return ulidtype.MinAt(time.Now().Add(-time.Hour)) }

	// The subscription first: tail_enable refuses, and sets nothing up.
	lrSubscribe(t, pub, sub, "lr_tail_a", "lr_tail_a")
	err := tail.Enable(ctx, sub.conn, "lr_tail_a", 2*time.Second)
	if !errors.Is(err, tail.ErrUnsafe) || !strings.Contains(err.Error(), "subscription lr_tail_a:") {
		t.Fatalf("tail.Enable on a subscription target: %v, want ErrUnsafe naming the subscription", err)
	}
	t.Logf("tail.Enable on a subscription target: %v", err)
	if _, err := sub.conn.Exec(ctx, "SELECT pgid.tail_config('lr_tail_a')"); lrCode(err) != tail.CodeNotEnabled {
		t.Errorf("after the refusal, tail_config: %v, want PGI21 (nothing set up)", err)
	}
	pub.exec(t, "INSERT INTO lr_tail_a VALUES ($1, 1), ($2, 2)", hourAgo(), ulidtype.New())
	lrWait(t, sub, "lr_tail_a rows", 2, "SELECT count(*) FROM lr_tail_a")

	// tail_enable first, then the subscription: old IDs come through the
	// initial copy and through streaming, and the subscription goes on.
	if err := tail.Enable(ctx, sub.conn, "lr_tail_b", 2*time.Second); err != nil {
		t.Fatal(err)
	}
	errsBefore := lrErrors(t, sub, "lr_tail_b")
	pub.exec(t, "INSERT INTO lr_tail_b VALUES ($1, 1)", hourAgo())
	lrSubscribe(t, pub, sub, "lr_tail_b", "lr_tail_b")
	pub.exec(t, "INSERT INTO lr_tail_b VALUES ($1, 2), ($2, 3)", hourAgo(), ulidtype.New())
	lrWait(t, sub, "lr_tail_b rows", 3, "SELECT count(*) FROM lr_tail_b")
	if errs := lrErrors(t, sub, "lr_tail_b"); errs > errsBefore {
		t.Errorf("%d apply errors on the tail-enabled target", errs-errsBefore)
	}
	// A Tailer on it stops, naming the subscription.
	tl, err := tail.New(sub.conn, tail.Config[ulidtype.ULID]{Table: "lr_tail_b"})
	if err == nil {
		_, err = tl.Next(ctx)
	}
	if !errors.Is(err, tail.ErrUnsafe) || !strings.Contains(err.Error(), "subscription lr_tail_b:") {
		t.Errorf("Tailer on a subscription target: %v, want ErrUnsafe naming the subscription", err)
	}
	// The rule is the replication workers', not session_replication_role's:
	// a session that sets replica is refused as before.
	tx, err := sub.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO lr_tail_b VALUES ($1, 4)", hourAgo()); !tail.IsTooOld(err) {
		t.Errorf("replica session, old ID: %v, want PGI20", err)
	}
	tx.Rollback(ctx)
	// ObjectIds too: the same rule in the other guard.
	pub.exec(t, "CREATE TABLE lr_tail_o (id bytea PRIMARY KEY, n int NOT NULL)")
	sub.exec(t, "CREATE TABLE lr_tail_o (id bytea PRIMARY KEY, n int NOT NULL)")
	if err := tail.Enable(ctx, sub.conn, "lr_tail_o", 2*time.Second); err != nil {
		t.Fatal(err)
	}
	lrSubscribe(t, pub, sub, "lr_tail_o", "lr_tail_o")
	pub.exec(t, "INSERT INTO lr_tail_o VALUES ($1, 1)", objectidtype.MinAt(time.Now().Add(-time.Hour)))
	lrWait(t, sub, "lr_tail_o rows", 1, "SELECT count(*) FROM lr_tail_o")
}

// lrCode is the SQLSTATE of err, "" if it has none.
func lrCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
