package migrations

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/dbconn"
)

// FS holds the migrations: the versioned files NNN_description.sql and the
// function definitions functions/*.sql. Each file's forward SQL is above the
// line "---- create above / drop below ----" (see [Marker]) and its reverse
// SQL below it.
//
//go:embed *.sql functions/*.sql
var FS embed.FS

// Marker separates a file's forward SQL from its reverse SQL. It is the
// marker tern used, which sqlc also knows: sqlc reads a file up to it.
const Marker = "---- create above / drop below ----"

// FunctionsStep is the name under which [VersionTable] records the
// function definitions (every file of functions/, applied as one step).
const FunctionsStep = "functions/"

// VersionTable records what the runner applied: one row per versioned file
// (name, version, checksum) and one for [FunctionsStep]. It lives in schema
// pgid, so [Down] leaves nothing behind; [Up] grants SELECT on it to PUBLIC,
// so any role can read the version.
const VersionTable = "pgid.schema_migrations"

// TernVersionTable is where pgid recorded its version while it used tern
// (up to version 6, the number of files then). [Up] adopts a database that
// has it and no [VersionTable]: it records the versions tern applied as
// applied, without running them again, and leaves the table as it is, so an
// older pgid still finds nothing to do. [Down] drops it.
const TernVersionTable = "public.pgid_schema_version"

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

// step is one versioned file, or the function definitions.
type step struct {
	name     string // file name, or FunctionsStep
	version  int    // NNN of the file name; 0 for the functions
	checksum string // hex SHA-256 of the file(s)
	up, down string
}

