package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// ---- migrate

func cmdMigrate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "migrate")
	dbURL := fs.String("database-url", "", "the database to migrate (default $DATABASE_URL)")
	asJSON := fs.Bool("json", false, `print {"database", "direction", "from_version", "to_version"}; for status {"database", "version", "latest", "pending", "tern_era", "functions_checksum", "functions_current", "unknown", "trusted", "untrusted", "missing", "error", "outside", "lacks", "extra"}`)
	pos, err := parse(e, fs, args)
	if err != nil {
		return err
	}
	dir := "up"
	switch len(pos) {
	case 0:
	case 1:
		dir = pos[0]
		if dir != "up" && dir != "down" && dir != "status" {
			return usagef("unknown direction %q: want up, down or status", dir)
		}
	default:
		return usagef("want at most one argument, up, down or status; got %d", len(pos))
	}
	conn, err := connectURL(ctx, e, "migrate", *dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	cfg := conn.Config()
	if dir == "status" {
		st, err := migrations.ReadStatus(ctx, conn)
		if err != nil {
			return err
		}
		return printStatus(e, cfg.Database, st, *asJSON)
	}
	before, err := migrations.Version(ctx, conn)
	if err != nil {
		return err
	}
	// What was recorded before, to tell "nothing to do" from a run that
	// re-applied the functions or adopted a tern-era database at the same
	// version.
	was, err := migrations.ReadStatus(ctx, conn)
	if err != nil {
		return err
	}
	if dir == "up" {
		err = migrations.Up(ctx, conn)
	} else {
		err = migrations.Down(ctx, conn)
	}
	if err != nil {
		return err
	}
	after, err := migrations.Version(ctx, conn)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, map[string]any{"database": cfg.Database, "direction": dir, "from_version": before, "to_version": after})
	}
	now, err := migrations.ReadStatus(ctx, conn)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("migrate %s: database %s on %s:%d", dir, cfg.Database, cfg.Host, cfg.Port)
	if before == after && was.Tern == now.Tern && was.Functions == now.Functions && was.FunctionsCurrent == now.FunctionsCurrent {
		if dir == "up" {
			fmt.Fprintf(e.stdout, "%s, version %d, up to date (nothing to apply)\n", where, after)
		} else {
			fmt.Fprintf(e.stdout, "%s, version %d (nothing to remove)\n", where, after)
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "%s, version %d -> %d (%d migrations, recorded in %s)\n",
		where, before, after, migrations.Latest(), migrations.VersionTable)
	return nil
}

