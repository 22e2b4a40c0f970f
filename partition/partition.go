// Package partition keeps a table partitioned by its time-ordered ID: a
// table declared PARTITION BY RANGE (id) on a pgid.ulid / pgid.objectid (or
// plain uuid / bytea) column gets its partitions made ahead of time and
// retired after a retention period, with no extension and no background
// worker.
//
// The arithmetic and the DDL live in SQL (pgid.ensure_partitions,
// pgid.retire_partition and their kin, installed by package migrations: run
// them first), so the same code runs from pg_cron, psql or this thin typed
// layer. Partition [t1, t2) holds exactly the IDs made in [t1, t2), in UTC;
// a query with ulidtype.Range or objectidtype.Range bounds scans only the
// partitions of its window.
//
// [Ensure] creates first, then retires each expired partition on its own,
// keeping and reporting ([Report.Kept], [ErrKept]) any it cannot retire
// safely. It is idempotent and safe to run at once from many connections.
// See docs/PARTITIONING.md for the ranges, names, retention, foreign keys,
// locks and errors.
package partition

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgid/pgid/internal/dbconn"
	"github.com/pgid/pgid/internal/sqlstate"
)

// Errors about the parent table, returned by [Ensure], [List] and
// [Expired], usable with errors.Is. They are raised by the SQL functions
// with the SQLSTATE named here, and the returned error (an [*Error]) also
// unwraps to the *pgconn.PgError. The errors of creating a partition are
// [ErrDefaultHasRows] and [ErrOverlap], those of the plan [ErrPlan].
var (
	// ErrNoTable: the parent does not exist (SQLSTATE 42P01).
	ErrNoTable = sqlStates.New("42P01", "partition: no such table")
	// ErrNotPartitioned: the parent is not a partitioned table (PGI01).
	ErrNotPartitioned = sqlStates.New(sqlstate.NotPartitioned, "partition: not a partitioned table")
	// ErrNotRangeByID: the parent is partitioned by LIST or HASH, or by
	// RANGE on more than one column or an expression (PGI02).
	ErrNotRangeByID = sqlStates.New(sqlstate.NotRangeByID, "partition: not partitioned by RANGE (id)")
	// ErrKind: the partition key column is not uuid / bytea or a domain
	// over them (PGI03), or not the [Kind] the plan asks for. tail.ErrKind
	// is the same condition for a Tailer.
	ErrKind = sqlStates.New(sqlstate.Kind, "partition: key column is not a pgid ID")
)

// ErrKeyType is the former name of [ErrKind] (the same error).
//
// Deprecated: use ErrKind.
var ErrKeyType = ErrKind

// sqlStates maps the SQLSTATEs of functions/05_partitions.sql to the errors
// of this package, each declared with its SQLSTATE.
var sqlStates = dbconn.States{}

// Error is an error raised by PostgreSQL that maps to one of the sentinel
// errors of this package, in the shape packages migrations and tail use
// too: errors.Is matches the sentinel (Kind), errors.As the
// *pgconn.PgError (PG, for its Hint, Detail and SQLSTATE). Its message is
// the sentinel's text, then the server's message, which names the table
// and, where it applies, the range, with its DETAIL and HINT.
type Error = dbconn.Error

