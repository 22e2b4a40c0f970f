package migrations_test

import (
	"context"
	"database/sql"
	"net"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// ReadStatus says where it read: the database and the server address the
// connection reached, whatever the handle, so that a service can show
// where Up worked when its DSN came from the environment.
func TestStatusWhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatal(err)
	}
	for what, read := range map[string]func() (migrations.Status, error){
		"conn": func() (migrations.Status, error) { return migrations.ReadStatus(ctx, conn) },
		"pool": func() (migrations.Status, error) { return migrations.ReadStatus(ctx, pool) },
		"sql":  func() (migrations.Status, error) { return migrations.ReadStatus(ctx, db) },
	} {
		st, err := read()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if st.Database != cfg.Database || st.Version != migrations.Latest() {
			t.Errorf("%s: database %q version %d, want %q, %d", what, st.Database, st.Version, cfg.Database, migrations.Latest())
		}
		host, port, err := net.SplitHostPort(st.Server)
		if err != nil || port != strconv.Itoa(int(cfg.Port)) || net.ParseIP(host) == nil {
			t.Errorf("%s: server %q, want the address of %s:%d", what, st.Server, cfg.Host, cfg.Port)
		}
	}
}
