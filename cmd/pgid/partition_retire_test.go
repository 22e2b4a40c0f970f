package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Issue 26, item 6, from the shell: replies referencing their parent ON
// DELETE CASCADE. Retiring 1 November would delete replies younger than
// the cut; --dry-run (text and --json) says so, foreign key by foreign
// key, the run keeps the partition and every younger row (exit 1), and
// --cascade-into-retained lets the foreign key act.
func TestPartitionRetireSelfCascadeCLI(t *testing.T) {
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE TABLE ev (id pgid.ulid PRIMARY KEY, parent pgid.ulid REFERENCES ev ON DELETE CASCADE)
			PARTITION BY RANGE (id);
		CREATE TABLE ev_tags (id pgid.ulid REFERENCES ev ON DELETE CASCADE);
		SELECT pgid.ensure_partitions('ev', '1 day', 6, at => '2026-11-01Z');
		INSERT INTO ev SELECT pgid.ulid_min_at('2026-11-01Z'::timestamptz + i * interval '1 minute'), NULL FROM generate_series(1, 10) i;
		INSERT INTO ev SELECT pgid.ulid_min_at('2026-11-05Z'::timestamptz + i * interval '1 minute'),
			pgid.ulid_min_at('2026-11-01Z'::timestamptz + i * interval '1 minute') FROM generate_series(1, 10) i;
		INSERT INTO ev_tags SELECT id FROM ev`); err != nil {
		t.Fatal(err)
	}
	young := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM ev WHERE id >= pgid.ulid_min_at('2026-11-04Z')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	args := []string{"partition", "ensure", "--database-url", dsn, "--table", "ev", "--every", "day", "--ahead", "1",
		"--retain", "2d", "--at", "2026-11-06T00:00:00Z"}
	fk := "foreign key: 10 rows of public.ev deleted through ev_parent_fkey (ON DELETE CASCADE), 10 of them younger than the cut"
	code, out, errOut := runCLI(t, append(args, "--dry-run")...)
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"would be kept public.ev_p20261101", "10 rows of public.ev younger than the cut", fk,
		"foreign key: 20 rows of public.ev_tags deleted through ev_tags_id_fkey (ON DELETE CASCADE)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("--dry-run output lacks %q:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
		}
	}
	if code != 1 || young() != 10 {
		t.Errorf("--dry-run: exit %d (want 1), %d younger rows (want 10)", code, young())
	}
	code, out, _ = runCLI(t, append(args, "--dry-run", "--json")...)
	var rep struct {
		Kept      []struct{ Name, Constraint string }
		FKActions []struct {
			Partition, Table, Constraint, Action string
			Rows, Retained                       int64
		} `json:"fk_actions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if code != 1 || len(rep.Kept) != 1 || rep.Kept[0].Constraint != "ev_parent_fkey" || len(rep.FKActions) != 2 ||
		rep.FKActions[0] != (struct {
			Partition, Table, Constraint, Action string
			Rows, Retained                       int64
		}{"public.ev_p20261101", "public.ev", "ev_parent_fkey", "CASCADE", 10, 10}) {
		t.Errorf("--json: exit %d, %+v\n%s", code, rep, out)
	}
	if code, out, _ = runCLI(t, args...); code != 1 || young() != 10 || !strings.Contains(out, "kept      public.ev_p20261101") {
		t.Errorf("run: exit %d (want 1), %d younger rows (want 10)\n%s", code, young(), out)
	}
	if code, out, errOut = runCLI(t, append(args, "--cascade-into-retained")...); code != 0 || young() != 0 ||
		!strings.Contains(out, "dropped   public.ev_p20261101") || !strings.Contains(strings.Join(strings.Fields(out), " "), fk) {
		t.Errorf("--cascade-into-retained: exit %d, %d younger rows (want 0)\nstdout:\n%s\nstderr:\n%s", code, young(), out, errOut)
	}
}
