package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{Name: "pgtest"}))
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

// WithParam's value reaches the server as written, spaces, plus signs,
// quotes and backslashes included, in a URL DSN and in a key=value one.
func TestWithParamRoundTrips(t *testing.T) {
	ctx := context.Background()
	url := ServerDSN(t)
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	kv := fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, cfg.User, cfg.Database)
	if cfg.Password != "" {
		kv += " password=" + cfg.Password
	}
	const want = `a b+c 'd' \e`
	for form, dsn := range map[string]string{"URL": url, "key=value": kv} {
		conn := Connect(t, WithParam(dsn, "application_name", want), pgx.QueryExecModeCacheStatement)
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting('application_name')").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s form: application_name %q, want %q", form, got, want)
		}
	}
}
