package tail_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// Issue 26, item 5: the table's owner changes the table while writers
// write and a SELECT-only reader tails it. Each DDL below commits 50 rows
// whose IDs are 3 hours old, below the Tailer's cursor. The Tailer must
// deliver them or stop with an error naming the cause, never go on
// without them.

// tailDDLCase is one run: the table, the DDL and what the Tailer must do.
type tailDDLCase struct {
	create string // CREATE TABLE ev ...; {cut}: the SQL of the ULID an hour ago, {next}: 5 s ahead
	during func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error
	want   error    // the sentinel the Tailer stops with; nil: it delivers every row
	or     error    // another sentinel it may stop with instead, when a race decides
	names  []string // what its message names
}

const (
	tailPlainTable = "CREATE TABLE ev (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), writer int NOT NULL, note text)"
	tailPartTable  = `CREATE TABLE ev (id pgid.ulid NOT NULL DEFAULT pgid.gen_ulid_v7(), writer int NOT NULL, note text,
		PRIMARY KEY (id)) PARTITION BY RANGE (id);
		CREATE TABLE ev_cur PARTITION OF ev FOR VALUES FROM ({cut}) TO (MAXVALUE)`
)

func runTailDDL(t *testing.T, c tailDDLCase) tailResult[ulidtype.ULID] {
	t.Helper()
	reserveTail(t, 4, 0, 2) // owner, and the DDL's (tailLoad.during)
	dsn := pgtest.DB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := pgtest.NewRole(t, owner)
	cut := fmt.Sprintf("pgid.ulid_min_at('%s')", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano))
	// {next}: 5 s from now, when the writers have run for a little less.
	next := fmt.Sprintf("pgid.ulid_min_at('%s')", time.Now().Add(5*time.Second).UTC().Format(time.RFC3339Nano))
	// 3 hours old, one generator: distinct and increasing.
	old := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-3 * time.Hour) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 4, duration: 6 * time.Second, lead: time.Second, poll: 50 * time.Millisecond,
		readerDSN: pgtest.WithUser(dsn, role),
		// SELECT on the table only: not on its partitions.
		create: strings.NewReplacer("{cut}", cut, "{next}", next).Replace(c.create) + "; GRANT SELECT ON ev TO " + role,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook) error {
			return c.during(ctx, owner, h, old, strings.NewReplacer("{cut}", cut, "{next}", next))
		},
		stopOn: func(err error) bool {
			return c.want != nil && errors.Is(err, c.want) || c.or != nil && errors.Is(err, c.or)
		},
	}, ulidtype.New, ulidtype.MinAt, ulidtype.ULID.Compare, "pgid.ulid", "pgid.gen_ulid_v7()")
	if res.stopped == nil {
		checkExactlyOnce(t, res, ulidtype.ULID.Compare)
		if c.want != nil {
			t.Errorf("the Tailer did not stop with %v", c.want)
		}
		return res
	}
	t.Logf("the Tailer stopped after %d rows: %v", len(res.delivered), res.stopped)
	for _, name := range c.names {
		if !strings.Contains(res.stopped.Error(), name) {
			t.Errorf("the error does not name %q: %v", name, res.stopped)
		}
	}
	// Until it stopped: in order, each committed.
	for i := 1; i < len(res.delivered); i++ {
		if res.delivered[i-1].Compare(res.delivered[i]) >= 0 {
			t.Fatalf("delivered out of cursor order or twice: %v then %v", res.delivered[i-1], res.delivered[i])
		}
	}
	for _, id := range res.delivered {
		if _, ok := res.committed[id]; !ok {
			t.Errorf("delivered %v, which was never committed", id)
		}
	}
	return res
}

