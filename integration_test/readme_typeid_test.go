package integration_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/typeid"
)

// The README's TypeIDs section: its Go blocks stand here and run.

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
}
