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
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/objectidtype"
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

// Read the rows as structs instead of JSON: columns scan by name into
// typed fields, with no JSON made on the server (pgx.RowToStructByName
// matches the field names case-insensitively, or by their db tags).
func ExampleRunCollect() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)

	type Event struct {
		ID      ulidtype.ULID             // id pgid.ulid (or uuid)
		Account objectidtype.NullObjectID // account pgid.objectid, NULL allowed
		Body    []byte                    // body bytea
		Payload map[string]any            // payload jsonb
		At      time.Time                 // at timestamptz
		Note    *string                   // note text, NULL allowed
	}
	t, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "events", Batch: 1000})
	if err != nil {
		log.Fatal(err)
	}
	err = tail.RunCollect(ctx, t, pgx.RowToStructByName[Event], func(ctx context.Context, evs []Event) error {
		for _, e := range evs {
			fmt.Println(e.ID, e.Account, len(e.Body), e.Payload, e.At, e.Note)
		}
		return nil // then t.Cursor() == evs[len(evs)-1].ID
	})
	log.Fatal(err)
}

// One batch as []any, the way pgx.Rows.Values gives it, the id as a ULID.
func ExampleCollect() {
	ctx := context.Background()
	var conn *pgx.Conn // connected elsewhere
	t, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "events"})
	if err != nil {
		log.Fatal(err)
	}
	rows, err := tail.Collect(ctx, t, tail.Values)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Println(r...)
	}
}

// Read the rows on a hot standby, with the horizon taken on the primary:
// every row that commits on the primary, once, in ID order, as soon as the
// standby has replayed it. The pools are the primary's (which the table's
// owner set up with tail.Enable) and a standby's.
func ExampleNewStandby() {
	ctx := context.Background()
	primary, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer primary.Close()
	standby, err := pgxpool.New(ctx, os.Getenv("STANDBY_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer standby.Close()

	t, err := tail.NewStandby(standby, primary, tail.Config[ulidtype.ULID]{Table: "events"})
	if err != nil {
		log.Fatal(err)
	}
	err = t.Run(ctx, func(ctx context.Context, rows []tail.Row[ulidtype.ULID]) error {
		fmt.Println(len(rows), "rows up to", t.Cursor(), "; the standby's horizon trails the primary's by", t.StandbyLag().Horizon)
		return nil
	})
	// tail.New(standby, ...) would fail with tail.ErrStandby instead of
	// skipping rows.
	if err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}
