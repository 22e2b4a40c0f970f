// Package migrations installs the PostgreSQL side of pgid: schema pgid with
// the domains pgid.ulid (uuid) and pgid.objectid (12-byte bytea), and SQL
// functions to read an ID's time, convert between its text forms, build
// range bounds from a timestamptz and generate IDs for DEFAULT clauses.
//
// The migrations are plain SQL files embedded in [FS] and applied with
// github.com/jackc/tern/v2 (its migrate package): [Up] brings a database to
// the latest version, [Down] removes everything again. tern runs each file in
// a transaction and serialises concurrent runs with an advisory lock, the
// same lock for every tern migrator of the database (see [LockKey]); [Up] and
// [Down] wait for it at most [DefaultLockWait] (or [WithLockWait]) and then
// return [ErrLocked].
//
// tern runs RESET ALL on the connection after each migration it applies. [Up]
// and [Down] put back every setting the session had changed with SET
// (search_path, statement_timeout, TimeZone, application_name, ...; not
// custom settings such as myapp.x, see [Up]), so a pooled connection comes
// back as it was lent.
//
// Each file's forward part is idempotent (CREATE ... IF NOT EXISTS, CREATE OR
// REPLACE, a DO block for the domains), so it may also be run by hand, e.g.
// with psql, on a database that already has it.
//
// # Roles
//
// The migrations belong to the database owner (or a role that owns schema
// pgid and may create tables in schema public). They grant USAGE on schema
// pgid and its domains, EXECUTE on its functions and SELECT on
// [VersionTable] to PUBLIC, so any other role can use the domains in its own
// tables, call every function, and run [Up] when there is nothing to do. [Up]
// with migrations to apply fails for such a role with [ErrNotOwner]. To limit
// pgid to some roles, REVOKE those grants from PUBLIC and grant them to the
// roles.
//
// # Functions
//
// ULID (argument and result uuid, so pgid.ulid columns fit directly):
// pgid.ulid_time, pgid.ulid_to_text, pgid.ulid_from_text, pgid.ulid_min_at,
// pgid.ulid_max_at, pgid.gen_ulid, and for ULIDs that are also UUIDv7
// (ulidtype.LayoutV7) pgid.gen_ulid_v7 and pgid.ulid_is_v7. ObjectId
// (bytea): pgid.objectid_time,
// pgid.objectid_to_hex, pgid.objectid_from_hex, pgid.objectid_to_short,
// pgid.objectid_from_short, pgid.objectid_min_at, pgid.objectid_max_at,
// pgid.gen_objectid. Names starting with an underscore (pgid._parse_error,
// pgid._crockford_pairs) are internal helpers of these, not API.
//
// # Search path
//
// No function depends on the caller's search_path: the SQL functions have
// SQL-standard bodies (RETURN ..., so PostgreSQL 14 or newer), bound when the
// migration creates them under a search_path of pg_catalog only; the plpgsql
// parsers qualify every name and operator. A role that may create objects in
// a schema on a caller's search_path cannot redirect any call inside them.
// Migrations applied by hand must run each file in one transaction (psql
// --single-transaction), since each file sets its search_path with SET LOCAL.
//
// Conversion and bound functions are IMMUTABLE STRICT PARALLEL SAFE and agree
// with the Go packages on every input (the integration tests check it), so
//
//	WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2)
//
// is answered by a range scan of the primary key, also with generic plans.
// Bad text raises SQLSTATE 22P02 (invalid_text_representation) with a message
// naming the length, or the character and its 0-based position, or the
// overflow. Lengths and positions count bytes of the UTF-8 text, as Go does,
// so a string with a multibyte character fails the same way in SQL and in
// Go, and the input is quoted as Go's strconv.Quote quotes it (a newline
// shows as \n). Text the server itself refuses never reaches the functions
// and fails with another SQLSTATE: a NUL byte with 22021
// (character_not_in_repertoire) as a bound parameter and with 08P01
// (protocol_violation) inside the query text of the simple protocol, invalid
// UTF-8 with 22021.
//
// pgid.gen_ulid, pgid.gen_ulid_v7 and pgid.gen_objectid exist for DEFAULT
// clauses and ad-hoc SQL. They are not monotonic: two IDs from the same
// millisecond (ULID) or second (ObjectId) are ordered at random, within one
// backend and across backends. Generate keys in Go with ulidtype.New /
// objectidtype.New, which are strictly increasing within a process. On
// PostgreSQL 18, uuidv7() makes ULIDs of the UUIDv7 layout too, monotonic
// within a backend; it does not exist before 18.
package migrations

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/tern/v2/migrate"
)