// insertOld inserts n rows with IDs from old into table, as the owner
// (with the tail triggers absent or disabled), and returns them.
func insertOld(ctx context.Context, q interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, table string, old *ulidtype.Generator, n int) ([]ulidtype.ULID, error) {
	ids := make([]ulidtype.ULID, n)
	for i := range ids {
		ids[i] = old.New()
		if _, err := q.Exec(ctx, "INSERT INTO "+table+" (id, writer, note) VALUES ($1, -1, 'old')", ids[i]); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func execAll(ctx context.Context, owner *pgx.Conn, sqls ...string) error {
	for _, s := range sqls {
		if _, err := owner.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// ATTACH PARTITION of a table loaded beforehand with rows 3 hours old,
// the bulk-load pattern PostgreSQL recommends.
func TestTailDDLAttachOldRows(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPartTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			if err := execAll(ctx, owner, "CREATE TABLE ev_bulk (LIKE ev INCLUDING DEFAULTS)"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev_bulk", old, 50)
			if err != nil {
				return err
			}
			if err := execAll(ctx, owner, sql.Replace("ALTER TABLE ev ATTACH PARTITION ev_bulk FOR VALUES FROM (MINVALUE) TO ({cut})")); err != nil {
				return err
			}
			for _, id := range ids {
				h.committed(id)
			}
			return nil
		},
		want:  tail.ErrBelowCursor,
		names: []string{"public.ev_bulk", "attached"},
	})
}

// DETACH a partition, INSERT old rows into it, ATTACH it again.
func TestTailDDLDetachInsertAttach(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPartTable + "; CREATE TABLE ev_hist PARTITION OF ev FOR VALUES FROM (MINVALUE) TO ({cut})",
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			if err := execAll(ctx, owner, "ALTER TABLE ev DETACH PARTITION ev_hist"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev_hist", old, 50)
			if err != nil {
				return err
			}
			if err := execAll(ctx, owner, sql.Replace("ALTER TABLE ev ATTACH PARTITION ev_hist FOR VALUES FROM (MINVALUE) TO ({cut})")); err != nil {
				return err
			}
			for _, id := range ids {
				h.committed(id)
			}
			return nil
		},
		want:  tail.ErrBelowCursor,
		names: []string{"public.ev_hist", "attached"},
	})
}

// An owner trigger named to sort after zzz_pgid_tail, so that it fires
// after pgid's check, rewrites the id to an old one.
func TestTailDDLTriggerAfterPgid(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPlainTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			if err := execAll(ctx, owner, `CREATE FUNCTION rewrite_id() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.note LIKE 'rewrite:%' THEN NEW.id := substr(NEW.note, 9)::uuid; END IF; RETURN NEW; END $$`,
				"CREATE TRIGGER zzzz_rewrite BEFORE INSERT ON ev FOR EACH ROW EXECUTE FUNCTION rewrite_id()"); err != nil {
				return err
			}
			for range 50 {
				id := old.New()
				if _, err := owner.Exec(ctx, "INSERT INTO ev (writer, note) VALUES (-1, 'rewrite:' || $1::uuid::text)", id); err != nil {
					return err
				}
				h.committed(id)
			}
			return nil
		},
		want:  tail.ErrUnsafe,
		names: []string{"zzzz_rewrite", "public.ev", "after"},
	})
}