// Checksum returns the hex SHA-256 of a versioned file's bytes: what
// [VersionTable] records for it.
func Checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// load reads the versioned steps, in version order, and the functions step.
func load() ([]step, step, error) {
	names, err := fs.Glob(FS, "*.sql")
	if err != nil {
		return nil, step{}, err
	}
	slices.Sort(names)
	var versioned []step
	for i, name := range names {
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil || v != i+1 {
			return nil, step{}, fmt.Errorf("pgid migrations: %s: want the name %03d_description.sql", name, i+1)
		}
		b, up, down, err := readFile(name)
		if err != nil {
			return nil, step{}, err
		}
		versioned = append(versioned, step{name: name, version: v, checksum: Checksum(b), up: up, down: down})
	}
	fnames, err := fs.Glob(FS, path.Join(FunctionsStep, "*.sql"))
	if err != nil {
		return nil, step{}, err
	}
	slices.Sort(fnames)
	fn := step{name: FunctionsStep}
	var downs []string
	h := sha256.New()
	for _, name := range fnames {
		b, up, down, err := readFile(name)
		if err != nil {
			return nil, step{}, err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
		fn.up += up
		downs = append(downs, down)
	}
	slices.Reverse(downs)
	fn.down = strings.Join(downs, "")
	fn.checksum = hex.EncodeToString(h.Sum(nil))
	return versioned, fn, nil
}

// readFile reads the file name of FS and cuts it at [Marker] into its
// forward and reverse SQL.
func readFile(name string) (b []byte, up, down string, err error) {
	if b, err = fs.ReadFile(FS, name); err != nil {
		return nil, "", "", err
	}
	up, down, ok := strings.Cut(string(b), Marker)
	if !ok {
		return nil, "", "", fmt.Errorf("pgid migrations: %s: no line %q", name, Marker)
	}
	return b, up, down, nil
}

// Schema returns the forward SQL of every step in the order [Up] applies
// them, the versioned files and then the function definitions, each
// preceded by a comment naming it: pgid's schema as one text for tools
// that read DDL (sqlc's schema list) or another migration tool. It is
// idempotent and must run as one transaction (the steps SET LOCAL their
// search_path); it does not write [VersionTable]. Like [Up], it raises
// SQLSTATE 42501 on a schema pgid that is not trustworthy, before and again
// after installing, and revokes what default privileges gave pgid's new
// objects.
func Schema() (string, error) {
	versioned, fn, err := load()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n-- ==== %s ====\n\n%s\n", "trust in schema pgid", strings.TrimSpace(schemaGuard(false)))
	for _, s := range append(versioned, fn) {
		fmt.Fprintf(&b, "\n-- ==== %s ====\n\n%s\n", s.name, strings.TrimSpace(s.up))
	}
	fmt.Fprintf(&b, "\n-- ==== %s ====\n\n%s\n", "trust in schema pgid, again before commit", strings.TrimSpace(schemaGuard(true)))
	return b.String(), nil
}

// schemaGuard is what [Up]'s ErrUntrusted check is in [Schema]'s text: it
// raises SQLSTATE 42501 if schema pgid is not trustworthy (untrustedObjects,
// untrustedAccess). Schema runs it first, and last so that the transaction
// never commits a schema pgid another role changed meanwhile; the last run
// first revokes what default privileges gave pgid's new objects, as Up does.
func schemaGuard(revoke bool) string {
	loop := ""
	if revoke {
		loop = `
  IF NOT EXISTS (` + untrustedObjects + `) THEN
    FOR pgid_row IN ` + untrustedAccess + ` LOOP
      IF pgid_row.revoke THEN
        EXECUTE pgid_row.fix;
      END IF;
    END LOOP;
  END IF;`
	}
	return `
-- Whoever owns schema pgid or anything in it, or may put code on it (a
-- trigger, an extension, CREATE on the schema, ...), can make pgid run its
-- own code as whoever calls pgid's functions: refuse such a schema.
SET LOCAL search_path = pg_catalog, pg_temp;
DO $pgid$
DECLARE
  pgid_bad text;
  pgid_row record;
BEGIN` + loop + `
  SELECT string_agg(format('%s %s (owner %s)', u.kind, u.name, u.owner), ', ') INTO pgid_bad
  FROM (` + untrustedObjects + `) u(kind, name, owner);
  IF pgid_bad IS NULL THEN
    SELECT string_agg(format('%s (fix: %s)', a.problem, a.fix), ', ') INTO pgid_bad
    FROM (` + untrustedAccess + `) a(problem, fix, revoke);
  END IF;
  IF pgid_bad IS NOT NULL THEN
    RAISE EXCEPTION 'pgid: schema pgid is not trustworthy: %', pgid_bad
      USING ERRCODE = 'insufficient_privilege',
        DETAIL = format('Only the role applying this (%s), the roles whose privileges it has, the database owner '
                        'and superusers may own objects in schema pgid or put code on them; another role could '
                        'run its own code as whoever calls pgid''s functions.', current_user),
        HINT = 'As the database owner or a superuser, run each fix named; for an object another role owns, '
               'remove schema pgid with everything in it (when nothing of yours uses it) and apply this again, '
               'or give the object to the database owner (ALTER ... OWNER TO).';
  END IF;
END
$pgid$;`
}

// Latest is the version [Up] brings a database to: the number of versioned
// files in [FS].
func Latest() int {
	names, _ := fs.Glob(FS, "*.sql")
	return len(names)
}

// FunctionsChecksum is the checksum of the function definitions in [FS],
// as [VersionTable] records it for [FunctionsStep]: the SHA-256 over every
// file of functions/, in name order, each preceded by its name and length.
func FunctionsChecksum() string {
	_, fn, err := load()
	if err != nil {
		return ""
	}
	return fn.checksum
}

// Status describes what a database has applied, as [Version] reads it.
type Status struct {
	// Version is the newest versioned file applied (0: none). For a
	// tern-era database that [Up] has not adopted yet, the version in
	// [TernVersionTable].
	Version int
	// Tern reports a tern-era database not yet adopted.
	Tern bool
	// Functions is the checksum recorded for the function definitions
	// ("" if none is).
	Functions string
	// FunctionsCurrent reports that Functions equals [FunctionsChecksum]
	// and that the bodies chosen by server version fit the server (false
	// after pg_upgrade or a restore to PostgreSQL 18: [Up] reinstalls them).
	FunctionsCurrent bool
	// Unknown lists recorded versioned files that [FS] does not have (a
	// newer pgid applied them).
	Unknown []string
	// Untrusted lists what makes schema pgid untrustworthy (see
	// [ErrUntrusted]): objects owned by a role [Up] does not trust, e.g.
	// "schema pgid (owner app_user)", then triggers, rules, policies,
	// extensions and privileges, each with its fix. While it is not empty
	// the version table is not read: Version and Functions are zero.
	Untrusted []string
	// Missing lists the functions and domains that the recorded versions
	// say exist but that schema pgid lacks.
	Missing []string
	// Err is what [Up] would refuse the database with before applying
	// anything (nil if nothing): an error wrapping [ErrUntrusted] or
	// [ErrChecksum], naming the problem and the fix.
	Err error
	// Outside reports a schema pgid that no version table records: made
	// outside pgid's runner, by `pgid schema` through another migration
	// tool. Version is then 0; Lacks lists the domains and functions of
	// this pgid it does not have, Extra the functions it has that this pgid
	// does not define (both empty: this pgid's schema, as far as names and
	// arguments tell). [Up] there runs every step again (each skips what
	// exists, function definitions are replaced, a REVOKE stays) and
	// records them.
	Outside bool
	Lacks   []string
	Extra   []string
	// Database is the database read (current_database()) and Server the
	// address the connection reached ("127.0.0.1:5432", or a Unix socket's
	// path): where [Up] on the same handle works. Show them after Up when
	// the DSN comes from the environment.
	Database, Server string
}

// record is one row of VersionTable.
type record struct {
	name     string
	version  *int32
	checksum *string
}

// state is what the runner read from the database.
type state struct {
	table   bool // VersionTable exists
	tern    bool // TernVersionTable exists
	ternVer int
	records map[string]record
	trust   trust
	missing []string // objects the records say exist that schema pgid lacks
	// missingSteps names the steps whose objects are missing.
	missingSteps []string
	// unfit: the function definitions recorded are the current ones, but
	// a body chosen by server version is another version's (functionsFit).
	unfit bool
}

// Version returns the newest versioned migration applied to db's database
// (0 if none). It only reads, so any role may call it. When schema pgid
// is not trustworthy the version is not read: Version returns
// [ErrUntrusted] (see [Status].Untrusted).
func Version[D DB](ctx context.Context, db D) (int, error) {
	s, err := ReadStatus(ctx, db)
	if err == nil && len(s.Untrusted) > 0 {
		return 0, s.Err
	}
	return s.Version, err
}

// ReadStatus reads what db's database has applied: its version and whether
// its function definitions are those of [FS], and whether [Up] would refuse
// it ([Status].Err). It only reads, so any role may call it; an error it
// returns is one of reading, not a refusal.
func ReadStatus[D DB](ctx context.Context, db D) (Status, error) {
	var st Status
	err := dbconn.Run(ctx, conns, db, func(c *pgx.Conn) error {
		versioned, fn, err := load()
		if err != nil {
			return err
		}
		s, err := readState(ctx, c, versioned, fn)
		if err != nil {
			return err
		}
		st = s.status(versioned, fn)
		st.Err = s.upError(versioned)
		if !s.table && !s.tern && len(s.trust.objects) == 0 {
			if st.Outside, st.Lacks, st.Extra, err = readOutside(ctx, c, versioned, fn); err != nil {
				return err
			}
		}
		if a := c.PgConn().Conn().RemoteAddr(); a != nil {
			st.Server = a.String()
		}
		return c.QueryRow(ctx, "SELECT pg_catalog.current_database()").Scan(&st.Database)
	})
	if err != nil {
		return Status{}, wrap("status", err)
	}
	return st, nil
}

func (s state) status(versioned []step, fn step) Status {
	st := Status{Untrusted: append(slices.Clone(s.trust.objects), s.trust.access...), Missing: s.missing}
	if !s.table {
		if s.tern {
			st.Version, st.Tern = s.ternVer, true
		}
		return st
	}
	for name, r := range s.records {
		if r.version == nil {
			continue
		}
		st.Version = max(st.Version, int(*r.version))
		if !slices.ContainsFunc(versioned, func(v step) bool { return v.name == name }) {
			st.Unknown = append(st.Unknown, name)
		}
	}
	slices.Sort(st.Unknown)
	if r, ok := s.records[FunctionsStep]; ok && r.checksum != nil {
		st.Functions = *r.checksum
	}
	st.FunctionsCurrent = st.Functions == fn.checksum && !s.unfit
	return st
}

// readState reads VersionTable, or TernVersionTable if there is no
// VersionTable, after checking schema pgid (readTrust): while it is not
// trustworthy, neither table is read (another role's view or policy would
// run its code as this session's role), and only the trust part of the
// state is filled in.
func readState(ctx context.Context, c *pgx.Conn, versioned []step, fn step) (state, error) {
	var s state
	var err error
	s.records = map[string]record{}
	if s.trust, err = readTrust(ctx, c); err != nil {
		return s, err
	}
	if len(s.trust.objects) > 0 || len(s.trust.access) > 0 {
		return s, nil
	}
	// The tern table counts only as tern made it: a plain table of the owner
	// of schema pgid. Anything else (a view, or a table someone else put in
	// a schema public that all may write to) is not read at all.
	err = c.QueryRow(ctx, `SELECT pg_catalog.to_regclass($1) IS NOT NULL,
		coalesce((SELECT c.relkind OPERATOR(pg_catalog.=) 'r' AND c.relowner OPERATOR(pg_catalog.=) n.nspowner
		          FROM pg_catalog.pg_class c, pg_catalog.pg_namespace n
		          WHERE c.oid OPERATOR(pg_catalog.=) pg_catalog.to_regclass($2)
		            AND n.nspname OPERATOR(pg_catalog.=) 'pgid'), false)`,
		VersionTable, TernVersionTable).Scan(&s.table, &s.tern)
	if err != nil {
		return s, err
	}
	if s.tern {
		var v *int32
		if err := c.QueryRow(ctx, "SELECT pg_catalog.max(version) FROM "+TernVersionTable).Scan(&v); err != nil {
			return s, fmt.Errorf("read %s: %w", TernVersionTable, err)
		}
		if v != nil {
			s.ternVer = int(*v)
		}
	}
	if !s.table {
		return s, nil
	}
	rows, err := c.Query(ctx, "SELECT name, version, checksum FROM "+VersionTable)
	if err != nil {
		return s, fmt.Errorf("read %s: %w", VersionTable, err)
	}
	var r record
	_, err = pgx.ForEachRow(rows, []any{&r.name, &r.version, &r.checksum}, func() error {
		s.records[r.name] = r
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("read %s: %w", VersionTable, err)
	}
	var fit bool
	if err := c.QueryRow(ctx, functionsFit).Scan(&fit); err != nil {
		return s, fmt.Errorf("read the body of pgid.gen_ulid_v7: %w", err)
	}
	s.unfit = !fit
	return s, s.readMissing(ctx, c, versioned, fn)
}

// functionsFit reports whether the function bodies that the functions step
// chooses by server version fit the server: pgid.gen_ulid_v7 calls
// uuidv7() on PostgreSQL 18 and later and not before. A database moved to
// 18 by pg_upgrade or dump and restore keeps its old body and its recorded
// checksum; Up then applies the functions step again. A missing function,
// or one without an SQL-standard body, counts as fitting (Missing and the
// checksum cover those).
const functionsFit = `SELECT coalesce((
  SELECT (pg_catalog.current_setting('server_version_num')::pg_catalog.int4 OPERATOR(pg_catalog.>=) 180000)
         OPERATOR(pg_catalog.=)
         (pg_catalog.strpos(pg_catalog.pg_get_function_sqlbody(p.oid), 'uuidv7()') OPERATOR(pg_catalog.>) 0)
  FROM pg_catalog.pg_proc p
  WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure('pgid.gen_ulid_v7()')), true)`

// ErrUntrusted is returned (wrapped, naming the problem and the fix) by
// [Up], [Down] and [Version], and set in [Status].Err, when another role
// could make pgid run its code: an object of schema pgid is owned by a role
// that is not trusted, a relation there has a trigger, rule or policy, an
// extension has objects there, or a role that is not trusted holds a
// privilege beyond what pgid grants PUBLIC; or when [VersionTable] records
// objects that the database lacks. Trusted are the role running the call,
// the roles whose privileges it has (not for a superuser), the database
// owner and superusers. Nothing is applied or read from the version table.
// See docs/SECURITY.md.
var ErrUntrusted = errors.New("pgid migrations: schema pgid is not trustworthy")

// list joins items, at most 5 of them, saying how many more there are.
func list(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:5], ", "), len(items)-5)
}

