package migrations_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// sessionSettings are set on a connection before Up and Down, which must
// leave them as they were: the runner changes settings only with SET LOCAL
// inside its transactions. Custom settings (myapp.x) are kept too; tern's
// RESET ALL used to empty them.
var sessionSettings = map[string]string{
	"myapp.tenant":      "42",
	"statement_timeout": "17s",
	"search_path":       "app, public",
	"application_name":  "pgid-session-test",
	"TimeZone":          "Asia/Tokyo",
	"work_mem":          "5MB",
}

func checkSettings(t *testing.T, conn *pgx.Conn, after string) {
	t.Helper()
	for name, want := range sessionSettings {
		var got string
		if err := conn.QueryRow(context.Background(), "SELECT current_setting($1)", name).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("after %s: %s = %q, want %q as set before", after, name, got, want)
		}
	}
}

// Up and Down leave the caller's session settings as they were.
func TestMigrationsKeepSessionSettings(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	for name, v := range sessionSettings {
		if _, err := conn.Exec(ctx, "SELECT set_config($1, $2, false)", name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	checkSettings(t, conn, "Up")
	if err := migrations.Down(ctx, conn); err != nil {
		t.Fatal(err)
	}
	checkSettings(t, conn, "Down")

	// A search_path that only the connection string set (not SET) comes
	// back too, although Up sets its own while it runs.
	plain := pgtest.Connect(t, pgtest.WithParam(dsn, "search_path", "app,public"), pgx.QueryExecModeCacheStatement)
	if err := migrations.Up(ctx, plain); err != nil { // applies all again
		t.Fatal(err)
	}
	var path, source string
	if err := plain.QueryRow(ctx, "SELECT setting, source FROM pg_settings WHERE name = 'search_path'").Scan(&path, &source); err != nil ||
		path != "app,public" || source != "client" {
		t.Errorf("search_path from the connection string after Up: %q (source %s), %v", path, source, err)
	}
}

// While another session holds pgid's migration lock, Up waits at most the
// lock wait (or until the context ends), then returns ErrLocked naming the
// lock and its holder, and the connection stays usable.
func TestMigrationsLockWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	holder := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_lock($1)", migrations.LockKey); err != nil {
		t.Fatal(err)
	}
	var holderPID int
	if err := holder.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&holderPID); err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)

	checkLocked := func(err error, what string) {
		t.Helper()
		if !errors.Is(err, migrations.ErrLocked) {
			t.Fatalf("%s while locked: %v, want ErrLocked", what, err)
		}
		for _, s := range []string{strconv.FormatInt(migrations.LockKey, 10), "pid " + strconv.Itoa(holderPID)} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not name %s", what, err, s)
			}
		}
		if err := conn.Ping(ctx); err != nil || conn.IsClosed() {
			t.Fatalf("%s: connection unusable after ErrLocked: %v", what, err)
		}
	}

	start := time.Now()
	err := migrations.Up(ctx, conn, migrations.WithLockWait(300*time.Millisecond))
	checkLocked(err, "Up with a 300ms lock wait")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Up waited %v with a 300ms lock wait", d)
	}

	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = migrations.Up(tctx, conn)
	cancel()
	checkLocked(err, "Up with a 300ms context")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Up with a 300ms context: %v does not wrap context.DeadlineExceeded", err)
	}
	checkLocked(migrations.Down(ctx, conn, migrations.WithLockWait(0)), "Down")

	// The lock is pgid's own: a session holding tern's lock (an
	// application's own tern migrations) does not stop Up on a database
	// that tern never migrated for pgid.
	other := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := other.Exec(ctx, "SELECT pg_advisory_lock(9628173550095224)"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, pgtest.Connect(t, pgtest.EmptyDB(t), pgx.QueryExecModeCacheStatement), migrations.WithLockWait(0)); err != nil {
		t.Errorf("Up while tern's lock is held elsewhere: %v", err)
	}

	if _, err := holder.Exec(ctx, "SELECT pg_advisory_unlock($1)", migrations.LockKey); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn, migrations.WithLockWait(time.Second)); err != nil {
		t.Fatalf("Up after the lock was released: %v", err)
	}
	// Up released the lock again.
	var free bool
	if err := holder.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", migrations.LockKey).Scan(&free); err != nil || !free {
		t.Fatalf("lock after Up: free %v, %v", free, err)
	}
}
