package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/partition"
)

// TestCommandHelp: "pgid COMMAND -h" carries what a user with the binary
// alone needs (issue 29): the essentials of each command's docs, checked
// phrase by phrase, not as a golden text. Names that come from the code
// (retire modes, environment variables, the key file's limit) are taken
// from it, so renaming one without the help fails here.
func TestCommandHelp(t *testing.T) {
	var retireModes []string
	for r := partition.Drop; r <= partition.DetachConcurrentlyThenDrop; r++ {
		retireModes = append(retireModes, r.String())
	}
	keyFile := []string{"ID:hex", "PGID_OPAQUE_KEYS", "regular file", "symbolic link", "chmod 600",
		fmt.Sprintf("%d KiB", maxKeyFileSize>>10), "pgid new-key"}
	partitionExit := []string{"Exit status: 0", "1, after printing what it did", "expired partition was kept",
		"DEFAULT partition holds rows", "2 bad input"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"partition", "-h"}, append(append([]string{
			// the worked example in short
			"CREATE TABLE events (", "pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid()", ") PARTITION BY RANGE (id);",
			"pgid migrate",
			"pgid partition ensure --table events --every day --ahead 3 --retain 30d --dry-run",
			"pgid partition list --table events",
			// retention, foreign keys, scheduling, privileges
			"whole range is older than 30 days", "NO ACTION or RESTRICT is kept", "--cascade-into-retained",
			"17 * * * *  pgid partition ensure", "cron.schedule(", "pgid.ensure_partitions(",
			"table's owner", "DATABASE_URL", "never starts a server", "docs/PARTITIONING.md",
		}, retireModes...), partitionExit...)},
		{[]string{"partition", "ensure", "-h"}, append(append([]string{
			"--dry-run", "--ahead", "--retain", "30d, 2w, 3mo", "1M is refused", "00:00 UTC", "pgid partition -h",
		}, retireModes...), partitionExit...)},
		{[]string{"partition", "list", "-h"}, []string{"time range", "row estimate", "--table"}},
		{[]string{"tail", "-h"}, []string{
			"The lead rule", "older than the database clock at the INSERT minus the lead", "PGI20",
			"pgid tail --table events --enable 2s", "pgid.tail_enable('events', '2 s')", "1 ms to 1 day",
			"only SELECT on the table", "--enable needs the table's\nowner", "named id", "hot standby is not safe",
			"exit status 1", "not set up", "PGI23", "partition", "lead changed", "Interrupted, it exits 0", "--since",
		}},
		{[]string{"migrate", "-h"}, []string{
			"up, the default", "down reverts", "status changes nothing", "re-applies", "database owner",
			"42501", "DATABASE_URL", "never starts a server", "Exit status: 0",
		}},
		{[]string{"schema", "-h"}, []string{
			"pgid schema > db/pgid.sql", "--check", "ONE transaction", "not both",
			`go_type: "github.com/pgid/pgid/ulidtype.ULID"`, `go_type: "github.com/pgid/pgid/objectidtype.NullObjectID"`,
		}},
		{[]string{"seal", "-h"}, append([]string{"26 characters", "16 for an ObjectId", "stdin"}, keyFile...)},
		{[]string{"open", "-h"}, append([]string{"--candidates", "stdin"}, keyFile...)},
		{[]string{"new-key", "-h"}, []string{"umask 077", "rotate"}},
		{[]string{"demo", "-h"}, []string{
			"--database-url", pgserver.EnvDatabaseURL, pgserver.ComposeDSN, "embedded PostgreSQL", "digest built into pgid",
			pgserver.EnvBinaries + "=DIR", "bin/initdb", pgserver.EnvCache, pgserver.RootCacheDir, pgserver.EnvMode + "=embedded",
			pgserver.EnvUser, pgserver.DefaultUser, "CREATEDB", "PGID_OPAQUE_KEYS", "which server",
		}},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, c.args...)
		if code != 0 || errOut != "" {
			t.Errorf("pgid %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("pgid %s lacks %q", strings.Join(c.args, " "), w)
			}
		}
		for i, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  -") || strings.HasPrefix(l, "    \t") {
				continue // flag.PrintDefaults
			}
			if len(l) > 120 {
				t.Errorf("pgid %s, line %d: %d characters: %q", strings.Join(c.args, " "), i+1, len(l), l)
			}
		}
	}
}

// The worked example of "pgid partition -h" runs as printed: its CREATE
// TABLE in a migrated database, then its commands (with --database-url).
func TestPartitionHelpExampleRuns(t *testing.T) {
	dsn, conn := migratedDB(t)
	help := mustRun(t, "partition", "-h")
	_, ddl, ok := strings.Cut(help, "\n  CREATE TABLE")
	ddl, _, ok2 := strings.Cut(ddl, ";\n")
	if !ok || !ok2 {
		t.Fatalf("no CREATE TABLE ...; in pgid partition -h:\n%s", help)
	}
	if _, err := conn.Exec(context.Background(), "CREATE TABLE"+ddl); err != nil {
		t.Fatalf("the help's CREATE TABLE: %v\nCREATE TABLE%s", err, ddl)
	}
	var ran []string
	for _, l := range strings.Split(help, "\n") {
		l, _, _ = strings.Cut(strings.TrimSpace(l), "#")
		args, ok := strings.CutPrefix(strings.TrimSpace(l), "pgid partition ")
		if !ok || strings.HasPrefix(args, "ensure -h") {
			continue
		}
		out := mustRun(t, append(append([]string{"partition"}, strings.Fields(args)...), "--database-url", dsn)...)
		ran = append(ran, l)
		if strings.Contains(args, "--dry-run") && !strings.Contains(out, "would be created") {
			t.Errorf("%s: no \"would be created\" line:\n%s", l, out)
		}
		if strings.HasPrefix(args, "list") && strings.Count(out, "events_p") != 4 {
			t.Errorf("%s: want today's partition and 3 more:\n%s", l, out)
		}
	}
	if len(ran) != 3 {
		t.Errorf("ran %d commands of the help's example, want 3 (dry run, ensure, list): %q", len(ran), ran)
	}
}
