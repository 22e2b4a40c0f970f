package bench

import (
	"os"
	"testing"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
)

// TestMain gives the database benchmarks their server and scratch
// databases (internal/pgserver/pgtest); the others need none.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Name: "bench"}))
}