// printStatus prints what migrate status read: the versioned files
// applied, whether the function definitions are this pgid's, and anything
// pending. When up would refuse the database (st.Err) it says so and returns
// that error, so that status exits 1 as up does.
func printStatus(e *env, database string, st migrations.Status, asJSON bool) error {
	functions := "current"
	switch {
	case len(st.Untrusted) > 0:
		functions = "not read"
	case st.Functions == "":
		functions = "none recorded"
	case !st.FunctionsCurrent && st.Functions == migrations.FunctionsChecksum():
		functions = "this pgid's, installed for another PostgreSQL version (pg_upgrade or a restore): up installs them again"
	case !st.FunctionsCurrent:
		functions = "not this pgid's: up re-applies them if they are older, leaves them if a newer pgid wrote them"
	case st.Err != nil:
		functions = "recorded as current, but up refuses the database"
	}
	pending := max(migrations.Latest()-st.Version, 0)
	if asJSON {
		var problem any
		if st.Err != nil {
			problem = message("migrate", st.Err)
		}
		if err := writeJSON(e.stdout, map[string]any{
			"database": database, "version": st.Version, "latest": migrations.Latest(), "pending": pending,
			"tern_era": st.Tern, "functions_checksum": st.Functions, "functions_current": st.FunctionsCurrent,
			"unknown": st.Unknown, "trusted": len(st.Untrusted) == 0, "untrusted": st.Untrusted,
			"missing": st.Missing, "error": problem,
			"outside": st.Outside, "lacks": st.Lacks, "extra": st.Extra,
		}); err != nil {
			return err
		}
		return st.Err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "database\t%s\n", database)
	if st.Outside {
		printOutside(tw, st)
		return tw.Flush()
	}
	if len(st.Untrusted) > 0 {
		fmt.Fprintf(tw, "version\tnot read\n")
	} else {
		fmt.Fprintf(tw, "version\t%d of %d (%d to apply)\n", st.Version, migrations.Latest(), pending)
	}
	fmt.Fprintf(tw, "functions\t%s\n", functions)
	if st.Tern {
		fmt.Fprintf(tw, "tern era\tyes: the owner's up adopts %s once, re-running nothing\n", migrations.TernVersionTable)
	}
	if len(st.Unknown) > 0 {
		fmt.Fprintf(tw, "unknown\t%s (applied by a newer pgid)\n", strings.Join(st.Unknown, ", "))
	}
	switch {
	case len(st.Untrusted) > 0:
		fmt.Fprintf(tw, "problem\tnot trustworthy: %s; up and down refuse it (stderr says how to fix it)\n", strings.Join(st.Untrusted, ", "))
	case len(st.Missing) > 0:
		fmt.Fprintf(tw, "problem\tnot trustworthy: recorded as applied but missing: %s; up refuses it (stderr says how to fix it)\n", strings.Join(st.Missing, ", "))
	case st.Err != nil:
		fmt.Fprintf(tw, "problem\tup refuses the database: the recorded migrations are not the released ones (stderr says which)\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return st.Err
}

// printOutside prints the status of a schema pgid that no version table
// records: applied outside pgid's runner (`pgid schema` through another
// migration tool).
func printOutside(tw io.Writer, st migrations.Status) {
	fmt.Fprintf(tw, "version\tnot recorded: schema pgid is present, applied outside pgid's runner (no %s; `pgid schema` through another migration tool?)\n", migrations.VersionTable)
	if len(st.Lacks) == 0 && len(st.Extra) == 0 {
		fmt.Fprintf(tw, "schema\tcurrent: every domain and function of this pgid (version %d), nothing more (by name and arguments)\n", migrations.Latest())
	} else {
		var diff []string
		if len(st.Lacks) > 0 {
			diff = append(diff, "lacks "+strings.Join(st.Lacks, ", "))
		}
		if len(st.Extra) > 0 {
			diff = append(diff, "has "+strings.Join(st.Extra, ", ")+", which this pgid does not define")
		}
		fmt.Fprintf(tw, "schema\tnot this pgid's (an older or newer pgid's `pgid schema`?): %s\n", strings.Join(diff, "; "))
	}
	fmt.Fprintf(tw, "functions\tnot recorded\n")
	fmt.Fprintf(tw, "up\twould run the %d versioned files again (each skips what exists) and this pgid's function definitions, "+
		"then record version %d in %s; from then on, upgrade with up, not with a new `pgid schema` file\n",
		migrations.Latest(), migrations.Latest(), migrations.VersionTable)
}

// connectURL connects to the database of --database-url (flagValue), else
// $DATABASE_URL. Commands that change a database never start a server of
// their own: without either it is a usage error.
func connectURL(ctx context.Context, e *env, command, flagValue string) (*pgx.Conn, error) {
	dsn := flagValue
	if dsn == "" {
		dsn = e.getenv("DATABASE_URL")
	}
	if dsn == "" {
		return nil, usagef("which database? Give --database-url or set DATABASE_URL (%s never starts a server of its own)", command)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, usagef("--database-url: %v", err)
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// dbFlag adds --database-url to fs, for connectURL.
func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("database-url", "", "the database (default $DATABASE_URL)")
}

// withDB connects as connectURL does, runs f on the connection and closes
// it.
func withDB(ctx context.Context, e *env, command, flagValue string, f func(*pgx.Conn) error) error {
	conn, err := connectURL(ctx, e, command, flagValue)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return f(conn)
}

// ---- demo

func cmdDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo")
	dbURL := fs.String("database-url", "", "the server to use (default $DATABASE_URL, then the docker-compose DSN, then an embedded PostgreSQL)")
	rows := fs.Int("rows", 200_000, "rows per key kind")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if *rows < 1000 {
		return usagef("--rows %d: want at least 1000", *rows)
	}
	began := time.Now()
	out := e.stdout
	progress := newProgress(e.stderr)

	fmt.Fprintln(out, "pgid demo: time-ordered keys in PostgreSQL, end to end")
	s, err := pgserver.Find(ctx, pgserver.Options{
		DatabaseURL: *dbURL,
		Getenv:      e.getenv,
		Embedded:    pgserver.EmbeddedOptions{Logf: progress.logf, Getenv: e.getenv},
	})
	if err != nil {
		return err
	}
	defer func() {
		if err := s.Close(); err != nil {
			fmt.Fprintln(e.stderr, "pgid demo: stop server:", err)
		}
	}()
	fmt.Fprintf(out, "server    %s\n", s.Description)

	admin, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	b := make([]byte, 4)
	rand.Read(b)
	name := "pgid_demo_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return fmt.Errorf("create the scratch database (the role needs CREATEDB): %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(dctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(e.stderr, "pgid demo: drop database %s: %v\n", name, err)
		}
	}()
	cfg := admin.Config().Copy()
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := migrations.Up(ctx, conn); err != nil {
		return err
	}
	if err := pgidpgx.AfterConnect(ctx, conn); err != nil {
		return err
	}
	fmt.Fprintf(out, "database  %s (scratch, dropped at the end), pgid migrations applied\n\n", name)

	d := &demo{conn: conn, out: out, progress: progress, rows: *rows, getenv: e.getenv}
	if err := d.load(ctx); err != nil {
		return err
	}
	if err := d.window(ctx); err != nil {
		return err
	}
	if err := d.shortener(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "\ndone in %.1f s; database %s dropped", time.Since(began).Seconds(), name)
	if s.Via == pgserver.ViaEmbedded {
		fmt.Fprint(out, ", embedded server stopped and removed")
	}
	fmt.Fprintln(out)
	return nil
}

type demo struct {
	getenv   func(string) string
	conn     *pgx.Conn
	out      io.Writer
	progress *progress
	rows     int
	span     time.Duration // the simulated creation times span this much
	end      time.Time     // up to now
}

// keyStats is one column of the comparison table.
type keyStats struct {
	load      time.Duration
	indexSize int64
	leafFill  string
}

const batch = 10_000

func (d *demo) load(ctx context.Context) error {
	for _, sql := range []string{
		"CREATE TABLE ulid_keys (id pgid.ulid PRIMARY KEY, n int NOT NULL)",
		"CREATE TABLE uuid_keys (id uuid PRIMARY KEY, n int NOT NULL)",
	} {
		if _, err := d.conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	fmt.Fprintf(d.out, "loading %s rows per key kind with CopyFrom, %s per batch\n", thousands(int64(d.rows)), thousands(batch))

	// The ULIDs carry simulated creation times: one row every 3 s up to
	// now, as a table that has been written to for a while. The Generator
	// takes the clock, so this is the library's real generation path.
	d.span = time.Duration(d.rows) * 3 * time.Second
	d.end = time.Now()
	tick := d.end.Add(-d.span)
	gen := ulidtype.NewGenerator(func() time.Time { tick = tick.Add(3 * time.Second); return tick }, rand.Reader)
	ulidRow := func(i int) []any { return []any{gen.New(), i} }
	uuid.EnableRandPool()
	uuidRow := func(i int) []any { return []any{uuid.New(), i} }

	var stats [2]keyStats
	for k, t := range []struct {
		table, label string
		row          func(int) []any
	}{{"ulid_keys", "ULID keys  ", ulidRow}, {"uuid_keys", "UUIDv4 keys", uuidRow}} {
		start := time.Now()
		for from := 0; from < d.rows; from += batch {
			to := min(from+batch, d.rows)
			rows := make([][]any, 0, to-from)
			for i := from; i < to; i++ {
				rows = append(rows, t.row(i))
			}
			if _, err := d.conn.CopyFrom(ctx, pgx.Identifier{t.table}, []string{"id", "n"}, pgx.CopyFromRows(rows)); err != nil {
				return err
			}
			d.progress.update("  %s %s / %s", t.label, thousands(int64(to)), thousands(int64(d.rows)))
		}
		stats[k].load = time.Since(start)
		d.progress.done()
		if err := d.conn.QueryRow(ctx, "SELECT pg_relation_size($1::regclass)", t.table+"_pkey").Scan(&stats[k].indexSize); err != nil {
			return err
		}
	}
	if _, err := d.conn.Exec(ctx, "ANALYZE ulid_keys, uuid_keys"); err != nil {
		return err
	}

	// Leaf fill: how full the B-tree's leaf pages are, from pgstattuple.
	note := ""
	if _, err := d.conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pgstattuple"); err != nil {
		note = "leaf fill needs the pgstattuple extension (contrib), which this server lacks: " + firstLine(err.Error())
		stats[0].leafFill, stats[1].leafFill = "n/a", "n/a"
	} else {
		for k, t := range []string{"ulid_keys_pkey", "uuid_keys_pkey"} {
			var fill float64
			if err := d.conn.QueryRow(ctx, "SELECT avg_leaf_density FROM pgstatindex($1)", t).Scan(&fill); err != nil {
				return err
			}
			stats[k].leafFill = fmt.Sprintf("%.1f %%", fill)
		}
	}
	fmt.Fprintf(d.out, "\n%-27s %-18s %s\n", "", "ULID (pgid.ulid)", "UUIDv4 (uuid)")
	fmt.Fprintf(d.out, "%-27s %-18s %s\n", "load time (generate+copy)", fmt.Sprintf("%.2f s", stats[0].load.Seconds()), fmt.Sprintf("%.2f s", stats[1].load.Seconds()))
	fmt.Fprintf(d.out, "%-27s %-18s %s\n", "primary key index size", mb(stats[0].indexSize), mb(stats[1].indexSize))
	fmt.Fprintf(d.out, "%-27s %-18s %s\n", "index leaf fill", stats[0].leafFill, stats[1].leafFill)
	if note != "" {
		fmt.Fprintln(d.out, "note: "+note)
	} else {
		fmt.Fprintln(d.out, "(ULIDs append at the right edge of the index; random UUIDv4s split pages all over it)")
	}
	return nil
}

// window counts the rows created in the last hour by ID bounds alone.
func (d *demo) window(ctx context.Context) error {
	from := d.end.Add(-time.Hour)
	lo := ulidtype.Since(from) // open at the top: the newest rows are in
	q := "SELECT count(*), sum(n) FROM ulid_keys WHERE id >= $1"
	fmt.Fprintf(d.out, "\ntime window: ULID rows created in the last hour, by primary key bounds only\n")
	fmt.Fprintf(d.out, "  ulidtype.Since(%s)\n", fmtTime(from))
	fmt.Fprintf(d.out, "  WHERE id >= '%s'\n", lo.UUIDString())
	var n int64
	var sum *int64
	start := time.Now()
	if err := d.conn.QueryRow(ctx, q, lo).Scan(&n, &sum); err != nil {
		return err
	}
	took := time.Since(start)
	rows, err := d.conn.Query(ctx, "EXPLAIN (COSTS OFF) "+q, lo)
	if err != nil {
		return err
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	scan := "(no index scan in the plan: " + strings.Join(plan, " / ") + ")"
	for _, line := range plan {
		if strings.Contains(line, "Index") && strings.Contains(line, "Scan") {
			scan = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "->"))
			break
		}
	}
	fmt.Fprintf(d.out, "  %-6s %s of %s (one every 3 s over %.1f days) in %.1f ms\n", "rows", thousands(n), thousands(int64(d.rows)), d.span.Hours()/24, float64(took.Microseconds())/1000)
	fmt.Fprintf(d.out, "  %-6s %s\n", "plan", scan)
	fmt.Fprintln(d.out, "  (a UUIDv4 key needs a created_at column and a second index for this)")
	return nil
}