var (
	// dropFunction matches a function of schema pgid in a file's reverse
	// SQL, which drops each one by its signature.
	dropFunction = regexp.MustCompile(`(?m)^DROP FUNCTION IF EXISTS pgid\.(\w+)\(([^)]*)\);`)
	// dropDomain matches a domain of schema pgid in a file's reverse SQL.
	dropDomain = regexp.MustCompile(`(?m)^DROP DOMAIN IF EXISTS pgid\.(\w+);`)
)

// readMissing sets s.missing to the objects that the recorded steps create
// but schema pgid lacks: the domains of the versioned files recorded, and
// every function if the function definitions are recorded as this pgid's.
// A function counts as there if schema pgid has one of its name and number
// of arguments.
func (s *state) readMissing(ctx context.Context, c *pgx.Conn, versioned []step, fn step) error {
	var fnames, fshown, fsteps, dnames, dsteps []string
	var fnargs []int32
	if r, ok := s.records[FunctionsStep]; ok && r.checksum != nil && *r.checksum == fn.checksum {
		for _, m := range dropFunction.FindAllStringSubmatch(fn.down, -1) {
			n := 0
			if strings.TrimSpace(m[2]) != "" {
				n = strings.Count(m[2], ",") + 1
			}
			fnames, fnargs = append(fnames, m[1]), append(fnargs, int32(n))
			fshown, fsteps = append(fshown, "pgid."+m[1]+"("+m[2]+")"), append(fsteps, fn.name)
		}
	}
	for _, v := range versioned {
		if _, ok := s.records[v.name]; !ok {
			continue
		}
		for _, m := range dropDomain.FindAllStringSubmatch(v.down, -1) {
			dnames, dsteps = append(dnames, m[1]), append(dsteps, v.name)
		}
	}
	var missingF, missingD []int32
	err := c.QueryRow(ctx, `
		SELECT coalesce((SELECT pg_catalog.array_agg(f.i) FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.text[]),
		                   pg_catalog.unnest($2::pg_catalog.int4[])) WITH ORDINALITY f(name, nargs, i)
		                 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_proc p
		                   WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
		                     AND p.proname OPERATOR(pg_catalog.=) f.name::pg_catalog.name
		                     AND p.pronargs OPERATOR(pg_catalog.=) f.nargs)), '{}'),
		       coalesce((SELECT pg_catalog.array_agg(d.i) FROM pg_catalog.unnest($3::pg_catalog.text[]) WITH ORDINALITY d(name, i)
		                 WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_type t
		                   WHERE t.typnamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
		                     AND t.typname OPERATOR(pg_catalog.=) d.name::pg_catalog.name
		                     AND t.typtype OPERATOR(pg_catalog.=) 'd')), '{}')`,
		fnames, fnargs, dnames).Scan(&missingF, &missingD)
	if err != nil {
		return fmt.Errorf("compare %s with schema pgid: %w", VersionTable, err)
	}
	for _, i := range missingD {
		s.missing = append(s.missing, "domain pgid."+dnames[i-1])
		s.missingSteps = append(s.missingSteps, dsteps[i-1])
	}
	for _, i := range missingF {
		s.missing = append(s.missing, "function "+fshown[i-1])
		s.missingSteps = append(s.missingSteps, fsteps[i-1])
	}
	slices.Sort(s.missing)
	slices.Sort(s.missingSteps)
	s.missingSteps = slices.Compact(s.missingSteps)
	return nil
}

