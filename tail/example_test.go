package tail_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// Set a table up once (as its owner), then read it batch by batch from a
// saved cursor, forever.
func ExampleTailer_Run() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	// IDs may be at most 2 s older than the database clock at INSERT.
	if err := tail.Enable(ctx, conn, "events", 2*time.Second); err != nil {
		log.Fatal(err)
	}
	var saved ulidtype.ULID // e.g. read from the consumer's own table
	t, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "events", After: saved})
	if err != nil {
		log.Fatal(err)
	}
	err = t.Run(ctx, func(ctx context.Context, rows []tail.Row[ulidtype.ULID]) error {
		for _, r := range rows {
			fmt.Println(r.ID, string(r.JSON))
		}
		saved = rows[len(rows)-1].ID // persist it with the batch's effects
		return nil
	})
	log.Fatal(err)
}

// A writer recognises the trigger's refusal of an ID that is too old.
func ExampleIsTooOld() {
	// What pgx returns for the refused INSERT.
	err := fmt.Errorf("insert event: %w", &pgconn.PgError{Code: tail.CodeTooOld, Message: "pgid: public.events: id ... is older than ..."})
	fmt.Println(tail.IsTooOld(err))
	fmt.Println(tail.IsTooOld(errors.New("something else")))
	// Output:
	// true
	// false
}

func ExampleNew() {
	var conn *pgx.Conn // connected elsewhere
	_, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: ""})
	fmt.Println(errors.Is(err, tail.ErrConfig), err)
	// Output:
	// true tail: invalid configuration: Config.Table is empty
}
