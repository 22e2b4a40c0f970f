package partition_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// detachFixture is a table ev, partitioned by day from the 19th to the
// 22nd, with one row in the 19th, and a plan that retires the 19th (and
// only it) with a concurrent detach.
type detachFixture struct {
	t     *testing.T
	dsn   string
	admin *pgx.Conn // observes, blocks and cancels
	plan  partition.Plan
	part  string // the 19th's partition, public.ev_p20261119
}

func newDetachFixture(t *testing.T, retire partition.Retire) *detachFixture {
	t.Helper()
	f := &detachFixture{t: t, dsn: pgtest.DB(t), part: "public.ev_p20261119"}
	f.admin = pgtest.Connect(t, f.dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, f.admin, "CREATE TABLE ev (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)")
	ensure(t, f.admin, partition.Plan{Parent: "ev", Every: partition.Day, Ahead: 3, Now: day(19, 0)})
	mustExec(t, f.admin, "INSERT INTO ev VALUES ($1)", ulidtype.MinAt(day(19, time.Hour)))
	f.plan = partition.Plan{Parent: "ev", Every: partition.Day, Ahead: 1, Now: day(21, 0),
		Retain: partition.Day, Retire: retire}
	return f
}

// waitFor polls cond until it holds (or fails the test after a minute,
// which only a hung server reaches).
func (f *detachFixture) waitFor(what string, cond func() bool, why ...func() string) {
	f.t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			for _, w := range why {
				what += "; " + w()
			}
			f.t.Fatalf("still waiting for %s", what)
		}
	}
}

// query scans the one row of sql into dest, on the observing connection.
func (f *detachFixture) query(dest any, sql string, args ...any) {
	f.t.Helper()
	if err := f.admin.QueryRow(context.Background(), sql, args...).Scan(dest); err != nil {
		f.t.Fatal(err)
	}
}

// waiting reports whether backend pid waits for a lock in a statement
// containing step.
func (f *detachFixture) waiting(pid uint32, step string) (ok bool) {
	f.query(&ok, `SELECT EXISTS (SELECT FROM pg_stat_activity
		WHERE pid = $1 AND wait_event_type = 'Lock' AND strpos(query, $2) > 0)`, pid, step)
	return ok
}

// settled reports whether backend pid has ended or is idle: a deadline
// that passed before Ensure sent anything leaves its connection open.
func (f *detachFixture) settled(pid uint32) (ok bool) {
	f.query(&ok, "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1 AND state <> 'idle')", pid)
	return ok
}

// gone reports whether backend pid has ended.
func (f *detachFixture) gone(pid uint32) (ok bool) {
	f.query(&ok, "SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1)", pid)
	return ok
}

// activity describes what backend pid is doing and the locks it waits for
// and holds, for the messages of a test that fails.
func (f *detachFixture) activity(pid uint32) (s string) {
	f.query(&s, `SELECT coalesce((SELECT format('%s, waiting for %s %s: %s', state, wait_event_type, wait_event, query)
		FROM pg_stat_activity WHERE pid = $1), 'ended') || '; locks: ' ||
		coalesce((SELECT string_agg(format('%s %s %s %s', locktype, relation::regclass, mode, granted), ', ') FROM pg_locks WHERE pid = $1), 'none')`,
		pid)
	return s
}

// state says where table name stands: attached, pending (a detach
// interrupted in its second transaction), detached or gone.
func (f *detachFixture) state(name string) (s string) {
	f.query(&s, `SELECT CASE WHEN c.oid IS NULL THEN 'gone'
			WHEN i.inhdetachpending THEN 'pending' WHEN i.inhrelid IS NOT NULL THEN 'attached' ELSE 'detached' END
		FROM (SELECT to_regclass($1) AS r) x LEFT JOIN pg_class c ON c.oid = x.r
		LEFT JOIN pg_inherits i ON i.inhrelid = c.oid`, name)
	return s
}