// upError returns what Up refuses the database with before applying
// anything: ErrUntrusted (schema pgid is not trustworthy, or objects
// the version table records are missing), ErrChecksum, or nil.
func (s state) upError(versioned []step) error {
	if err := s.trust.err(); err != nil {
		return err
	}
	if len(s.missing) > 0 {
		quoted := make([]string, len(s.missingSteps))
		for i, name := range s.missingSteps {
			quoted[i] = quote(name)
		}
		return fmt.Errorf("%w: %s records as applied what schema pgid lacks: %s. Up refuses it. "+
			"Fix: if they were dropped by hand, DELETE FROM %s WHERE name IN (%s) and run up again, which applies "+
			"those steps again (they are idempotent); if not, find out who changed schema pgid",
			ErrUntrusted, VersionTable, list(s.missing), VersionTable, strings.Join(quoted, ", "))
	}
	return s.check(versioned)
}

// ErrChecksum is returned (wrapped, naming the file and both checksums)
// when the database recorded a versioned file whose content differs from
// the file of the same name in [FS]. Released files never change, so the
// database was migrated by a modified copy of pgid: nothing is applied.
var ErrChecksum = errors.New("pgid migrations: an applied migration differs from the released file")

// check returns ErrChecksum if a recorded versioned file differs from its
// file in FS, or is recorded under another version number than its own, or
// another name is recorded under the number of one of FS's files.
func (s state) check(versioned []step) error {
	for _, v := range versioned {
		r, ok := s.records[v.name]
		if ok && r.checksum != nil && *r.checksum != v.checksum {
			return fmt.Errorf("%w: %s was applied with checksum %s, the released file has %s",
				ErrChecksum, v.name, *r.checksum, v.checksum)
		}
		if ok && (r.version == nil || int(*r.version) != v.version) {
			return fmt.Errorf("%w: %s is recorded as version %s, the released file is version %d",
				ErrChecksum, v.name, recordedVersion(r), v.version)
		}
	}
	names := slices.Sorted(maps.Keys(s.records))
	for _, name := range names {
		r := s.records[name]
		if name == FunctionsStep {
			if r.version != nil {
				return fmt.Errorf("%w: %s is recorded as version %d; the function definitions have none",
					ErrChecksum, FunctionsStep, *r.version)
			}
			continue
		}
		if r.version != nil && int(*r.version) >= 1 && int(*r.version) <= len(versioned) &&
			versioned[*r.version-1].name != name {
			return fmt.Errorf("%w: %s is recorded as version %d, the number of the released file %s",
				ErrChecksum, name, *r.version, versioned[*r.version-1].name)
		}
	}
	return nil
}

