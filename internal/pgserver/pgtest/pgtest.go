// Package pgtest gives every test binary of the repository scratch
// PostgreSQL databases: River's riverdbtest idea, one helper for all of
// pgid's modules.
//
// A test binary calls [Main] from its TestMain. The first test that asks
// for a database finds a server, once per binary, with [pgserver.Find]
// (DATABASE_URL, the docker-compose server, [Options.Hook], else an embedded
// PostgreSQL stopped and removed when [Main] returns). Without one the tests
// that need a database fail; they never skip.
//
// The first [DB] builds a template database with [Options.Setup] (e.g.
// migrations.Up: this package cannot import the library, whose tests use
// it); each [DB] is a fresh copy of it and each [EmptyDB] an empty
// database, both dropped when the test ends (in the background, [Main]
// waiting for them, where [Options.Parallel] is set). [Options.Parallel]
// runs more tests at once, and [Conns] keeps tests with many connections
// within the server's slots. The role needs CREATEDB; tests that create
// roles need CREATEROLE.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/pgserver"
)

// Options configure [Main].
type Options struct {
	// Name starts the lines this package prints (the server found, an
	// embedded server's progress), e.g. "integration_test" or the package's
	// import path.
	Name string
	// Setup prepares the template database every [DB] is copied from,
	// e.g. by applying pgid's migrations; nil leaves it empty. conn is
	// closed after it returns: CREATE DATABASE … TEMPLATE refuses a
	// template anyone is connected to.
	Setup func(ctx context.Context, conn *pgx.Conn) error
	// Hook and HookName are step 3 of [pgserver.Find].
	Hook     pgserver.Hook
	HookName string
	// Eager finds the server and builds the template before any test
	// runs, and fails the binary when either fails: what integration_test
	// does, so that its first line names the server. Otherwise they are
	// found when the first test asks.
	Eager bool
	// Started, if set, is called once with the server found, instead of
	// printing "Name: server (how it was found): version".
	Started func(*Server)
	// Parallel, if above 0, is the binary's -test.parallel when its
	// command line gives none (go test's default is GOMAXPROCS): database
	// tests spend their time waiting for the server, for locks or for a
	// workload's duration, not on the CPU. Tests that open many
	// connections at once reserve them with [Conns].
	Parallel int
}

// ErrNoMain is what [DB] and the other helpers fail with when the test
// binary's TestMain did not call [Main].
var ErrNoMain = errors.New("pgtest: TestMain must call pgtest.Main")

// Server is the PostgreSQL the test binary found.
type Server struct {
	// DSN connects to the server's maintenance database as a role that
	// may CREATE DATABASE.
	DSN string
	// Description says which server it is and how it was found.
	Description string
	// Version is what SELECT version() returned.
	Version string
}

var (
	mu       sync.Mutex
	opts     *Options
	server   *pgserver.Server
	found    *Server
	findErr  error
	admin    *pgxpool.Pool
	template string
	tmplErr  error
	tmplDone bool
)

// findTimeout bounds finding or starting a server (an embedded server's
// first download included).
const findTimeout = 3 * time.Minute

// Main runs the tests of m with o and returns the exit code for os.Exit:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pgtest.Options{Setup: …})) }
//
// When m.Run returns it drops the template and stops an embedded server.
func Main(m *testing.M, o Options) int {
	flag.Parse() // for testing.Verbose in announce
	if o.Name == "" {
		o.Name = "pgtest"
	}
	if o.Parallel > 0 && !flagGiven("test.parallel") {
		flag.Set("test.parallel", strconv.Itoa(o.Parallel))
	}
	mu.Lock()
	opts = &o
	mu.Unlock()
	defer shutdown()
	if o.Eager {
		if _, err := start(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: FAIL: %v\n", o.Name, err)
			return 1
		}
		if _, err := templateDB(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: FAIL: template database: %v\n", o.Name, err)
			return 1
		}
	}
	code := m.Run()
	if !waitDrops() && code == 0 {
		code = 1
	}
	if !dropRolesLater() && code == 0 {
		code = 1
	}
	return code
}

