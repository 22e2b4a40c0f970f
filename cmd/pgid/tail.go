package main

import (
	"bytes"
	"context"
	"encoding/hex"
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
	cols, err := idColumns(ctx, r.conn, r.table)
	if err != nil {
		return err
	}
	r.cols = cols
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
	cols  map[string]string // the columns printed as IDs, see idColumns
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
		return printTail(r.e.stdout, rows, r.json, at, r.cols)
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

// printTail writes rows: "ID  time  row" lines, or JSON lines. In the row,
// the id column is the text of the row's ID, and each column of cols holds
// its IDs in their text form (see idColumns).
func printTail[K tail.ID](w io.Writer, rows []tail.Row[K], asJSON bool, at func(K) time.Time, cols map[string]string) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, row := range rows {
		id := fmt.Sprint(row.ID)
		js := rowIDText(row.JSON, id, cols)
		if asJSON {
			if err := enc.Encode(tailLine{ID: id, Time: fmtTime(at(row.ID)), Row: js}); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintf(w, "%s  %s  %s\n", id, fmtTime(at(row.ID)), js); err != nil {
			return err
		}
	}
	return nil
}

// idColumnsSQL lists the columns of a table whose type is pgid.ulid or
// pgid.objectid, a domain over one of them, or an array of one of these,
// with the kind of ID they hold.
const idColumnsSQL = `WITH RECURSIVE k(oid, kind) AS (
    VALUES ('pgid.ulid'::pg_catalog.regtype::pg_catalog.oid, 'ulid'),
           ('pgid.objectid'::pg_catalog.regtype::pg_catalog.oid, 'objectid')
  UNION
    SELECT t.oid, k.kind FROM pg_catalog.pg_type t JOIN k
        ON t.typbasetype OPERATOR(pg_catalog.=) k.oid
        OR (t.typelem OPERATOR(pg_catalog.=) k.oid AND t.typcategory OPERATOR(pg_catalog.=) 'A'))
SELECT a.attname::pg_catalog.text, k.kind FROM pg_catalog.pg_attribute a JOIN k ON k.oid OPERATOR(pg_catalog.=) a.atttypid
 WHERE a.attrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass
   AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped`

// idColumns returns the columns of table that tail prints as IDs, by name,
// with their kind ("ulid" or "objectid"): those of type pgid.ulid or
// pgid.objectid (or a domain over one, or an array of one). Plain uuid and
// bytea columns other than id may hold anything and stay as they are.
func idColumns(ctx context.Context, conn *pgx.Conn, table string) (map[string]string, error) {
	rows, err := conn.Query(ctx, idColumnsSQL, table)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its column types: %w", table, err)
	}
	cols := map[string]string{}
	var name, kind string
	_, err = pgx.ForEachRow(rows, []any{&name, &kind}, func() error {
		cols[name] = kind
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: reading its column types: %w", table, err)
	}
	return cols, nil
}

// rowIDText returns row (row_to_json of a row, keys in column order) with
// its "id" set to id and each ID in a column of cols in its text form: a
// ULID's 26 characters instead of the UUID text, an ObjectId's 24 hex
// digits instead of the bytea text (hex or escape format). Values that are
// none of these, and the other columns, stay as they are.
func rowIDText(row json.RawMessage, id string, cols map[string]string) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(row))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return row
	}
	out := make([]byte, 1, len(row)+16)
	out[0] = '{'
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			return row
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(appendJSONString(out, key), ':')
		switch {
		case key == "id":
			out = appendJSONString(out, id)
		case cols[key] != "":
			out = appendIDText(out, v, cols[key])
		default:
			out = append(out, v...)
		}
	}
	return append(out, '}')
}

// appendIDText appends v, a JSON string, null or (nested) array of them,
// with each string that is an ID of kind in its text form.
func appendIDText(dst []byte, v json.RawMessage, kind string) []byte {
	switch {
	case len(v) > 0 && v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			if t, ok := idText(s, kind); ok {
				return appendJSONString(dst, t)
			}
		}
	case len(v) > 0 && v[0] == '[':
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) == nil {
			dst = append(dst, '[')
			for i, e := range elems {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendIDText(dst, e, kind)
			}
			return append(dst, ']')
		}
	}
	return append(dst, v...)
}

// idText returns the text form of s, PostgreSQL's text of a uuid (kind
// "ulid") or a bytea (kind "objectid").
func idText(s, kind string) (string, bool) {
	if kind == "ulid" {
		u, err := ulidtype.Parse(s)
		return u.String(), err == nil
	}
	b, ok := byteaText(s)
	if !ok {
		return "", false
	}
	o, err := objectidtype.FromBytes(b)
	return o.String(), err == nil
}

// byteaText decodes PostgreSQL's text of a bytea, in the hex format (\x...)
// or the escape format (\ooo for a byte outside printable ASCII, \\ for
// a backslash), as bytea_output sets it.
func byteaText(s string) ([]byte, bool) {
	if len(s) >= 2 && s[:2] == `\x` {
		b, err := hex.DecodeString(s[2:])
		return b, err == nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '\\':
			b = append(b, s[i])
		case i+1 < len(s) && s[i+1] == '\\':
			b = append(b, '\\')
			i++
		case i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			b = append(b, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, false
		}
	}
	return b, true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// appendJSONString appends s as a JSON string, without escaping HTML
// characters (as PostgreSQL's row_to_json).
func appendJSONString(dst []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}
