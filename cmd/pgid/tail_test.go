package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// syncBuffer is a bytes.Buffer safe to write from the command while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// tailUntil runs pgid tail with args until its stdout has n lines, then
// interrupts it, and returns the exit status, the lines and stderr.
func tailUntil(t *testing.T, n int, args ...string) (int, []string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int)
	go func() { done <- run(ctx, append([]string{"tail"}, args...), &out, &errOut) }()
	deadline := time.After(30 * time.Second)
	for strings.Count(out.String(), "\n") < n {
		select {
		case code := <-done:
			t.Fatalf("pgid tail %v ended early: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out.String(), errOut.String())
		case <-deadline:
			cancel()
			<-done
			t.Fatalf("pgid tail %v: %d lines after 30 s, want %d\nstdout:\n%s\nstderr:\n%s", args, strings.Count(out.String(), "\n"), n, out.String(), errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	code := <-done
	return code, strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"), errOut.String()
}

func TestTail(t *testing.T) {
	if code, out, _ := runCLI(t, "tail", "-h"); code != 0 || !strings.Contains(out, "pgid tail --table T") || !strings.Contains(out, "--since") {
		t.Errorf("tail -h: exit %d, stdout %q", code, out)
	}
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE events (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), kind text NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// Not set up yet: exit 1 with the way out.
	if code, _, errOut := runCLI(t, "tail", "--database-url", dsn, "--table", "events"); code != 1 || !strings.Contains(errOut, "not set up for tailing") || !strings.Contains(errOut, "--enable") {
		t.Errorf("table not set up: exit %d, stderr %q", code, errOut)
	}
	var ids []ulidtype.ULID
	insert := func(kinds ...string) {
		for _, k := range kinds {
			id := ulidtype.New()
			if _, err := conn.Exec(ctx, "INSERT INTO events (id, kind) VALUES ($1, $2)", id, k); err != nil {
				t.Error(err) // also from a goroutine: no Fatal
				return
			}
			ids = append(ids, id)
		}
	}
	// --enable sets the table up; the rows come out as JSON lines.
	// The inserts run while the command runs; inserted orders them before
	// the checks below read ids.
	inserted := make(chan struct{})
	go func() {
		defer close(inserted)
		time.Sleep(200 * time.Millisecond)
		insert("signup", "login", "logout")
	}()
	code, lines, errOut := tailUntil(t, 3, "--database-url", dsn, "--table", "events", "--enable", "1s", "--json")
	<-inserted
	if code != 0 || len(ids) != 3 {
		t.Fatalf("exit %d, %d rows inserted, stderr %q", code, len(ids), errOut)
	}
	for i, l := range lines {
		var got struct {
			ID   string
			Time string
			Row  struct{ Kind string }
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v: %q", i, err, l)
		}
		if got.ID != ids[i].String() || got.Row.Kind != []string{"signup", "login", "logout"}[i] || got.Time != fmtTime(ids[i].Timestamp()) {
			t.Errorf("line %d: %+v, want %s", i, got, ids[i])
		}
	}
	if !strings.Contains(errOut, "resume with --since "+ids[2].String()) {
		t.Errorf("stderr %q does not say where to resume", errOut)
	}
	// Resume after the second row: the third, in text.
	code, lines, _ = tailUntil(t, 1, "--database-url", dsn, "--table", "events", "--since", ids[1].String())
	if code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], ids[2].String()+"  ") || !strings.Contains(lines[0], `"kind":"logout"`) {
		t.Errorf("--since ID: exit %d, lines %q", code, lines)
	}
	// From a time: all three.
	code, lines, _ = tailUntil(t, 3, "--database-url", dsn, "--table", "events", "--since", "-1h")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], ids[0].String()) {
		t.Errorf("--since -1h: exit %d, lines %q", code, lines)
	}
	// Bad input: exit 2.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--database-url", dsn}, "--table is required"},
		{[]string{"--database-url", dsn, "--table", "events", "--since", objectidtype.New().String()}, "other kind"},
		{[]string{"--database-url", dsn, "--table", "events", "--since", "yesterday-ish"}, "neither an ID"},
		{[]string{"--database-url", dsn, "--table", "events", "--batch", "0"}, "--batch"},
		{[]string{"--database-url", dsn, "--table", "events", "--poll", "0s"}, "--poll"},
		{[]string{"--database-url", dsn, "--table", "events", "--enable", "48h"}, "out of range"},
	} {
		if code, _, errOut := runCLI(t, append([]string{"tail"}, c.args...)...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("pgid tail %v: exit %d, stderr %q, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// A setup that no longer checks every row: exit 1, naming the trigger,
	// with the way out.
	if _, err := conn.Exec(ctx, "ALTER TABLE events DISABLE TRIGGER zzz_pgid_tail"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(t, "tail", "--database-url", dsn, "--table", "events"); code != 1 ||
		!strings.Contains(errOut, "zzz_pgid_tail on public.events is disabled") || !strings.Contains(errOut, "pgid.tail_enable('public.events', '1 seconds') again") {
		t.Errorf("trigger disabled: exit %d, stderr %q", code, errOut)
	}
}

// TestTailIDText: in both outputs the row's id is the text of the line's
// "id" (the ULID text, or the ObjectId's hex), and so is every other column
// of type pgid.ulid or pgid.objectid (a domain over one, an array of one);
// plain uuid and bytea columns are left as PostgreSQL prints them, also
// with bytea_output = escape.
func TestTailIDText(t *testing.T) {
	dsn, conn := migratedDB(t)
	ctx := context.Background()
	var db string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE DOMAIN order_ref AS pgid.ulid`,
		`CREATE TABLE events (id uuid PRIMARY KEY, parent pgid.ulid, ext uuid, refs pgid.ulid[], ord order_ref,
			doc pgid.objectid, raw bytea, "Odd ""name""" pgid.ulid, note text)`,
		`CREATE TABLE docs (id pgid.objectid PRIMARY KEY, owner pgid.ulid, raw bytea, alt pgid.objectid[])`,
		`SELECT pgid.tail_enable('events', '1 s')`,
		`SELECT pgid.tail_enable('docs', '1 s')`,
		// The CLI's sessions print bytea in the escape format.
		`ALTER DATABASE ` + db + ` SET bytea_output = escape`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	id, parent, r1, ord, odd := ulidtype.New(), ulidtype.New(), ulidtype.New(), ulidtype.New(), ulidtype.New()
	doc, ext := objectidtype.New(), "0b8f9f4e-3c1d-4a5e-9f6a-1b2c3d4e5f60"
	if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ($1::pgid.ulid, $2, $3, ARRAY[$4::pgid.ulid, NULL], $5, $6, '\x01ff'::bytea, $7, 'a')`,
		id, parent, ext, r1, ord, doc, odd); err != nil {
		t.Fatal(err)
	}
	did, alt := objectidtype.New(), objectidtype.New()
	if _, err := conn.Exec(ctx, `INSERT INTO docs VALUES ($1, $2, '\x5c41'::bytea, ARRAY[$3::pgid.objectid])`, did, parent, alt); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, id, want string
	}{
		{"events", id.String(), fmt.Sprintf(`{"id":"%s","parent":"%s","ext":"%s","refs":["%s",null],"ord":"%s","doc":"%s","raw":"\\001\\377","Odd \"name\"":"%s","note":"a"}`,
			id, parent, ext, r1, ord, doc, odd)},
		{"docs", did.String(), fmt.Sprintf(`{"id":"%s","owner":"%s","raw":"\\\\A","alt":["%s"]}`, did, parent, alt)},
	} {
		code, lines, errOut := tailUntil(t, 1, "--database-url", dsn, "--table", c.table, "--json")
		var got struct {
			ID  string
			Row json.RawMessage
		}
		if code != 0 || len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &got) != nil {
			t.Fatalf("%s --json: exit %d, lines %q, stderr %q", c.table, code, lines, errOut)
		}
		if got.ID != c.id || string(got.Row) != c.want {
			t.Errorf("%s --json: id %s, row\n%s\nwant id %s, row\n%s", c.table, got.ID, got.Row, c.id, c.want)
		}
		code, lines, errOut = tailUntil(t, 1, "--database-url", dsn, "--table", c.table)
		if code != 0 || len(lines) != 1 || !strings.HasPrefix(lines[0], c.id+"  ") || !strings.HasSuffix(lines[0], "  "+c.want) {
			t.Errorf("%s: exit %d, lines %q, stderr %q; want %s  …  %s", c.table, code, lines, errOut, c.id, c.want)
		}
	}
}
