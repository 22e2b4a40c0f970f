// Package tail reads a table in ID order, batch by batch, after a cursor
// that is an ID, and never skips a row whose transaction commits late nor
// returns a row twice.
//
// The naive reader, "SELECT ... WHERE id > $cursor ORDER BY id", loses rows:
// IDs are made before commit, so a row that commits late can land below a
// cursor that has moved on. [Enable] (SQL pgid.tail_enable) installs a
// trigger that refuses rows older than the database clock minus the table's
// declared maximum lead ([ErrTooOld]); each [Tailer.Next] then reads only
// below a horizon that no running transaction can still write under. The
// lag from commit to delivery is therefore at least the lead. DDL that could
// let rows past the trigger is refused ([ErrUnsafe]) or stops the Tailer for
// good ([ErrBelowCursor]); a hot standby is read with [NewStandby].
//
// [Tailer.Next] returns each row as its ID and row_to_json of the row;
// [Collect] and [RunCollect] return typed columns, as pgx.CollectRows does.
// Run the migrations first. The reader needs SELECT on the table and nothing
// else; [Enable] needs the table's owner. See docs/TAIL.md for the argument,
// the costs, the limits and when to use logical decoding instead.
package tail

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/internal/dbconn"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// Errors raised by the SQL functions, usable with errors.Is: each carries
// the SQLSTATE named here, and the returned error (an *Error of the shape
// packages partition and migrations use too) also unwraps to the
// *pgconn.PgError.
var (
	// ErrTooOld: an INSERT or UPDATE of id was refused because the ID is
	// older than the database clock minus the table's lead (SQLSTATE
	// PGI20). Use [IsTooOld] on errors from your own inserts.
	ErrTooOld = sqlStates.New(CodeTooOld, "tail: id older than the table's tail lead allows")
	// ErrNotEnabled: the table is not set up with [Enable] (PGI21).
	ErrNotEnabled = sqlStates.New(CodeNotEnabled, "tail: table not set up for tailing")
	// ErrSetup: [Enable] was refused: no id column, a column of another
	// type, or a lead out of range (PGI22).
	ErrSetup = sqlStates.New(CodeSetup, "tail: cannot set the table up for tailing")
	// ErrUnsafe: the table's triggers no longer check every row: pgid's
	// trigger is disabled, not ENABLE ALWAYS, missing on a partition or
	// out of date, or another BEFORE trigger fires after it (SQLSTATE
	// PGI23). The message names the relation and trigger; the table's
	// owner fixes it (pgid.tail_enable again, or rename or drop the other
	// trigger) and the Tailer can go on.
	ErrUnsafe = sqlStates.New(CodeUnsafe, "tail: the table's setup no longer checks every row")
	// ErrCitus: the table is a Citus distributed (or reference) table
	// (SQLSTATE PGI24), refused by [Enable] and by a Tailer's first read:
	// its rows are written by transactions on the workers, which a
	// Tailer's horizon (one server's xids and clock) cannot see. Follow
	// the workers with logical decoding (Citus CDC) instead; see
	// docs/CITUS.md.
	ErrCitus = sqlStates.New(CodeCitus, "tail: a Citus distributed table cannot be tailed")
)

// SQLSTATEs of the SQL functions in migrations/functions/06_tail.sql (the
// table of pgid's own, internal/sqlstate, holds them too; a test of package
// migrations keeps both equal).
const (
	CodeTooOld     = "PGI20"
	CodeNotEnabled = "PGI21"
	CodeSetup      = "PGI22"
	CodeUnsafe     = "PGI23"
	CodeCitus      = "PGI24"
)

// sqlStates maps the SQLSTATEs above to the sentinels, each declared with
// its SQLSTATE.
var sqlStates = dbconn.States{}

// wrap maps a server error with a SQLSTATE above to its sentinel, keeping
// the *pgconn.PgError in the chain: a *dbconn.Error, whose text ("tail: ",
// the sentinel's, then the server's message) already names the table. To
// any other error it adds "tail: " and what was being done.
func wrap(what string, err error) error {
	if e := dbconn.Match(err, sqlStates); e != nil {
		return e
	}
	return fmt.Errorf("tail: %s: %w", what, err)
}

// IsTooOld reports whether err is, or wraps, the refusal of a row by the
// trigger of [Enable] (SQLSTATE PGI20), from this package or from any
// INSERT through pgx or database/sql over pgx.
func IsTooOld(err error) bool {
	if errors.Is(err, ErrTooOld) {
		return true
	}
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == CodeTooOld
}

