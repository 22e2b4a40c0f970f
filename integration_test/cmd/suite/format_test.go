package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// A go test -json stream of two packages, recorded from go 1.26 and cut
// down: integration_test prints its server line from TestMain, then runs
// two tests, one of which fails in a subtest (with a line go test -json
// cut in two, as it cuts long lines); ulidtype passes; idtext has
// no test files; typeid, run with -run '^$', has no tests to run.
const stream = `{"Action":"start","Package":"github.com/pgid/pgid/integration_test"}
{"Action":"start","Package":"github.com/pgid/pgid/ulidtype"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Output":"integration_test: server (PostgreSQL 15.20 at 127.0.0.1:5432 from DATABASE_URL)\n"}
{"Action":"run","Package":"github.com/pgid/pgid/ulidtype","Test":"TestParse"}
{"Action":"output","Package":"github.com/pgid/pgid/ulidtype","Test":"TestParse","Output":"=== RUN   TestParse\n"}
{"Action":"output","Package":"github.com/pgid/pgid/ulidtype","Test":"TestParse","Output":"--- PASS: TestParse (0.00s)\n"}
{"Action":"pass","Package":"github.com/pgid/pgid/ulidtype","Test":"TestParse"}
{"Action":"output","Package":"github.com/pgid/pgid/ulidtype","Output":"PASS\n"}
{"Action":"output","Package":"github.com/pgid/pgid/ulidtype","Output":"ok  \tgithub.com/pgid/pgid/ulidtype\t0.884s\n"}
{"Action":"pass","Package":"github.com/pgid/pgid/ulidtype"}
{"Action":"run","Package":"github.com/pgid/pgid/integration_test","Test":"TestServer"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestServer","Output":"=== RUN   TestServer\n"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestServer","Output":"    main_test.go:330: server (...)\n"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestServer","Output":"--- PASS: TestServer (0.10s)\n"}
{"Action":"pass","Package":"github.com/pgid/pgid/integration_test","Test":"TestServer"}
{"Action":"run","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange"}
{"Action":"run","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/ulid"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/ulid","Output":"    range_test.go:12: got 3 rows, "}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/ulid","Output":"want 4\n"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/ulid","Output":"    --- FAIL: TestRange/ulid (0.01s)\n"}
{"Action":"fail","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/ulid"}
{"Action":"run","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/objectid"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/objectid","Output":"    --- PASS: TestRange/objectid (0.01s)\n"}
{"Action":"pass","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange/objectid"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange","Output":"--- FAIL: TestRange (0.02s)\n"}
{"Action":"fail","Package":"github.com/pgid/pgid/integration_test","Test":"TestRange"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Output":"FAIL\n"}
{"Action":"output","Package":"github.com/pgid/pgid/integration_test","Output":"FAIL\tgithub.com/pgid/pgid/integration_test\t112.5s\n"}
{"Action":"fail","Package":"github.com/pgid/pgid/integration_test"}
{"Action":"start","Package":"github.com/pgid/pgid/internal/idtext"}
{"Action":"output","Package":"github.com/pgid/pgid/internal/idtext","Output":"?   \tgithub.com/pgid/pgid/internal/idtext\t[no test files]\n"}
{"Action":"start","Package":"github.com/pgid/pgid/typeid"}
{"Action":"output","Package":"github.com/pgid/pgid/typeid","Output":"testing: warning: no tests to run\n"}
{"Action":"output","Package":"github.com/pgid/pgid/typeid","Output":"PASS\n"}
{"Action":"output","Package":"github.com/pgid/pgid/typeid","Output":"ok  \tgithub.com/pgid/pgid/typeid\t0.019s [no tests to run]\n"}
{"Action":"pass","Package":"github.com/pgid/pgid/typeid"}
{"Action":"skip","Package":"github.com/pgid/pgid/internal/idtext"}
`

