package tail

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// DB is what the functions of this package accept, as package partition
// does: a *pgx.Conn, a *pgxpool.Pool (a connection is acquired for each
// call and released), or a *sql.DB or *sql.Conn whose driver is pgx's
// (github.com/jackc/pgx/v5/stdlib). A [Tailer] needs a connection outside
// any transaction: each of its reads takes two statements, each with a
// snapshot of its own.
type DB interface {
	*pgx.Conn | *pgxpool.Pool | *sql.DB | *sql.Conn
}

// checkDB refuses a nil db.
func checkDB[D DB](db D) error {
	switch v := any(db).(type) {
	case *pgx.Conn:
		if v != nil {
			return nil
		}
	case *pgxpool.Pool:
		if v != nil {
			return nil
		}
	case *sql.DB:
		if v != nil {
			return nil
		}
	case *sql.Conn:
		if v != nil {
			return nil
		}
	}
	return fmt.Errorf("%w: nil %T", ErrConfig, db)
}

// withConn runs f on one pgx connection of db.
func withConn[D DB](ctx context.Context, db D, f func(*pgx.Conn) error) error {
	if err := checkDB(db); err != nil {
		return err
	}
	switch v := any(db).(type) {
	case *pgx.Conn:
		return f(v)
	case *pgxpool.Pool:
		return v.AcquireFunc(ctx, func(c *pgxpool.Conn) error { return f(c.Conn()) })
	case *sql.DB:
		c, err := v.Conn(ctx)
		if err != nil {
			return fmt.Errorf("tail: get a connection: %w", err)
		}
		defer c.Close()
		return rawConn(c, f)
	case *sql.Conn:
		return rawConn(v, f)
	}
	return nil
}

// rawConn runs f on the pgx connection under c.
func rawConn(c *sql.Conn, f func(*pgx.Conn) error) error {
	var ferr error
	err := c.Raw(func(dc any) error {
		pc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("%w: the database/sql driver connection is a %T; tail needs pgx's driver, github.com/jackc/pgx/v5/stdlib", ErrConfig, dc)
		}
		ferr = f(pc.Conn())
		return nil
	})
	if err != nil {
		return err
	}
	return ferr
}