// wrap turns a server error with a known SQLSTATE into an *Error and adds
// context to the others, and the way out when schema pgid or its partition
// functions are missing.
func wrap(what string, err error) error {
	if e := dbconn.Match(err, sqlStates); e != nil {
		return e
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (pg.Code == "42883" && strings.Contains(pg.Message, "pgid.") || pg.Code == "3F000" && strings.Contains(pg.Message, `"pgid"`)) {
		return fmt.Errorf("partition: %s: %w (are the pgid migrations applied? migrations.Up or pgid migrate up installs the partition functions, migrations/functions/05_partitions.sql)", what, err)
	}
	return fmt.Errorf("partition: %s: %w", what, dbconn.WithDetail(err))
}

// Kind is the kind of ID a table is partitioned on.
type Kind int

const (
	// AnyKind takes the kind from the key column's type: uuid (and
	// pgid.ulid) is KindULID, bytea (and pgid.objectid) is KindObjectID.
	AnyKind = Kind(dbconn.AnyKind)
	// KindULID keys: ulidtype.ULID in a pgid.ulid or uuid column.
	KindULID = Kind(dbconn.ULID)
	// KindObjectID keys: objectidtype.ObjectID in a pgid.objectid or bytea
	// column.
	KindObjectID = Kind(dbconn.ObjectID)
)

const (
	// ULID is the former name of [KindULID].
	//
	// Deprecated: use KindULID.
	ULID = KindULID
	// ObjectID is the former name of [KindObjectID].
	//
	// Deprecated: use KindObjectID.
	ObjectID = KindObjectID
)

// String returns "any", "ulid" or "objectid", as [ParseKind] reads them and
// the SQL function pgid.partition_key_kind returns them.
func (k Kind) String() string { return dbconn.Kind(k).String() }

// ParseKind reads "ulid", "objectid" or "any" (or ""), case-insensitively.
func ParseKind(s string) (Kind, error) {
	if k, ok := dbconn.ParseKind(s); ok {
		return Kind(k), nil
	}
	return 0, fmt.Errorf("%w: kind %q is not ulid, objectid or any", ErrPlan, s)
}

// Span is a partition width or a retention period: whole months, or a fixed
// duration of whole seconds, never both. The zero Span means "none" (no
// retention).
type Span struct {
	Months   int
	Duration time.Duration
}

// Common partition widths.
var (
	Hour  = Span{Duration: time.Hour}
	Day   = Span{Duration: 24 * time.Hour}
	Week  = Span{Duration: 7 * 24 * time.Hour}
	Month = Span{Months: 1}
	Year  = Span{Months: 12}
)

// IsZero reports whether s is the zero Span.
func (s Span) IsZero() bool { return s == Span{} }

// String returns s as [ParseSpan] reads it: "day", "week", "month", "year",
// "3months", "90d", "2w", or a Go duration ("6h0m0s").
func (s Span) String() string {
	switch {
	case s.IsZero():
		return "0"
	case s == Day:
		return "day"
	case s == Week:
		return "week"
	case s == Month:
		return "month"
	case s == Year:
		return "year"
	case s.Duration == 0:
		return strconv.Itoa(s.Months) + "months"
	case s.Months == 0 && s.Duration%Week.Duration == 0:
		return strconv.FormatInt(int64(s.Duration/Week.Duration), 10) + "w"
	case s.Months == 0 && s.Duration%Day.Duration == 0:
		return strconv.FormatInt(int64(s.Duration/Day.Duration), 10) + "d"
	case s.Months == 0:
		return s.Duration.String()
	}
	return fmt.Sprintf("Span{Months: %d, Duration: %s}", s.Months, s.Duration)
}

// Limits of a [Span], the same in Go, the CLI and SQL (pgid.partition_span):
// at most MaxSpanMonths months (1,000 years), or at most MaxSpanSeconds
// seconds (the longest time.Duration of whole seconds, about 292 years).
const (
	MaxSpanMonths  = 12000
	MaxSpanSeconds = math.MaxInt64 / int64(time.Second)
)

// spanUnits are the units [ParseSpan] reads after a count, each with one
// meaning: lower case only, so "M" (a month to some tools, a minute to
// others) is refused rather than guessed.
var spanUnits = map[string]struct {
	months  int64         // whole months per unit, or
	seconds time.Duration // a fixed duration per unit
}{
	"s": {seconds: time.Second}, "sec": {seconds: time.Second}, "secs": {seconds: time.Second},
	"second": {seconds: time.Second}, "seconds": {seconds: time.Second},
	"m": {seconds: time.Minute}, "min": {seconds: time.Minute}, "mins": {seconds: time.Minute},
	"minute": {seconds: time.Minute}, "minutes": {seconds: time.Minute},
	"h": {seconds: time.Hour}, "hour": {seconds: time.Hour}, "hours": {seconds: time.Hour},
	"d": {seconds: 24 * time.Hour}, "day": {seconds: 24 * time.Hour}, "days": {seconds: 24 * time.Hour},
	"w": {seconds: 7 * 24 * time.Hour}, "week": {seconds: 7 * 24 * time.Hour}, "weeks": {seconds: 7 * 24 * time.Hour},
	"mo": {months: 1}, "month": {months: 1}, "months": {months: 1},
	"y": {months: 12}, "year": {months: 12}, "years": {months: 12},
}

// spanWant lists what [ParseSpan] accepts, for its error messages.
const spanWant = "want hour, day, week, month or year; a count and a unit, s, m (minutes), h, d, w, mo (months) or y, " +
	"or second(s), minute(s), hour(s), day(s), week(s), month(s), year(s), lower case; or a Go duration like 1h30m"

// ParseSpan reads a width or retention, strictly: each unit means one
// thing, and anything else is refused with [ErrPlan] and a message listing
// what is accepted.
//
//   - "hour", "day", "week", "month", "year" (also "hourly", "daily",
//     "weekly", "monthly", "yearly"), in any case;
//   - a positive count and a lower-case unit, with at most one space
//     between them: "90d", "2w", "3months", "3 mo", "1y", "6h", "90m"
//     (m is minutes, mo months; "M" is refused);
//   - a Go duration as [time.ParseDuration] reads it, not lower-cased:
//     "1h30m", "6h0m0s".
//
// The result is checked before any conversion: a positive whole number of
// seconds up to [MaxSpanSeconds], or whole months up to [MaxSpanMonths].
// [Span.String] writes a form ParseSpan reads back to the same Span.
func ParseSpan(s string) (Span, error) {
	in := strings.TrimSpace(s)
	bad := func(format string, args ...any) (Span, error) {
		return Span{}, fmt.Errorf("%w: span %q: %s; %s", ErrPlan, s, fmt.Sprintf(format, args...), spanWant)
	}
	switch strings.ToLower(in) {
	case "hour", "hourly":
		return Hour, nil
	case "day", "daily":
		return Day, nil
	case "week", "weekly":
		return Week, nil
	case "month", "monthly":
		return Month, nil
	case "year", "yearly":
		return Year, nil
	}
	i := 0
	for i < len(in) && in[i] >= '0' && in[i] <= '9' {
		i++
	}
	unit := strings.TrimPrefix(in[i:], " ")
	letters := unit != ""
	for _, c := range []byte(unit) {
		letters = letters && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}
	// Go's sub-second units are left to time.ParseDuration.
	counted := i > 0 && letters && unit != "ms" && unit != "us" && unit != "ns"
	var sp Span
	switch {
	case counted:
		u, ok := spanUnits[unit]
		if !ok {
			return bad("unknown unit %q", unit)
		}
		n, err := strconv.ParseInt(in[:i], 10, 64)
		if err != nil {
			return bad("count %s is too large", in[:i])
		}
		if n == 0 {
			return bad("not positive")
		}
		if u.months > 0 {
			if n > MaxSpanMonths/u.months {
				return bad("%d %s is more than %d months", n, unit, MaxSpanMonths)
			}
			sp = Span{Months: int(n * u.months)}
		} else {
			if n > MaxSpanSeconds/int64(u.seconds/time.Second) {
				return bad("%d %s is more than %d seconds", n, unit, MaxSpanSeconds)
			}
			sp = Span{Duration: time.Duration(n) * u.seconds}
		}
	default:
		d, err := time.ParseDuration(in)
		if err != nil {
			if in == "" {
				return bad("empty")
			}
			return bad("not a count and a unit, nor a Go duration")
		}
		sp = Span{Duration: d}
	}
	if p := sp.problem(); p != "" {
		return bad("%s", p)
	}
	return sp, nil
}

// check reports an invalid width or retention: not positive, months mixed
// with a duration, not whole seconds, or over the limits.
func (s Span) check(what string) error {
	if p := s.problem(); p != "" {
		return fmt.Errorf("%w: %s %s", ErrPlan, what, p)
	}
	return nil
}

// problem says what is wrong with s, or "".
func (s Span) problem() string {
	switch {
	case s.Months < 0 || s.Duration < 0 || s.IsZero():
		return s.String() + " is not positive"
	case s.Months > 0 && s.Duration != 0:
		return fmt.Sprintf("mixes months (%d) with a duration (%s)", s.Months, s.Duration)
	case s.Months > MaxSpanMonths:
		return fmt.Sprintf("of %d months is more than %d months", s.Months, MaxSpanMonths)
	case s.Duration%time.Second != 0:
		return s.Duration.String() + " is not a whole number of seconds"
	}
	return ""
}

// interval returns s as a PostgreSQL interval: months, or microseconds (no
// days field, so the server sees a fixed duration). s must have passed
// check, so the months fit an int32.
func (s Span) interval() pgtype.Interval {
	return pgtype.Interval{Months: int32(s.Months), Microseconds: s.Duration.Microseconds(), Valid: true}
}

// Retire says what [Ensure] does with partitions older than the retention.
type Retire int

const (
	// Drop drops them (DROP TABLE), in one transaction with the creation
	// of new partitions. It takes ACCESS EXCLUSIVE on the parent for the
	// rest of that (short) transaction: queries on the parent wait.
	Drop Retire = iota
	// Detach detaches them with a plain ALTER TABLE … DETACH PARTITION
	// and keeps the tables, in the same transaction and with the same lock
	// as Drop.
	Detach
	// DetachConcurrently detaches them with DETACH PARTITION …
	// CONCURRENTLY and keeps the tables. Queries on the parent keep
	// running; each detach waits for the transactions that use the parent.
	// The statement cannot run in a transaction block nor when the parent
	// has a DEFAULT partition (the server refuses). Before detaching,
	// Ensure marks the partition (its comment) with what it is doing; a
	// detach that was interrupted (a context that ended, a broken
	// connection) is finished by the next Ensure: DETACH … FINALIZE for a
	// partition left pending detach, and the table's own comment back.
	DetachConcurrently
	// DetachConcurrentlyThenDrop detaches as DetachConcurrently, then drops
	// each detached table (which no longer locks the parent). A table whose
	// detach or drop was interrupted is dropped by the next Ensure.
	DetachConcurrentlyThenDrop
)

// String returns the name [ParseRetire] reads.
func (r Retire) String() string {
	switch r {
	case Drop:
		return "drop"
	case Detach:
		return "detach"
	case DetachConcurrently:
		return "detach-concurrently"
	case DetachConcurrentlyThenDrop:
		return "detach-concurrently-drop"
	}
	return "Retire(" + strconv.Itoa(int(r)) + ")"
}

// ParseRetire reads "drop", "detach", "detach-concurrently" or
// "detach-concurrently-drop".
func ParseRetire(s string) (Retire, error) {
	for r := Drop; r <= DetachConcurrentlyThenDrop; r++ {
		if strings.EqualFold(s, r.String()) {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%w: retire %q is not drop, detach, detach-concurrently or detach-concurrently-drop", ErrPlan, s)
}

// concurrent reports whether r detaches outside a transaction.
func (r Retire) concurrent() bool { return r == DetachConcurrently || r == DetachConcurrentlyThenDrop }

// Plan says how a table is partitioned and kept.
type Plan struct {
	// Parent is the partitioned table as SQL names it, "events" or
	// "app.events", resolved with the session's search_path. Quote mixed
	// case as in SQL: `"Events"`.
	Parent string
	// Kind, if not AnyKind, must match the key column's type.
	Kind Kind
	// Every is the partition width: Day, Week, Month, whole months, or a
	// fixed duration of whole seconds (aligned to the Unix epoch).
	Every Span
	// Ahead is how many partitions after the current one to keep ready.
	Ahead int
	// Retain, if not zero, retires the partitions whose whole range is
	// older than Now - Retain, as Retire says. A partition that may hold a
	// younger row stays.
	Retain Span
	// Retire says how: Drop (the default), Detach, DetachConcurrently or
	// DetachConcurrentlyThenDrop.
	Retire Retire
	// Now is the time the current partition holds; zero means the
	// server's now(). Set it to prepare partitions for a backfill. It is
	// also the retention clock unless RetainAt is set.
	Now time.Time
	// RetainAt, if not zero, is the time retention counts back from (the
	// cut is RetainAt - Retain) instead of Now: set Now ahead to prepare
	// partitions for a new width and leave the retention on the real
	// clock (docs/PARTITIONING.md, "Changing the width").
	RetainAt time.Time
	// DryRun makes Ensure change nothing and report what it would create,
	// detach, drop and keep ([Report.DryRun]).
	DryRun bool
	// CascadeIntoRetained lets retirement delete or change rows of the
	// parent that retention keeps (younger than the cut, or in the DEFAULT
	// partition) when the foreign keys say so: an ON DELETE CASCADE, SET
	// NULL or SET DEFAULT from the parent to itself, or a chain of them
	// through other tables back into it. Without it such a partition is
	// kept and reported ([Report.Kept], [ErrKept]) like one a NO ACTION
	// reference holds. Rows of other tables always get their foreign key's
	// action. [Report.FKActions] lists what the foreign keys do either way.
	CascadeIntoRetained bool
}

// ErrPlan: the plan is invalid (SQLSTATE PGI06, or found in Go before
// asking the server), as is a span, kind or retire mode that does not
// parse.
var ErrPlan = sqlStates.New(sqlstate.Plan, "partition: invalid plan")

// check reports an invalid plan before anything reaches the server.
func (p Plan) check() error {
	if strings.TrimSpace(p.Parent) == "" {
		return fmt.Errorf("%w: no parent table", ErrPlan)
	}
	if p.Kind < AnyKind || p.Kind > KindObjectID {
		return fmt.Errorf("%w: kind %s", ErrPlan, p.Kind)
	}
	if err := p.Every.check("width"); err != nil {
		return err
	}
	if p.Ahead < 0 || p.Ahead > 10000 {
		return fmt.Errorf("%w: ahead %d is not in [0, 10000]", ErrPlan, p.Ahead)
	}
	if !p.Retain.IsZero() {
		if err := p.Retain.check("retention"); err != nil {
			return err
		}
	}
	if p.Retire < Drop || p.Retire > DetachConcurrentlyThenDrop {
		return fmt.Errorf("%w: retire %s", ErrPlan, p.Retire)
	}
	return nil
}

// Partition is one partition of a table partitioned by ID.
type Partition struct {
	// Name is the partition's schema-qualified name, quoted where SQL
	// needs it: public.events_p20261122, app."Events_p20261122".
	Name string
	// Default is true for the DEFAULT partition, which has no bounds.
	Default bool
	// Lower and Upper are the times the bounds stand for: the partition
	// holds the IDs made in [Lower, Upper). Zero for MINVALUE / MAXVALUE.
	Lower, Upper time.Time
	// From and To are the bounds as the catalog has them (a uuid, or \x and
	// the hex of the bytea); empty for MINVALUE / MAXVALUE.
	From, To string
	// RowEstimate is pg_class.reltuples, -1 before the first VACUUM or
	// ANALYZE. Only [List] fills it in; it is -1 in the results of
	// [Ensure] and [Expired].
	RowEstimate int64
}

// Report is what [Ensure] did, each list in the order it happened, and what
// it could not do.
type Report struct {
	Created  []Partition
	Detached []Partition // also filled for DetachConcurrentlyThenDrop, before Dropped
	Dropped  []Partition
	// Kept are the expired partitions Ensure could not retire, with the
	// reason; they are reported on every run until the reason is gone.
	Kept []Kept
	// FKActions lists, for each expired partition Ensure tried to retire,
	// what each foreign key does (or would do, in a dry run or for a kept
	// partition) when its rows go, found before anything is done.
	FKActions []FKAction
	// Default is the DEFAULT partition, if the parent has one, with the
	// rows it holds.
	Default DefaultRows
	// DryRun is true if the plan was a dry run: the lists say what Ensure
	// would have done, and nothing was changed.
	DryRun bool
}

// Empty reports whether Ensure changed nothing and has nothing to report:
// no partition created, detached, dropped or kept, no row in the DEFAULT
// partition.
func (r Report) Empty() bool {
	return len(r.Created) == 0 && len(r.Detached) == 0 && len(r.Dropped) == 0 && len(r.Kept) == 0 && r.Default.Rows == 0
}

// Kept is an expired partition that [Ensure] could not retire.
type Kept struct {
	Partition
	// Reason says why, e.g. "it is still referenced: 1 rows of
	// public.event_tags reference it through event_tags_event_id_fkey (ON
	// DELETE NO ACTION)", or the server's error message.
	Reason string
	// Detail and Hint are the server's DETAIL and HINT, if any.
	Detail, Hint string
	// Constraint names the constraint(s) that kept it, if any.
	Constraint string
}

// String describes k in one line: name, range, reason, detail and hint.
func (k Kept) String() string {
	return fmt.Sprintf("%s [%s, %s) kept: %s%s", k.Name, k.Lower.Format(time.RFC3339), k.Upper.Format(time.RFC3339),
		k.Reason, dbconn.DetailHint(k.Detail, k.Hint))
}

// FKAction is what one foreign key does when the rows of an expired
// partition go: the foreign keys that reference the parent, then, through
// each ON DELETE CASCADE, those that reference the rows it deletes (other
// tables, the parent itself, chains back into it). The ON UPDATE actions
// of the columns a SET NULL or SET DEFAULT changes are not followed.
type FKAction struct {
	// Partition is the expired partition, as in [Report.Dropped].
	Partition string `json:"partition"`
	// Table is the referencing table, schema-qualified.
	Table string `json:"table"`
	// Constraint is the foreign key's name, quoted where SQL needs it.
	Constraint string `json:"constraint"`
	// Action is its ON DELETE action: "CASCADE", "SET NULL",
	// "SET DEFAULT", "NO ACTION" or "RESTRICT".
	Action string `json:"action"`
	// Rows is how many rows of Table it deletes (CASCADE), changes (SET
	// NULL, SET DEFAULT) or that keep the partition (NO ACTION, RESTRICT).
	Rows int64 `json:"rows"`
	// Retained is how many of Rows are rows of the parent that retention
	// keeps: younger than the cut, or in its DEFAULT partition. Unless
	// [Plan.CascadeIntoRetained], any keeps the partition.
	Retained int64 `json:"retained"`
}

// String describes a in one line: "30 rows of public.ev deleted through
// ev_parent_id_fkey (ON DELETE CASCADE), 30 of them younger than the cut".
func (a FKAction) String() string {
	verb := "deleted"
	switch a.Action {
	case "SET NULL", "SET DEFAULT":
		verb = "changed"
	case "NO ACTION", "RESTRICT":
		verb = "referencing it"
	}
	s := fmt.Sprintf("%d rows of %s %s through %s (ON DELETE %s)", a.Rows, a.Table, verb, a.Constraint, a.Action)
	if a.Retained > 0 {
		s += fmt.Sprintf(", %d of them younger than the cut (or in the DEFAULT partition)", a.Retained)
	}
	return s
}

// DefaultRows describes the DEFAULT partition of a parent.
type DefaultRows struct {
	// Name is the DEFAULT partition's schema-qualified name, "" if the
	// parent has none.
	Name string
	// Rows is how many rows it holds: rows inserted while their partition
	// was missing. Retention never touches them, and they stop the
	// creation of their range (ErrDefaultHasRows) until moved.
	Rows int64
	// Oldest and Newest are the times of its oldest and newest IDs (zero
	// when it is empty).
	Oldest, Newest time.Time
}
