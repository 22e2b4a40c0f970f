package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// The guides under docs/ hold code the way the README does: every ```go
// block of README.md and docs/*.md stands, line for line, in a test file
// that runs it (TestReadmeGoBlocks), and every ```sql block runs against
// PostgreSQL (TestDocsSQLBlocks). An HTML comment right before an sql
// block (blank lines between are allowed) tells TestDocsSQLBlocks how:
//
//	<!-- test: setup SQL -->     run SQL first (the tables the block assumes)
//	<!-- test: args A B -->      bind A, B as $1, $2 (single quotes: a text value)
//	<!-- test: error 42501 -->   the block must fail with this SQLSTATE
//	<!-- test: skip (reason) --> not run here; the reason says why or where
//	<!-- test: citus -->         run on a Citus cluster by TestCitus, not here
//
// (several in one comment, one per line, each after "test:" or not). A
// block that shows an error may end with its message as a comment,
// "-- ERROR: message (SQLSTATE code)": the server's message must be that.
// Blocks of one file run in order,
// in one database of their own with pgid's migrations applied, so a block
// may use what an earlier one created.

// docFiles returns README.md and docs/*.md, relative to this directory.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil || len(files) < 14 {
		t.Fatalf("docs/*.md: %d files, %v", len(files), err)
	}
	return append([]string{"../README.md"}, files...)
}

// docBlock is a fenced block of a Markdown file.
type docBlock struct {
	file  string
	line  int      // of the opening fence
	lang  string   // "go", "sql", "sh", ...
	body  string   // without the fence's indentation
	marks []string // "setup ...", "args ...", "error ...", "skip ..." from a <!-- test: --> comment before it
}

var fenceOpen = regexp.MustCompile("^(\\s*)```(\\w*)\\s*$")

// docBlocks returns the fenced blocks of a Markdown file, in order, with
// the test marks of a comment right before each.
func docBlocks(t *testing.T, file string) []docBlock {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var out []docBlock
	var marks []string
	marksAt := 0
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "<!-- test:"); ok {
			text := rest
			for !strings.Contains(text, "-->") {
				i++
				if i == len(lines) {
					t.Fatalf("%s:%d: <!-- test: comment does not end", file, marksAt+1)
				}
				text += "\n" + lines[i]
			}
			text, _, _ = strings.Cut(text, "-->")
			marks, marksAt = nil, i
			for _, m := range strings.Split(text, "\n") {
				m = strings.TrimSpace(m)
				if rest, ok := strings.CutPrefix(m, "test:"); ok {
					m = strings.TrimSpace(rest)
				}
				if m != "" {
					marks = append(marks, m)
				}
			}
			continue
		}
		m := fenceOpen.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) != "" && marks != nil {
				t.Errorf("%s:%d: a <!-- test: --> comment not right before a block", file, marksAt+1)
				marks = nil
			}
			continue
		}
		indent := m[1]
		blk := docBlock{file: file, line: i + 1, lang: m[2], marks: marks}
		marks = nil
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, strings.TrimPrefix(lines[i], indent))
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: block does not end", file, blk.line)
		}
		blk.body = strings.Join(body, "\n")
		out = append(out, blk)
	}
	return out
}