// A BEFORE UPDATE trigger (named to fire before pgid's) changes the id on
// an UPDATE whose SET list does not name id.
func TestTailDDLUpdateTriggerMovesID(t *testing.T) {
	t.Parallel()
	refused := 0
	runTailDDL(t, tailDDLCase{
		create: tailPlainTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			if err := execAll(ctx, owner, `CREATE FUNCTION move_id() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.note LIKE 'move:%' THEN NEW.id := substr(NEW.note, 6)::uuid; END IF; RETURN NEW; END $$`,
				"CREATE TRIGGER a_move BEFORE UPDATE ON ev FOR EACH ROW EXECUTE FUNCTION move_id()"); err != nil {
				return err
			}
			fresh := make([]any, 50)
			for i := range fresh {
				id := ulidtype.New()
				if _, err := owner.Exec(ctx, "INSERT INTO ev (id, writer, note) VALUES ($1, -1, 'fresh')", id); err != nil {
					return err
				}
				h.committed(id)
				fresh[i] = id
			}
			// Delivered at their IDs first; then moved below the cursor.
			if err := h.delivered(ctx, fresh...); err != nil {
				return err
			}
			for _, f := range fresh {
				id := old.New()
				_, err := owner.Exec(ctx, "UPDATE ev SET note = 'move:' || $1::uuid::text WHERE id = $2", id, f)
				if tail.IsTooOld(err) {
					refused++
					continue
				}
				if err != nil {
					return err
				}
				h.committed(id)
			}
			return nil
		},
	})
	if refused != 50 {
		t.Errorf("%d of 50 UPDATEs to an old id refused, want all", refused)
	}
}

// The owner disables pgid's trigger and inserts old rows; it stays
// disabled.
func TestTailDDLTriggerDisabled(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPlainTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			if err := execAll(ctx, owner, "ALTER TABLE ev DISABLE TRIGGER zzz_pgid_tail"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev", old, 50)
			for _, id := range ids {
				h.committed(id)
			}
			return err
		},
		want: tail.ErrUnsafe,
		// A read whose check of the triggers (pgid.tail_config) ran just
		// before the ALTER committed and whose layout read ran just after
		// it sees the triggers altered, not disabled: it stops with
		// ErrBelowCursor, which names them too. Either way it stops.
		or:    tail.ErrBelowCursor,
		names: []string{"zzz_pgid_tail", "public.ev", "disabled"},
	})
}

// The classic bulk load in one transaction: disable the trigger, load old
// rows, enable it again. No reader ever sees it disabled.
func TestTailDDLTriggerDisabledAndEnabled(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPlainTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			tx, err := owner.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "ALTER TABLE ev DISABLE TRIGGER zzz_pgid_tail"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, tx, "ev", old, 50)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "ALTER TABLE ev ENABLE ALWAYS TRIGGER zzz_pgid_tail"); err != nil {
				return err
			}
			if err := tx.Commit(ctx); err != nil {
				return err
			}
			for _, id := range ids {
				h.committed(id)
			}
			return nil
		},
		want:  tail.ErrBelowCursor,
		names: []string{"zzz_pgid_tail", "public.ev", "altered"},
	})
}

// What the owner may do while readers run: create a partition that
// receives rows at once, attach an empty table, run tail_enable again with
// the same lead. The Tailer delivers every row and does not stop.
func TestTailDDLRoutine(t *testing.T) {
	t.Parallel()
	// Rows go to ev_cur for 5 s, then to ev_next, made once the Tailer
	// has delivered a row (a lead of 1 s after the first write).
	runTailDDL(t, tailDDLCase{
		create: strings.Replace(tailPartTable, "TO (MAXVALUE)", "TO ({next})", 1),
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, sql *strings.Replacer) error {
			return execAll(ctx, owner,
				sql.Replace("CREATE TABLE ev_next PARTITION OF ev FOR VALUES FROM ({next}) TO (MAXVALUE)"),
				"CREATE TABLE ev_empty (LIKE ev INCLUDING DEFAULTS)",
				sql.Replace("ALTER TABLE ev ATTACH PARTITION ev_empty FOR VALUES FROM (MINVALUE) TO ({cut})"),
				"SELECT pgid.tail_enable('ev', '1 second')")
		},
	})
}