// FS holds the migrations, named NNN_description.sql as tern expects. The
// forward SQL of each file is above the line
// "---- create above / drop below ----" and the reverse SQL below it.
//
//go:embed *.sql
var FS embed.FS

// VersionTable is the table in which tern records the applied version.
//
// It lives in schema public, not in pgid: tern creates it before the first
// migration runs (so schema pgid does not exist yet), and [Down] drops schema
// pgid, which must not take tern's bookkeeping with it. The pgid_ prefix keeps
// it apart from an application's own tern table (public.schema_version by
// default). Creating it needs the CREATE privilege on schema public, which
// the database owner has. [Up] grants SELECT on it to PUBLIC.
const VersionTable = "public.pgid_schema_version"

// LockKey is the key of the session-level advisory lock that tern takes
// around every migration run: pg_advisory_lock(9628173550095224). tern fixes
// it for all its users, so pgid's migrations also wait for an application's
// own tern migrations in the same database, and the other way round.
const LockKey int64 = 9628173550095224

// DefaultLockWait is how long [Up] and [Down] wait for [LockKey] by default.
const DefaultLockWait = 30 * time.Second

// ErrLocked is returned (wrapped, with the pid holding the lock) when another
// session held [LockKey] for the whole lock wait.
var ErrLocked = errors.New("pgid migrations: the tern migration lock is held by another session")

// ErrNotOwner is returned (wrapped, with the server's error) when the role
// lacks a privilege that applying or reverting the migrations needs: they
// belong to the database owner.
var ErrNotOwner = errors.New("pgid migrations: permission denied; the migrations belong to the database owner")

// Option changes how [Up] and [Down] run.
type Option func(*options)

type options struct {
	lockWait time.Duration
}

// WithLockWait sets how long [Up] and [Down] wait for [LockKey] before they
// return [ErrLocked]; 0 tries once. The context's deadline applies too.
func WithLockWait(d time.Duration) Option {
	return func(o *options) { o.lockWait = d }
}

// NewMigrator returns a tern migrator for conn with the migrations of [FS]
// loaded and [VersionTable] created if it did not exist. Use it to migrate
// to a particular version or to read the current one; [Up] and [Down] cover
// the common cases. Unlike them, it waits for [LockKey] without a limit and
// leaves tern's RESET ALL in effect.
func NewMigrator(ctx context.Context, conn *pgx.Conn) (*migrate.Migrator, error) {
	m, err := migrate.NewMigrator(ctx, conn, VersionTable)
	if err != nil {
		return nil, ownerError(fmt.Errorf("pgid migrations: version table %s: %w", VersionTable, err))
	}
	if err := m.LoadMigrations(FS); err != nil {
		return nil, fmt.Errorf("pgid migrations: load: %w", err)
	}
	return m, nil
}

// Up applies every migration not yet applied to conn's database. It is safe
// to call on every start: with nothing to do it only reads the version, which
// any role may (see Roles in the package documentation); with migrations to
// apply, a role that does not own the database gets [ErrNotOwner].
//
// It waits at most [DefaultLockWait] for [LockKey] (see [WithLockWait]) and
// leaves conn's session settings as it found them, except custom ones
// (SET myapp.x = ...): tern's RESET ALL empties those, and pg_settings does
// not list them, so Up cannot put them back. Run Up on a connection of its
// own, or before setting them, if that matters.
func Up(ctx context.Context, conn *pgx.Conn, opts ...Option) error {
	return run(ctx, conn, "up", opts, func(m *migrate.Migrator) error {
		v, err := m.GetCurrentVersion(ctx)
		if err != nil {
			return err
		}
		if int(v) == len(m.Migrations) {
			return nil
		}
		if err := m.Migrate(ctx); err != nil {
			return err
		}
		// Let every role read the version, so that Up with nothing to do
		// works for application roles.
		var owner bool
		if err := conn.QueryRow(ctx, "SELECT pg_catalog.pg_has_role(relowner, 'USAGE') FROM pg_catalog.pg_class WHERE oid = $1::pg_catalog.regclass",
			VersionTable).Scan(&owner); err != nil {
			return err
		}
		if owner {
			_, err = conn.Exec(ctx, "GRANT SELECT ON "+VersionTable+" TO PUBLIC")
		}
		return err
	})
}