// flagGiven reports whether the command line set flag name.
func flagGiven(name string) bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// shutdown drops the template and releases the server.
func shutdown() {
	mu.Lock()
	defer mu.Unlock()
	if admin != nil && template != "" {
		if err := dropDatabase(context.Background(), template); err != nil {
			fmt.Fprintf(os.Stderr, "%s: drop template database %s: %v\n", opts.Name, template, err)
		}
	}
	if admin != nil {
		admin.Close()
	}
	if server != nil {
		if err := server.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: stop server: %v\n", opts.Name, err)
		}
	}
}

// Start finds the server, once per test binary, and returns it.
func Start() (*Server, error) { return start() }

func start() (*Server, error) {
	mu.Lock()
	defer mu.Unlock()
	if opts == nil {
		return nil, ErrNoMain
	}
	if found != nil || findErr != nil {
		return found, findErr
	}
	found, findErr = find()
	return found, findErr
}

// find does start's work, mu held.
func find() (*Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), findTimeout)
	defer cancel()
	name := opts.Name
	s, err := pgserver.Find(ctx, pgserver.Options{
		Hook:     opts.Hook,
		HookName: opts.HookName,
		Embedded: pgserver.EmbeddedOptions{Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, name+": "+format+"\n", args...)
			announce(name + ": " + fmt.Sprintf(format, args...))
		}},
	})
	if err != nil {
		return nil, err
	}
	server = s
	cfg, err := pgxpool.ParseConfig(s.DSN)
	if err != nil {
		return nil, fmt.Errorf("parse the server's DSN: %w", err)
	}
	dsn := s.DSN
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		// The binary's connections say whose they are: the budget counts
		// the others' (setBudget).
		appTag = fmt.Sprintf("pgtest %s %d", filepath.Base(os.Args[0]), os.Getpid())
		dsn = WithParam(dsn, "application_name", appTag)
		cfg.ConnConfig.RuntimeParams["application_name"] = appTag
	}
	cfg.MaxConns = maxAdminConns
	cfg.MaxConnIdleTime = 10 * time.Second // idle connections are other tests' budget
	if admin, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("connect to %s: %w", s.Description, err)
	}
	var version string
	if err := admin.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return nil, fmt.Errorf("SELECT version() on %s: %w", s.Description, err)
	}
	if err := setBudget(ctx); err != nil {
		return nil, fmt.Errorf("count the connection slots of %s: %w", s.Description, err)
	}
	srv := &Server{DSN: dsn, Description: s.Description, Version: version}
	if opts.Started != nil {
		opts.Started(srv)
	} else {
		fmt.Printf("%s: server (%s): %s\n", name, s.Description, version)
	}
	return srv, nil
}

// templateDB returns the template's name, creating it the first time.
func templateDB() (string, error) {
	if _, err := start(); err != nil {
		return "", err
	}
	mu.Lock()
	defer mu.Unlock()
	if tmplDone {
		return template, tmplErr
	}
	tmplDone = true
	template = "pgid_tmpl_" + RandomHex(6)
	ctx, cancel := context.WithTimeout(context.Background(), findTimeout)
	defer cancel()
	if tmplErr = createTemplate(ctx, template); tmplErr != nil {
		dropDatabase(context.Background(), template)
		template = ""
	}
	return template, tmplErr
}

func createTemplate(ctx context.Context, name string) error {
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return err
	}
	if opts.Setup == nil {
		return nil
	}
	conn, err := pgx.Connect(ctx, DSNFor(found.DSN, name))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return opts.Setup(ctx, conn)
}