// recordedVersion shows a record's version, NULL if it has none.
func recordedVersion(r record) string {
	if r.version == nil {
		return "NULL"
	}
	return strconv.Itoa(int(*r.version))
}

// Up applies to db's database every versioned migration not yet applied,
// each in a transaction of its own, then the function definitions if they
// differ from those the database recorded, in one more transaction. It is
// safe to call on every start: with nothing to do it only reads, which any
// role may; with something to apply, a role that does not own the database
// gets [ErrNotOwner]. It adopts a tern-era database ([TernVersionTable])
// without running its files again, and never goes back to older function
// definitions or touches versioned files it does not know.
//
// Up refuses, applying nothing, a recorded checksum that differs from the
// released file's ([ErrChecksum]) and a schema pgid that is not trustworthy
// ([ErrUntrusted], checked again in each step before it commits). It waits
// at most [DefaultLockWait] for [LockKey] ([WithLockWait]), then returns
// [ErrLocked]. When db is a *pgxpool.Pool and Up applied anything, it resets
// the pool, so connections load the pgid domains (pgidpgx.AfterConnect).
// See docs/MIGRATIONS.md.
func Up[D DB](ctx context.Context, db D, opts ...Option) error {
	changed := false
	err := run(ctx, db, "up", opts, func(c *pgx.Conn, versioned []step, fn step, s state) error {
		if err := s.upError(versioned); err != nil {
			return err
		}
		for _, v := range versioned {
			if _, ok := s.records[v.name]; ok {
				continue
			}
			changed = true
			if err := apply(ctx, c, v, v.up, !s.table); err != nil {
				return err
			}
			s.table = true
		}
		if !s.table {
			return nil
		}
		if r, ok := s.records[FunctionsStep]; ok && r.checksum != nil {
			if *r.checksum == fn.checksum && !s.unfit {
				return nil
			}
			if !slices.Contains(functionsHistory, *r.checksum) {
				return nil // a newer pgid's definitions: never go back
			}
		}
		changed = true
		return apply(ctx, c, fn, fn.up, false)
	})
	// A pool's connections made before the domains existed (or before a
	// type changed) hold type maps without them: replace them.
	if p, ok := any(db).(*pgxpool.Pool); ok && p != nil && changed {
		p.Reset()
	}
	return err
}

