package integration_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// The database refuses bad input with the right SQLSTATE, and a failing
// statement inside a transaction leaves nothing behind.
func TestDatabaseRejectsBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, driverTables); err != nil {
		t.Fatal(err)
	}

	// 11 and 13 bytes: the domain's CHECK (23514); plain bytea takes them.
	for _, b := range [][]byte{make([]byte, 11), make([]byte, 13)} {
		if _, err := conn.Exec(ctx, "INSERT INTO dom (k, o) VALUES ($1, $2)", nextKey(), b); sqlState(err) != "23514" {
			t.Errorf("%d bytes into pgid.objectid: %v, want SQLSTATE 23514", len(b), err)
		}
		if _, err := conn.Exec(ctx, "SELECT $1::pgid.objectid", b); sqlState(err) != "23514" {
			t.Errorf("%d bytes cast to pgid.objectid: %v, want SQLSTATE 23514", len(b), err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO plain (k, o) VALUES ($1, $2)", nextKey(), b); err != nil {
			t.Errorf("%d bytes into plain bytea: %v", len(b), err)
		}
	}
	// Invalid ULID text: 22P02.
	for _, s := range []string{"01ARZ3NDEKTSV4RRFFQ69G5FAU", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEK"} {
		if _, err := conn.Exec(ctx, "INSERT INTO dom (k, u) VALUES ($1, pgid.ulid_from_text($2))", nextKey(), s); sqlState(err) != "22P02" {
			t.Errorf("ulid_from_text(%q): %v, want SQLSTATE 22P02", s, err)
		}
	}

	count := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM dom WHERE k >= 1000000").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Explicit transaction: a good row, then a failing statement.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO dom (k, u, o) VALUES (1000001, $1, $2)", ulidtype.New(), objectidtype.New()); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO dom (k, o) VALUES (1000002, $1)", make([]byte, 13)); sqlState(err) != "23514" {
		t.Fatalf("in transaction: %v, want 23514", err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); sqlState(err) != "25P02" { // in_failed_sql_transaction
		t.Fatalf("after a failed statement: %v, want 25P02", err)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Fatal("commit of a failed transaction succeeded")
	}
	if n := count(); n != 0 {
		t.Fatalf("after the failed transaction: %d rows, want 0", n)
	}

	// pgx.BeginFunc: the error from ulid_from_text rolls back the good row.
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO dom (k, u) VALUES (1000003, $1)", ulidtype.New()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO dom (k, u) VALUES (1000004, pgid.ulid_from_text('I0000000000000000000000000'))")
		return err
	})
	if sqlState(err) != "22P02" {
		t.Fatalf("BeginFunc: %v, want 22P02", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after BeginFunc: %d rows, want 0", n)
	}

	// A batch is one implicit transaction: the bad statement voids it all.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO dom (k, u, o) VALUES (1000005, $1, $2)", ulidtype.New(), objectidtype.New())
	b.Queue("INSERT INTO dom (k, o) VALUES (1000006, $1)", make([]byte, 11))
	b.Queue("INSERT INTO dom (k, u, o) VALUES (1000007, $1, $2)", ulidtype.New(), objectidtype.New())
	if err := conn.SendBatch(ctx, b).Close(); sqlState(err) != "23514" {
		t.Fatalf("batch: %v, want 23514", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after the failed batch: %d rows, want 0", n)
	}
}
