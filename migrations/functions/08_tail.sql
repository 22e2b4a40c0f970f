-- Tailing a table by ID without skipping late commits (issue 22).
--
-- A reader that asks for "the rows after the last ID I saw" skips every row
-- whose transaction commits after the reader has moved past its ID. This
-- file holds the database half of the remedy; the reader is Go package
-- tail (docs/TAIL.md has the argument in full).
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
--    (INSERT) and zzz_pgid_tail_update (UPDATE changing the id) so that they
--    fire after the table's other BEFORE triggers (which may change the id),
--    and are ENABLE ALWAYS so that they also fire under
--    session_replication_role = replica (logical replication apply).
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
-- Nothing here needs a privilege beyond EXECUTE (the runner grants it to
-- PUBLIC when it creates the functions)
-- and SELECT on the tailed table; pg_stat_activity and pg_prepared_xacts
-- are readable by every role. No function has a SET clause on the insert
-- path: the trigger functions qualify every name and operator instead
-- (a SET clause costs a GUC save and restore per row).
--
-- Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.tail_guard_ulid / pgid.tail_guard_objectid: the per-row check of
-- an INSERT (trigger zzz_pgid_tail) or of an UPDATE that changes the id
-- (zzz_pgid_tail_update, WHEN OLD.id IS DISTINCT FROM NEW.id). The
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
  PERFORM pgid._tail_refuse(TG_TABLE_SCHEMA, TG_TABLE_NAME, pgid.ulid_to_text(NEW.id), pgid.ulid_time(NEW.id),
                            TG_ARGV[0], false);
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
  PERFORM pgid._tail_refuse(TG_TABLE_SCHEMA, TG_TABLE_NAME, pgid.objectid_to_hex(NEW.id), pgid.objectid_time(NEW.id),
                            TG_ARGV[0], true);
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

-- pgid.tail_config: the kind (ulid, objectid) and lead of a table set up
-- for tailing, and its name fully qualified and quoted; SQLSTATE PGI21 if
-- the table has no zzz_pgid_tail trigger.
CREATE OR REPLACE FUNCTION pgid.tail_config(tbl regclass, OUT relation text, OUT kind text, OUT max_lead interval)
LANGUAGE plpgsql STABLE STRICT
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  fn text;
  args bytea;
BEGIN
  SELECT p.proname, t.tgargs INTO fn, args
    FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
   WHERE t.tgrelid = tbl AND t.tgname = 'zzz_pgid_tail';
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
END
$$;

COMMENT ON FUNCTION pgid.tail_config(regclass) IS
  'The qualified name, key kind (ulid or objectid) and declared maximum lead of a table set up with '
  'pgid.tail_enable; SQLSTATE PGI21 if it is not.';

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
  secs numeric := extract(epoch FROM max_lead);
BEGIN
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
  EXECUTE format('CREATE OR REPLACE TRIGGER zzz_pgid_tail BEFORE INSERT ON %s '
                 'FOR EACH ROW EXECUTE FUNCTION pgid.%I(%L)',
                 tbl, 'tail_guard_' || kind, trim_scale(secs)::text);
  EXECUTE format('CREATE OR REPLACE TRIGGER zzz_pgid_tail_update BEFORE UPDATE OF id ON %s '
                 'FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION pgid.%I(%L)',
                 tbl, 'tail_guard_' || kind, trim_scale(secs)::text);
  EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER zzz_pgid_tail', tbl);
  EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER zzz_pgid_tail_update', tbl);
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

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.tail_writers();
DROP FUNCTION IF EXISTS pgid.tail_disable(regclass);
DROP FUNCTION IF EXISTS pgid.tail_enable(regclass, interval);
DROP FUNCTION IF EXISTS pgid.tail_config(regclass);
DROP FUNCTION IF EXISTS pgid.tail_guard_objectid();
DROP FUNCTION IF EXISTS pgid.tail_guard_ulid();
DROP FUNCTION IF EXISTS pgid._tail_refuse(text, text, text, timestamptz, text, boolean);
