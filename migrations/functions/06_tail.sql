-- Tailing a table by ID without skipping late commits: the database half
-- (Go package tail is the reader; docs/TAIL.md has the argument in full).
--
-- In this file: the per-row check (the trigger functions tail_guard_ulid,
-- tail_guard_objectid and their error _tail_refuse), the setup
-- (tail_enable, tail_disable, tail_config, with the checks _tail_check and
-- _tail_raise) and what a reader asks each poll (tail_writers, tail_poll,
-- tail_below). Names starting with an underscore are internal.
--
-- A reader that asks for "the rows after the last ID I saw" skips every row
-- whose transaction commits after the reader has moved past its ID. The
-- remedy has three parts.
--
-- 1. The invariant, enforced per table by a trigger (pgid.tail_enable): a
--    row's ID is not older than the database clock at the moment of its
--    INSERT (or UPDATE of id) minus the table's declared maximum lead:
--
--        id >= min_at(clock_timestamp() - max_lead)
--
--    where clock_timestamp() is read AFTER the transaction has an xid (the
--    trigger assigns one first with pg_current_xact_id()). A row that breaks
--    it is refused with SQLSTATE PGI20. The triggers are named zzz_pgid_tail
--    (INSERT) and zzz_pgid_tail_update (every UPDATE, checked when the id
--    changed, whatever the SET list names: another trigger may change it)
--    so that they fire after the table's other BEFORE triggers (which may
--    change the id), and are ENABLE ALWAYS so that they also fire under
--    session_replication_role = replica. The rows of a logical replication
--    worker pass (pgid._tail_applying): they carry the publisher's IDs,
--    and a refusal would stop the subscription for good; pgid._tail_check
--    refuses a subscription target for tailing instead.
--
-- 2. The writers: pgid.tail_writers reads the database clock, then the xids
--    of every transaction of this database that has one (pg_stat_activity,
--    whose backend_xid column every role may read) and of every prepared
--    transaction (pg_prepared_xacts). A reader that remembers, between two
--    calls, which xids it has already seen knows for each running xid a time
--    before which it had no xid, hence before which it inserted nothing; the
--    safe horizon is the smallest of those times and the clock, minus the
--    lead. Rows below the horizon's ID are all committed (or will never be)
--    when the reader's next statement takes its snapshot.
--
-- 3. The setup, checked at every read (pgid.tail_config, pgid.tail_poll):
--    pgid's triggers present, as tail_enable makes them and ENABLE ALWAYS
--    on every relation of the table's tree that holds rows, and no other
--    BEFORE row trigger that fires after them (PostgreSQL fires them in
--    name order, bytewise); else SQLSTATE PGI23. What a check at one moment
--    cannot see (a partition attached with old rows, a trigger disabled and
--    enabled again between two reads) the reader sees in what pgid.tail_poll
--    returns: the tree's relations, when each was attached and when pgid's
--    triggers on it last changed (xmin), and whether DDL on the tree is
--    committing (pg_locks); and it asks pgid.tail_below about a new one.
--
-- Nothing here needs a privilege beyond EXECUTE (the runner grants it to
-- PUBLIC when it creates the functions) and SELECT on the tailed table;
-- pg_stat_activity and pg_prepared_xacts are readable by every role. No
-- function has a SET clause on the insert path: the trigger functions
-- qualify every name and operator instead (a SET clause costs a GUC save
-- and restore per row). The others pin search_path = pg_catalog, pg_temp.
--
-- Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid._tail_applying: whether this session is a logical replication
-- worker (apply, table sync or parallel apply) of a subscription, which
-- sets session_replication_role = replica at its start with source
-- 'override'; a session that SETs it has source 'session' (or 'user',
-- 'client', ...), so it is refused as before. A worker's rows carry the
-- publisher's IDs, older than the subscriber's clock by the replication lag,
-- which no lead bounds: the guards let them pass rather than stop the
-- subscription (the worker would retry the same row forever), and
-- pgid._tail_check reports a subscription target at every read, so that no
-- Tailer relies on rows that passed unchecked. pg_settings is readable by
-- every role (the worker may run as the table's owner). Called only on the
-- refusing path.
CREATE OR REPLACE FUNCTION pgid._tail_applying() RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
RETURN EXISTS (SELECT FROM pg_catalog.pg_settings s
                WHERE s.name OPERATOR(pg_catalog.=) 'session_replication_role'
                  AND s.setting OPERATOR(pg_catalog.=) 'replica'
                  AND s.source OPERATOR(pg_catalog.=) 'override');

COMMENT ON FUNCTION pgid._tail_applying() IS
  'Internal to pgid.tail_guard_ulid and pgid.tail_guard_objectid: whether this session is a logical replication '
  'worker (session_replication_role = replica set by the server, source override), whose rows pass unchecked.';

-- pgid.tail_guard_ulid / pgid.tail_guard_objectid: the per-row check of
-- an INSERT (trigger zzz_pgid_tail) or of an UPDATE that changes the id
-- (zzz_pgid_tail_update: BEFORE UPDATE, not UPDATE OF id, WHEN OLD.id IS
-- DISTINCT FROM NEW.id, evaluated after the earlier triggers ran). The
-- trigger's argument is the lead in seconds (text, as pg_trigger keeps it).
-- Order matters: the xid first, then the clock (CASE evaluates its WHEN
-- before its THEN). One expression on the accepting path, no SET clause,
-- no text: the ID's leading 6 (ULID: milliseconds) or 4 (ObjectId:
-- seconds) big-endian bytes against the bound's, so that the check costs
-- little more than calling a plpgsql trigger at all (bench/tail_test.go
-- measures it). The bound is floor((clock - lead) in ms or s), computed in
-- float8 plus a margin of 1 us, so that a rounding error can only make it
-- stricter, never looser, than Go's MinAt(clock - lead). (Every OPERATOR()
-- has the same precedence, left to right: hence the parentheses.)
CREATE OR REPLACE FUNCTION pgid.tail_guard_ulid() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF pg_catalog.substr(pg_catalog.uuid_send(NEW.id), 1, 6)
     OPERATOR(pg_catalog.>=)
     pg_catalog.substr(pg_catalog.int8send(pg_catalog.floor(
       ((pg_catalog.date_part('epoch',
                              CASE WHEN pg_catalog.pg_current_xact_id() IS NULL THEN NULL
                                   ELSE pg_catalog.clock_timestamp() END)
         OPERATOR(pg_catalog.-) TG_ARGV[0]::pg_catalog.float8) OPERATOR(pg_catalog.*) 1000::pg_catalog.float8)
       OPERATOR(pg_catalog.+) 0.001::pg_catalog.float8)::pg_catalog.int8), 3) THEN
    RETURN NEW;
  END IF;
  IF pgid._tail_applying() THEN
    RETURN NEW; -- logical replication: see pgid._tail_applying
  END IF;
  PERFORM pgid._tail_refuse(TG_TABLE_SCHEMA::pg_catalog.text, TG_TABLE_NAME::pg_catalog.text,
                            pgid.ulid_to_text(NEW.id::pg_catalog.uuid)::pg_catalog.text,
                            pgid.ulid_time(NEW.id::pg_catalog.uuid)::pg_catalog.timestamptz,
                            TG_ARGV[0]::pg_catalog.text, false::pg_catalog.bool);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION pgid.tail_guard_objectid() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF pg_catalog.substr(NEW.id::pg_catalog.bytea, 1, 4)
     OPERATOR(pg_catalog.>=)
     pg_catalog.substr(pg_catalog.int8send(pg_catalog.floor(
       (pg_catalog.date_part('epoch',
                             CASE WHEN pg_catalog.pg_current_xact_id() IS NULL THEN NULL
                                  ELSE pg_catalog.clock_timestamp() END)
         OPERATOR(pg_catalog.-) TG_ARGV[0]::pg_catalog.float8)
       OPERATOR(pg_catalog.+) 0.000001::pg_catalog.float8)::pg_catalog.int8), 5) THEN
    RETURN NEW;
  END IF;
  IF pgid._tail_applying() THEN
    RETURN NEW; -- logical replication: see pgid._tail_applying
  END IF;
  PERFORM pgid._tail_refuse(TG_TABLE_SCHEMA::pg_catalog.text, TG_TABLE_NAME::pg_catalog.text,
                            pgid.objectid_to_hex(NEW.id::pg_catalog.bytea)::pg_catalog.text,
                            pgid.objectid_time(NEW.id::pg_catalog.bytea)::pg_catalog.timestamptz,
                            TG_ARGV[0]::pg_catalog.text, true::pg_catalog.bool);
  RETURN NULL;