// Down reverts every applied migration, newest first, leaving no schema pgid
// behind (the version table stays, at version 0).
//
// It first runs all the reverse SQL in one transaction and rolls it back:
// while a table column, default, view or SQL-standard function body (BEGIN
// ATOMIC or RETURN) still uses a pgid domain or function, Down returns the
// database's dependency error (SQLSTATE 2BP01, wrapped) having dropped
// nothing: every pgid object and the version are as before. Functions with
// quoted bodies ($$ ... $$) that call pgid functions are not dependencies
// PostgreSQL knows of: they do not stop Down and fail when next called.
//
// Only if that trial succeeds does tern revert the migrations one by one. A
// table created by another session between the trial and the real run can
// still stop it part way; the returned error then names the migration, and
// the version table records how far it got (Up restores the rest).
//
// After Down and Up, other sessions that had prepared statements using pgid
// types (pgx caches them per connection) get SQLSTATE XX000 "cache lookup
// failed for type" once per cached statement: the types were dropped and
// created again with new OIDs. pgx then drops the statement from its cache and
// the next call prepares it again; pools can also be reset.
//
// Down waits for [LockKey] and restores the session's settings as [Up] does.
func Down(ctx context.Context, conn *pgx.Conn, opts ...Option) error {
	return run(ctx, conn, "down", opts, func(m *migrate.Migrator) error {
		v, err := m.GetCurrentVersion(ctx)
		if err != nil {
			return err
		}
		if v <= 0 || int(v) > len(m.Migrations) {
			return m.MigrateTo(ctx, 0) // tern reports a bad version
		}
		if err := tryDown(ctx, conn, m.Migrations[:v]); err != nil {
			return fmt.Errorf("refused, nothing dropped, still at version %d: %w", v, err)
		}
		return m.MigrateTo(ctx, 0)
	})
}

// tryDown runs the reverse SQL of migs, newest first, in a transaction that
// it rolls back.
func tryDown(ctx context.Context, conn *pgx.Conn, migs []*migrate.Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	for i := len(migs) - 1; i >= 0; i-- {
		if _, err := tx.Exec(ctx, migs[i].DownSQL); err != nil {
			// The detail lists the dependent objects: say which.
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Detail != "" {
				return fmt.Errorf("%s: %w; %s", migs[i].Name, err, strings.ReplaceAll(pgErr.Detail, "\n", "; "))
			}
			return fmt.Errorf("%s: %w", migs[i].Name, err)
		}
	}
	return nil
}

// run takes the migration lock, builds the migrator, calls f and puts back
// the session settings tern's RESET ALL removed.
func run(ctx context.Context, conn *pgx.Conn, what string, opts []Option, f func(*migrate.Migrator) error) (err error) {
	o := options{lockWait: DefaultLockWait}
	for _, opt := range opts {
		opt(&o)
	}
	if err := lock(ctx, conn, o.lockWait); err != nil {
		return fmt.Errorf("pgid migrations: %s: %w", what, err)
	}
	defer func() {
		// A context that ended interrupted a statement; pgx closes the
		// connection then, which releases the lock too.
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_catalog.pg_advisory_unlock($1)", LockKey); uerr != nil && err == nil && !conn.IsClosed() {
			err = fmt.Errorf("pgid migrations: %s: unlock: %w", what, uerr)
		}
	}()
	settings, err := sessionSettings(ctx, conn)
	if err != nil {
		return fmt.Errorf("pgid migrations: %s: read session settings: %w", what, err)
	}
	defer func() {
		if conn.IsClosed() {
			return
		}
		if rerr := restoreSettings(context.WithoutCancel(ctx), conn, settings); rerr != nil && err == nil {
			err = fmt.Errorf("pgid migrations: %s: restore session settings: %w", what, rerr)
		}
	}()
	// tern's own SQL names types unqualified (it creates the version table
	// with "version int4"): run it with a search_path nobody else can write
	// to. restoreSettings puts the caller's back.
	if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', false)"); err != nil {
		return fmt.Errorf("pgid migrations: %s: set search_path: %w", what, err)
	}
	m, err := NewMigrator(ctx, conn)
	if err != nil {
		return err
	}
	if err := f(m); err != nil {
		return ownerError(fmt.Errorf("pgid migrations: %s: %w", what, err))
	}
	return nil
}