// shortener stores links under ObjectIds and looks one up by its public
// code: keyed and opaque (package opaque), decoded in Go so the key never
// reaches SQL.
func (d *demo) shortener(ctx context.Context) error {
	codec, keyNote, err := demoCodec(d.getenv)
	if err != nil {
		return err
	}
	if _, err := d.conn.Exec(ctx, "CREATE TABLE links (id pgid.objectid PRIMARY KEY, url text NOT NULL)"); err != nil {
		return err
	}
	ids := make([]objectidtype.ObjectID, 3)
	objectidtype.Fill(ids)
	long := "https://example.com/docs/getting-started?utm_source=newsletter&utm_campaign=pgid"
	for i, id := range ids {
		if _, err := d.conn.Exec(ctx, "INSERT INTO links (id, url) VALUES ($1, $2)", id, fmt.Sprintf("%s&n=%d", long, i)); err != nil {
			return err
		}
	}
	id := ids[0]
	code := codec.ObjectIDCode(id)
	// The edge of the API: code in, ID out, in Go.
	lookup, err := codec.OpenObjectID(code)
	if err != nil {
		return err
	}
	var url, hexID string
	var created time.Time
	var got objectidtype.ObjectID
	err = d.conn.QueryRow(ctx,
		"SELECT id, url, pgid.objectid_to_hex(id::pg_catalog.bytea), pgid.objectid_time(id::pg_catalog.bytea) FROM links WHERE id = $1",
		lookup).Scan(&got, &url, &hexID, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("link %s not found by its code", code)
	} else if err != nil {
		return err
	}
	if got != id {
		return fmt.Errorf("looked up %s, got %s", id, got)
	}
	fmt.Fprintf(d.out, "\nlink shortener: public codes are keyed and opaque (package opaque: FF1 with AES, %s)\n", keyNote)
	if hexID != id.String() {
		return fmt.Errorf("pgid.objectid_to_hex gives %s for %s", hexID, id)
	}
	fmt.Fprintf(d.out, "  %-8s %s (hex; 12 bytes in a pgid.objectid column)\n", "id", hexID)
	fmt.Fprintf(d.out, "  %-8s https://sho.rt/%s -> %s\n", "link", code, url)
	fmt.Fprintf(d.out, "  %-8s codec.OpenObjectID(%q) in Go, then WHERE id = $1: found, created %s\n", "lookup", code, fmtTime(created))
	fmt.Fprintf(d.out, "  %-8s three consecutive ObjectIds:\n", "next")
	for _, id := range ids {
		fmt.Fprintf(d.out, "  %-8s   %s  short form %s  code %s\n", "", id, id.Short(), codec.ObjectIDCode(id))
	}
	fmt.Fprintf(d.out, "  %-8s (short forms differ in their last characters and carry the time; codes share nothing)\n", "")
	return nil
}

// demoCodec returns the codec for the demo's links: $PGID_OPAQUE_KEYS, or
// a random key for this run.
func demoCodec(getenv func(string) string) (*opaque.Codec, string, error) {
	if text := getenv(envKeys); text != "" {
		cur, older, err := opaque.ParseKeys(strings.ReplaceAll(text, ",", "\n"))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", envKeys, err)
		}
		c, err := opaque.NewCodec(cur, older...)
		return c, "key from " + envKeys, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	c, err := opaque.NewCodec(opaque.NewKey(0, secret))
	return c, "a random key for this run; a service reads its own, see pgid new-key", err
}

// progress writes loading progress to stderr: in place on a terminal,
// otherwise at each quarter.
type progress struct {
	w    io.Writer
	tty  bool
	last string
	n    int
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) update(format string, args ...any) {
	p.last = fmt.Sprintf(format, args...)
	p.n++
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", p.last)
	} else if p.n%5 == 0 {
		fmt.Fprintln(p.w, p.last)
	}
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintf(p.w, "\r%s\n", p.last)
	} else if p.n%5 != 0 {
		fmt.Fprintln(p.w, p.last)
	}
	p.n = 0
}

func (p *progress) logf(format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
