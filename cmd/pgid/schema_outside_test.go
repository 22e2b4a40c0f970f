package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/migrations"
)

// The help texts agree with docs/MIGRATIONS.md's shape (b): `pgid schema` is for
// sqlc and for applying through another migration tool.
func TestSchemaHelpAgrees(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"schema", "-h"}} {
		_, out, errOut := runCLI(t, args...)
		out += errOut
		if strings.Contains(out, "not to apply") || !strings.Contains(out, "another migration tool") {
			t.Errorf("pgid %s says %q or lacks %q:\n%s", strings.Join(args, " "), "not to apply", "another migration tool", out)
		}
	}
	_, out, errOut := runCLI(t, "schema", "-h")
	if !strings.Contains(out+errOut, "migrate status") {
		t.Errorf("pgid schema -h does not say what migrate status and up make of a database it set up:\n%s", out+errOut)
	}
}

// TestMigrateStatusOutside: on a database whose schema pgid came from
// `pgid schema` through another tool, status says so, that it is current,
// and what up would do; up then does it.
func TestMigrateStatusOutside(t *testing.T) {
	ctx := context.Background()
	dsn := scratchDB(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "BEGIN;\n"+mustRun(t, "schema")+"\nCOMMIT;"); err != nil {
		t.Fatalf("applying pgid schema: %v", err)
	}
	out := mustRun(t, "migrate", "status", "--database-url", dsn)
	for _, want := range []string{
		"schema pgid is present, applied outside pgid's runner",
		fmt.Sprintf("current: every domain and function of this pgid (version %d)", migrations.Latest()),
		fmt.Sprintf("would run the %d versioned files again (each skips what exists) and this pgid's function definitions, then record version %d", migrations.Latest(), migrations.Latest()),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("migrate status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "to apply") {
		t.Errorf("migrate status counts versions to apply on a schema pgid applied outside the runner:\n%s", out)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "migrate", "status", "--json", "--database-url", dsn)), &st); err != nil {
		t.Fatal(err)
	}
	if st["outside"] != true || st["lacks"] != nil || st["extra"] != nil {
		t.Errorf("migrate status --json: outside %v, lacks %v, extra %v", st["outside"], st["lacks"], st["extra"])
	}
	mustRun(t, "migrate", "up", "--database-url", dsn)
	out = mustRun(t, "migrate", "status", "--database-url", dsn)
	if want := fmt.Sprintf("version    %d of %d (0 to apply)\nfunctions  current\n", migrations.Latest(), migrations.Latest()); !strings.Contains(out, want) {
		t.Errorf("after up, migrate status:\n%s\nwant %q", out, want)
	}
}
