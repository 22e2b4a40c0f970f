package sqlc

import (
	"os"
	"testing"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
)

// TestMain gives TestServiceOutsideTheRepository its server and scratch
// database (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN,
// else an embedded PostgreSQL).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Name: "sqlc"}))
}