// pgidFunctions lists the OIDs of the functions in schema pgid.
const pgidFunctions = `SELECT p.oid FROM pg_catalog.pg_proc p
  WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')`

// grantNew gives EXECUTE to PUBLIC on the functions of schema pgid not in
// before: those the functions step created. Functions it replaced keep their
// privileges, so a REVOKE ... FROM PUBLIC stays.
func grantNew(ctx context.Context, tx pgx.Tx, before []uint32) error {
	rows, err := tx.Query(ctx, `SELECT p.oid::pg_catalog.regprocedure::pg_catalog.text FROM pg_catalog.pg_proc p
		WHERE p.pronamespace OPERATOR(pg_catalog.=) pg_catalog.to_regnamespace('pgid')
		  AND p.oid OPERATOR(pg_catalog.<>) ALL ($1::pg_catalog.oid[])`, before)
	if err != nil {
		return err
	}
	fns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, f := range fns {
		// f is regprocedure's output: qualified and quoted where needed.
		if _, err := tx.Exec(ctx, "GRANT EXECUTE ON FUNCTION "+f+" TO PUBLIC"); err != nil {
			return err
		}
	}
	return nil
}

// createTable makes VersionTable (schema pgid exists) readable by all.
const createTable = `
CREATE TABLE IF NOT EXISTS ` + VersionTable + ` (
  name pg_catalog.text PRIMARY KEY,
  version pg_catalog.int4 UNIQUE,
  checksum pg_catalog.text,
  applied_at pg_catalog.timestamptz NOT NULL DEFAULT pg_catalog.now(),
  applied_by pg_catalog.name NOT NULL DEFAULT CURRENT_USER
);
COMMENT ON TABLE ` + VersionTable + ` IS
  'pgid migrations applied (Go package github.com/pgid/pgid/migrations); checksum NULL: adopted from tern.';
GRANT SELECT ON ` + VersionTable + ` TO PUBLIC`