// TestDocsSQLBlocks runs every ```sql block of README.md and docs/*.md
// verbatim, each file's in order in a database of its own.
func TestDocsSQLBlocks(t *testing.T) {
	ran, skipped := 0, 0
	for _, file := range docFiles(t) {
		var blocks []docBlock
		for _, b := range docBlocks(t, file) {
			if b.lang == "sql" {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(path.Base(file), func(t *testing.T) {
			ctx := context.Background()
			var conn *pgx.Conn
			for _, b := range blocks {
				where := fmt.Sprintf("%s:%d", strings.TrimPrefix(b.file, "../"), b.line)
				var setup, wantErr string
				var args []any
				skip := false
				for _, m := range b.marks {
					verb, arg, _ := strings.Cut(m, " ")
					switch verb {
					case "setup":
						setup += arg + "\n"
					case "args":
						for _, a := range strings.Fields(arg) {
							args = append(args, strings.Trim(a, "'"))
						}
					case "error":
						wantErr = strings.TrimSpace(arg)
					case "skip":
						if !strings.HasPrefix(arg, "(") || len(arg) < 10 {
							t.Errorf("%s: skip without a reason in parentheses: %q", where, m)
						}
						skip = true
					case "citus":
						skip = true // TestCitus/Docs runs it on a cluster
					default:
						t.Errorf("%s: unknown test mark %q", where, m)
					}
				}
				if skip {
					skipped++
					continue
				}
				if conn == nil {
					conn = connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
				}
				if setup != "" {
					if _, err := conn.PgConn().Exec(ctx, setup).ReadAll(); err != nil {
						t.Fatalf("%s: setup failed: %v\n%s", where, err, setup)
					}
				}
				var err error
				if args != nil {
					_, err = conn.Exec(ctx, b.body, args...)
				} else {
					_, err = conn.PgConn().Exec(ctx, b.body).ReadAll()
				}
				ran++
				var pgErr *pgconn.PgError
				switch {
				case wantErr == "" && err != nil:
					t.Errorf("%s: block failed: %v\n%s", where, err, b.body)
				case wantErr != "" && !(errors.As(err, &pgErr) && pgErr.Code == wantErr):
					t.Errorf("%s: block should fail with SQLSTATE %s, got %v\n%s", where, wantErr, err, b.body)
				case wantErr != "":
					if m := errorComment.FindStringSubmatch(b.body); m != nil && (m[1] != pgErr.Message || m[2] != pgErr.Code) {
						t.Errorf("%s: the block says\n%s (SQLSTATE %s)\nthe server says\n%s (SQLSTATE %s)", where, m[1], m[2], pgErr.Message, pgErr.Code)
					}
				}
			}
		})
	}
	t.Logf("sql blocks: %d run, %d skipped (with a reason)", ran, skipped)
	if ran < 7 {
		t.Errorf("%d sql blocks run; the test expects at least 7", ran)
	}
}

// errorComment: the message an sql block shows for its error.
var errorComment = regexp.MustCompile(`(?m)^-- ERROR: (.*) \(SQLSTATE (\w{5})\)$`)

// mdLink: a Markdown link or image, [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// linkAllowed are relative link targets that do not exist in this tree on
// purpose (none today).
var linkAllowed = []string{}

// TestDocsLinks: every relative link of README.md and docs/*.md names a
// file or directory of the repository, and every #anchor a heading of the
// file it points into (GitHub's anchors: lower case, punctuation dropped,
// spaces as hyphens, -1, -2 for repeats).
func TestDocsLinks(t *testing.T) {
	anchors := map[string][]string{} // cleaned path from the repository root -> anchors
	anchorsOf := func(file string) []string {
		if a, ok := anchors[file]; ok {
			return a
		}
		var out []string
		seen := map[string]int{}
		for _, b := range docBlocksHeadings(t, filepath.Join("..", file)) {
			s := slug(b)
			if n := seen[s]; n > 0 {
				seen[s]++
				s = fmt.Sprintf("%s-%d", s, n)
			} else {
				seen[s] = 1
			}
			out = append(out, s)
		}
		anchors[file] = out
		return out
	}
	checked := 0
	for _, file := range docFiles(t) {
		rel := strings.TrimPrefix(file, "../")
		for i, line := range proseLines(t, file) {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				p, anchor, _ := strings.Cut(target, "#")
				dest := rel
				if p != "" {
					dest = path.Clean(path.Join(path.Dir(rel), p))
				}
				if slices.Contains(linkAllowed, dest) {
					continue
				}
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s:%d: link %s: %s does not exist", rel, i+1, target, dest)
					continue
				}
				if anchor != "" && !slices.Contains(anchorsOf(dest), anchor) {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", rel, i+1, target, dest, anchor)
				}
			}
		}
	}
	t.Logf("%d relative links checked", checked)
	if checked < 60 {
		t.Errorf("%d relative links checked; the test expects at least 60", checked)
	}
}

