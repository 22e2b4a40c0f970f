package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	create string // CREATE TABLE ev ...; {cut} is the SQL of the ULID an hour ago
	during func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error
	want   error    // the sentinel the Tailer stops with; nil: it delivers every row
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
	dsn := newDB(t, true)
	owner := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := newRole(t, owner)
	cut := fmt.Sprintf("pgid.ulid_min_at('%s')", time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano))
	// 3 hours old, one generator: distinct and increasing.
	old := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-3 * time.Hour) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 4, duration: 6 * time.Second, lead: time.Second, poll: 50 * time.Millisecond,
		readerDSN: withUser(dsn, role),
		// SELECT on the table only: not on its partitions.
		create: strings.ReplaceAll(c.create, "{cut}", cut) + "; GRANT SELECT ON ev TO " + role,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook) error {
			return c.during(ctx, owner, h, old, cut)
		},
		stopOn: func(err error) bool { return c.want != nil && errors.Is(err, c.want) },
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
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
			if err := execAll(ctx, owner, "CREATE TABLE ev_bulk (LIKE ev INCLUDING DEFAULTS)"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev_bulk", old, 50)
			if err != nil {
				return err
			}
			if err := execAll(ctx, owner, "ALTER TABLE ev ATTACH PARTITION ev_bulk FOR VALUES FROM (MINVALUE) TO ("+cut+")"); err != nil {
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
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
			if err := execAll(ctx, owner, "ALTER TABLE ev DETACH PARTITION ev_hist"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev_hist", old, 50)
			if err != nil {
				return err
			}
			if err := execAll(ctx, owner, "ALTER TABLE ev ATTACH PARTITION ev_hist FOR VALUES FROM (MINVALUE) TO ("+cut+")"); err != nil {
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
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
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
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
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
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
			if err := execAll(ctx, owner, "ALTER TABLE ev DISABLE TRIGGER zzz_pgid_tail"); err != nil {
				return err
			}
			ids, err := insertOld(ctx, owner, "ev", old, 50)
			for _, id := range ids {
				h.committed(id)
			}
			return err
		},
		want:  tail.ErrUnsafe,
		names: []string{"zzz_pgid_tail", "public.ev", "disabled"},
	})
}

// The classic bulk load in one transaction: disable the trigger, load old
// rows, enable it again. No reader ever sees it disabled.
func TestTailDDLTriggerDisabledAndEnabled(t *testing.T) {
	t.Parallel()
	runTailDDL(t, tailDDLCase{
		create: tailPlainTable,
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
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
	next := fmt.Sprintf("pgid.ulid_min_at('%s')", time.Now().Add(5*time.Second).UTC().Format(time.RFC3339Nano))
	runTailDDL(t, tailDDLCase{
		create: strings.Replace(tailPartTable, "TO (MAXVALUE)", "TO ("+next+")", 1),
		during: func(ctx context.Context, owner *pgx.Conn, h *tailHook, old *ulidtype.Generator, cut string) error {
			return execAll(ctx, owner,
				"CREATE TABLE ev_next PARTITION OF ev FOR VALUES FROM ("+next+") TO (MAXVALUE)",
				"CREATE TABLE ev_empty (LIKE ev INCLUDING DEFAULTS)",
				"ALTER TABLE ev ATTACH PARTITION ev_empty FOR VALUES FROM (MINVALUE) TO ("+cut+")",
				"SELECT pgid.tail_enable('ev', '1 second')")
		},
	})
}