// lock takes LockKey for this session, trying every 100 ms for at most wait
// (and until ctx ends). Polling with pg_try_advisory_lock, instead of a
// blocking pg_advisory_lock, keeps the connection usable when ctx ends.
func lock(ctx context.Context, conn *pgx.Conn, wait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	for {
		// The try does not wait for the lock, so ctx does not interrupt it
		// (pgx would close the connection): ctx is checked between tries,
		// and the try has a timeout of its own for a server that hangs.
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		var ok bool
		err := conn.QueryRow(qctx, "SELECT pg_catalog.pg_try_advisory_lock($1)", LockKey).Scan(&ok)
		cancel()
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if ok {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: waited %v for pg_advisory_lock(%d), held by %s", ErrLocked, wait, LockKey, lockHolder(ctx, conn))
		}
		t := time.NewTimer(min(100*time.Millisecond, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: gave up waiting for pg_advisory_lock(%d), held by %s: %w", ErrLocked, LockKey, lockHolder(context.WithoutCancel(ctx), conn), ctx.Err())
		case <-t.C:
		}
	}
}

// lockHolder describes the session holding LockKey, as far as pg_locks and
// pg_stat_activity show it to this role.
func lockHolder(ctx context.Context, conn *pgx.Conn) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var pid int32
	var app, state string
	err := conn.QueryRow(ctx, `
		SELECT l.pid, coalesce(a.application_name, ''), coalesce(a.state, '')
		FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		  AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database())
		  AND l.classid::pg_catalog.int8 = $1 AND l.objid::pg_catalog.int8 = $2
		LIMIT 1`, LockKey>>32, LockKey&0xFFFFFFFF).Scan(&pid, &app, &state)
	if err != nil {
		return "another session"
	}
	return fmt.Sprintf("pid %d (application_name %q, state %q)", pid, app, state)
}

// setting is one run-time parameter the session changed with SET.
type setting struct{ name, value string }

// sessionSettings returns the parameters conn's session has set with SET
// (source "session"): what RESET ALL undoes.
func sessionSettings(ctx context.Context, conn *pgx.Conn) ([]setting, error) {
	rows, err := conn.Query(ctx, "SELECT name, pg_catalog.current_setting(name) FROM pg_catalog.pg_settings WHERE source = 'session'")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (setting, error) {
		var s setting
		err := r.Scan(&s.name, &s.value)
		return s, err
	})
}

// restoreSettings sets again each of settings whose value changed, and
// resets search_path (which run sets) if the session had not set it.
func restoreSettings(ctx context.Context, conn *pgx.Conn, settings []setting) error {
	var errs []error
	setPath := false
	for _, s := range settings {
		setPath = setPath || s.name == "search_path"
	}
	if !setPath {
		if _, err := conn.Exec(ctx, "RESET search_path"); err != nil {
			errs = append(errs, fmt.Errorf("search_path: %w", err))
		}
	}
	for _, s := range settings {
		var cur string
		if err := conn.QueryRow(ctx, "SELECT pg_catalog.current_setting($1)", s.name).Scan(&cur); err == nil && cur == s.value {
			continue
		}
		if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, false)", s.name, s.value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.name, err))
		}
	}
	return errors.Join(errs...)
}

// ownerError wraps err with ErrNotOwner if the server refused a privilege
// (SQLSTATE 42501).
func ownerError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" {
		return fmt.Errorf("%w: %w", ErrNotOwner, err)
	}
	return err
}