// apply runs sql (the forward SQL of st) in a transaction and records st,
// creating VersionTable first if create.
func apply(ctx context.Context, c *pgx.Conn, st step, sql string, create bool) error {
	return inTx(ctx, c, st.name, func(tx pgx.Tx) error {
		var before []uint32
		if st.version == 0 {
			rows, err := tx.Query(ctx, pgidFunctions)
			if err != nil {
				return err
			}
			if before, err = pgx.CollectRows(rows, pgx.RowTo[uint32]); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, sql); err != nil {
			return err
		}
		if st.version == 0 {
			if err := grantNew(ctx, tx, before); err != nil {
				return err
			}
		}
		if create {
			if _, err := tx.Exec(ctx, createTable); err != nil {
				return err
			}
		}
		if err := trustedNow(ctx, tx); err != nil {
			return err
		}
		var version *int
		if st.version > 0 {
			version = &st.version
		}
		_, err := tx.Exec(ctx, `INSERT INTO `+VersionTable+` (name, version, checksum) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum,
			  applied_at = pg_catalog.now(), applied_by = CURRENT_USER`, st.name, version, st.checksum)
		return err
	})
}

// inTx runs f in a transaction on c and commits it.
func inTx(ctx context.Context, c *pgx.Conn, name string, f func(pgx.Tx) error) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := f(tx); err != nil {
		return fmt.Errorf("%s: %w", name, dbconn.WithDetail(err))
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// adoptGrants gives a tern-era database the privileges today's
// 001_schema_and_domains.sql grants, if its 001 was an edition from before
// they were granted: editions without pgid._parse_error (until main's
// cd54335) granted nothing, so only the owner could use schema pgid.
const adoptGrants = `
SET LOCAL search_path = pg_catalog, pg_temp;
DO $$
BEGIN
  IF pg_catalog.to_regprocedure('pgid._parse_error(text, text)') IS NULL THEN
    GRANT USAGE ON SCHEMA pgid TO PUBLIC;
    GRANT USAGE ON DOMAIN pgid.ulid, pgid.objectid TO PUBLIC;
  END IF;
END
$$`

// adopt records the versions a tern-era database applied, holding tern's
// lock too so that no tern migrator runs meanwhile.
func adopt(ctx context.Context, c *pgx.Conn, versioned []step, fn step, s *state, wait time.Duration) error {
	if err := lock(ctx, c, ternLockKey, wait); err != nil {
		return fmt.Errorf("adopt %s: %w", TernVersionTable, err)
	}
	defer unlock(ctx, c, ternLockKey)
	fresh, err := readState(ctx, c, versioned, fn)
	if err != nil {
		return err
	}
	*s = fresh
	if err := s.trust.err(); err != nil || s.table || s.ternVer <= 0 {
		return err
	}
	err = inTx(ctx, c, "adopt "+TernVersionTable, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, adoptGrants); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, createTable); err != nil {
			return err
		}
		if err := trustedNow(ctx, tx); err != nil {
			return err
		}
		for _, v := range versioned {
			if v.version > s.ternVer {
				break
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+VersionTable+` (name, version) VALUES ($1, $2)`, v.name, v.version); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	*s, err = readState(ctx, c, versioned, fn)
	return err
}

// ErrUnknownVersion is returned by [Down] (wrapped, naming the files) when
// the database recorded versioned files that [FS] does not have: a newer
// pgid migrated it, and only that pgid knows how to revert them.
var ErrUnknownVersion = errors.New("pgid migrations: the database has migrations this pgid does not know")

// Down reverts everything [Up] applied, leaving no schema pgid behind (and
// dropping [TernVersionTable] if it is there): the function definitions,
// then the versioned files, newest first, each step in a transaction of its
// own. It first tries all the reverse SQL in a transaction it rolls back:
// while a column, default, view or SQL-standard function body uses pgid,
// Down returns the dependency error (SQLSTATE 2BP01, naming the dependent
// objects) having dropped nothing. If a later step fails, the error names
// it and [VersionTable] records how far Down got (Up restores the rest).
//
// Down takes [LockKey] and leaves the session as [Up] does. It refuses a
// database with versioned files this pgid does not know ([ErrUnknownVersion])
// or an untrusted schema pgid ([ErrUntrusted]). Statements that other connections prepared with pgid's
// types fail once afterwards (XX000); see docs/MIGRATIONS.md.
func Down[D DB](ctx context.Context, db D, opts ...Option) error {
	return run(ctx, db, "down", opts, func(c *pgx.Conn, versioned []step, fn step, s state) error {
		if err := s.check(versioned); err != nil {
			return err
		}
		st := s.status(versioned, fn)
		if len(st.Unknown) > 0 {
			return fmt.Errorf("%w: %s", ErrUnknownVersion, strings.Join(st.Unknown, ", "))
		}
		if !s.table {
			if s.tern {
				_, err := c.Exec(ctx, "DROP TABLE "+TernVersionTable)
				return err
			}
			return nil
		}
		applied := slices.DeleteFunc(slices.Clone(versioned), func(v step) bool {
			_, ok := s.records[v.name]
			return !ok
		})
		steps := downSteps(fn, applied, s.tern)
		// The trial: everything in one transaction, rolled back.
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
		for _, d := range steps {
			for _, sql := range d.sql {
				if _, err := tx.Exec(ctx, sql); err != nil {
					return fmt.Errorf("refused, nothing dropped, still at version %d: %s: %w", st.Version, d.name, dbconn.WithDetail(err))
				}
			}
		}
		if err := tx.Rollback(ctx); err != nil {
			return err
		}
		// The real run, one step per transaction.
		for _, d := range steps {
			err := inTx(ctx, c, d.name, func(tx pgx.Tx) error {
				for _, sql := range d.sql {
					if _, err := tx.Exec(ctx, sql); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// downStep is one transaction of Down.
type downStep struct {
	name string
	sql  []string
}

// downSteps lists the transactions of Down in order: the functions, then
// each of applied newest first; the oldest's drops the bookkeeping tables
// before its reverse SQL drops schema pgid.
func downSteps(fn step, applied []step, tern bool) []downStep {
	forget := func(name string) string {
		return "DELETE FROM " + VersionTable + " WHERE name OPERATOR(pg_catalog.=) " + quote(name)
	}
	out := []downStep{{fn.name, []string{fn.down, forget(fn.name)}}}
	for i := len(applied) - 1; i > 0; i-- {
		out = append(out, downStep{applied[i].name, []string{applied[i].down, forget(applied[i].name)}})
	}
	last := downStep{name: "bookkeeping", sql: []string{"DROP TABLE IF EXISTS " + VersionTable}}
	if tern {
		last.sql = append(last.sql, "DROP TABLE IF EXISTS "+TernVersionTable)
	}
	if len(applied) > 0 {
		last.name = applied[0].name
		last.sql = append(last.sql, applied[0].down)
	}
	return append(out, last)
}

// quote returns s as an SQL string literal (s never holds a quote: it is a
// file name of FS).
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