// interrupt runs Ensure with f.plan on a connection of its own and gives up
// (cancels its context, as a deadline does) once its backend waits for a
// lock in a statement containing step. It returns Ensure's error and the
// backend's pid; pgx closes the connection, the server may go on.
func (f *detachFixture) interrupt(step string) (uint32, error) {
	f.t.Helper()
	return f.giveUp(pgtest.Connect(f.t, f.dsn, pgx.QueryExecModeCacheStatement), step, func() {})
}

// giveUp is interrupt on conn, calling before just before it cancels.
func (f *detachFixture) giveUp(conn *pgx.Conn, step string, before func()) (uint32, error) {
	f.t.Helper()
	pid := conn.PgConn().PID()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := partition.Ensure(ctx, conn, f.plan)
		done <- err
	}()
	f.waitFor("Ensure to wait in "+step, func() bool { return f.waiting(pid, step) })
	before()
	cancel()
	err := <-done
	if err == nil {
		f.t.Fatalf("Ensure interrupted in %s returned no error", step)
	}
	return pid, err
}

// cancelBackend cancels what backend pid runs (as the server does when it
// notices its client is gone) and waits until it has ended.
func (f *detachFixture) cancelBackend(pid uint32) {
	f.t.Helper()
	mustExec(f.t, f.admin, "SELECT pg_cancel_backend($1)", pid)
	f.waitFor("the interrupted backend to end", func() bool { return f.gone(pid) })
}

// blocker opens a transaction on a connection of its own and runs sql in it.
func (f *detachFixture) blocker(sql string) pgx.Tx {
	f.t.Helper()
	tx, err := pgtest.Connect(f.t, f.dsn, pgx.QueryExecModeCacheStatement).Begin(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), sql); err != nil {
		f.t.Fatal(err)
	}
	return tx
}

// finish runs a dry run, which must report what is left to do and change
// nothing, then Ensure, which must finish it.
func (f *detachFixture) finish(wantDetached bool, drop bool) {
	f.t.Helper()
	before := f.state(f.part)
	dry := f.plan
	dry.DryRun = true
	rep, err := partition.Ensure(context.Background(), f.admin, dry)
	if err != nil {
		f.t.Fatalf("dry run: %v", err)
	}
	if drop && names(rep.Dropped) != f.part || (names(rep.Detached) == f.part) != wantDetached {
		f.t.Errorf("dry run (partition %s) reports detached %q, dropped %q; want %s in dropped, in detached: %v",
			before, names(rep.Detached), names(rep.Dropped), f.part, wantDetached)
	}
	if s := f.state(f.part); s != before {
		f.t.Errorf("dry run changed the partition from %s to %s", before, s)
	}
	rep = ensure(f.t, f.admin, f.plan)
	if drop && names(rep.Dropped) != f.part || (names(rep.Detached) == f.part) != wantDetached {
		f.t.Errorf("next Ensure (partition %s): detached %q, dropped %q; want %s in dropped, in detached: %v",
			before, names(rep.Detached), names(rep.Dropped), f.part, wantDetached)
	}
	want := "gone"
	if !drop {
		want = "detached"
	}
	if s := f.state(f.part); s != want {
		f.t.Errorf("after the next Ensure the partition is %s, want %s", s, want)
	}
	if rep := ensure(f.t, f.admin, f.plan); !rep.Empty() {
		f.t.Errorf("a third Ensure did something: %+v", rep)
	}
}

