package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{Name: "pgtest", Parallel: 4}))
}

// The connections the tests open, by every way pgtest gives them a DSN,
// carry the binary's tag, so that the connection budget does not count
// them as other clients'.
func TestConnectionsCarryTheTag(t *testing.T) {
	ctx := context.Background()
	dsn := EmptyDB(t)
	if appTag == "" {
		t.Skip("the server's DSN names an application_name: the budget is set once")
	}
	conn := Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := NewRole(t, conn)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for what, q := range map[string]interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}{
		"Connect":    conn,
		"a pool":     pool,
		"WithUser":   Connect(t, WithUser(dsn, role), pgx.QueryExecModeCacheStatement),
		"ServerDSN":  Connect(t, ServerDSN(t), pgx.QueryExecModeCacheStatement),
		"DSNFor":     Connect(t, DSNFor(ServerDSN(t), "postgres"), pgx.QueryExecModeCacheStatement),
		"admin pool": admin,
	} {
		var name string
		if err := q.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != appTag {
			t.Errorf("%s: application_name %q, want the binary's tag %q", what, name, appTag)
		}
	}
}
