// Package dbconn is the connection layer of packages migrations, partition
// and tail: the database handles they accept ([DB]), one pgx connection
// from each ([Run]), the refusal of a handle they cannot use ([ErrConn]),
// and the one mapping of pgid's SQLSTATEs to their sentinel errors
// ([Map], [Error]). It also holds what pgid's SQL and those packages
// share: the names of the kinds of ID keys ([Kind]) and the class of
// pgid's advisory locks ([LockClass]).
//
// Every error of the layer has one shape: it matches a sentinel with
// errors.Is, its message says what is wrong, and a server's refusal
// unwraps to the *pgconn.PgError.
package dbconn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// DB is what the database functions of migrations, partition and tail
// accept: a *pgx.Conn, a *pgxpool.Pool (a connection is acquired for the
// call and released), or a *sql.DB or *sql.Conn whose driver is pgx's
// (github.com/jackc/pgx/v5/stdlib).
type DB interface {
	*pgx.Conn | *pgxpool.Pool | *sql.DB | *sql.Conn
}

// ErrConn is matched by every refusal of a handle: a nil one, a
// database/sql driver other than pgx's, or a connection inside a
// transaction where the caller needs one outside ([Caller.Idle]).
var ErrConn = errors.New("pgid: unusable connection")

// Caller is a package using the layer: its refusals begin with Name and
// match Err as well as [ErrConn].
type Caller struct {
	// Name begins the messages: "partition", "tail", "pgid migrations".
	Name string
	// Err is the caller's own sentinel for a refused handle (partition's
	// ErrPlan, tail's ErrConfig), matched besides ErrConn; nil for none.
	Err error
}

// refusal is an error of [Caller.Refuse].
type refusal struct {
	msg  string
	also error
}

func (r *refusal) Error() string { return r.msg }

func (r *refusal) Unwrap() []error {
	if r.also == nil {
		return []error{ErrConn}
	}
	return []error{ErrConn, r.also}
}

// Refuse returns an error matching [ErrConn] and c.Err whose message is
// "<c.Name>: unusable connection: " and the formatted reason.
func (c Caller) Refuse(format string, args ...any) error {
	return &refusal{msg: c.Name + ": unusable connection: " + fmt.Sprintf(format, args...), also: c.Err}
}

// Check refuses a nil db.
func Check[D DB](c Caller, db D) error {
	var none D
	if db == none {
		return c.Refuse("nil %T", db)
	}
	return nil
}

// Run runs f on one pgx connection of db: a *pgx.Conn itself, a connection
// acquired from a *pgxpool.Pool (released when f returns), or the pgx
// connection under a *sql.Conn, or under a connection taken from a *sql.DB
// (given back when f returns). A nil db, and a database/sql connection
// whose driver is not pgx's, are refused ([Caller.Refuse]) and f is not
// called.
func Run[D DB](ctx context.Context, c Caller, db D, f func(*pgx.Conn) error) error {
	if err := Check(c, db); err != nil {
		return err
	}
	switch v := any(db).(type) {
	case *pgx.Conn:
		return f(v)
	case *pgxpool.Pool:
		return v.AcquireFunc(ctx, func(pc *pgxpool.Conn) error { return f(pc.Conn()) })
	case *sql.DB:
		sc, err := v.Conn(ctx)
		if err != nil {
			return fmt.Errorf("%s: get a connection: %w", c.Name, err)
		}
		defer sc.Close()
		return c.raw(sc, f)
	case *sql.Conn:
		return c.raw(v, f)
	}
	return c.Refuse("%T", db) // not reached: DB has no other type
}

// raw runs f on the pgx connection under sc.
func (c Caller) raw(sc *sql.Conn, f func(*pgx.Conn) error) error {
	var ferr error
	err := sc.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return c.Refuse("the database/sql driver connection is a %T; pgid needs pgx's driver, github.com/jackc/pgx/v5/stdlib: "+
				"pass a *sql.DB of sql.Open(\"pgx\", dsn), or a *pgx.Conn from the same DSN", dc)
		}
		ferr = f(pc.Conn())
		return nil
	})
	if err != nil {
		return err
	}
	return ferr
}

// Idle refuses conn if it is inside a transaction (or a failed one); why
// says what needs it outside one.
func (c Caller) Idle(conn *pgx.Conn, why string) error {
	if st := conn.PgConn().TxStatus(); st != 'I' {
		return c.Refuse("the connection is in a transaction (status %q); %s", st, why)
	}
	return nil
}