// finishAfter ends blocker a, waits until the interrupted backend pid has
// ended or gone idle, and checks that the next Ensure finishes the job from wherever the
// server left the partition.
func (f *detachFixture) finishAfter(a pgx.Tx, pid uint32) {
	f.t.Helper()
	if err := a.Commit(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	f.waitFor("the interrupted backend to end or go idle", func() bool { return f.settled(pid) }, func() string { return f.activity(pid) })
	s := f.state(f.part)
	f.t.Logf("partition %s", s)
	f.finish(s != "detached", true)
}

// A concurrent detach interrupted at each step (its context given up, as a
// deadline does) is finished by the next Ensure: what pgid started, pgid
// finishes, and a dry run says what it would finish.
func TestPartitionDetachInterrupted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// Before the detach: the partition is locked, so Ensure waits before
	// detaching; when the lock goes the server goes on with the statement it
	// was in, and the client is gone.
	t.Run("before the detach", func(t *testing.T) {
		t.Parallel()
		f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
		a := f.blocker("LOCK TABLE " + f.part + " IN SHARE UPDATE EXCLUSIVE MODE")
		pid, err := f.interrupt(f.part)
		t.Logf("interrupted: %v", err)
		f.finishAfter(a, pid)
	})

	// During the detach's wait for the transactions that use the parent,
	// the network fails: the client gives up and its cancel request never
	// arrives, so the server finishes the detach.
	t.Run("during the wait, finished by the server", func(t *testing.T) {
		t.Parallel()
		f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
		a := f.blocker("SELECT count(*) FROM ev")
		px := newCutProxy(t, f.dsn)
		pid, _ := f.giveUp(px.connect(), "DETACH PARTITION", px.cut)
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		f.waitFor("the server to finish the detach", func() bool { return f.state(f.part) == "detached" })
		px.close()
		f.waitFor("the interrupted backend to end", func() bool { return f.gone(pid) })
		f.finish(false, true)
	})

	// During the wait, cancelled: the partition stays "pending detach".
	t.Run("during the wait, cancelled", func(t *testing.T) {
		t.Parallel()
		f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
		a := f.blocker("SELECT count(*) FROM ev")
		pid, _ := f.interrupt("DETACH PARTITION")
		f.cancelBackend(pid)
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if s := f.state(f.part); s != "pending" {
			t.Fatalf("the partition is %s, want pending", s)
		}
		f.finish(true, true)
	})

	// Between the detach and the drop: a transaction queued behind the
	// detach reads the table once it is detached and keeps the DROP
	// waiting; the client gives up and the server cancels the DROP.
	t.Run("between detach and drop", func(t *testing.T) {
		t.Parallel()
		f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
		a := f.blocker("SELECT count(*) FROM " + f.part)
		conn := pgtest.Connect(t, f.dsn, pgx.QueryExecModeCacheStatement)
		ensurePID := conn.PgConn().PID()
		ectx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := partition.Ensure(ectx, conn, f.plan)
			done <- err
		}()
		f.waitFor("the detach to wait for the partition", func() bool { return f.waiting(ensurePID, "DETACH PARTITION") })
		bconn := pgtest.Connect(t, f.dsn, pgx.QueryExecModeCacheStatement)
		bpid := bconn.PgConn().PID()
		b, err := bconn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		bdone := make(chan error, 1)
		go func() {
			_, err := b.Exec(ctx, "SELECT count(*) FROM "+f.part)
			bdone <- err
		}()
		f.waitFor("the reader to queue behind the detach", func() bool { return f.waiting(bpid, f.part) })
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-bdone; err != nil {
			t.Fatal(err)
		}
		f.waitFor("the DROP to wait for the reader", func() bool { return f.waiting(ensurePID, "DROP TABLE") })
		cancel()
		if err := <-done; err == nil {
			t.Fatal("Ensure given up during the DROP returned no error")
		}
		f.cancelBackend(ensurePID)
		if err := b.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if s := f.state(f.part); s != "detached" {
			t.Fatalf("the partition is %s, want detached", s)
		}
		f.finish(false, true)
	})

	// Real deadlines, whatever step they fall in while a reader of the
	// parent keeps the detach waiting: the next Ensure finishes the job.
	for _, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, 200 * time.Millisecond} {
		t.Run(fmt.Sprintf("deadline %s", d), func(t *testing.T) {
			t.Parallel()
			f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
			a := f.blocker("SELECT count(*) FROM ev")
			conn := pgtest.Connect(t, f.dsn, pgx.QueryExecModeCacheStatement)
			pid := conn.PgConn().PID()
			dctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			if _, err := partition.Ensure(dctx, conn, f.plan); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Ensure under a deadline of %s while the parent is read: %v", d, err)
			}
			f.finishAfter(a, pid)
		})
	}

	// DetachConcurrently keeps the table: the next Ensure finishes the
	// detach and gives the table its own comment back.
	t.Run("keep the table", func(t *testing.T) {
		t.Parallel()
		f := newDetachFixture(t, partition.DetachConcurrently)
		mustExec(t, f.admin, "COMMENT ON TABLE "+f.part+" IS 'the 19th, kept for audit'")
		a := f.blocker("SELECT count(*) FROM ev")
		pid, _ := f.interrupt("DETACH PARTITION")
		f.cancelBackend(pid)
		if err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		f.finish(true, false)
		var comment *string
		if err := f.admin.QueryRow(ctx, "SELECT obj_description($1::regclass, 'pg_class')", f.part).Scan(&comment); err != nil {
			t.Fatal(err)
		}
		if comment == nil || *comment != "the 19th, kept for audit" {
			t.Errorf("the kept table's comment is %v, want its own back", deref(comment))
		}
	})
}

