package pgtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
)

// ForeignDriver is the name of a database/sql driver that is not pgx's:
// sql.Open(pgtest.ForeignDriver, dsn) gives a *sql.DB whose connections
// pgid's packages must refuse (they need github.com/jackc/pgx/v5/stdlib)
// without the test module depending on another PostgreSQL driver.
// integration_test checks the same refusal with lib/pq itself. Its
// connections open without a network and fail every statement.
const ForeignDriver = "pgtest-foreign"

func init() { sql.Register(ForeignDriver, foreignDriver{}) }

// errForeign is what every statement through ForeignDriver fails with.
var errForeign = errors.New("pgtest: the foreign driver runs no statements")

type foreignDriver struct{}

func (foreignDriver) Open(string) (driver.Conn, error) { return foreignConn{}, nil }

type foreignConn struct{}

func (foreignConn) Prepare(string) (driver.Stmt, error) { return nil, errForeign }
func (foreignConn) Close() error                        { return nil }
func (foreignConn) Begin() (driver.Tx, error)           { return nil, errForeign }

// Ping makes db.PingContext succeed, as a reachable server would.
func (foreignConn) Ping(context.Context) error { return nil }