// proseLines returns file's lines with fenced blocks and inline code
// blanked (line numbers stay).
func proseLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	in := false
	inline := regexp.MustCompile("`[^`]*`")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
			continue
		}
		lines[i] = inline.ReplaceAllString(l, "")
	}
	return lines
}

// docBlocksHeadings returns the text of file's Markdown headings.
func docBlocksHeadings(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			continue
		}
		if !in && strings.HasPrefix(l, "#") {
			out = append(out, strings.TrimSpace(strings.TrimLeft(l, "#")))
		}
	}
	return out
}

// slug returns GitHub's anchor for a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !strings.ContainsRune("–—’×·", r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The Go blocks of docs/PARTITIONING.md, run on a partitioned table.
func TestDocsPartitioningGo(t *testing.T) {
	ctx := context.Background()
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `CREATE TABLE events (id pgid.ulid PRIMARY KEY, kind text NOT NULL) PARTITION BY RANGE (id)`); err != nil {
		t.Fatal(err)
	}
	db := conn
	rep, parts, err := partitioningGuideEnsure(ctx, db)
	if err != nil || len(rep.Created) != 4 || len(parts) != 4 {
		t.Fatalf("Ensure and List: %v; %d created, %d listed", err, len(rep.Created), len(parts))
	}
	id := ulidtype.New()
	if _, err := conn.Exec(ctx, "INSERT INTO events (id, kind) VALUES ($1, 'signup')", id); err != nil {
		t.Fatal(err)
	}
	from, to := time.Now().Add(-time.Minute), time.Now().Add(time.Minute)

	lo, hi := ulidtype.Range(from, to) // [MinAt(from), MinAt(to))
	rows, err := conn.Query(ctx, `SELECT id, kind FROM events WHERE id >= $1 AND id < $2 ORDER BY id`, lo, hi)

	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Event])
	if err != nil || len(got) != 1 || got[0].ID != id {
		t.Fatalf("window by Range: %v, %v", got, err)
	}
}

// partitioningGuideEnsure is docs/PARTITIONING.md's Ensure and List.
func partitioningGuideEnsure(ctx context.Context, db *pgx.Conn) (partition.Report, []partition.Partition, error) {
	rep, err := partition.Ensure(ctx, db, partition.Plan{ // db: *pgx.Conn, *pgxpool.Pool, *sql.DB or *sql.Conn (pgx stdlib)
		Parent: "events",
		Every:  partition.Day, // or Week, Month, Span{Duration: 6 * time.Hour}
		Ahead:  3,
		Retain: partition.Span{Duration: 30 * 24 * time.Hour}, // zero: keep everything
		Retire: partition.Drop,                                // Detach, DetachConcurrently, DetachConcurrentlyThenDrop
		DryRun: false,                                         // true: change nothing, report what would be done
		// CascadeIntoRetained: true lets foreign keys delete or change rows younger than the cut (see Retention)
	})
	// rep.Created, rep.Detached, rep.Dropped: name and [Lower, Upper) of each.
	// rep.Kept: expired partitions not retired, with Reason, Detail, Hint and Constraint;
	//           err then matches partition.ErrKept (rep is complete all the same).
	// rep.FKActions: what each foreign key does (or would do) when an expired partition goes:
	//           Partition, Table, Constraint, Action, Rows, Retained.
	// rep.Default: the DEFAULT partition's Name, Rows, Oldest, Newest.

	parts, err := partition.List(ctx, db, "events") // Name, Lower, Upper, From, To, RowEstimate, Default
	return rep, parts, err
}

// errGuideStop ends a guide's Run loop once the test has what it waits for.
var errGuideStop = errors.New("the test has its rows")