// cutProxy forwards TCP connections to the server of a DSN until cut,
// which breaks them as a failing network does: the client's side closes,
// the server's stays open (until close), and new connections, such as
// cancel requests, are refused.
type cutProxy struct {
	t      *testing.T
	ln     net.Listener
	cfg    *pgx.ConnConfig
	mu     sync.Mutex
	cutOff bool
	client []net.Conn
	server []net.Conn
}

func newCutProxy(t *testing.T, dsn string) *cutProxy {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &cutProxy{t: t, ln: ln, cfg: cfg}
	t.Cleanup(px.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			px.mu.Lock()
			if px.cutOff {
				px.mu.Unlock()
				c.Close()
				continue
			}
			s, err := net.Dial(network, addr)
			if err != nil {
				px.mu.Unlock()
				c.Close()
				continue
			}
			px.client, px.server = append(px.client, c), append(px.server, s)
			px.mu.Unlock()
			go func() { _, _ = io.Copy(s, c) }()
			go func() { _, _ = io.Copy(c, s) }()
		}
	}()
	return px
}

// connect opens a connection through the proxy, closed when the test ends.
func (px *cutProxy) connect() *pgx.Conn {
	px.t.Helper()
	cfg := px.cfg.Copy()
	host, port, _ := net.SplitHostPort(px.ln.Addr().String())
	p, _ := strconv.Atoi(port)
	cfg.Host, cfg.Port, cfg.Fallbacks = host, uint16(p), nil
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		px.t.Fatal(err)
	}
	px.t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// cut breaks the connections on the client's side and refuses new ones.
func (px *cutProxy) cut() {
	px.mu.Lock()
	defer px.mu.Unlock()
	px.cutOff = true
	for _, c := range px.client {
		c.Close()
	}
}

// close closes everything, the server's side included.
func (px *cutProxy) close() {
	px.cut()
	px.mu.Lock()
	defer px.mu.Unlock()
	px.ln.Close()
	for _, s := range px.server {
		s.Close()
	}
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return fmt.Sprintf("%q", *s)
}

