package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/migrations"
)

// Migrate at start-up through the application's pool, waiting at most 10 s
// for another instance that is migrating at the same moment.
func ExampleUp() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	err = migrations.Up(ctx, pool, migrations.WithLockWait(10*time.Second))
	switch {
	case errors.Is(err, migrations.ErrLocked):
		log.Fatalf("another instance keeps migrating: %v", err)
	case errors.Is(err, migrations.ErrNotOwner):
		log.Fatalf("migrate as the database owner: %v", err)
	case err != nil:
		log.Fatal(err)
	}
}

// What a database has applied, read by any role.
func ExampleReadStatus() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	st, err := migrations.ReadStatus(ctx, pool)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("version %d of %d, functions current: %v\n", st.Version, migrations.Latest(), st.FunctionsCurrent)
}

// The checksum the runner records for a versioned file.
func ExampleChecksum() {
	b, err := fs.ReadFile(migrations.FS, "001_schema_and_domains.sql")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(migrations.Checksum(b)[:16])
	fmt.Println(migrations.Checksum([]byte("")))
	// Output:
	// d284d8151871b3b9
	// e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
}