// ID is the key types a table can be tailed by.
type ID interface {
	ulidtype.ULID | objectidtype.ObjectID
}

// ErrKind: the table's id column is not of the Tailer's ID type.
// partition.ErrKind is the same condition for a partition plan.
var ErrKind = errors.New("tail: id column is not of the Tailer's ID type")

// kindOf is K's kind, as pgid.tail_config names it.
func kindOf[K ID]() dbconn.Kind {
	var k K
	if _, ok := any(k).(ulidtype.ULID); ok {
		return dbconn.ULID
	}
	return dbconn.ObjectID
}

// minAt is K's MinAt.
func minAt[K ID](t time.Time) K {
	var k K
	switch p := any(&k).(type) {
	case *ulidtype.ULID:
		*p = ulidtype.MinAt(t)
	case *objectidtype.ObjectID:
		*p = objectidtype.MinAt(t)
	}
	return k
}

// Enable sets table (as SQL names it: events, app.events) up for tailing
// by its id column (uuid or bytea, or the domains pgid.ulid and
// pgid.objectid): a trigger refuses rows whose ID is older than the
// database clock at INSERT minus maxLead (SQLSTATE PGI20, [ErrTooOld]).
// Called again, it repairs the triggers (on every partition) and changes the
// lead; running Tailers then stop with [ErrBelowCursor], so stop them first
// and restart them from their cursors. With the lead and triggers already
// as asked, it changes nothing. It refuses ([ErrUnsafe]) a table with
// another BEFORE row trigger that would fire after pgid's, and
// ([ErrCitus]) a Citus distributed table. maxLead must cover the time
// between making an ID and inserting it, plus how far the service's clock
// may run behind the database's; it is also the least lag of every
// reader. Run as the table's owner.
func Enable[D DB](ctx context.Context, db D, table string, maxLead time.Duration) error {
	if table == "" {
		return fmt.Errorf("%w: empty table name", ErrConfig)
	}
	if maxLead < time.Millisecond || maxLead > 24*time.Hour {
		return fmt.Errorf("%w: lead %v out of range: want 1ms to 24h", ErrConfig, maxLead)
	}
	return dbconn.Run(ctx, conns, db, func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SELECT pgid.tail_enable($1::pg_catalog.regclass, pg_catalog.make_interval(secs => $2::pg_catalog.float8))",
			table, maxLead.Seconds())
		if err != nil {
			return wrap("enable "+table, err)
		}
		return nil
	})
}

// Disable removes what [Enable] installed on table.
func Disable[D DB](ctx context.Context, db D, table string) error {
	return dbconn.Run(ctx, conns, db, func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "SELECT pgid.tail_disable($1::pg_catalog.regclass)", table); err != nil {
			return wrap("disable "+table, err)
		}
		return nil
	})
}

// Row is one delivered row: its ID and the whole row as JSON
// (PostgreSQL's row_to_json; a bytea column is the string "\\x...").
type Row[K ID] struct {
	ID   K
	JSON json.RawMessage
}

// ErrConfig: a Config or argument is invalid.
var ErrConfig = errors.New("tail: invalid configuration")

// Config says what a [Tailer] reads.
type Config[K ID] struct {
	// Table, as SQL names it (events, app.events), set up with [Enable].
	Table string
	// After: deliver rows with IDs greater than this one; the zero ID
	// (default) delivers the table from its first row. A cursor saved
	// from [Tailer.Cursor] or the last delivered [Row.ID] resumes a read.
	After K
	// Since, if not zero and after After's time, starts the read at the
	// first row made at or after this time instead.
	Since time.Time
	// Batch is the most rows one [Tailer.Next] returns; default 100.
	Batch int
	// MinWait and MaxWait bound [Tailer.Run]'s pause between reads that
	// found nothing: it starts at MinWait (default 50ms) and doubles up to
	// MaxWait (default 1s); a full batch is followed by the next read at
	// once.
	MinWait, MaxWait time.Duration
}