// Tables that carry pgid's detach marker but that pgid did not start
// detaching are never dropped: one owned by another role, the marker copied
// onto a table of the parent's owner, and a marker rewritten for a table that
// was never a partition. The parent owner's are reported as kept, with the
// reason; Mallory's is ignored (she chose its text).
func TestPartitionDetachLookAlike(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mallory := "pgid_mallory_" + pgtest.RandomHex(4)
	if _, err := (pgtest.Admin{}).Exec(ctx, "CREATE ROLE "+mallory+" LOGIN PASSWORD '"+mallory+"'"); err != nil {
		t.Fatal(err)
	}
	pgtest.DropRole(t, mallory)
	f := newDetachFixture(t, partition.DetachConcurrentlyThenDrop)
	// A genuine marker: a detach given up during its wait, finished by the
	// server.
	a := f.blocker("SELECT count(*) FROM ev")
	pid, _ := f.interrupt("DETACH PARTITION")
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the interrupted backend to end", func() bool { return f.gone(pid) })
	var marker, oid string
	if err := f.admin.QueryRow(ctx, "SELECT coalesce(obj_description($1::regclass, 'pg_class'), ''), $1::regclass::oid::text", f.part).Scan(&marker, &oid); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(marker, "pgid: ") {
		t.Fatalf("the interrupted detach left no marker on %s: comment %q", f.part, marker)
	}
	copyOf := func(table string) string {
		var toid string
		if err := f.admin.QueryRow(ctx, "SELECT $1::regclass::oid::text", table).Scan(&toid); err != nil {
			t.Fatal(err)
		}
		m := strings.ReplaceAll(marker, f.part, table)
		return strings.ReplaceAll(m, `"table_oid":`+oid, `"table_oid":`+toid)
	}
	comment := func(c *pgx.Conn, table, text string) {
		var sql string
		if err := c.QueryRow(ctx, "SELECT format('COMMENT ON TABLE %s IS %L', $1::regclass, $2::text)", table, text).Scan(&sql); err != nil {
			t.Fatal(err)
		}
		mustExec(t, c, sql)
	}

	// Mallory's own table, the marker rewritten for it.
	mustExec(t, f.admin, "GRANT CREATE ON SCHEMA public TO "+mallory)
	cfg, err := pgx.ParseConfig(f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = mallory, mallory
	mconn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mconn.Close(ctx)
	mustExec(t, mconn, "CREATE TABLE public.ev_p20261001 (id pgid.ulid PRIMARY KEY)")
	comment(mconn, "public.ev_p20261001", copyOf("public.ev_p20261001"))
	// The parent owner's table, never a partition: the marker copied as is,
	// and rewritten for it.
	mustExec(t, f.admin, "CREATE TABLE public.ev_p20261002 (id pgid.ulid PRIMARY KEY); CREATE TABLE public.ev_p20261003 (id pgid.ulid PRIMARY KEY)")
	comment(f.admin, "public.ev_p20261002", marker)
	comment(f.admin, "public.ev_p20261003", copyOf("public.ev_p20261003"))

	rep, err := partition.Ensure(ctx, f.admin, f.plan)
	if names(rep.Dropped) != f.part {
		t.Errorf("dropped %q, want only %s", names(rep.Dropped), f.part)
	}
	if !errors.Is(err, partition.ErrKept) || len(rep.Kept) != 2 {
		t.Errorf("Ensure: %v, kept %d; want the 2 look-alikes of the parent's owner kept", err, len(rep.Kept))
	}
	for _, k := range rep.Kept {
		t.Logf("kept: %s", k)
		if !strings.Contains(k.Reason, "pgid did not start") || strings.Contains(k.Name, "20261001") {
			t.Errorf("kept %s: reason %q does not say pgid did not start it", k.Name, k.Reason)
		}
	}
	for _, table := range []string{"public.ev_p20261001", "public.ev_p20261002", "public.ev_p20261003"} {
		if s := f.state(table); s != "detached" {
			t.Errorf("look-alike %s is %s", table, s)
		}
	}
}

// At the ends of the ID ranges (ObjectIds' 32-bit seconds end at
// 2106-02-07T06:28:15Z, ULIDs' 48-bit milliseconds at
// 10889-08-02T05:31:50.655Z) Ensure makes every partition that can exist,
// the last one up to MAXVALUE so that the last IDs have a place, and says
// clearly that the rest cannot exist (ErrRangeEnd, SQLSTATE PGI09).
func TestPartitionRangeEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	for _, c := range []struct {
		kind     partition.Kind
		typ      string
		end      time.Time // the last time an ID holds
		last     any       // the last ID there is
		lastName string
	}{
		{partition.KindObjectID, "pgid.objectid", time.Unix(1<<32-1, 0).UTC(), objectidtype.MaxAt(time.Unix(1<<32-1, 0)), "_p21060207"},
		{partition.KindULID, "pgid.ulid", time.UnixMilli(1<<48 - 1).UTC(), ulidtype.MaxAt(time.UnixMilli(1<<48 - 1)), "_p108890802"},
	} {
		t.Run(c.kind.String(), func(t *testing.T) {
			parent := "end_" + c.kind.String()
			mustExec(t, conn, fmt.Sprintf("CREATE TABLE %s (id %s PRIMARY KEY) PARTITION BY RANGE (id)", parent, c.typ))
			lastDay := c.end.Truncate(24 * time.Hour)
			plan := partition.Plan{Parent: parent, Kind: c.kind, Every: partition.Day, Ahead: 5, Now: lastDay.AddDate(0, 0, -2)}
			rep, err := partition.Ensure(ctx, conn, plan)
			if !errors.Is(err, partition.ErrRangeEnd) {
				t.Fatalf("Ensure up to the end: %v; want ErrRangeEnd", err)
			}
			t.Logf("Ensure: %v", err)
			if msg := err.Error(); !strings.Contains(msg, c.end.Format("2006-01-02T15:04:05")) || strings.Contains(msg, "empty range bound") {
				t.Errorf("message %q does not name the end %s", msg, c.end)
			}
			if len(rep.Created) != 3 || !strings.HasSuffix(rep.Created[2].Name, c.lastName) || !rep.Created[2].Upper.IsZero() {
				t.Fatalf("created %s (last upper %v); want 3, the last %s up to MAXVALUE", names(rep.Created), rep.Created[len(rep.Created)-1].Upper, c.lastName)
			}
			mustExec(t, conn, "INSERT INTO "+parent+" VALUES ($1)", c.last)
			var where string
			if err := conn.QueryRow(ctx, "SELECT tableoid::regclass::text FROM "+parent).Scan(&where); err != nil || !strings.HasSuffix(where, c.lastName) {
				t.Errorf("the last ID went to %q (%v), want the last partition", where, err)
			}
			// Again: nothing to make, the same clear report.
			rep, err = partition.Ensure(ctx, conn, plan)
			if !errors.Is(err, partition.ErrRangeEnd) || len(rep.Created) != 0 {
				t.Errorf("second Ensure: created %s, %v", names(rep.Created), err)
			}
			// On the last day itself, and after it: nothing can be made.
			plan.Now = c.end
			if rep, err = partition.Ensure(ctx, conn, plan); !errors.Is(err, partition.ErrRangeEnd) || len(rep.Created) != 0 {
				t.Errorf("Ensure at the end: created %s, %v", names(rep.Created), err)
			}
			plan.Now = lastDay.AddDate(0, 0, 1)
			if _, err := partition.Ensure(ctx, conn, plan); !errors.Is(err, partition.ErrRangeEnd) {
				t.Errorf("Ensure after the end: %v; want ErrRangeEnd", err)
			}
			// From SQL: the partitions, then a row 'end' and a WARNING.
			var action string
			var lower time.Time
			err = conn.QueryRow(ctx, `SELECT action, lower FROM pgid.ensure_partitions($1::regclass, '1 day', 5, NULL, 'none', $2)
				WHERE action = 'end'`, parent, lastDay.AddDate(0, 0, -1)).Scan(&action, &lower)
			if err != nil || !lower.Equal(c.end) {
				t.Errorf("ensure_partitions: %s %v, %v; want a row 'end' at %s", action, lower, err, c.end)
			}
		})
	}
}
