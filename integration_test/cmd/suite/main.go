// Command suite runs the repository's full test suite, go test work, and
// says what it is doing while it runs. Plain go test work prints a package
// only when it has ended and, when it passes, nothing of what its tests
// wrote: for minutes nothing shows. suite first prints which PostgreSQL the
// database tests will use and how it was found, and where the slow parts
// are; then it runs go test -json and prints, as they happen, what the
// packages' TestMain functions print before their tests (integration_test's
// server line, an embedded server's start), each package's result as it
// ends (with the output of failed tests, as go test shows it), and every 30
// seconds without news, what is still running.
//
// From the repository root:
//
//	go run ./integration_test/cmd/suite [go test flags] [-- packages]
//
// The flags go to go test (-race, -count=1, -run X); the packages are work,
// every module's, unless given after "--". The exit status is go test's.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags, pkgs := args, []string{"work"}
	if i := slices.Index(args, "--"); i >= 0 {
		flags, pkgs = args[:i], args[i+1:]
	}
	goArgs := append(append([]string{"test", "-json"}, flags...), pkgs...)
	began := time.Now()
	fmt.Fprintf(stdout, "suite: go %s (go test without -json runs the same, but shows each package only when it has ended)\n", strings.Join(goArgs, " "))
	fmt.Fprintf(stdout, "suite: PostgreSQL: %s\n", whichServer(context.Background(), os.Getenv))
	if slices.Equal(pkgs, []string{"work"}) {
		fmt.Fprintln(stdout, slowParts)
	}
	fmt.Fprintln(stdout, "suite: each package is printed when it ends; a line every 30 s without news names what still runs.")

	cmd := exec.Command("go", goArgs...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "suite:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "suite:", err)
		return 1
	}
	// Ctrl-C reaches go test from the terminal: keep reading until it has
	// printed what it has. A SIGTERM sent to suite alone is passed on.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM {
				cmd.Process.Signal(s)
			}
		}
	}()

	f := newFormatter(stdout, began)
	events := make(chan event)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readEvents(out, events, stdout)
		close(events)
	}()
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
loop:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break loop
			}
			f.event(e)
		case now := <-tick.C:
			f.tick(now, 30*time.Second)
		}
	}
	if err := <-readErr; err != nil {
		fmt.Fprintln(stderr, "suite: reading go test -json:", err)
	}
	werr := cmd.Wait()
	f.summary(time.Now())
	var exit *exec.ExitError
	switch {
	case errors.As(werr, &exit):
		return exit.ExitCode()
	case werr != nil:
		fmt.Fprintln(stderr, "suite:", werr)
		return 1
	case f.failed > 0:
		return 1
	}
	return 0
}

// slowParts says where go test work spends its time, measured on a loaded
// 2-core machine (the issue-29 note has the numbers).
const slowParts = `suite: slow parts: compiling every module's tests first (about a minute with a warm build cache, several cold);
  integration_test and partition (about 2 min each against the server), tail and migrations (about 1 min each),
  internal/pgserver (about 30 s: starts embedded servers),
  sqlc (TestServiceOutsideTheRepository builds sqlc and a service module: minutes on a cold cache).`

// readEvents decodes go test -json's lines into events; a line that is not
// an event (go test writes some errors as text) is copied to w.
func readEvents(r io.Reader, events chan<- event, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		events <- e
	}
	return sc.Err()
}

// whichServer says which PostgreSQL the database tests will use, in the
// order internal/pgserver.Find tries (every module's tests find it through
// internal/pgserver/pgtest; only integration_test has the testcontainers-go
// step), without starting one: a server that answers is asked its version.
func whichServer(ctx context.Context, getenv func(string) string) string {
	others := "each test binary finds its own, the same way"
	switch getenv(pgserver.EnvMode) {
	case "embedded":
		bins := "PostgreSQL " + pgserver.EmbeddedVersion + ", downloaded once into the cache (" + pgserver.EnvCache + ")"
		if d := getenv(pgserver.EnvBinaries); d != "" {
			bins = "the binaries in " + pgserver.EnvBinaries + "=" + d
		}
		return fmt.Sprintf("%s=embedded: integration_test starts an embedded server from %s, and so does every other test binary with database tests", pgserver.EnvMode, bins)
	case "", "auto":
	default:
		return fmt.Sprintf("%s=%q is neither embedded nor auto: integration_test will fail", pgserver.EnvMode, getenv(pgserver.EnvMode))
	}
	if dsn := getenv(pgserver.EnvDatabaseURL); dsn != "" {
		return fmt.Sprintf("DATABASE_URL, %s (every package's database tests use it)", version(ctx, dsn))
	}
	if v := version(ctx, pgserver.ComposeDSN); !strings.Contains(v, "does not answer") {
		return fmt.Sprintf("DATABASE_URL is unset; the docker-compose DSN, %s (every package's database tests use it)", v)
	}
	return "DATABASE_URL is unset and nothing answers at the docker-compose DSN: integration_test tries " +
		"testcontainers-go (a Docker engine), then starts an embedded PostgreSQL " + pgserver.EmbeddedVersion +
		" (downloaded once, or " + pgserver.EnvBinaries + "=DIR); the other packages with database tests " +
		"(migrations, partition, tail, cmd/pgid, sqlc, integration_test/orm, integration_test/migtools, bench) start an embedded one each; " + others
}

// version returns "PostgreSQL 15.20 at host:port" for dsn, or says that
// nothing answers there, and why.
func version(ctx context.Context, dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Sprintf("which is not a valid DSN (%v): the database tests will fail", err)
	}
	where := fmt.Sprintf("%s:%d, database %s, user %s", cfg.Host, cfg.Port, cfg.Database, cfg.User)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Sprintf("%s, does not answer (%v)", where, err)
	}
	defer conn.Close(context.Background())
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return fmt.Sprintf("%s, does not answer (%v)", where, err)
	}
	v, _, _ = strings.Cut(v, " ")
	return "PostgreSQL " + v + " at " + where
}