// The Go blocks of docs/TAIL.md ("API"): Run delivers three rows in order,
// then Collect, RunCollect and Values read typed columns.
func TestDocsTailGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := conn.Exec(ctx, `CREATE TABLE events (id pgid.ulid PRIMARY KEY, account pgid.objectid,
		body bytea, payload jsonb, at timestamptz, note text)`); err != nil {
		t.Fatal(err)
	}
	account := objectidtype.New()
	insert := func() ulidtype.ULID {
		id := ulidtype.New()
		if _, err := conn.Exec(ctx, `INSERT INTO events VALUES ($1, $2, '\x01', '{"k": 1}', now(), NULL)`, id, account); err != nil {
			t.Fatal(err)
		}
		return id
	}
	want := []ulidtype.ULID{insert(), insert(), insert()}
	var got []ulidtype.ULID
	save := func(ctx context.Context, id ulidtype.ULID) error {
		got = append(got, id)
		if id == want[2] {
			return errGuideStop
		}
		return nil
	}
	tl, err := tailGuideRun(ctx, conn, pool, ulidtype.ULID{}, save)
	if !errors.Is(err, errGuideStop) || len(got) == 0 || got[len(got)-1] != want[2] {
		t.Fatalf("Run: %v; saved %v, want the last %v", err, got, want[2])
	}
	// Run stopped before moving past the last batch: Collect reads it again.
	fourth := insert()
	var saved [][2]any
	evs, n, values, err := tailGuideTyped(ctx, tl, func(ctx context.Context, evs any, cursor ulidtype.ULID) error {
		saved = append(saved, [2]any{evs, cursor})
		return errGuideStop
	})
	if err != nil || n == 0 || len(saved) != 1 || len(values) == 0 {
		t.Fatalf("Collect: %v; %d typed rows, RunCollect saved %d batches, Values %d rows", err, n, len(saved), len(values))
	}
	if saved[0][1] != fourth || values[len(values)-1][0] != fourth {
		t.Errorf("RunCollect saved cursor %v, Values read up to %v; want the fourth row %v (Collect read %v first)", saved[0][1], values[len(values)-1][0], fourth, evs)
	}
}

// tailGuideRun is docs/TAIL.md's first block.
func tailGuideRun(ctx context.Context, conn *pgx.Conn, pool *pgxpool.Pool, saved ulidtype.ULID, save func(context.Context, ulidtype.ULID) error) (*tail.Tailer[ulidtype.ULID], error) {
	err := tail.Enable(ctx, conn, "events", 2*time.Second) // once, as the owner

	t, err := tail.New(pool, tail.Config[ulidtype.ULID]{Table: "events", After: saved})
	err = t.Run(ctx, func(ctx context.Context, rows []tail.Row[ulidtype.ULID]) error {
		// rows[i].ID, rows[i].JSON (row_to_json of the whole row)
		return save(ctx, rows[len(rows)-1].ID)
	})
	return t, err
}

// tailGuideTyped is docs/TAIL.md's second block; it returns the IDs of the
// first Collect, how many rows it read, and the rows of the last.
func tailGuideTyped(ctx context.Context, t *tail.Tailer[ulidtype.ULID], save func(context.Context, any, ulidtype.ULID) error) ([]ulidtype.ULID, int, [][]any, error) {
	type Event struct {
		ID      ulidtype.ULID             // id pgid.ulid (or uuid)
		Account objectidtype.NullObjectID // account pgid.objectid, NULL allowed
		Body    []byte                    // bytea
		Payload map[string]any            // jsonb (or json.RawMessage, or a struct)
		At      time.Time                 // timestamptz
		Note    *string                   // text, NULL allowed
	}

	evs, err := tail.Collect(ctx, t, pgx.RowToStructByName[Event]) // one batch
	err = tail.RunCollect(ctx, t, pgx.RowToStructByName[Event], func(ctx context.Context, evs []Event) error {
		return save(ctx, evs, t.Cursor()) // t.Cursor() is evs[len(evs)-1].ID here
	})
	rows, err := tail.Collect(ctx, t, tail.Values) // [][]any, as pgx.Rows.Values

	var ids []ulidtype.ULID
	for _, e := range evs {
		if !e.Account.Valid || len(e.Body) != 1 || e.Payload["k"] != 1.0 || e.Note != nil {
			return nil, 0, nil, fmt.Errorf("typed row %+v: columns not as inserted", e)
		}
		ids = append(ids, e.ID)
	}
	return ids, len(evs), rows, err
}
