package integration_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/typeid"
)

// docs/TYPEID.md: its Go blocks stand here and run.

type UserPrefix struct{}

func (UserPrefix) Prefix() string { return "user" }

type UserID = typeid.ID[UserPrefix] // an alias keeps typeid.ID's methods

func TestReadmeTypeID(t *testing.T) {
	ctx := context.Background()
	dsn := newDB(t, true)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE users (id uuid PRIMARY KEY, name text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	from := time.Now().Add(-time.Minute)

	id := typeid.New[UserPrefix]()                                                     // UUIDv7, strictly increasing in the process
	_, err = pool.Exec(ctx, "INSERT INTO users (id, name) VALUES ($1, $2)", id, "ada") // a uuid column
	text := id.String()                                                                // user_01h455vb4pex5vsknk084sn02q, also in JSON
	id, err = typeid.Parse[UserPrefix](text)                                           // "order_…": ErrWrongPrefix, naming both prefixes

	if err != nil {
		t.Fatal(err)
	}
	to := time.Now().Add(time.Minute)

	lo, hi := typeid.Range[UserPrefix](from, to) // WHERE id >= $1 AND id < $2

	var got UserID
	var name string
	if err := pool.QueryRow(ctx, "SELECT id, name FROM users WHERE id >= $1 AND id < $2", lo, hi).Scan(&got, &name); err != nil || got != id || name != "ada" {
		t.Fatalf("the window: %v %q, %v; want %v", got, name, err, id)
	}
	if _, err := typeid.Parse[UserPrefix]("order_" + id.Suffix()); !errors.Is(err, typeid.ErrWrongPrefix) {
		t.Fatalf("an order's ID as a user's: %v", err)
	}

	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()

	prefix := "user"                                                           // from configuration, say
	a, err := typeid.ParseWithPrefix(prefix, text)                             // typeid.ParseAny(text) takes any prefix
	err = pool.QueryRow(ctx, "SELECT id FROM users WHERE id = $1", a).Scan(&a) // binds the UUID; the scan keeps a's prefix
	user, err := typeid.FromAny[UserPrefix](a)                                 // "order": ErrWrongPrefix, naming both

	if err != nil || user != id || a.Prefix() != "user" {
		t.Fatalf("the run-time prefix: %v %v, %v", a, user, err)
	}

	var ids typeid.Slice[UserPrefix] // NullSlice[UserPrefix] if elements may be NULL
	err = db.QueryRowContext(ctx, "SELECT array_agg(id) FROM users WHERE id = ANY($1)", typeid.Slice[UserPrefix]{id}).Scan(&ids)

	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("database/sql slices: %v, %v", ids, err)
	}
	if _, err := typeid.FromAny[UserPrefix](typeid.MustParseAny("order_" + id.Suffix())); !errors.Is(err, typeid.ErrWrongPrefix) {
		t.Fatalf("FromAny of an order's ID as a user's: %v", err)
	}
}