// pgid.tail_config (every Tailer read calls it, through pgid.tail_poll)
// refuses, with SQLSTATE PGI23 and a message naming the relation and the
// trigger, each setup that lets a row pass unchecked; pgid.tail_enable
// repairs what it can and changes nothing when all is right.
func TestTailConfigChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE ev (id pgid.ulid PRIMARY KEY, n int);
		CREATE TABLE pt (id pgid.ulid PRIMARY KEY, n int) PARTITION BY RANGE (id);
		CREATE TABLE pt_a PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (MAXVALUE);
		CREATE FUNCTION noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`)
	for _, tbl := range []string{"ev", "pt"} {
		if err := tail.Enable(ctx, conn, tbl, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	config := func(tbl string) error {
		_, err := conn.Exec(ctx, "SELECT * FROM pgid.tail_config($1::regclass)", tbl)
		return err
	}
	xmins := func() string {
		var s string
		if err := conn.QueryRow(ctx, "SELECT string_agg(tgrelid::regclass::text || tgname || xmin::text, ',' ORDER BY 1) FROM pg_trigger WHERE tgname LIKE 'zzz_pgid_tail%'").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := xmins()
	for _, tbl := range []string{"ev", "pt"} {
		if err := config(tbl); err != nil {
			t.Fatalf("%s: %v", tbl, err)
		}
		if err := tail.Enable(ctx, conn, tbl, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if after := xmins(); after != before {
		t.Errorf("tail_enable with the same lead changed the triggers:\n%s\n%s", before, after)
	}
	cases := []struct {
		table, break_, fix string
		names              []string // in the message
	}{
		{"ev", "ALTER TABLE ev DISABLE TRIGGER zzz_pgid_tail", "", []string{"zzz_pgid_tail on public.ev is disabled"}},
		{"ev", "ALTER TABLE ev DISABLE TRIGGER zzz_pgid_tail_update", "", []string{"zzz_pgid_tail_update on public.ev is disabled"}},
		{"ev", "ALTER TABLE ev ENABLE TRIGGER zzz_pgid_tail", "", []string{"zzz_pgid_tail on public.ev is not ENABLE ALWAYS", "replica"}},
		{"ev", "ALTER TABLE ev ENABLE REPLICA TRIGGER zzz_pgid_tail_update", "", []string{"zzz_pgid_tail_update on public.ev is not ENABLE ALWAYS", "origin"}},
		{"pt", "ALTER TABLE pt_a DISABLE TRIGGER zzz_pgid_tail", "", []string{"zzz_pgid_tail on public.pt_a (in the tree of public.pt) is disabled"}},
		{"ev", "CREATE OR REPLACE TRIGGER zzz_pgid_tail BEFORE INSERT ON ev FOR EACH ROW WHEN (false) EXECUTE FUNCTION pgid.tail_guard_ulid('1')", "",
			[]string{"zzz_pgid_tail on public.ev is not the one pgid.tail_enable makes"}},
		{"ev", "CREATE OR REPLACE TRIGGER zzz_pgid_tail_update BEFORE UPDATE ON ev FOR EACH ROW EXECUTE FUNCTION pgid.tail_guard_ulid('1')", "",
			[]string{"zzz_pgid_tail_update on public.ev is not the one pgid.tail_enable makes"}},
		// Bytewise: 'zzz_pgid_tail_' < 'zzz_pgid_tailx', and 'Z' < 'z'.
		{"ev", "CREATE TRIGGER zzz_pgid_tailx BEFORE INSERT ON ev FOR EACH ROW EXECUTE FUNCTION noop()", "DROP TRIGGER zzz_pgid_tailx ON ev",
			[]string{"zzz_pgid_tailx on public.ev fires after zzz_pgid_tail"}},
		{"ev", "CREATE TRIGGER zzz_pgid_tail_zz BEFORE UPDATE ON ev FOR EACH ROW EXECUTE FUNCTION noop()", "DROP TRIGGER zzz_pgid_tail_zz ON ev",
			[]string{"zzz_pgid_tail_zz on public.ev fires after zzz_pgid_tail_update"}},
		{"pt", "CREATE TRIGGER zzzz BEFORE INSERT ON pt_a FOR EACH ROW EXECUTE FUNCTION noop()", "DROP TRIGGER zzzz ON pt_a",
			[]string{"zzzz on public.pt_a (in the tree of public.pt) fires after zzz_pgid_tail"}},
		// The update trigger of pgid before issue 26 (UPDATE OF id), with
		// another BEFORE UPDATE trigger that may change the id.
		{"ev", `CREATE OR REPLACE TRIGGER zzz_pgid_tail_update BEFORE UPDATE OF id ON ev FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id)
			EXECUTE FUNCTION pgid.tail_guard_ulid('1'); ALTER TABLE ev ENABLE ALWAYS TRIGGER zzz_pgid_tail_update;
			CREATE TRIGGER a_move BEFORE UPDATE ON ev FOR EACH ROW EXECUTE FUNCTION noop()`, "DROP TRIGGER a_move ON ev",
			[]string{"zzz_pgid_tail_update on public.ev fires only on UPDATE OF id", "trigger a_move may change the id"}},
		// An inheritance child: its rows are the table's too, and
		// tail_enable on the table does not reach it.
		{"ev", "CREATE TABLE ev_child () INHERITS (ev)", "DROP TABLE ev_child", []string{"public.ev_child (in the tree of public.ev) has no trigger zzz_pgid_tail"}},
	}
	for _, c := range cases {
		mustExec(t, conn, c.break_)
		err := config(c.table)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tail.CodeUnsafe {
			t.Errorf("after %q: %v, want SQLSTATE %s", c.break_, err, tail.CodeUnsafe)
		} else {
			for _, n := range c.names {
				if !strings.Contains(pe.Message, n) {
					t.Errorf("after %q: message %q does not say %q", c.break_, pe.Message, n)
				}
			}
			if pe.Hint == "" || pe.Detail == "" {
				t.Errorf("after %q: no hint or detail", c.break_)
			}
		}
		// Through the package: ErrUnsafe.
		tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: c.table})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tl.Next(ctx); !errors.Is(err, tail.ErrUnsafe) {
			t.Errorf("after %q: Next: %v, want ErrUnsafe", c.break_, err)
		}
		if c.fix != "" {
			mustExec(t, conn, c.fix)
		}
		if err := tail.Enable(ctx, conn, c.table, time.Second); err != nil {
			t.Errorf("after %q: Enable: %v", c.break_, err)
		}
		if err := config(c.table); err != nil {
			t.Errorf("after %q and Enable: %v", c.break_, err)
		}
	}
	// The old update trigger alone is accepted (nothing can change the id
	// behind it), and tail_enable replaces it.
	mustExec(t, conn, `CREATE OR REPLACE TRIGGER zzz_pgid_tail_update BEFORE UPDATE OF id ON ev FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id)
		EXECUTE FUNCTION pgid.tail_guard_ulid('1'); ALTER TABLE ev ENABLE ALWAYS TRIGGER zzz_pgid_tail_update`)
	if err := config("ev"); err != nil {
		t.Errorf("old update trigger alone: %v", err)
	}
	if err := tail.Enable(ctx, conn, "ev", time.Second); err != nil {
		t.Fatal(err)
	}
	var cols string
	if err := conn.QueryRow(ctx, "SELECT tgattr::text FROM pg_trigger WHERE tgrelid = 'ev'::regclass AND tgname = 'zzz_pgid_tail_update'").Scan(&cols); err != nil || cols != "" {
		t.Errorf("after tail_enable: update trigger on columns %q (%v), want every UPDATE", cols, err)
	}
	// tail_enable refuses what it cannot repair.
	mustExec(t, conn, "CREATE TRIGGER zzzz BEFORE INSERT ON ev FOR EACH ROW EXECUTE FUNCTION noop()")
	if err := tail.Enable(ctx, conn, "ev", 2*time.Second); !errors.Is(err, tail.ErrUnsafe) || !strings.Contains(err.Error(), "zzzz") {
		t.Errorf("Enable with a trigger after pgid's: %v, want ErrUnsafe naming zzzz", err)
	}
}
