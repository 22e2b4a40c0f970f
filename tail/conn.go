package tail

import "github.com/pgid/pgid/internal/dbconn"

// DB is what the functions of this package accept, the same constraint as
// partition.DB and migrations.DB: a *pgx.Conn, a *pgxpool.Pool (a
// connection is acquired for each call and released), or a *sql.DB or
// *sql.Conn whose driver is pgx's (github.com/jackc/pgx/v5/stdlib). A
// [Tailer] needs a connection outside any transaction: each of its reads
// takes two statements, each with a snapshot of its own.
type DB = dbconn.DB

// ErrConn: the connection cannot be used: a nil one, a database/sql driver
// other than pgx's, or, for a [Tailer], a connection inside a transaction.
// Such errors also match [ErrConfig], as they did before ErrConn existed.
// It is the same error as partition.ErrConn and migrations.ErrConn.
var ErrConn = dbconn.ErrConn

// conns is the package's use of the connection layer.
var conns = dbconn.Caller{Name: "tail", Err: ErrConfig}