// dropDatabase drops name, disconnecting whoever is still connected.
func dropDatabase(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// Admin runs statements on the server's maintenance database as the
// role that found it: CREATE ROLE, a database with other options. Its
// zero value is ready to use once a test has asked for a database (or
// [Options.Eager]); before, Exec fails with the reason there is no server.
type Admin struct{}

// Exec runs sql with args on a pooled connection to the server.
func (Admin) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if _, err := start(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return admin.Exec(ctx, sql, args...)
}

// ServerDSN returns the DSN of the server's maintenance database, failing
// t when there is no server.
func ServerDSN(t testing.TB) string {
	t.Helper()
	return need(t, "no PostgreSQL for the database tests", start).DSN
}

// DB creates a database for t copied from the template ([Options.Setup]
// applied), drops it when t ends, and returns its DSN.
func DB(t testing.TB) string {
	t.Helper()
	return create(t, need(t, "no template database for the database tests", templateDB))
}

// need records the server choice (see recordServerChoice) and returns
// what get returns, failing t with what and get's error when it fails.
func need[T any](t testing.TB, what string, get func() (T, error)) T {
	t.Helper()
	recordServerChoice()
	v, err := get()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// EmptyDB creates an empty database for t, drops it when t ends, and
// returns its DSN.
func EmptyDB(t testing.TB) string {
	t.Helper()
	ServerDSN(t)
	return create(t, "")
}

func create(t testing.TB, tmpl string) string {
	t.Helper()
	name := "pgid_t_" + RandomHex(6)
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if tmpl != "" {
		sql += " TEMPLATE " + pgx.Identifier{tmpl}.Sanitize()
	}
	if _, err := admin.Exec(context.Background(), sql); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		// Binaries that run tests in parallel (Options.Parallel) drop in
		// the background; the others at once, so that a cleanup registered
		// before (dropping a role with privileges on the database) runs
		// after the database is gone.
		if opts != nil && opts.Parallel > 0 {
			dropLater(t.Name(), name)
		} else if err := dropDatabase(context.Background(), name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return DSNFor(found.DSN, name)
}

// Dropping the test databases. DROP DATABASE waits for a checkpoint
// (PostgreSQL flushes every dirty buffer of the server for it), 0.5-2 s on
// a busy machine: a test that waited for it kept its -parallel slot that
// long. dropLater drops in the background instead, several at once so
// that their checkpoints coalesce (drops asked for while a checkpoint runs
// all wait for the next one), and [Main] waits for the drops before it
// returns, failing the binary if one failed.
var (
	drops       sync.WaitGroup
	dropMu      sync.Mutex
	dropCond    = sync.NewCond(&dropMu)
	dropLimit   = maxDrops // drops under way at most
	dropRunning int        // drops under way
	dropErrs    []string
)

// maxDrops bounds the drops under way while tests run: each holds a
// connection of the admin pool while it waits. Once the tests have ended,
// waitDrops lets as many run as half the slots other clients leave free:
// with 4 at a time, migrations' 40 databases were still being dropped 13 s
// after its last test.
const (
	maxDrops      = 8
	maxAdminConns = 40 // creates, roles and drops (maxDrops, then half the free slots)
)

// dropLater drops database name, made for test, in the background.
func dropLater(test, name string) {
	drops.Go(func() {
		dropMu.Lock()
		for dropRunning >= dropLimit {
			dropCond.Wait()
		}
		dropRunning++
		dropMu.Unlock()
		defer func() {
			dropMu.Lock()
			dropRunning--
			dropCond.Broadcast()
			dropMu.Unlock()
		}()
		if err := dropDatabase(context.Background(), name); err != nil {
			dropMu.Lock()
			dropErrs = append(dropErrs, fmt.Sprintf("drop test database %s of %s: %v", name, test, err))
			dropMu.Unlock()
		}
	})
}

// waitDrops waits for the drops dropLater began, more of them at once now
// that the tests have ended, and reports whether they all succeeded,
// printing the failures.
func waitDrops() bool {
	if admin != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if free, err := freeSlots(ctx); err == nil {
			// Half of what other clients leave: the other test binaries of
			// the run keep their margin.
			dropMu.Lock()
			dropLimit = min(max(maxDrops, free/2), maxAdminConns-2)
			dropCond.Broadcast()
			dropMu.Unlock()
		}
		cancel()
	}
	drops.Wait()
	dropMu.Lock()
	defer dropMu.Unlock()
	for _, e := range dropErrs {
		fmt.Fprintf(os.Stderr, "%s: FAIL: %s\n", opts.Name, e)
	}
	return len(dropErrs) == 0
}

// DSNFor returns dsn pointing at database name, in URL or key=value form as
// dsn is written, so that its password and other parameters carry over.
func DSNFor(dsn, name string) string {
	if strings.Contains(dsn, "://") {
		if u, err := url.Parse(dsn); err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return dsn + " dbname=" + name
}

// WithParam appends a connection parameter to a DSN in either form. In a
// URL a space is written %20: pgx does not read "+" back as a space (the
// tests' connections once named themselves "pgtest+tail.test+123", and the
// connection budget counted them as other clients'); in key=value form the
// value is quoted.
func WithParam(dsn, key, value string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + url.QueryEscape(key) + "=" + strings.ReplaceAll(url.QueryEscape(value), "+", "%20")
	}
	return dsn + " " + key + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(value) + "'"
}

// ServerChoice returns the environment variables that decide which server
// the tests run against.
func ServerChoice() []string { return slices.Clone(serverChoice) }

var serverChoice = []string{pgserver.EnvDatabaseURL, pgserver.EnvMode, pgserver.EnvBinaries, pgserver.EnvCache, pgserver.EnvSource, pgserver.EnvUser, "TMPDIR"}

var recordOnce sync.Once

// recordServerChoice reads the server choice again once tests run. go test
// caches a result on the environment variables and files the tests read,
// but only from m.Run on: what TestMain read before it to find the server
// is not recorded, so without this a run with PGID_POSTGRES=embedded
// reported the DATABASE_URL run's "ok (cached)".
func recordServerChoice() {
	recordOnce.Do(func() {
		for _, k := range serverChoice {
			os.Getenv(k)
		}
		if d := os.Getenv(pgserver.EnvBinaries); d != "" {
			for _, b := range []string{"initdb", "postgres"} {
				os.Stat(filepath.Join(d, "bin", b))
			}
		}
	})
}

// Announce writes line to the terminal, if there is one, when go test
// would not show it until the package ends: go test buffers a test
// binary's stdout and stderr both (without -v, or with -v and several
// packages) and shows nothing of a package that passes without -v, so what
// TestMain prints about the server would otherwise appear only at the end,
// if at all. Under -v or -json (the suite command) the output is already
// streamed or shown; without a controlling terminal (CI) there is nowhere
// to write, and nothing is written.
func Announce(line string) { announce(line) }

func announce(line string) {
	if testing.Verbose() || os.Getenv("PGID_INNER_GO_TEST") != "" { // integration_test's cache_test.go runs go test
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	fmt.Fprintln(tty, line)
}

// RandomHex returns n random bytes in hex, for names of databases and
// roles (crypto/rand.Read does not fail).
func RandomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// ReadList returns the lines of file that are neither empty nor comments
// (#): a list two tests share, kept in testdata.
func ReadList(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("pgtest: read list: %w", err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// Connect opens a pgx connection to dsn whose queries run in mode, closed
// when t ends.
func Connect(t testing.TB, dsn string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// ConnectWith opens a connection to dsn whose session starts with params
// (sent in the startup packet, so they hold before the first statement),
// closed when t ends.
func ConnectWith(t testing.TB, dsn string, params map[string]string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range params {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect with %v: %v", params, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// The connection budget. Tests that open many connections at once (a pool
// of writers for a workload) reserve them with [Conns], so that the tests
// running in parallel, which [Options.Parallel] makes more, stay within the
// server's max_connections, which other clients and the other test
// binaries of a go test run share.
var (
	budgetMu   sync.Mutex
	budgetCond = sync.NewCond(&budgetMu)
	budget     int                 // what the binary may reserve
	budgetFree int                 // what is not reserved now
	reserved   = map[string]bool{} // the tests that reserved
	waiting    = map[int]int{}     // reservations waiting, by size
)

// largerWaiting reports whether a reservation larger than n waits.
func largerWaiting(n int) bool {
	for m := range waiting {
		if m > n {
			return true
		}
	}
	return false
}

// setBudget sets the budget to three quarters of the connection slots
// that other clients do not use (the slots superusers keep excepted), and
// at least minBudget: the rest is for the tests that reserve nothing. The
// binary sets it when it finds the server, and, when its connections carry
// appTag, again every refreshEvery while a reservation waits: the other
// test binaries of a go test run come and go.
func setBudget(ctx context.Context) error {
	free, err := freeSlots(ctx)
	if err != nil {
		return err
	}
	budgetMu.Lock()
	defer budgetMu.Unlock()
	held := budget - budgetFree
	budget = max(free*3/4, minBudget)
	budgetFree = budget - held
	budgetCond.Broadcast()
	return nil
}

// freeSlots counts the server's connection slots that other clients do not
// use, the slots superusers keep excepted.
func freeSlots(ctx context.Context) (int, error) {
	var free int
	err := admin.QueryRow(ctx, `SELECT pg_catalog.current_setting('max_connections')::int
		- pg_catalog.current_setting('superuser_reserved_connections')::int
		- coalesce(pg_catalog.current_setting('reserved_connections', true)::int, 0)
		- (SELECT count(*)::int FROM pg_catalog.pg_stat_activity
		   WHERE backend_type = 'client backend' AND application_name IS DISTINCT FROM nullif($1, ''))`, appTag).Scan(&free)
	return free, err
}

// appTag is the application_name of the binary's connections, "" when the
// server's DSN (or PGAPPNAME) names one: then the budget is set once.
var appTag string

// refreshEvery is how often the budget is set again while a reservation
// waits.
const refreshEvery = 250 * time.Millisecond

// refreshing is whether refreshBudget runs; budgetMu guards it.
var refreshing bool

// refreshBudget sets the budget every refreshEvery until no reservation
// waits. Conns starts it, with budgetMu held, when one has to wait.
func refreshBudget() {
	if refreshing || appTag == "" {
		return
	}
	refreshing = true
	go func() {
		for {
			time.Sleep(refreshEvery)
			budgetMu.Lock()
			if len(waiting) == 0 {
				refreshing = false
				budgetMu.Unlock()
				return
			}
			budgetMu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			setBudget(ctx) // on an error the budget stays as it was
			cancel()
		}
	}()
}

// minBudget is the budget however few slots are free: a test that needs
// more waits for the whole budget, alone.
const minBudget = 10

// Conns reserves n connections of the binary's budget for t until t ends,
// waiting while the tests running hold too much of it: a test that opens
// many connections at once (a pool of writers, say) calls it before it
// opens them. The budget is three quarters of the server's connection
// slots that other clients do not use, set again while a reservation
// waits (see setBudget); n above it waits for the whole budget.
// A test reserves once, and its subtests reserve nothing. The first to ask
// are served first: a binary's longest load may reserve before t.Parallel,
// in the sequential phase, so that the shorter tests fill the budget
// around it instead of delaying it.
func Conns(t testing.TB, n int) {
	t.Helper()
	ServerDSN(t)
	budgetMu.Lock()
	defer budgetMu.Unlock()
	if reserved[t.Name()] {
		t.Fatalf("pgtest.Conns: %s reserves twice", t.Name())
	}
	for name := range reserved {
		if strings.HasPrefix(t.Name(), name+"/") {
			t.Fatalf("pgtest.Conns: %s reserves inside %s, which reserved", t.Name(), name)
		}
	}
	// Larger reservations first: the tests that make them are the long
	// workloads, which should not wait behind a stream of small ones.
	waiting[n]++
	for budgetFree < min(n, budget) || largerWaiting(n) {
		refreshBudget()
		budgetCond.Wait()
	}
	if waiting[n]--; waiting[n] == 0 {
		delete(waiting, n)
		budgetCond.Broadcast() // smaller ones may go now
	}
	got := min(n, budget)
	budgetFree -= got
	reserved[t.Name()] = true
	t.Cleanup(func() {
		budgetMu.Lock()
		defer budgetMu.Unlock()
		budgetFree += got
		delete(reserved, t.Name())
		budgetCond.Broadcast()
	})
}