// Error is a server's refusal that a package maps to one of its sentinels
// by its SQLSTATE ([Map]). errors.Is matches the sentinel, errors.As the
// *pgconn.PgError (for its SQLSTATE, DETAIL and HINT).
type Error struct {
	Kind error           // the sentinel
	PG   *pgconn.PgError // what the server said
	// in is the error PG was found in when it says more than PG (the
	// caller's context); nil when it is PG.
	in error
}

// Error returns the sentinel's text, then the server's message (which
// names the table and the problem) with its DETAIL and HINT, or the
// caller's error that held it.
func (e *Error) Error() string {
	if e.in != nil {
		return e.Kind.Error() + ": " + e.in.Error()
	}
	return e.Kind.Error() + ": " + e.PG.Message + DetailHint(e.PG.Detail, e.PG.Hint)
}

// Unwrap returns the sentinel and the server's error (or the error that
// held it).
func (e *Error) Unwrap() []error {
	if e.in != nil {
		return []error{e.Kind, e.in}
	}
	return []error{e.Kind, e.PG}
}

// States maps the SQLSTATEs a package gives a meaning to its sentinels.
// Declaring each sentinel with [States.New] keeps its SQLSTATE beside it.
type States map[string]error

// New returns a new sentinel error with text, mapped from SQLSTATE code.
func (s States) New(code, text string) error {
	err := errors.New(text)
	s[code] = err
	return err
}

// Match returns the [*Error] for err when err is, or wraps, a
// *pgconn.PgError whose SQLSTATE states maps to a sentinel that err does
// not match already; otherwise nil.
func Match(err error, states States) *Error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) {
		return nil
	}
	kind, ok := states[pg.Code]
	if !ok || errors.Is(err, kind) {
		return nil
	}
	e := &Error{Kind: kind, PG: pg}
	if err != error(pg) {
		e.in = err
	}
	return e
}

// Map returns [Match]'s *Error for err, or err itself when there is none.
func Map(err error, states States) error {
	if e := Match(err, states); e != nil {
		return e
	}
	return err
}

// DetailHint formats a server's DETAIL and HINT to follow a message:
// " (detail: ...) (hint: ...)", each only if present.
func DetailHint(detail, hint string) string {
	s := ""
	if detail != "" {
		s += " (detail: " + strings.ReplaceAll(detail, "\n", "; ") + ")"
	}
	if hint != "" {
		s += " (hint: " + hint + ")"
	}
	return s
}

// WithDetail adds the DETAIL and HINT of the server's error in err (the
// dependent objects of a refused DROP, say) to err's message; other errors
// are returned as they are.
func WithDetail(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		if dh := DetailHint(pg.Detail, pg.Hint); dh != "" {
			return fmt.Errorf("%w%s", err, dh)
		}
	}
	return err
}

// Kind is the kind of ID a key column holds, as pgid's SQL names it
// (pgid.partition_key_kind, pgid.tail_config).
type Kind int

// The kinds.
const (
	// AnyKind is no kind in particular: take it from the column's type.
	AnyKind Kind = iota
	// ULID: a uuid column, or the domain pgid.ulid.
	ULID
	// ObjectID: a bytea column, or the domain pgid.objectid.
	ObjectID
)

// String returns "any", "ulid" or "objectid", the names pgid's SQL uses.
func (k Kind) String() string {
	if k >= AnyKind && k <= ObjectID {
		return [...]string{"any", "ulid", "objectid"}[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// ParseKind reads a kind's name as [Kind.String] writes it, in any case;
// "" and "auto" are AnyKind too. ok is false for anything else.
func ParseKind(s string) (k Kind, ok bool) {
	switch strings.ToLower(s) {
	case "", "any", "auto":
		return AnyKind, true
	case "ulid":
		return ULID, true
	case "objectid":
		return ObjectID, true
	}
	return AnyKind, false
}

// SQLType is the base type of k's columns: "uuid" for ULID, "bytea" for
// ObjectID, "" for AnyKind.
func (k Kind) SQLType() string {
	switch k {
	case ULID:
		return "uuid"
	case ObjectID:
		return "bytea"
	}
	return ""
}

// LockClass is the first key of pgid's two-key advisory locks and the high
// 32 bits of its one-key ones: "pgid" in ASCII. pg_locks shows it as
// classid 1885825380 (objsubid 2 for the two-key locks of package
// partition, 1 for the migration lock).
const LockClass = 0x7067_6964