END
$$;

COMMENT ON FUNCTION pgid.tail_guard_ulid() IS
  'Trigger of pgid.tail_enable on a ULID table: refuses (SQLSTATE PGI20) an id older than clock_timestamp() '
  'minus the lead, read after the transaction has an xid.';
COMMENT ON FUNCTION pgid.tail_guard_objectid() IS
  'Trigger of pgid.tail_enable on an ObjectId table: refuses (SQLSTATE PGI20) an id older than clock_timestamp() '
  'minus the lead (whole seconds), read after the transaction has an xid.';

-- pgid._tail_refuse: the refusal, SQLSTATE PGI20, with a message that
-- reads the same in every session (times in UTC, the lead in seconds as
-- declared). Internal to the trigger functions.
CREATE OR REPLACE FUNCTION pgid._tail_refuse(schema_name text, table_name text, id text, made timestamptz,
                                             lead_seconds text, objectid boolean) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'PGI20',
    MESSAGE = format('pgid: %s.%s: id %s (made %s) is older than the database clock at INSERT '
                     'minus the tail lead of %s s',
      schema_name, table_name, coalesce(id, 'NULL'),
      coalesce(to_char(made AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'never'), lead_seconds),
    DETAIL = 'A table set up for tailing (pgid.tail_enable) accepts only IDs made at most its lead before '
             'the database clock at INSERT; an older ID could commit behind a reader''s cursor.'
      || CASE WHEN objectid THEN ' ObjectIds count whole seconds.' ELSE '' END,
    HINT = 'Make the ID just before the INSERT, check the service clock against the database clock, '
           'or declare a larger lead with pgid.tail_enable (stop the table''s readers while raising it).';
END
$$;

COMMENT ON FUNCTION pgid._tail_refuse(text, text, text, timestamptz, text, boolean) IS
  'Internal to pgid.tail_guard_ulid and pgid.tail_guard_objectid: raises SQLSTATE PGI20 for a refused id.';

-- pgid._tail_subscribed: a row for tbl when it, a relation of its tree or
-- one above it is the target of a logical replication subscription: its
-- rows arrive with the publisher's IDs and pass unchecked
-- (pgid._tail_applying), so it cannot be tailed (a step of
-- pgid._tail_check).
CREATE OR REPLACE FUNCTION pgid._tail_subscribed(tbl regclass,
                                                 OUT fixable boolean, OUT message text, OUT hint text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  r record;
BEGIN
  FOR r IN
    WITH RECURSIVE tree(rel) AS (
      SELECT tbl::oid
      UNION
      SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
    SELECT sr.srrelid::regclass::text AS name, s.subname
      FROM pg_subscription_rel sr JOIN pg_subscription s ON s.oid = sr.srsubid
     WHERE sr.srrelid IN (SELECT rel FROM tree UNION SELECT relid FROM pg_partition_ancestors(tbl))
     ORDER BY 1, 2 LIMIT 1
  LOOP
    fixable := false;
    message := format('pgid: %s is a target of logical replication subscription %I: its rows arrive with the '
                      'publisher''s IDs, older than this database''s clock by the replication lag, and are not checked',
                      r.name, r.subname);
    hint := 'Tail the table on the publisher, where its rows are inserted; or stop replicating into it '
            '(ALTER PUBLICATION ... DROP TABLE, then ALTER SUBSCRIPTION ... REFRESH PUBLICATION, or DROP '
            'SUBSCRIPTION) and run pgid.tail_enable again.';
    RETURN NEXT;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid._tail_subscribed(regclass) IS
  'Internal to pgid._tail_check: a logical replication subscription whose target is the table, '
  'a relation of its tree or one above it.';

-- pgid._tail_check: what is wrong with the setup of a table for tailing,
-- one row per problem, first the ones pgid.tail_enable repairs (fixable;
-- message NULL: out of date, but safe as it is).
-- Every relation of the table's tree (pg_inherits: partitions, and
-- inheritance children, whose rows a SELECT on the table returns too)
-- that holds rows must have both of pgid's triggers, made as tail_enable
-- makes them with the table's function (fn) and lead (args), ENABLE
-- ALWAYS; no other enabled BEFORE row trigger may sort after them. An
-- update trigger of an older pgid (BEFORE UPDATE OF id) is accepted while
-- no other BEFORE UPDATE row trigger could change the id behind it.
CREATE OR REPLACE FUNCTION pgid._tail_check(tbl regclass, fn oid, args bytea,
                                            OUT fixable boolean, OUT message text, OUT hint text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  r record;
  tr record;
  other name;
  what text;
  fix text;
  lead text := convert_from(substr(args, 1, position(decode('00', 'hex') IN args) - 1), 'UTF8');
BEGIN
  FOR r IN
    WITH RECURSIVE tree(rel) AS (
      SELECT tbl::oid
      UNION
      SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
    SELECT c.oid, c.oid::regclass::text AS name, c.relispartition,
           CASE WHEN c.oid = tbl THEN '' ELSE format(' (in the tree of %s)', tbl) END AS where_
      FROM tree JOIN pg_class c ON c.oid = tree.rel
     WHERE c.relkind <> 'p'
     ORDER BY c.oid
  LOOP
    -- Partitions get the triggers from the table; an inheritance child
    -- (INHERITS) does not.
    fix := format('As the owner, run SELECT pgid.tail_enable(%L, ''%s seconds'')%s. Rows written while the '
                  'check was off were not checked: a Tailer may have passed them (docs/TAIL.md).',
                  CASE WHEN r.oid = tbl OR r.relispartition THEN tbl::text ELSE r.name END, lead,
                  CASE WHEN r.oid = tbl OR r.relispartition THEN ' again' ELSE ' for the child table too' END);
    FOR tr IN
      SELECT n.tgname, n.bits, t.oid AS toid, t.tgenabled, t.tgfoid, t.tgargs, t.tgtype,
             t.tgattr::text AS cols, t.tgqual IS NOT NULL AS has_when,
             CASE WHEN t.oid IS NULL THEN NULL ELSE pg_get_triggerdef(t.oid) END AS def
        FROM (VALUES ('zzz_pgid_tail'::name, 7), ('zzz_pgid_tail_update'::name, 19)) n(tgname, bits)
        LEFT JOIN pg_trigger t ON t.tgrelid = r.oid AND t.tgname = n.tgname
    LOOP
      what := NULL;
      IF tr.toid IS NULL THEN
        what := format('pgid: %s%s has no trigger %I: its rows are not checked', r.name, r.where_, tr.tgname);
      ELSIF tr.tgfoid <> fn OR tr.tgargs <> args OR (tr.tgtype::int & 127) <> tr.bits
            OR (tr.bits = 7 AND (tr.has_when OR tr.cols <> ''))
            OR (tr.bits = 19 AND tr.def !~
                (E' WHEN \\(\\(\\(?old\\.id\\)?(::[^ ]+)? IS DISTINCT FROM '
                 || E'\\(?new\\.id\\)?(::[^ ]+)?\\)\\) EXECUTE ')) THEN
        what := format('pgid: trigger %I on %s%s is not the one pgid.tail_enable makes for %s',
                       tr.tgname, r.name, r.where_, tbl);
      ELSIF tr.tgenabled = 'D' THEN
        what := format('pgid: trigger %I on %s%s is disabled: rows written meanwhile are not checked',
                       tr.tgname, r.name, r.where_);
      ELSIF tr.tgenabled <> 'A' THEN
        what := format('pgid: trigger %I on %s%s is not ENABLE ALWAYS: it does not fire when '
                       'session_replication_role is %s', tr.tgname, r.name, r.where_,
                       CASE tr.tgenabled WHEN 'R' THEN 'origin or local' ELSE 'replica' END);
      ELSIF tr.cols <> '' THEN
        -- BEFORE UPDATE OF id (made by an older pgid): blind to another
        -- trigger changing the id on an UPDATE whose SET list lacks it.
        SELECT t.tgname INTO other FROM pg_trigger t
         WHERE t.tgrelid = r.oid AND t.tgname <> tr.tgname AND t.tgenabled <> 'D'
           AND (t.tgtype::int & 19) = 19 ORDER BY t.tgname COLLATE "C" LIMIT 1;
        IF FOUND THEN
          what := format('pgid: trigger %I on %s%s fires only on UPDATE OF id (made by an older pgid), and '
                         'trigger %I may change the id on an UPDATE that does not name it',
                         tr.tgname, r.name, r.where_, other);
        ELSE
          -- Safe as it is; pgid.tail_enable replaces it all the same.
          fixable := true; message := NULL; hint := NULL;
          RETURN NEXT;
        END IF;
      END IF;
      IF what IS NOT NULL THEN
        fixable := true; message := what; hint := fix;
        RETURN NEXT;
      END IF;
    END LOOP;
    -- PostgreSQL fires a table's BEFORE row triggers in name order
    -- (bytewise): any that sorts after pgid's may change the id after
    -- the check. Disabled ones do not fire (the check runs at every read).
    FOR tr IN
      SELECT t.tgname, CASE WHEN t.tgtype::int & 4 <> 0 AND t.tgname COLLATE "C" > 'zzz_pgid_tail'
                            THEN 'zzz_pgid_tail' ELSE 'zzz_pgid_tail_update' END AS ours
        FROM pg_trigger t
       WHERE t.tgrelid = r.oid AND t.tgenabled <> 'D' AND (t.tgtype::int & 3) = 3
         AND t.tgname NOT IN ('zzz_pgid_tail', 'zzz_pgid_tail_update')
         AND ((t.tgtype::int & 4 <> 0 AND t.tgname COLLATE "C" > 'zzz_pgid_tail')
           OR (t.tgtype::int & 16 <> 0 AND t.tgname COLLATE "C" > 'zzz_pgid_tail_update'))
       ORDER BY t.tgname COLLATE "C"
    LOOP
      fixable := false;
      message := format('pgid: trigger %I on %s%s fires after %I: it may change the id after pgid''s check',
                        tr.tgname, r.name, r.where_, tr.ours);
      hint := format('PostgreSQL fires BEFORE triggers in name order (bytewise): rename %I to sort before %I '
                     '(ALTER TRIGGER ... RENAME TO), or drop it. Rows it wrote meanwhile were not checked: '
                     'a Tailer may have passed them (docs/TAIL.md).', tr.tgname, tr.ours);
      RETURN NEXT;
    END LOOP;
  END LOOP;
  RETURN QUERY SELECT * FROM pgid._tail_subscribed(tbl::pg_catalog.regclass);
END
$$;

COMMENT ON FUNCTION pgid._tail_check(regclass, oid, bytea) IS
  'Internal to pgid.tail_config and pgid.tail_enable: the problems of a table''s setup for tailing, one row each.';

-- pgid._tail_raise: raise the first problem pgid._tail_check found
-- (SQLSTATE PGI23), if any.
CREATE OR REPLACE FUNCTION pgid._tail_raise(tbl regclass, fn oid, args bytea) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  p record;
BEGIN
  SELECT * INTO p FROM pgid._tail_check(tbl::pg_catalog.regclass, fn::pg_catalog.oid, args::pg_catalog.bytea) c
  WHERE c.message IS NOT NULL LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI23', MESSAGE = p.message,
      DETAIL = 'A table set up for tailing (pgid.tail_enable) relies on its triggers to refuse every row '
               'that could commit behind a reader''s cursor; as it is, rows may pass unchecked.',
      HINT = p.hint;
  END IF;
END
$$;

COMMENT ON FUNCTION pgid._tail_raise(regclass, oid, bytea) IS
  'Internal to pgid.tail_config and pgid.tail_enable: raises SQLSTATE PGI23 for the first problem of pgid._tail_check.';

-- pgid._tail_citus: refuses (SQLSTATE PGI24) a table Citus distributes
-- (a distributed or reference table, a partition of one, any table in
-- Citus's pg_dist_partition). A Tailer's horizon is one server's xids
-- (pg_stat_activity) and clock; a distributed table's rows are written by
-- the workers' transactions, which the coordinator does not see. Nothing
-- happens where Citus is not installed (no pg_dist_partition).
CREATE OR REPLACE FUNCTION pgid._tail_citus(tbl regclass) RETURNS void
LANGUAGE plpgsql STABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  distributed boolean;
BEGIN
  IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
    RETURN;
  END IF;
  EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition p '
          'WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1)' INTO distributed USING tbl;
  IF distributed THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI24',
      MESSAGE = format('pgid: %s is a Citus distributed table: tail cannot follow it', tbl),
      DETAIL = 'A Tailer''s horizon is one server''s running transactions and clock; the rows of a '
               'distributed table are written by transactions on the Citus workers, which it cannot see.',
      HINT = 'Follow the workers'' changes with logical decoding instead (Citus CDC: '
             'citus.enable_change_data_capture and a logical replication slot on each worker), '
             'or tail a table that is not distributed. See docs/CITUS.md.';
  END IF;
END
$$;

COMMENT ON FUNCTION pgid._tail_citus(regclass) IS
  'Internal to pgid.tail_enable and pgid.tail_config: raises SQLSTATE PGI24 for a Citus distributed table.';

-- pgid.tail_config: the kind (ulid, objectid) and lead of a table set up
-- for tailing, and its name fully qualified and quoted; SQLSTATE PGI21 if
-- the table has no zzz_pgid_tail trigger, PGI24 if Citus distributes it,
-- PGI23 if the setup no longer checks every row (pgid._tail_check: a
-- trigger disabled, missing on a partition, out of date, or another one
-- firing after pgid's).
CREATE OR REPLACE FUNCTION pgid.tail_config(tbl regclass, OUT relation text, OUT kind text, OUT max_lead interval)
LANGUAGE plpgsql STABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  fn text;
  fnoid oid;
  args bytea;
BEGIN
  PERFORM pgid._tail_citus(tbl::pg_catalog.regclass);
  SELECT p.proname, p.oid, t.tgargs INTO fn, fnoid, args
    FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
   WHERE t.tgrelid = tbl AND t.tgname = 'zzz_pgid_tail' AND p.pronamespace = 'pgid'::regnamespace;
  IF fn IS NULL OR fn NOT IN ('tail_guard_ulid', 'tail_guard_objectid') THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI21',
      MESSAGE = format('pgid: %s is not set up for tailing', tbl),
      HINT = 'Run SELECT pgid.tail_enable(''table'', ''2 seconds'') as its owner first.';
  END IF;
  SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) INTO relation
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = tbl;
  kind := substr(fn, length('tail_guard_') + 1);
  -- tgargs holds each argument followed by a NUL byte.
  max_lead := make_interval(
    secs => convert_from(substr(args, 1, position(decode('00', 'hex') IN args) - 1), 'UTF8')::float8);
  PERFORM pgid._tail_raise(tbl::pg_catalog.regclass, fnoid::pg_catalog.oid, args::pg_catalog.bytea);
END
$$;

COMMENT ON FUNCTION pgid.tail_config(regclass) IS
  'The qualified name, key kind (ulid or objectid) and declared maximum lead of a table set up with '
  'pgid.tail_enable; SQLSTATE PGI21 if it is not, PGI23 if its triggers no longer check every row.';

-- pgid.tail_enable: set a table up for tailing, or change its lead. The
-- table needs a column named id of type uuid or bytea (or a domain over
-- them: pgid.ulid, pgid.objectid). max_lead: how much older than the
-- database clock at INSERT an ID may be; at least 1 ms, at most 1 day.
-- Takes a SHARE ROW EXCLUSIVE lock on the table (it waits for running
-- writers, and writers wait for it). Existing rows are not checked.
CREATE OR REPLACE FUNCTION pgid.tail_enable(tbl regclass, max_lead interval) RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  base oid;
  kind text;
  fn oid;
  args bytea;
  secs numeric := extract(epoch FROM max_lead);
BEGIN
  PERFORM pgid._tail_citus(tbl::pg_catalog.regclass);
  IF secs < 0.001 OR secs > 86400 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI22',
      MESSAGE = format('pgid: tail lead of %s s is out of range: want 0.001 to 86400 s (1 ms to 1 day)',
                       trim_scale(secs));
  END IF;
  SELECT CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END INTO base
    FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
   WHERE a.attrelid = tbl AND a.attname = 'id' AND NOT a.attisdropped AND a.attnum > 0;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI22', MESSAGE = format('pgid: %s has no column id to tail by', tbl);
  END IF;
  kind := CASE base WHEN 'uuid'::regtype THEN 'ulid' WHEN 'bytea'::regtype THEN 'objectid' END;
  IF kind IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI22',
      MESSAGE = format('pgid: %s.id is of type %s; tailing wants uuid or bytea (pgid.ulid, pgid.objectid)',
                       tbl, base::regtype);
  END IF;
  fn := format('pgid.%I()', 'tail_guard_' || kind)::regprocedure;
  args := convert_to(trim_scale(secs)::text, 'UTF8') || decode('00', 'hex');
  -- Already as wanted on every relation of the tree: change nothing, so
  -- that running Tailers, which stop when pgid's triggers change (they
  -- cannot tell a lead changed from a check switched off and on), go on.
  IF EXISTS (SELECT FROM pgid._tail_check(tbl::pg_catalog.regclass, fn::pg_catalog.oid, args::pg_catalog.bytea) c
             WHERE c.fixable) THEN
    -- Every UPDATE, not UPDATE OF id: another trigger may change the id
    -- on an UPDATE whose SET list does not name it.
    EXECUTE format('CREATE OR REPLACE TRIGGER zzz_pgid_tail BEFORE INSERT ON %s '
                   'FOR EACH ROW EXECUTE FUNCTION pgid.%I(%L)',
                   tbl, 'tail_guard_' || kind, trim_scale(secs)::text);
    EXECUTE format('CREATE OR REPLACE TRIGGER zzz_pgid_tail_update BEFORE UPDATE ON %s '
                   'FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION pgid.%I(%L)',
                   tbl, 'tail_guard_' || kind, trim_scale(secs)::text);
    EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER zzz_pgid_tail', tbl);
    EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER zzz_pgid_tail_update', tbl);
  END IF;
  -- What tail_enable cannot repair (another trigger firing after pgid's,
  -- a child table it does not reach) is refused here too.
  PERFORM pgid._tail_raise(tbl::pg_catalog.regclass, fn::pg_catalog.oid, args::pg_catalog.bytea);
END
$$;

COMMENT ON FUNCTION pgid.tail_enable(regclass, interval) IS
  'Set a table with an id column (uuid or bytea) up for tailing: a trigger refuses (PGI20) IDs older than the '
  'database clock at INSERT minus max_lead. Changing the lead replaces the trigger; stop the table''s readers '
  'while raising it.';

-- pgid.tail_disable: remove the trigger again.
CREATE OR REPLACE FUNCTION pgid.tail_disable(tbl regclass) RETURNS void
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  EXECUTE format('DROP TRIGGER IF EXISTS zzz_pgid_tail ON %s', tbl);
  EXECUTE format('DROP TRIGGER IF EXISTS zzz_pgid_tail_update ON %s', tbl);
END
$$;

COMMENT ON FUNCTION pgid.tail_disable(regclass) IS
  'Remove what pgid.tail_enable installed on the table.';

-- pgid.tail_writers: the database clock, then the transactions of this
-- database that hold an xid: running ones (with xact_start where the caller
-- may see it, else NULL) and prepared ones (xact_start NULL). Read in this
-- order, each from a fresh statistics snapshot; call it in a statement of
-- its own, before the statement that reads the rows.
CREATE OR REPLACE FUNCTION pgid.tail_writers(OUT observed_at timestamptz, OUT xids bigint[], OUT starts timestamptz[])
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  px bigint[];
BEGIN
  PERFORM pg_stat_clear_snapshot();
  observed_at := clock_timestamp();
  SELECT coalesce(array_agg(a.backend_xid::text::bigint), '{}'),
         coalesce(array_agg(a.xact_start), '{}')
    INTO xids, starts
    FROM pg_stat_activity a
   WHERE a.backend_xid IS NOT NULL
     AND (a.datid IS NULL OR a.datid = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database()));
  SELECT coalesce(array_agg(p.transaction::text::bigint), '{}') INTO px
    FROM pg_prepared_xacts p WHERE p.database = current_database();
  xids := xids || px;
  starts := starts || array_fill(NULL::timestamptz, ARRAY[cardinality(px)]);
END
$$;

COMMENT ON FUNCTION pgid.tail_writers() IS
  'The database clock, then the xids (as bigint) of this database''s running and prepared transactions, '
  'with xact_start where visible: what Go package tail needs to compute a safe horizon. Call it in its own '
  'statement before reading rows.';

-- pgid.tail_poll: what a reader needs before it reads rows, in this
-- order: pgid.tail_writers; the lead of pgid.tail_config, whose checks
-- raise PGI21 or PGI23; then the relations of the table's tree that hold
-- rows (rels, names), read after the xids, each with the xmins of its
-- pg_inherits rows up to the table (attached: changes when it is attached
-- again) and of pgid's two triggers on it (triggers: changes when they are
-- disabled, enabled or replaced); then busy: whether another session holds
-- a lock on the table or a partitioned table of its tree in a mode that
-- attaches, detaches or creates partitions (SHARE UPDATE EXCLUSIVE or
-- stronger, not SHARE). Such a session sends the news to other sessions
-- only after its commit is visible and before it releases that lock; while
-- it holds it, a statement may see a partition in pg_inherits that its plan
-- does not scan. Call it in a statement of its own, before the rows.
CREATE OR REPLACE FUNCTION pgid.tail_poll(tbl regclass,
    OUT observed_at timestamptz, OUT xids bigint[], OUT starts timestamptz[], OUT max_lead interval,
    OUT rels oid[], OUT names text[], OUT attached text[], OUT triggers text[], OUT busy boolean)
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  parents oid[];
BEGIN
  SELECT w.observed_at, w.xids, w.starts INTO observed_at, xids, starts FROM pgid.tail_writers() w;
  SELECT c.max_lead INTO max_lead FROM pgid.tail_config(tbl::pg_catalog.regclass) c;
  -- A statement of its own: a snapshot taken after the xids were read.
  WITH RECURSIVE tree(rel, path) AS (
    SELECT tbl::oid, ''::text
    UNION ALL
    SELECT i.inhrelid, tree.path || '/' || i.xmin::text
      FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
  SELECT coalesce(array_agg(c.oid ORDER BY c.oid) FILTER (WHERE c.relkind <> 'p'), '{}'),
         coalesce(array_agg(c.oid::regclass::text ORDER BY c.oid) FILTER (WHERE c.relkind <> 'p'), '{}'),
         coalesce(array_agg(tree.path ORDER BY c.oid) FILTER (WHERE c.relkind <> 'p'), '{}'),
         coalesce(array_agg((SELECT string_agg(t.tgname || '=' || t.xmin::text, ' ' ORDER BY t.tgname)
                               FROM pg_trigger t
                              WHERE t.tgrelid = c.oid AND t.tgname IN ('zzz_pgid_tail', 'zzz_pgid_tail_update'))
                            ORDER BY c.oid) FILTER (WHERE c.relkind <> 'p'), '{}'),
         array_agg(c.oid) FILTER (WHERE c.relkind = 'p' OR c.oid = tbl)
    INTO rels, names, attached, triggers, parents
    FROM tree JOIN pg_class c ON c.oid = tree.rel;
  -- Then the locks: one of those DDL that committed before the snapshot
  -- above and still holds its lock has perhaps not told us yet.
  busy := cardinality(rels) > 1 OR rels <> ARRAY[tbl::oid];
  IF busy THEN
    SELECT EXISTS (
      SELECT FROM pg_locks l
       WHERE l.locktype = 'relation' AND l.granted AND l.relation = ANY(parents)
         AND l.database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
         AND l.mode IN ('ShareUpdateExclusiveLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')
         AND l.pid IS DISTINCT FROM pg_backend_pid()) INTO busy;
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.tail_poll(regclass) IS
  'pgid.tail_writers, the lead of pgid.tail_config (with its checks), then the relations of the table''s tree '
  'that hold rows with when each was attached and its triggers changed, then whether DDL on the tree holds a '
  'lock: what Go package tail reads before the rows. Call it in its own statement.';

-- pgid.tail_below: whether the table has a row stored in relation part
-- (a partition or child of it) with an id below below_id (or equal, with
-- or_equal): asked by a reader about a partition that is new to it. Reads
-- through the table (SELECT on it suffices), pruned to the partition by
-- its partition constraint.
CREATE OR REPLACE FUNCTION pgid.tail_below(tbl regclass, part regclass, below_id anyelement, or_equal boolean)
RETURNS boolean
LANGUAGE plpgsql STABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT FROM %s t WHERE %s t.tableoid OPERATOR(pg_catalog.=) $1 '
                 'AND t.id OPERATOR(pg_catalog.%s) $2)',
                 tbl, coalesce('(' || pg_get_partition_constraintdef(part) || ') AND', ''),
                 CASE WHEN or_equal THEN '<=' ELSE '<' END)
    INTO found USING part::oid, below_id;
  RETURN found;
END
$$;

COMMENT ON FUNCTION pgid.tail_below(regclass, regclass, anyelement, boolean) IS
  'Whether the table has a row stored in partition part with an id below cursor (or equal): what Go package '
  'tail asks about a partition attached while it reads.';

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.tail_below(regclass, regclass, anyelement, boolean);
DROP FUNCTION IF EXISTS pgid.tail_poll(regclass);
DROP FUNCTION IF EXISTS pgid.tail_writers();
DROP FUNCTION IF EXISTS pgid.tail_disable(regclass);
DROP FUNCTION IF EXISTS pgid.tail_enable(regclass, interval);
DROP FUNCTION IF EXISTS pgid.tail_config(regclass);
DROP FUNCTION IF EXISTS pgid._tail_raise(regclass, oid, bytea);
DROP FUNCTION IF EXISTS pgid._tail_citus(regclass);
DROP FUNCTION IF EXISTS pgid._tail_check(regclass, oid, bytea);
DROP FUNCTION IF EXISTS pgid._tail_subscribed(regclass);
DROP FUNCTION IF EXISTS pgid.tail_guard_objectid();
DROP FUNCTION IF EXISTS pgid.tail_guard_ulid();
DROP FUNCTION IF EXISTS pgid._tail_refuse(text, text, text, timestamptz, text, boolean);
DROP FUNCTION IF EXISTS pgid._tail_applying();