// Tailer reads one table in ID order. It remembers, between reads, the
// xids it has seen running (that is what lets it move on while writers
// are busy), so keep one Tailer per reading loop and do not use it from
// several goroutines at once.
type Tailer[K ID] struct {
	conn    func(ctx context.Context, f func(*pgx.Conn) error) error
	cfg     Config[K]
	cursor  K
	incl    bool // the next read includes cursor (a Since start)
	h       horizon
	safe    time.Time // the horizon (database clock minus lead): rows below it are all committed
	full    bool      // the last read returned a full batch
	rel     string    // the table's qualified name, once known
	lead    time.Duration
	started bool
	layout  map[uint32]stamp // the relations of the table's tree that hold rows, as of the last horizon
	rels    []uint32         // layout's keys: the relations a read may return rows of
	err     error            // ErrBelowCursor, once found: returned from then on
	sb      *standby         // reading a hot standby of the primary (NewStandby); nil: one database
}

// stamp is what pgid.tail_poll says about one relation of the table's
// tree: when it (and each parent up to the table) was attached, and when
// pgid's triggers on it last changed (xmins).
type stamp struct {
	attached, triggers string
}

// New returns a Tailer over db (see [DB]) for cfg. It does not touch the
// database: the first [Tailer.Next] checks the table.
func New[K ID, D DB](db D, cfg Config[K]) (*Tailer[K], error) {
	if cfg.Table == "" {
		return nil, fmt.Errorf("%w: Config.Table is empty", ErrConfig)
	}
	if cfg.Batch == 0 {
		cfg.Batch = 100
	}
	if cfg.Batch < 0 {
		return nil, fmt.Errorf("%w: Config.Batch %d is negative", ErrConfig, cfg.Batch)
	}
	if cfg.MinWait <= 0 {
		cfg.MinWait = 50 * time.Millisecond
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	if cfg.MaxWait < cfg.MinWait {
		return nil, fmt.Errorf("%w: Config.MaxWait %v is shorter than MinWait %v", ErrConfig, cfg.MaxWait, cfg.MinWait)
	}
	if err := dbconn.Check(conns, db); err != nil {
		return nil, err
	}
	t := &Tailer[K]{cfg: cfg, cursor: cfg.After}
	t.conn = func(ctx context.Context, f func(*pgx.Conn) error) error { return dbconn.Run(ctx, conns, db, f) }
	if !cfg.Since.IsZero() {
		if s := minAt[K](cfg.Since); compare(s, cfg.After) > 0 {
			t.cursor, t.incl = s, true
		}
	}
	return t, nil
}

// Cursor is the ID of the last row delivered (or the start position): save
// it and pass it as Config.After to resume.
func (t *Tailer[K]) Cursor() K { return t.cursor }

// Horizon is the database time below which every row that will ever
// commit had committed when the last read ran: the read returned them all
// (or a full batch of them). It never moves back. Zero until the first read
// that had one (a new Tailer waits for the transactions that were running
// before it started, unless it may see their start).
func (t *Tailer[K]) Horizon() time.Time { return t.safe }

// Next reads the next batch: at most Config.Batch rows after the cursor, in
// ID order, each committed and each delivered once by this Tailer, and
// moves the cursor to the last one. It returns no rows (and no error) when
// nothing new is safe to read yet, also while another session commits DDL
// that changes the table's partitions. It returns [ErrUnsafe] while the
// table's setup does not check every row, and [ErrBelowCursor], from then
// on, once rows may have been written below the cursor unchecked. Each row
// is its ID and row_to_json of the whole row; [Collect] reads the same
// batches as typed columns instead.
func (t *Tailer[K]) Next(ctx context.Context) ([]Row[K], error) {
	var out []Row[K]
	err := t.read(ctx, "t.id, pg_catalog.row_to_json(t)::pg_catalog.text", func(r pgx.Rows) (K, error) {
		var row Row[K]
		var js []byte
		if err := r.Scan(&row.ID, &js); err != nil {
			return row.ID, err
		}
		row.JSON = json.RawMessage(js)
		if out == nil {
			out = make([]Row[K], 0, t.cfg.Batch)
		}
		out = append(out, row)
		return row.ID, nil
	})
	return out, err
}

// Collect reads the next batch as [Tailer.Next] does, with the same
// guarantees and errors (and moves t's cursor the same way), but hands each
// row to fn as pgx.CollectRows does, with the table's own columns (SELECT
// t.*, in table order) in pgx's binary format: fn may be
// pgx.RowToStructByName[Event], pgx.RowToAddrOfStructByPos, pgx.RowToMap,
// [Values], or a function of your own. Columns decode with the connection's
// type map: a uuid or pgid.ulid column scans into a [ulidtype.ULID] field,
// a bytea or pgid.objectid column into an [objectidtype.ObjectID] or a
// []byte, jsonb into a struct, map or json.RawMessage, timestamptz into a
// time.Time, NULL into a pointer or sql.Null. In row.Values (and so
// pgx.RowToMap and [Values]) the id column is a K; other columns are what
// the type map makes of them (pgidpgx.DecodeUUIDAsULID for uuid columns).
// No JSON is made on the server. If fn fails, Collect returns its error
// and the cursor does not move.
func Collect[T any, K ID](ctx context.Context, t *Tailer[K], fn pgx.RowToFunc[T]) ([]T, error) {
	var out []T
	var row idRow[K]
	err := t.read(ctx, "t.*", func(r pgx.Rows) (K, error) {
		if err := row.bind(r); err != nil {
			return row.id, err
		}
		v, err := fn(&row)
		if err != nil {
			return row.id, err
		}
		if out == nil {
			out = make([]T, 0, t.cfg.Batch)
		}
		out = append(out, v)
		return row.id, nil
	})
	return out, err
}

// Values is a pgx.RowToFunc for [Collect] and [RunCollect] that returns a
// row's columns as pgx.Rows.Values does, with the id column as the
// Tailer's ID type.
func Values(row pgx.CollectableRow) ([]any, error) { return row.Values() }

// idRow is the row Collect hands to its pgx.RowToFunc: the current row of
// the read, whose id (column idx, decoded as K) Values reports as a K.
type idRow[K ID] struct {
	pgx.Rows
	idx int // the id column, -1 until the first row
	id  K
}

// bind makes row the current row of r and decodes its id.
func (row *idRow[K]) bind(r pgx.Rows) error {
	fds := r.FieldDescriptions()
	if row.Rows == nil {
		row.Rows, row.idx = r, -1
		for i, fd := range fds {
			if fd.Name == "id" {
				row.idx = i
				break
			}
		}
		if row.idx < 0 {
			return errors.New("the rows have no column id")
		}
	}
	fd := fds[row.idx]
	return r.Conn().TypeMap().Scan(fd.DataTypeOID, fd.Format, r.RawValues()[row.idx], &row.id)
}

// Values returns the row's values with the id as a K.
func (row *idRow[K]) Values() ([]any, error) {
	v, err := row.Rows.Values()
	if err != nil {
		return nil, err
	}
	v[row.idx] = row.id
	return v, nil
}

// read runs one read of [Tailer.Next] and [Collect] on one connection of
// t's database: the horizon, then the rows below it after the cursor,
// cols being the select list over the table (alias t). each takes one row
// and returns its ID; the cursor moves to the last one only once every row
// of the batch has been taken.
func (t *Tailer[K]) read(ctx context.Context, cols string, each func(pgx.Rows) (K, error)) error {
	if t.sb != nil {
		return t.readStandby(ctx, cols, each)
	}
	return t.conn(ctx, func(c *pgx.Conn) error {
		return t.next(ctx, c, cols, each)
	})
}

func (t *Tailer[K]) next(ctx context.Context, c *pgx.Conn, cols string, each func(pgx.Rows) (K, error)) error {
	if t.err != nil {
		return t.err
	}
	if err := t.begin(ctx, c); err != nil {
		return err
	}
	// 1. The horizon, in a statement (and transaction) of its own. A
	// horizon stays true once computed (the rows below it are all
	// committed), so after a full batch below it the next read reuses it:
	// a backlog costs one statement per batch.
	hi := minAt[K](t.safe)
	if !t.full || t.safe.IsZero() || compare(t.cursor, hi) >= 0 {
		safe, ok, err := t.poll(ctx, c)
		if safe.After(t.safe) {
			t.safe = safe
		}
		if err != nil || !ok {
			t.full = false
			return err
		}
		hi = minAt[K](t.safe)
		if compare(t.cursor, hi) >= 0 {
			t.full = false
			return nil
		}
	}
	// 2. The rows, under a snapshot taken after the horizon.
	return t.rows(ctx, c, cols, each, hi, t.rels)
}

// begin checks, at the first read, that c's database has t's table set up
// for tailing with t's kind of ID and is not a hot standby; and at every
// read, that c is outside any transaction.
func (t *Tailer[K]) begin(ctx context.Context, c *pgx.Conn) error {
	if !t.started {
		var kind string
		var lead time.Duration
		var standby bool
		if err := c.QueryRow(ctx, "SELECT relation, kind, max_lead, pg_catalog.pg_is_in_recovery() FROM pgid.tail_config($1::pg_catalog.regclass)", t.cfg.Table).
			Scan(&t.rel, &kind, &lead, &standby); err != nil {
			return wrap(t.cfg.Table, err)
		}
		if standby {
			return standbyError(t.rel, t.sb != nil)
		}
		if k, _ := dbconn.ParseKind(kind); k != kindOf[K]() {
			return fmt.Errorf("%w: %s is keyed by %s IDs, not %s", ErrKind, t.rel, kind, kindOf[K]())
		}
		t.started = true
	}
	return conns.Idle(c, "a Tailer needs a fresh snapshot for each statement")
}

// poll computes a horizon on c, the primary: the database time below which
// every row that will ever commit has committed (zero while an xid with no
// known bound runs), and checks the table's tree (t.check). ok says
// whether rows may be read below it now: not while a partition DDL is
// committing, nor before the first horizon. The lead is read again each
// time, with the writers. A lowered lead is safe at once: replacing the
// trigger waited for every transaction that had inserted under the old
// one. A raised one needs the readers stopped (docs/TAIL.md).
func (t *Tailer[K]) poll(ctx context.Context, c *pgx.Conn) (safe time.Time, ok bool, err error) {
	var w writers
	var lead time.Duration
	var l poll
	if err := c.QueryRow(ctx, "SELECT observed_at, xids, starts, max_lead, rels, names, attached, triggers, busy FROM pgid.tail_poll($1::pg_catalog.regclass)", t.cfg.Table).
		Scan(&w.at, &w.xids, &w.starts, &lead, &l.rels, &l.names, &l.attached, &l.triggers, &l.busy); err != nil {
		return time.Time{}, false, wrap(t.rel+": horizon", err)
	}
	at, ok := t.h.advance(w)
	if !ok {
		return time.Time{}, false, nil
	}
	safe = at.Add(-lead)
	if err := t.check(ctx, c, l); err != nil || l.busy {
		// busy: a partition DDL is committing; the plan of a read
		// might not scan a partition it attached. Read later.
		return safe, false, err
	}
	return safe, true, nil
}

// rows reads on c the rows after the cursor and below hi, of the
// relations rels, and moves the cursor to the last one.
func (t *Tailer[K]) rows(ctx context.Context, c *pgx.Conn, cols string, each func(pgx.Rows) (K, error), hi K, rels []uint32) error {
	op := ">"
	if t.incl {
		op = ">="
	}
	// Only from the relations the last horizon's layout holds: the rows
	// of a partition attached since then wait until t.check has seen it.
	q := "SELECT " + cols + " FROM " + t.rel + " t WHERE t.id OPERATOR(pg_catalog." + op +
		") $1 AND t.id OPERATOR(pg_catalog.<) $2 AND t.tableoid OPERATOR(pg_catalog.=) ANY ($4::pg_catalog.oid[]) ORDER BY t.id LIMIT $3"
	r, err := c.Query(ctx, q, t.cursor, hi, t.cfg.Batch, rels)
	if err != nil {
		return fmt.Errorf("tail: %s: read: %w", t.rel, err)
	}
	defer r.Close()
	n := 0
	var last K
	for r.Next() {
		if last, err = each(r); err != nil {
			return fmt.Errorf("tail: %s: read: %w", t.rel, err)
		}
		n++
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("tail: %s: read: %w", t.rel, err)
	}
	if n > 0 {
		t.cursor, t.incl = last, false
	}
	t.full = n == t.cfg.Batch
	return nil
}

// poll is the layout part of what pgid.tail_poll returns.
type poll struct {
	rels                      []uint32
	names, attached, triggers []string
	busy                      bool
}

// ErrBelowCursor: rows that no check saw may lie at or below the Tailer's
// cursor: a partition was attached holding such rows, or pgid's trigger
// was altered (disabled and enabled, replaced) since the last read. The
// Tailer returns it from then on; decide where to resume (a new Tailer
// from an older cursor re-delivers rows).
var ErrBelowCursor = errors.New("tail: rows may have been written below the cursor")

// check compares the layout of the table's tree with the one the Tailer
// saw at its previous horizon and, unless a partition DDL is committing
// (l.busy), adopts it. The first layout is taken as it is. After that, a
// relation that is new or attached again may only hold rows above the
// cursor (the reads never returned its rows, nor will a row inserted
// through its triggers sort below the horizon that preceded it); and
// pgid's triggers on a relation the Tailer knew must not have changed:
// disabled and enabled again, or replaced, between two reads, they may
// have let rows through below the cursor. Either way the Tailer stops
// with ErrBelowCursor, for good.
func (t *Tailer[K]) check(ctx context.Context, c *pgx.Conn, l poll) error {
	if l.busy {
		return nil
	}
	if len(l.names) != len(l.rels) || len(l.attached) != len(l.rels) || len(l.triggers) != len(l.rels) {
		return fmt.Errorf("tail: %s: pgid.tail_poll returned %d relations, %d names, %d stamps", t.rel, len(l.rels), len(l.names), len(l.attached))
	}
	layout := make(map[uint32]stamp, len(l.rels))
	for i, rel := range l.rels {
		now := stamp{attached: l.attached[i], triggers: l.triggers[i]}
		layout[rel] = now
		if t.layout == nil {
			continue
		}
		was, known := t.layout[rel]
		if known && was.attached == now.attached {
			if was.triggers != now.triggers {
				t.err = fmt.Errorf("%w: %s: pgid's triggers (zzz_pgid_tail, zzz_pgid_tail_update) on %s were altered since the last read (disabled and enabled again, "+
					"or replaced by pgid.tail_enable): rows written meanwhile may not have been checked and may lie below the "+
					"cursor %v; resume from a cursor you choose (a new Tailer delivers everything after it)", ErrBelowCursor, t.rel, l.names[i], t.cursor)
				return t.err
			}
			continue
		}
		var below bool
		if err := c.QueryRow(ctx, "SELECT pgid.tail_below($1::pg_catalog.regclass, $2::pg_catalog.oid::pg_catalog.regclass, $3::pg_catalog."+sqlType[K]()+", $4::pg_catalog.bool)",
			t.cfg.Table, rel, t.cursor, !t.incl).Scan(&below); err != nil {
			return wrap(t.rel+": partition "+l.names[i], err)
		}
		if below {
			t.err = fmt.Errorf("%w: %s: partition %s was attached holding rows at or below the cursor %v, which no read "+
				"returned and none will (ATTACH PARTITION does not run triggers); resume from a cursor you choose "+
				"(a new Tailer delivers everything after it), or attach only rows newer than the readers' cursors",
				ErrBelowCursor, t.rel, l.names[i], t.cursor)
			return t.err
		}
	}
	t.layout, t.rels = layout, l.rels
	return nil
}

// sqlType is the SQL type of K.
func sqlType[K ID]() string { return kindOf[K]().SQLType() }

// Run reads batch after batch and hands each to handle until ctx ends or
// handle fails; it returns ctx's error or handle's. The cursor moves past a
// batch only when handle returns nil, so a failed batch is delivered again
// by the next Next or Run. Between empty reads it waits from MinWait,
// doubling up to MaxWait; errors reading the database are returned.
func (t *Tailer[K]) Run(ctx context.Context, handle func(context.Context, []Row[K]) error) error {
	return run(ctx, t, t.Next, handle)
}

// RunCollect is [Tailer.Run] with the batches of [Collect]: it reads
// batch after batch, each row made by fn, and hands each batch to handle
// until ctx ends or handle fails, moving t's cursor past a batch only when
// handle returns nil ([Tailer.Cursor] is the batch's last ID while handle
// runs).
func RunCollect[T any, K ID](ctx context.Context, t *Tailer[K], fn pgx.RowToFunc[T], handle func(context.Context, []T) error) error {
	return run(ctx, t, func(ctx context.Context) ([]T, error) { return Collect(ctx, t, fn) }, handle)
}

// run is Run over the batches next reads.
func run[T any, K ID](ctx context.Context, t *Tailer[K], next func(context.Context) ([]T, error), handle func(context.Context, []T) error) error {
	wait := t.cfg.MinWait
	for {
		cur, incl := t.cursor, t.incl
		rows, err := next(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if len(rows) > 0 {
			if err := handle(ctx, rows); err != nil {
				t.cursor, t.incl = cur, incl
				return err
			}
			wait = t.cfg.MinWait
			if len(rows) == t.cfg.Batch {
				continue
			}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		if len(rows) == 0 {
			wait = min(2*wait, t.cfg.MaxWait)
		}
	}
}

// compare orders two IDs of the same type by their bytes.
func compare[K ID](a, b K) int {
	switch x := any(a).(type) {
	case ulidtype.ULID:
		return x.Compare(any(b).(ulidtype.ULID))
	case objectidtype.ObjectID:
		return x.Compare(any(b).(objectidtype.ObjectID))
	}
	return 0
}
