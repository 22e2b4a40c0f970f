package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// ---- tail

// tailLine is what tail --json prints for each row.
type tailLine struct {
	ID   string          `json:"id"`
	Time string          `json:"time"`
	Row  json.RawMessage `json:"row"`
}

func cmdTail(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tail")
	dbURL := dbFlag(fs)
	table := fs.String("table", "", "the table, as SQL names it (events, app.events), set up with pgid.tail_enable or --enable")
	since := fs.String("since", "", "start after this ID, or at this time (RFC 3339, a date, now, or -1h); default the first row")
	enable := fs.Duration("enable", 0, "first set the table up for tailing with this maximum lead (2s); needs the table's owner")
	batch := fs.Int("batch", 100, "rows per read")
	poll := fs.Duration("poll", 50*time.Millisecond, "pause after a read that found nothing (doubling up to 1s)")
	asJSON := fs.Bool("json", false, `print one {"id", "time", "row"} object per line`)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := required("table", *table); err != nil {
		return err
	}
	if *batch < 1 {
		return usagef("--batch %d: want at least 1", *batch)
	}
	if *poll <= 0 || *poll > time.Second {
		return usagef("--poll %v: want more than 0 and at most 1s", *poll)
	}
	return withDB(ctx, e, "tail", *dbURL, func(conn *pgx.Conn) error {
		r := tailRun{e: e, conn: conn, table: *table, batch: *batch, poll: *poll, json: *asJSON}
		return r.start(ctx, *enable, *since)
	})
}

// start sets r.table up for tailing first if enable is not 0, then tails
// it with IDs of its kind from since until ctx ends.
func (r tailRun) start(ctx context.Context, enable time.Duration, since string) error {
	if enable != 0 {
		if err := tail.Enable(ctx, r.conn, r.table, enable); err != nil {
			if errors.Is(err, tail.ErrConfig) {
				return usageError{err}
			}
			return err
		}
	}
	var kind string
	if err := r.conn.QueryRow(ctx, "SELECT kind FROM pgid.tail_config($1::pg_catalog.regclass)", r.table).Scan(&kind); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == tail.CodeNotEnabled {
			return fmt.Errorf("%s is not set up for tailing: run pgid tail --enable 2s (as its owner), or SELECT pgid.tail_enable('%s', '2 s'): %w", r.table, r.table, err)
		}
		if errors.As(err, &pe) && pe.Code == tail.CodeUnsafe {
			return fmt.Errorf("%s cannot be tailed safely: %w\n%s", r.table, err, pe.Hint)
		}
		return err
	}
	if kind == "ulid" {
		return tailKind(ctx, r, since, ulidtype.Parse, ulidtype.ULID.Timestamp)
	}
	return tailKind(ctx, r, since, objectidtype.Parse, objectidtype.ObjectID.Timestamp)
}

// tailRun is what tailKind needs besides the ID type.
type tailRun struct {
	e     *env
	conn  *pgx.Conn
	table string
	batch int
	poll  time.Duration
	json  bool
}

// tailKind tails with IDs of type K, starting at since (an ID of the
// table's kind or a time), until ctx ends.
func tailKind[K tail.ID](ctx context.Context, r tailRun, since string, parseID func(string) (K, error), at func(K) time.Time) error {
	cfg := tail.Config[K]{Table: r.table, Batch: r.batch, MinWait: r.poll, MaxWait: max(r.poll, time.Second)}
	if since != "" {
		if id, err := parseID(since); err == nil {
			cfg.After = id
		} else if _, aerr := parseAny(since); aerr == nil {
			return usagef("--since %s is an ID of the other kind; %s is keyed by %T", since, r.table, cfg.After)
		} else if t, terr := parseWhen(since, time.Now()); terr == nil {
			cfg.Since = t
		} else {
			return usagef("--since %q: neither an ID of the table's kind (%v) nor a time (%v)", since, err, terr)
		}
	}
	tl, err := tail.New(r.conn, cfg)
	if err != nil {
		return err
	}
	err = tl.Run(ctx, func(_ context.Context, rows []tail.Row[K]) error {
		return printTail(r.e.stdout, rows, r.json, at)
	})
	if errors.Is(err, context.Canceled) {
		var zero K
		if c := tl.Cursor(); c != zero {
			fmt.Fprintf(r.e.stderr, "pgid tail: stopped; resume with --since %v\n", c)
		}
		return nil
	}
	if errors.Is(err, tail.ErrBelowCursor) || errors.Is(err, tail.ErrUnsafe) {
		var zero K
		if c := tl.Cursor(); c != zero {
			fmt.Fprintf(r.e.stderr, "pgid tail: stopped after %v\n", c)
		}
	}
	return err
}

// printTail writes rows: "ID  time  row" lines, or JSON lines.
func printTail[K tail.ID](w io.Writer, rows []tail.Row[K], asJSON bool, at func(K) time.Time) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, row := range rows {
		id := fmt.Sprint(row.ID)
		if asJSON {
			if err := enc.Encode(tailLine{ID: id, Time: fmtTime(at(row.ID)), Row: row.JSON}); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(w, "%s  %s  %s\n", id, fmtTime(at(row.ID)), row.JSON); err != nil {
			return err
		}
	}
	return nil
}