// feed runs the stream through readEvents and a formatter, and returns
// what it printed.
func feed(t *testing.T, s string, f func(*formatter, event)) string {
	t.Helper()
	var out bytes.Buffer
	fm := newFormatter(&out, time.Unix(0, 0))
	events := make(chan event)
	errc := make(chan error, 1)
	go func() { errc <- readEvents(strings.NewReader(s), events, &out); close(events) }()
	for e := range events {
		fm.event(e)
		if f != nil {
			f(fm, e)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	fm.summary(time.Unix(252, 0))
	return out.String()
}

// The server line comes out before any result; a passing package is its
// result line alone; a failing one shows what go test shows without -v:
// the failed tests' lines, not the passed ones'.
func TestFormatter(t *testing.T) {
	got := feed(t, stream, nil)
	want := `integration_test: server (PostgreSQL 15.20 at 127.0.0.1:5432 from DATABASE_URL)
ok  	github.com/pgid/pgid/ulidtype	0.884s	(1 test)
    range_test.go:12: got 3 rows, want 4
    --- FAIL: TestRange/ulid (0.01s)
--- FAIL: TestRange (0.02s)
FAIL
FAIL	github.com/pgid/pgid/integration_test	112.5s
ok  	github.com/pgid/pgid/typeid	0.019s [no tests to run]
?   	github.com/pgid/pgid/internal/idtext	[no test files]
suite: 2 packages ok, 1 failed, 1 without tests, in 4m12s
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Lines that are not events (go test's own errors) are copied as they are.
func TestFormatterPassesText(t *testing.T) {
	got := feed(t, "go: warning: something\n"+stream, nil)
	if !strings.HasPrefix(got, "go: warning: something\nintegration_test: server") {
		t.Errorf("got:\n%s", got)
	}
}

// After quiet time without a line, tick names what still runs and how far
// it got; before that, and while lines come, it says nothing.
func TestFormatterTick(t *testing.T) {
	var out bytes.Buffer
	began := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f := newFormatter(&out, began)
	f.tick(began.Add(29*time.Second), 30*time.Second)
	if out.Len() != 0 {
		t.Fatalf("tick before 30 s printed %q", out.String())
	}
	f.tick(began.Add(31*time.Second), 30*time.Second)
	if want := "suite: 31s: compiling; no package's tests have started\n"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	at := began.Add(40 * time.Second)
	for _, e := range []event{
		{Time: at, Action: "start", Package: "github.com/pgid/pgid/integration_test"},
		{Time: at, Action: "start", Package: "github.com/pgid/pgid/sqlc"},
		{Time: at.Add(time.Second), Action: "output", Package: "github.com/pgid/pgid/integration_test", Output: "integration_test: server (x)\n"},
		{Time: at.Add(2 * time.Second), Action: "run", Package: "github.com/pgid/pgid/integration_test", Test: "TestA"},
		{Time: at.Add(3 * time.Second), Action: "pass", Package: "github.com/pgid/pgid/integration_test", Test: "TestA"},
		{Time: at.Add(3 * time.Second), Action: "pass", Package: "github.com/pgid/pgid/integration_test", Test: "TestA/sub"},
	} {
		f.event(e)
	}
	f.tick(at.Add(20*time.Second), 30*time.Second) // 19 s after the server line
	f.tick(at.Add(95*time.Second), 30*time.Second)
	want := "integration_test: server (x)\n" +
		"suite: 2m15s: still running: integration_test (1m35s, 1 test passed), sqlc (1m35s)\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// whichServer names the embedded server's binaries and says when nothing
// answers at DATABASE_URL; it starts nothing.
func TestWhichServer(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	ctx := context.Background()
	for _, c := range []struct {
		env  func(string) string
		want []string
	}{
		{env("PGID_POSTGRES", "embedded", "PGID_POSTGRES_BINARIES", "/opt/pg18", "DATABASE_URL", "postgres://x@127.0.0.1:1/db"),
			[]string{"PGID_POSTGRES=embedded: integration_test starts an embedded server from the binaries in PGID_POSTGRES_BINARIES=/opt/pg18"}},
		{env("PGID_POSTGRES", "embedded"), []string{"downloaded once into the cache (PGID_POSTGRES_CACHE)"}},
		{env("PGID_POSTGRES", "docker"), []string{`PGID_POSTGRES="docker" is neither embedded nor auto`}},
		{env("DATABASE_URL", "postgres://pgid@127.0.0.1:1/db?connect_timeout=2"),
			[]string{"DATABASE_URL, 127.0.0.1:1, database db, user pgid, does not answer ("}},
		{env("DATABASE_URL", "postgres://%zz"), []string{"not a valid DSN"}},
	} {
		got := whichServer(ctx, c.env)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("got %q, want it to contain %q", got, w)
			}
		}
	}
}
