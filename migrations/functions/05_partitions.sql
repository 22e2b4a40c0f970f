-- Time partitions by ID: the functions that make, list, keep ahead and
-- retire the partitions of a table PARTITION BY RANGE (id) on a pgid.ulid /
-- pgid.objectid (or plain uuid / bytea) column. No extension, no background
-- worker: call pgid.ensure_partitions from pg_cron, from Go (package
-- github.com/pgid/pgid/partition) or by hand; docs/PARTITIONING.md has the
-- guide.
--
-- In this file, in order: the arithmetic (partition_width, partition_span,
-- partition_range, partition_name, partition_lock_key), the catalog readers
-- (partition_key_kind, list_partitions, expired_partitions,
-- default_partition_rows) and their internal helpers (_utc_text,
-- _partition_bound, _partition_key, _id_time), the DDL lock
-- (partition_ddl_lock), retirement (retire_partition and its steps
-- _retire_fk_cond, _retire_walk, _retire_verdict) and maintenance
-- (ensure_partitions and its steps _ensure_create, _ensure_retire,
-- _ensure_default). Names starting with an underscore are internal.
--
-- Partition [t1, t2) is FOR VALUES FROM (min_at(t1)) TO (min_at(t2)), with
-- pgid.ulid_min_at / pgid.objectid_min_at, so it holds exactly the IDs made
-- in [t1, t2) (ObjectIds to the second) and an ID made at t2 lands in the
-- next partition. Widths are whole months, or a fixed number of seconds; all
-- arithmetic is in UTC (no DST). Fixed widths are aligned to the Unix epoch,
-- widths of whole weeks to Mondays, whole months to 1970-01.
--
-- Session independence: plpgsql compiles a function body with the session's
-- settings and keeps it for the session, so every plpgsql function here pins,
-- besides search_path = pg_catalog, pg_temp, the settings its text depends
-- on: standard_conforming_strings, DateStyle, IntervalStyle, TimeZone and
-- bytea_output (a SET clause is in force while the function is compiled as
-- well as while it runs, and is undone on exit). PostgreSQL has no way to
-- share SET clauses between functions: each plpgsql function carries the
-- same two lines of them, the internal steps included (a session may call
-- those first, directly). The SQL functions have
-- SQL-standard bodies, bound when this file runs under the search_path set
-- below. Identifiers are quoted with format('%I'), literals with
-- format('%L'); every function is SECURITY INVOKER: the caller needs what
-- the DDL needs (own the parent, CREATE on its schema) and nothing more.
--
-- Errors and warnings raise their own SQLSTATEs (class PG, "pgid"; the
-- table is Go's internal/sqlstate):
-- BEGIN GENERATED partition_sqlstates (go generate ./migrations)
--   PGI01  the parent is not a partitioned table
--   PGI02  the parent is not partitioned BY RANGE on one column
--   PGI03  the key column is not uuid / bytea (or a domain over them), or not
--          the key kind asked for
--   PGI04  the DEFAULT partition holds rows in a range about to be created
--   PGI05  a range about to be created overlaps an existing partition with
--          other bounds
--   PGI06  an invalid argument (width, ahead, retain, retire, part)
--   PGI07  (a WARNING) an expired partition kept (with the reason)
--   PGI08  (a WARNING) rows in the DEFAULT partition
--   PGI09  (a WARNING) partitions past the end of the ID space
-- END GENERATED partition_sqlstates
--
-- Concurrency: pgid.ensure_partitions and pgid.retire_partition take the
-- transaction-level advisory lock pg_advisory_xact_lock(1885825380,
-- pgid.partition_lock_key(parent)): the first key is 'pgid' in ASCII, the
-- second the parent's OID as int4 (pg_locks shows it as classid 1885825380,
-- objid = the parent's OID, objsubid 2). Concurrent calls for one parent run
-- one after the other and make each partition once. The DDL itself takes
-- its locks all or none (pgid.partition_ddl_lock).
--
-- Retirement never holds creation hostage: pgid.ensure_partitions creates
-- first, then retires each expired partition with pgid.retire_partition,
-- which runs in a subtransaction of its own and reports, instead of
-- raising, what it could not do. Nothing is ever dropped with CASCADE.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.partition_width: months and seconds of a partition width, or error
-- PGI06. A width is whole months (1 month, 3 months, 1 year) or a positive
-- whole number of seconds (1 day = 86400, 1 week, 6 hours); never both.
CREATE OR REPLACE FUNCTION pgid.partition_width(every interval, OUT months integer, OUT seconds bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  rest interval;
  secs numeric;
BEGIN
  months := (extract(year FROM every) * 12 + extract(month FROM every))::integer;
  rest := every - make_interval(months => months);
  secs := extract(epoch FROM rest);
  IF months < 0 OR secs < 0 OR (months = 0 AND secs = 0) THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: partition width %s is not positive', every);
  END IF;
  IF months > 0 AND secs <> 0 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: partition width %s mixes months with days or time', every),
      HINT = 'Use whole months (''1 month'', ''3 months'') or a fixed duration (''1 day'', ''6 hours'').';
  END IF;
  IF secs <> trunc(secs) THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: partition width %s is not a whole number of seconds', every);
  END IF;
  seconds := secs::bigint;
END
$$;

COMMENT ON FUNCTION pgid.partition_width(interval) IS
  'Months and seconds of a partition width: whole months or whole seconds, never both; SQLSTATE PGI06 otherwise.';

-- pgid.partition_range: the partition [lower, upper) of width every that
-- holds time t, in UTC.
CREATE OR REPLACE FUNCTION pgid.partition_range(every interval, t timestamptz,
                                                OUT lower timestamptz, OUT upper timestamptz)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  seconds_per_week CONSTANT bigint := 7 * 86400;
  -- Weeks start on Mondays: 1970-01-05, 4 days after the epoch (a Thursday).
  first_monday CONSTANT bigint := 4 * 86400;
  w record;                  -- every as whole months or whole seconds
  utc timestamp := timezone('UTC', t);
  start bigint;              -- the partition's start: months or seconds since the epoch
  epoch_seconds numeric;
  align bigint := 0;         -- where fixed-width partitions start counting
BEGIN
  w := pgid.partition_width(every::pg_catalog.interval);
  IF w.months > 0 THEN
    start := (extract(year FROM utc)::bigint - 1970) * 12 + extract(month FROM utc)::bigint - 1;
    start := floor(start::numeric / w.months)::bigint * w.months;
    lower := timezone('UTC', timestamp '1970-01-01' + make_interval(months => start::integer));
    upper := timezone('UTC', timestamp '1970-01-01' + make_interval(months => (start + w.months)::integer));
  ELSE
    IF w.seconds % seconds_per_week = 0 THEN
      align := first_monday;
    END IF;
    epoch_seconds := extract(epoch FROM utc);
    start := floor((epoch_seconds - align) / w.seconds)::bigint * w.seconds + align;
    lower := timestamptz 'epoch' + start * interval '1 second';
    upper := lower + w.seconds * interval '1 second';
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.partition_range(interval, timestamptz) IS
  'The partition [lower, upper) of width every holding time t, in UTC: whole months aligned to 1970-01, whole weeks '
  'to Mondays, other fixed widths to the Unix epoch.';

-- pgid.partition_name: the name of the partition of parent (a table name,
-- unqualified) starting at lower: parent_pYYYYMM (months), parent_pIYYYwIW
-- (weeks, ISO year and week), parent_pYYYYMMDD (days),
-- parent_pYYYYMMDDtHHMI or ..tHHMISS (shorter widths). A name longer than 63
-- bytes keeps as much of the parent's name as fits, then _ and 8 hex digits
-- of md5(parent), then the suffix: deterministic, and distinct for parents
-- that share a long prefix.
CREATE OR REPLACE FUNCTION pgid.partition_name(parent text, every interval, lower timestamptz) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  seconds_per_week CONSTANT bigint := 7 * 86400;
  seconds_per_day CONSTANT bigint := 86400;
  max_name CONSTANT integer := 63;  -- NAMEDATALEN - 1, in bytes
  hashed CONSTANT integer := 12;    -- '_', 8 hex digits of md5 and '_p'
  w record;
  utc timestamp := timezone('UTC', lower);
  suffix text;
  head text := parent;
BEGIN
  w := pgid.partition_width(every::pg_catalog.interval);
  suffix := CASE
    WHEN w.months > 0 THEN to_char(utc, 'YYYYMM')
    WHEN w.seconds % seconds_per_week = 0 THEN to_char(utc, 'IYYY"w"IW')
    WHEN w.seconds % seconds_per_day = 0 THEN to_char(utc, 'YYYYMMDD')
    WHEN w.seconds % 60 = 0 THEN to_char(utc, 'YYYYMMDD"t"HH24MI')
    ELSE to_char(utc, 'YYYYMMDD"t"HH24MISS')
  END;
  IF octet_length(parent) + 2 + octet_length(suffix) <= max_name THEN
    RETURN parent || '_p' || suffix;
  END IF;
  WHILE octet_length(head) > max_name - hashed - octet_length(suffix) LOOP
    head := left(head, -1);
  END LOOP;
  RETURN head || '_' || left(md5(parent), 8) || '_p' || suffix;
END
$$;

COMMENT ON FUNCTION pgid.partition_name(text, interval, timestamptz) IS
  'Name of the partition of parent starting at lower: parent_pYYYYMM, parent_pIYYYwIW, parent_pYYYYMMDD or '
  'parent_pYYYYMMDDtHHMI[SS]; over 63 bytes the parent name is cut and md5(parent)''s first 8 hex digits added.';

-- pgid.partition_lock_key: the second key of the advisory lock
-- pg_advisory_xact_lock(1885825380, key) that serialises
-- pgid.ensure_partitions per parent: the parent's OID as int4.
CREATE OR REPLACE FUNCTION pgid.partition_lock_key(parent regclass) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN ('x' || pg_catalog.lpad(pg_catalog.to_hex(parent::oid::bigint), 8, '0'))::bit(32)::integer;

COMMENT ON FUNCTION pgid.partition_lock_key(regclass) IS
  'Second key of the advisory lock (1885825380 = ''pgid'', key) that serialises pgid.ensure_partitions per parent: '
  'the parent''s OID as int4.';

-- pgid.partition_key_kind: 'ulid' (key column uuid or a domain over it) or
-- 'objectid' (bytea), after checking that parent is partitioned BY RANGE on
-- that one column; errors PGI01, PGI02, PGI03.
CREATE OR REPLACE FUNCTION pgid.partition_key_kind(parent regclass) RETURNS text
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  kind "char";
  strat "char";
  natts smallint;
  att smallint;
  col name;
  typ oid;
  base oid;
BEGIN
  SELECT c.relkind INTO kind FROM pg_class c WHERE c.oid = parent;
  IF kind IS DISTINCT FROM 'p' THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI01',
      MESSAGE = format('pgid: %s is not a partitioned table', parent),
      HINT = 'Create it with PARTITION BY RANGE (id), id pgid.ulid or pgid.objectid.';
  END IF;
  SELECT p.partstrat, p.partnatts, p.partattrs[0] INTO strat, natts, att
  FROM pg_partitioned_table p WHERE p.partrelid = parent;
  IF strat <> 'r' THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI02',
      MESSAGE = format('pgid: %s is partitioned by %s, not by RANGE (id)', parent,
                       CASE strat WHEN 'l' THEN 'LIST' WHEN 'h' THEN 'HASH' ELSE strat::text END);
  END IF;
  IF natts <> 1 OR att = 0 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI02',
      MESSAGE = format('pgid: %s is partitioned by RANGE on %s, not on one ID column', parent,
                       pg_get_partkeydef(parent));
  END IF;
  SELECT a.attname, a.atttypid INTO col, typ
  FROM pg_attribute a WHERE a.attrelid = parent AND a.attnum = att;
  base := typ;
  WHILE (SELECT t.typtype FROM pg_type t WHERE t.oid = base) = 'd' LOOP
    SELECT t.typbasetype INTO base FROM pg_type t WHERE t.oid = base;
  END LOOP;
  IF base = 'uuid'::regtype THEN
    RETURN 'ulid';
  ELSIF base = 'bytea'::regtype THEN
    RETURN 'objectid';
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'PGI03',
    MESSAGE = format('pgid: partition key %I of %s is %s, not pgid.ulid / uuid or pgid.objectid / bytea',
                     col, parent, format_type(typ, NULL));
END
$$;

COMMENT ON FUNCTION pgid.partition_key_kind(regclass) IS
  'ulid or objectid: the kind of ID parent is partitioned BY RANGE on; SQLSTATE PGI01 (not partitioned), PGI02 (not '
  'RANGE on one column), PGI03 (not uuid/bytea).';

-- pgid.partition_span: months and seconds of a width or retention, or error
-- PGI06 naming what (width, retention) and why; the rules of Go's
-- partition.ParseSpan and Span: positive; whole months, at most 12000, or a
-- whole number of seconds, at most 9223372036 (the longest Go
-- time.Duration); never both.
CREATE OR REPLACE FUNCTION pgid.partition_span(what text, span interval, OUT months integer, OUT seconds bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  m numeric := extract(year FROM span) * 12 + extract(month FROM span);
  secs numeric := extract(epoch FROM span
                          - make_interval(months => (extract(year FROM span) * 12
                                                     + extract(month FROM span))::integer));
BEGIN
  IF m < 0 OR secs < 0 OR (m = 0 AND secs = 0) THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: %s %s is not positive', what, span);
  END IF;
  IF m > 0 AND secs <> 0 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: %s %s mixes months with days or time', what, span),
      HINT = 'Use whole months (''1 month'', ''3 months'') or a fixed duration (''30 days'', ''6 hours'').';
  END IF;
  IF m > 12000 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: %s %s is more than 12000 months', what, span);
  END IF;
  IF secs <> trunc(secs) THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: %s %s is not a whole number of seconds', what, span);
  END IF;
  IF secs > 9223372036 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: %s %s is more than 9223372036 seconds', what, span);
  END IF;
  months := m::integer;
  seconds := secs::bigint;
END
$$;

COMMENT ON FUNCTION pgid.partition_span(text, interval) IS
  'Months and seconds of a partition width or retention, with Go partition.ParseSpan''s rules: positive, whole '
  'months (at most 12000) or whole seconds (at most 9223372036), never both; SQLSTATE PGI06 otherwise.';

-- pgid._utc_text: t in UTC as 2006-01-02T15:04:05Z, for messages.
CREATE OR REPLACE FUNCTION pgid._utc_text(t timestamptz) RETURNS text
LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN to_char(timezone('UTC', t), 'YYYY-MM-DD"T"HH24:MI:SS"Z"');

COMMENT ON FUNCTION pgid._utc_text(timestamptz) IS
  'Internal: t in UTC as YYYY-MM-DDTHH:MI:SSZ, for the messages of the partition functions.';

-- pgid._partition_bound: the bound of a partition of key kind ('ulid' or
-- 'objectid') starting at t, as the catalog and pgid.list_partitions write
-- it: the uuid text of pgid.ulid_min_at(t), or \x and the hex digits of
-- pgid.objectid_min_at(t).
CREATE OR REPLACE FUNCTION pgid._partition_bound(kind text, t timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE kind WHEN 'ulid' THEN pgid.ulid_min_at(t)::text
                 ELSE E'\\x' || encode(pgid.objectid_min_at(t), 'hex') END;

COMMENT ON FUNCTION pgid._partition_bound(text, timestamptz) IS
  'Internal: the partition bound (min_at(t)) of key kind ulid or objectid as text, as pgid.list_partitions gives it.';

-- pgid._partition_key: the bytes of a bound as pgid.list_partitions gives
-- it (uuid and bytea both compare as memcmp, so bounds of either kind
-- compare as these bytes).
CREATE OR REPLACE FUNCTION pgid._partition_key(kind text, bound text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE kind WHEN 'ulid' THEN decode(replace(bound, '-', ''), 'hex') ELSE decode(substr(bound, 3), 'hex') END;

COMMENT ON FUNCTION pgid._partition_key(text, text) IS
  'Internal: the bytes of a partition bound of key kind ulid or objectid, which compare as the keys do.';

-- pgid._id_time: the time of an ID of key kind ('ulid' or 'objectid') given
-- as text (a uuid, or a bytea as \x and hex digits).
CREATE OR REPLACE FUNCTION pgid._id_time(kind text, id text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE kind WHEN 'ulid' THEN pgid.ulid_time(id::uuid) ELSE pgid.objectid_time(id::bytea) END;

COMMENT ON FUNCTION pgid._id_time(text, text) IS
  'Internal: the time of an ID of key kind ulid or objectid written as text (uuid, or bytea in hex).';

-- pgid.list_partitions: the partitions of parent in key order, the DEFAULT
-- partition last: the bounds as written in the catalog (NULL for
-- MINVALUE/MAXVALUE and for DEFAULT), the times they stand for, and
-- pg_class.reltuples as the row estimate (NULL before the first VACUUM or
-- ANALYZE). The maintenance calls it several times per run: one query,
-- one pg_get_expr per partition (MATERIALIZED: not repeated for each use),
-- the literals cut out with split_part where a bound has the expected form
-- (a regexp with captures cost more than all the rest).
CREATE OR REPLACE FUNCTION pgid.list_partitions(parent regclass)
RETURNS TABLE (partition regclass, is_default boolean, lower timestamptz, upper timestamptz,
               from_bound text, to_bound text, row_estimate bigint)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent::pg_catalog.regclass);
BEGIN
  RETURN QUERY
    WITH p AS MATERIALIZED (
      SELECT c.oid::regclass AS rel, c.reltuples AS tuples, pg_get_expr(c.relpartbound, c.oid) AS b
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = parent),
    q AS MATERIALIZED (
      SELECT p.rel, p.tuples, p.b = 'DEFAULT' AS dflt,
             -- FOR VALUES FROM ('f') TO ('t'), either side may be MINVALUE / MAXVALUE
             p.b ~ '^FOR VALUES FROM \((''[^'']*''(::\w+)?|MINVALUE)\) TO \((''[^'']*''(::\w+)?|MAXVALUE)\)$' AS ok,
             CASE WHEN p.b LIKE 'FOR VALUES FROM (''%' THEN split_part(p.b, '''', 2) END AS f,
             CASE WHEN p.b NOT LIKE '%TO (MAXVALUE)'
                  THEN split_part(p.b, '''', CASE WHEN p.b LIKE 'FOR VALUES FROM (''%' THEN 4 ELSE 2 END) END AS t
      FROM p)
    SELECT q.rel, q.dflt,
           pgid._id_time(kind::pg_catalog.text, (CASE WHEN q.ok THEN q.f END)::pg_catalog.text),
           pgid._id_time(kind::pg_catalog.text, (CASE WHEN q.ok THEN q.t END)::pg_catalog.text),
           CASE WHEN q.ok THEN q.f END, CASE WHEN q.ok THEN q.t END,
           CASE WHEN q.tuples < 0 THEN NULL ELSE q.tuples::bigint END
    FROM q
    ORDER BY q.dflt, q.f NULLS FIRST;
END
$$;

COMMENT ON FUNCTION pgid.list_partitions(regclass) IS
  'Partitions of a table partitioned BY RANGE on an ID: bounds as in the catalog, the times they stand for, '
  'reltuples as row estimate (NULL if never analyzed).';

-- pgid.expired_partitions: the partitions of parent whose whole range is
-- older than at - retain: upper bound <= min_at(at - retain). A partition
-- that may hold a younger row is not among them.
CREATE OR REPLACE FUNCTION pgid.expired_partitions(parent regclass, retain interval,
                                                   at timestamptz DEFAULT now())
RETURNS TABLE (partition regclass, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent::pg_catalog.regclass);
  cut timestamptz;
BEGIN
  IF retain <= interval '0' THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retention %s is not positive', retain);
  END IF;
  cut := timezone('UTC', timezone('UTC', at) - retain);
  IF kind = 'ulid' THEN
    RETURN QUERY SELECT l.partition, l.lower, l.upper FROM pgid.list_partitions(parent::pg_catalog.regclass) l
      WHERE l.to_bound IS NOT NULL AND l.to_bound::uuid <= pgid.ulid_min_at(cut::pg_catalog.timestamptz)
      ORDER BY l.to_bound::uuid;
  ELSE
    RETURN QUERY SELECT l.partition, l.lower, l.upper FROM pgid.list_partitions(parent::pg_catalog.regclass) l
      WHERE l.to_bound IS NOT NULL
        AND decode(substr(l.to_bound, 3), 'hex') <= pgid.objectid_min_at(cut::pg_catalog.timestamptz)
      ORDER BY decode(substr(l.to_bound, 3), 'hex');
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.expired_partitions(regclass, interval, timestamptz) IS
  'Partitions of parent whose whole range is older than at - retain (upper bound <= min_at(at - retain)), oldest '
  'first.';

-- pgid.default_partition_rows: the DEFAULT partition of parent, if it has
-- one: its row count and the times of its oldest and newest IDs (index
-- probes when the key is indexed). No row without a DEFAULT partition.
CREATE OR REPLACE FUNCTION pgid.default_partition_rows(parent regclass)
RETURNS TABLE (partition regclass, row_count bigint, oldest timestamptz, newest timestamptz)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent::pg_catalog.regclass);
  col name;
  lo text;
  hi text;
BEGIN
  SELECT l.partition INTO partition FROM pgid.list_partitions(parent::pg_catalog.regclass) l WHERE l.is_default;
  IF partition IS NULL THEN
    RETURN;
  END IF;
  SELECT a.attname INTO col FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
  WHERE p.partrelid = parent;
  EXECUTE format('SELECT count(*) FROM %s', partition) INTO row_count;
  EXECUTE format('SELECT (SELECT %1$I FROM %2$s ORDER BY %1$I LIMIT 1)::text, '
                 '(SELECT %1$I FROM %2$s ORDER BY %1$I DESC LIMIT 1)::text',
                 col, partition) INTO lo, hi;
  oldest := pgid._id_time(kind::pg_catalog.text, lo::pg_catalog.text);
  newest := pgid._id_time(kind::pg_catalog.text, hi::pg_catalog.text);
  RETURN NEXT;
END
$$;

COMMENT ON FUNCTION pgid.default_partition_rows(regclass) IS
  'The DEFAULT partition of parent (no row if none): its row count and the times of its oldest and newest IDs. Rows '
  'there mean a partition was missing when they came; retention never touches them.';

-- pgid.partition_ddl_lock: take, for the rest of the transaction, the
-- locks that creating, detaching or dropping a partition of parent needs:
-- SHARE ROW EXCLUSIVE on every table with a foreign key to parent, ACCESS
-- EXCLUSIVE on parent (ONLY), on its DEFAULT partition and on part, if
-- given. All or none: a try that times out gives back what it took (a
-- subtransaction) and tries again after a short random pause. Each try
-- waits at most its lock_timeout per lock (a setting of this function's
-- own, restored on exit): 10 ms, doubling to at most 1 s, 40 tries in all
-- (about 35 s; SQLSTATE 55P03 then), so a writer never waits longer than
-- that try's timeout behind it. Without it, creating a partition
-- deadlocks with a writer that inserts into a referencing table and the
-- parent in one statement (its locks come in the other order), and the
-- deadlock detector aborts one of them, possibly the writer; a queued
-- ACCESS EXCLUSIVE request also stalls every writer behind it for as long as
-- it waits.
CREATE OR REPLACE FUNCTION pgid.partition_ddl_lock(parent regclass, part regclass DEFAULT NULL) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '10ms' AS $$
DECLARE
  refs regclass[];
  def regclass;
  r regclass;
  attempt integer := 0;
BEGIN
  SELECT coalesce(array_agg(s.rel ORDER BY s.rel::oid), '{}') INTO refs
  FROM (SELECT DISTINCT c.conrelid::regclass AS rel FROM pg_constraint c
        WHERE c.contype = 'f' AND c.confrelid = parent AND c.conparentid = 0 AND c.conrelid <> parent) s;
  SELECT i.inhrelid::regclass INTO def FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = parent AND pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT';
  LOOP
    PERFORM set_config('lock_timeout', least(10 * 2 ^ least(attempt, 7), 1000)::integer || 'ms', true);
    BEGIN
      FOREACH r IN ARRAY refs LOOP
        EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', r);
      END LOOP;
      EXECUTE format('LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE', parent);
      IF def IS NOT NULL THEN
        EXECUTE format('LOCK TABLE ONLY %s IN ACCESS EXCLUSIVE MODE', def);
      END IF;
      IF part IS NOT NULL THEN
        EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', part);
      END IF;
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      attempt := attempt + 1;
      IF attempt >= 40 THEN
        RAISE EXCEPTION USING ERRCODE = 'lock_not_available',
          MESSAGE = format('pgid: could not lock %s and the tables that reference it in %s tries', parent, attempt),
          HINT = 'A long transaction holds a lock on one of them; the next run tries again.';
      END IF;
      PERFORM pg_sleep(0.01 + random() * 0.05);
    END;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid.partition_ddl_lock(regclass, regclass) IS
  'Take all or none of the locks partition DDL on parent needs (tables referencing it, parent, its DEFAULT '
  'partition, part), each try waiting 10 ms doubling to 1 s per lock, so the DDL never deadlocks with writers nor '
  'stalls them behind a long queued lock; SQLSTATE 55P03 after 40 tries.';

-- pgid._retire_fk_cond: the condition on s, the rows of table src that a
-- foreign key (src's columns conkey referencing confkey of table t_oid)
-- makes act when pgid.retire_partition retires partition rel of parent.
-- At depth 0 t_oid is parent: the referencing column of the partition key
-- in the partition's range [from_bound, to_bound) (from_bound NULL for
-- MINVALUE), the other columns not NULL (MATCH SIMPLE). Deeper: the rows
-- referencing a row of t_oid that an ON DELETE CASCADE deleted one level up
-- ($1, the frontier of pgid._retire_walk), not yet counted ($2). Rows of the
-- partition itself never count.
CREATE OR REPLACE FUNCTION pgid._retire_fk_cond(parent regclass, rel regclass, src regclass, conkey smallint[],
                                                confkey smallint[], t_oid oid, depth integer, key_attnum smallint,
                                                typ text, from_bound text, to_bound text) RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  cond text;
  refcol name;
  src_cols text;
  ref_cols text;
BEGIN
  IF depth = 0 THEN
    cond := 'true';
    FOR i IN 1..array_length(confkey, 1) LOOP
      SELECT a.attname INTO refcol FROM pg_attribute a WHERE a.attrelid = src AND a.attnum = conkey[i];
      IF confkey[i] = key_attnum THEN
        IF from_bound IS NOT NULL THEN
          cond := cond || format(' AND s.%I::%s >= %L::%s', refcol, typ, from_bound, typ);
        END IF;
        cond := cond || format(' AND s.%I::%s < %L::%s', refcol, typ, to_bound, typ);
      ELSE
        cond := cond || format(' AND s.%I IS NOT NULL', refcol);
      END IF;
    END LOOP;
  ELSE
    SELECT string_agg(format('s.%I', a.attname), ', ' ORDER BY k.o) INTO src_cols
    FROM unnest(conkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = src AND a.attnum = k.n;
    SELECT string_agg(format('t.%I', a.attname), ', ' ORDER BY k.o) INTO ref_cols
    FROM unnest(confkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = t_oid AND a.attnum = k.n;
    -- The rows of t deleted one level up: a TID scan, then the pair.
    cond := format('(%s) IN (SELECT %s FROM %s t '
                   'WHERE t.ctid = ANY (ARRAY(SELECT split_part(k, '':'', 2)::tid '
                   'FROM jsonb_array_elements_text($1 -> %L) k)) '
                   'AND t.tableoid::oid::text || '':'' || t.ctid::text '
                   'IN (SELECT jsonb_array_elements_text($1 -> %L)))',
                   src_cols, ref_cols, t_oid::regclass, t_oid::text, t_oid::text);
  END IF;
  IF src = parent THEN
    cond := cond || format(' AND s.tableoid <> %s::oid', rel::oid);
  END IF;
  IF depth > 0 THEN
    cond := cond || format(' AND %L || s.tableoid::oid::text || '':'' || s.ctid::text '
                           'NOT IN (SELECT unnest($2))', src::oid::text || ':');
  END IF;
  RETURN cond;
END
$$;

COMMENT ON FUNCTION pgid._retire_fk_cond(regclass, regclass, regclass, smallint[], smallint[], oid, integer, smallint,
                                         text, text, text) IS
  'Internal to pgid.retire_partition: the condition selecting the rows a foreign key makes act, at a depth of the '
  'walk.';

-- pgid._retire_walk: the foreign keys, breadth first from the rows of
-- partition rel of parent. Depth 0: the foreign keys that reference
-- parent, and the rows of each that reference this partition. Deeper: the
-- rows that reference, through any foreign key, a row an ON DELETE CASCADE
-- deleted one level up, each row counted once. Returns what stops the
-- retirement (blockers: NO ACTION / RESTRICT references, or chains too
-- deep), what the foreign keys at depth 0 do (acting, and acting_sql: the
-- DELETEs of the partition's referenced rows that make them act), and one
-- effects entry per constraint and level: {"table", "constraint",
-- "action", "rows", "retained"}, retained counting the rows of parent that
-- retained_sql (on alias s) says retention keeps.
CREATE OR REPLACE FUNCTION pgid._retire_walk(parent regclass, rel regclass, key_attnum smallint, col name, typ text,
                                             from_bound text, to_bound text, retained_sql text,
                                             OUT blockers text[], OUT blocker_names text[], OUT acting text[],
                                             OUT acting_sql text[], OUT effects jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  max_depth CONSTANT integer := 1000;  -- levels of ON DELETE CASCADE followed
  frontier jsonb;      -- {"<oid of a table>": ["tableoid:ctid", ...]}: rows deleted at this depth
  next_frontier jsonb;
  visited text[] := '{}';  -- "<oid of a table>:tableoid:ctid" of every row deleted so far
  t_oid text;
  depth integer := 0;
  fk record;
  cond text;
  n bigint;
  kept_n bigint;
  new_keys text[];
BEGIN
  blockers := '{}'; blocker_names := '{}'; acting := '{}'; acting_sql := '{}'; effects := '[]';
  frontier := jsonb_build_object(parent::oid::text, '[]'::jsonb);
  WHILE frontier <> '{}'::jsonb LOOP
    IF depth >= max_depth THEN
      blockers := blockers || format('its ON DELETE CASCADE chains are more than %s levels deep', max_depth);
      EXIT;
    END IF;
    next_frontier := '{}';
    FOR t_oid IN SELECT jsonb_object_keys(frontier) ORDER BY 1 LOOP
      FOR fk IN
        SELECT c.conname, c.conrelid::regclass AS src, c.confdeltype, c.conkey, c.confkey,
               EXISTS (SELECT FROM pg_constraint r WHERE r.contype = 'f' AND r.confrelid = c.conrelid
                       AND r.conparentid = 0) AS referenced
        FROM pg_constraint c
        WHERE c.contype = 'f' AND c.confrelid = t_oid::oid AND c.conparentid = 0
        ORDER BY c.conname
      LOOP
        cond := pgid._retire_fk_cond(parent::pg_catalog.regclass, rel::pg_catalog.regclass,
                                     fk.src::pg_catalog.regclass, fk.conkey::pg_catalog.int2[],
                                     fk.confkey::pg_catalog.int2[], t_oid::pg_catalog.oid,
                                     depth::pg_catalog.int4, key_attnum::pg_catalog.int2, typ::pg_catalog.text,
                                     from_bound::pg_catalog.text, to_bound::pg_catalog.text);
        EXECUTE format('SELECT count(*), count(*) FILTER (WHERE %s), '
                       'CASE WHEN %L THEN array_agg(s.tableoid::oid::text || '':'' || s.ctid::text) END '
                       'FROM %s s WHERE %s',
                       CASE WHEN fk.src = parent THEN retained_sql ELSE 'false' END,
                       fk.confdeltype = 'c' AND fk.referenced, fk.src, cond)
          USING frontier, visited INTO n, kept_n, new_keys;
        CONTINUE WHEN n = 0;
        effects := effects || jsonb_build_object('table', fk.src::text, 'constraint', quote_ident(fk.conname),
          'action', CASE fk.confdeltype WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'
                                        WHEN 'n' THEN 'SET NULL' ELSE 'SET DEFAULT' END,
          'rows', n, 'retained', kept_n);
        IF fk.confdeltype IN ('a', 'r') THEN
          blockers := blockers || format('%s rows of %s reference it through %s (ON DELETE %s)',
                                         n, fk.src, quote_ident(fk.conname),
                                         CASE fk.confdeltype WHEN 'a' THEN 'NO ACTION' ELSE 'RESTRICT' END);
          blocker_names := blocker_names || quote_ident(fk.conname);
          CONTINUE;
        END IF;
        IF new_keys IS NOT NULL THEN
          visited := visited || array(SELECT fk.src::oid::text || ':' || k FROM unnest(new_keys) k);
          next_frontier := jsonb_set(next_frontier, ARRAY[fk.src::oid::text],
                                     coalesce(next_frontier -> fk.src::oid::text, '[]') || to_jsonb(new_keys));
        END IF;
        IF depth = 0 THEN
          acting := acting || format('%s rows of %s reference it through %s (ON DELETE %s)',
                                     n, fk.src, quote_ident(fk.conname),
                                     CASE fk.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL'
                                                         ELSE 'SET DEFAULT' END);
          acting_sql := acting_sql || format('DELETE FROM %s WHERE %I IN (SELECT s.%I FROM %s s WHERE %s)',
                                             rel, col,
                                             (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = fk.src
                                              AND a.attnum = fk.conkey[array_position(fk.confkey, key_attnum)]),
                                             fk.src, cond);
        END IF;
      END LOOP;
    END LOOP;
    frontier := next_frontier;
    depth := depth + 1;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid._retire_walk(regclass, regclass, smallint, name, text, text, text, text) IS
  'Internal to pgid.retire_partition: follows the foreign keys from a partition''s rows through every ON DELETE '
  'CASCADE; what blocks retiring it, what acts first, and the rows each constraint deletes, changes or keeps.';

-- pgid._retire_verdict: from pgid._retire_walk's effects, fk_actions (one
-- entry a constraint, in the order first met, counts summed over the
-- levels) and whether the partition is kept: action 'kept' with reason,
-- detail, hint and the blocking constraint(s) when something still
-- references it (blockers) or, unless cascade_into_retained, its foreign
-- keys would delete or change rows of parent retention keeps; else action
-- NULL.
CREATE OR REPLACE FUNCTION pgid._retire_verdict(parent regclass, cut timestamptz, effects jsonb, blockers text[],
                                                blocker_names text[], cascade_into_retained boolean,
                                                OUT fk_actions jsonb, OUT action text, OUT reason text,
                                                OUT detail text, OUT hint text, OUT blocking text)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  retained_total bigint;
  retained_by text[];
  retained_names text[];
BEGIN
  SELECT coalesce(jsonb_agg(jsonb_build_object('table', e.tbl, 'constraint', e.con, 'action', e.act,
                                               'rows', e.rows, 'retained', e.retained) ORDER BY e.first), '[]')
    INTO fk_actions
  FROM (SELECT x.value ->> 'table' AS tbl, x.value ->> 'constraint' AS con, x.value ->> 'action' AS act,
               sum((x.value ->> 'rows')::bigint) AS rows, sum((x.value ->> 'retained')::bigint) AS retained,
               min(x.ordinality) AS first
        FROM jsonb_array_elements(effects) WITH ORDINALITY x
        GROUP BY 1, 2, 3) e;
  SELECT coalesce(sum((x.value ->> 'retained')::bigint), 0),
         coalesce(array_agg(format('%s of them through %s (ON DELETE %s)', x.value ->> 'retained',
                                   x.value ->> 'constraint', x.value ->> 'action') ORDER BY x.ordinality), '{}'),
         coalesce(array_agg(x.value ->> 'constraint' ORDER BY x.ordinality), '{}')
    INTO retained_total, retained_by, retained_names
  FROM jsonb_array_elements(fk_actions) WITH ORDINALITY x
  WHERE (x.value ->> 'retained')::bigint > 0 AND x.value ->> 'action' NOT IN ('NO ACTION', 'RESTRICT');

  IF cardinality(blockers) > 0 THEN
    action := 'kept';
    reason := 'it is still referenced: ' || array_to_string(blockers, '; ');
    detail := array_to_string(blockers, E'\n');
    hint := 'Delete or re-point the referencing rows, or declare the constraint ON DELETE with an action; '
            'the partition is retired on the first run after nothing references it.';
    blocking := array_to_string(blocker_names, ', ');
  ELSIF retained_total > 0 AND NOT cascade_into_retained THEN
    action := 'kept';
    reason := format('its foreign keys would delete or change %s rows of %s younger than the cut %s '
                     '(or in its DEFAULT partition): %s',
                     retained_total, parent, pgid._utc_text(cut::pg_catalog.timestamptz),
                     array_to_string(retained_by, '; '));
    detail := array_to_string(retained_by, E'\n');
    hint := 'Retention keeps the rows younger than the cut. Re-point or delete the references to the '
            'partition, or let the foreign keys act on those rows: retire_partition(..., '
            'cascade_into_retained => true), partition.Plan.CascadeIntoRetained, '
            'pgid partition ensure --cascade-into-retained.';
    blocking := array_to_string(retained_names, ', ');
  END IF;
END
$$;

COMMENT ON FUNCTION pgid._retire_verdict(regclass, timestamptz, jsonb, text[], text[], boolean) IS
  'Internal to pgid.retire_partition: fk_actions summed per constraint, and whether (and why) the partition is kept.';

-- pgid._retire_run: the part of pgid.retire_partition that may fail, in a
-- subtransaction: partition rel of parent ([from_bound, to_bound), key
-- column col of type typ, attribute number key_attnum) is past the safety
-- rail; walk its foreign keys, decide, and retire it as retire says (or
-- only tell, with dry_run). What fails is undone and reported as action
-- 'kept' with PostgreSQL's message, DETAIL, HINT and constraint.
CREATE OR REPLACE FUNCTION pgid._retire_run(parent regclass, rel regclass, retire text, dry_run boolean,
                                            cascade_into_retained boolean, col name, key_attnum smallint, typ text,
                                            from_bound text, to_bound text, cut timestamptz, cut_k text,
                                            OUT action text, OUT reason text, OUT detail text, OUT hint text,
                                            OUT blocking text, OUT fk_actions jsonb)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  default_part regclass;
  retained_sql text;
  w record;          -- what pgid._retire_walk found
  v record;          -- and pgid._retire_verdict made of it
  stmt text;
  err_msg text;
  err_detail text;
  err_hint text;
  err_constraint text;
BEGIN
  SELECT l.partition INTO default_part FROM pgid.list_partitions(parent::pg_catalog.regclass) l WHERE l.is_default;
  -- The rows of parent retention keeps: younger than the cut, or in the
  -- DEFAULT partition (s is the referencing table's alias).
  retained_sql := format('s.%I::%s >= %L::%s', col, typ, cut_k, typ);
  IF default_part IS NOT NULL THEN
    retained_sql := format('(%s OR s.tableoid = %s::oid)', retained_sql, default_part::oid);
  END IF;

  -- The walk runs twice when retiring for good: first without a lock (a
  -- partition kept takes none), then again under the locks retiring takes
  -- (pgid.partition_ddl_lock), so that nothing changed in between.
  BEGIN
    FOR pass IN 1..CASE WHEN dry_run OR retire = 'prepare' THEN 1 ELSE 2 END LOOP
      IF pass = 2 THEN
        PERFORM pgid.partition_ddl_lock(parent::pg_catalog.regclass, rel::pg_catalog.regclass);
      END IF;
      SELECT * INTO w FROM pgid._retire_walk(parent::pg_catalog.regclass, rel::pg_catalog.regclass,
                                             key_attnum::pg_catalog.int2, col::pg_catalog.name,
                                             typ::pg_catalog.text, from_bound::pg_catalog.text,
                                             to_bound::pg_catalog.text, retained_sql::pg_catalog.text);
      SELECT * INTO v FROM pgid._retire_verdict(parent::pg_catalog.regclass, cut::pg_catalog.timestamptz,
                                                w.effects::pg_catalog.jsonb, w.blockers::pg_catalog.text[],
                                                w.blocker_names::pg_catalog.text[],
                                                cascade_into_retained::pg_catalog.bool);
      fk_actions := v.fk_actions;
      IF v.action = 'kept' THEN
        action := v.action; reason := v.reason; detail := v.detail; hint := v.hint; blocking := v.blocking;
        IF pass = 1 THEN
          RETURN;
        END IF;
        RAISE EXCEPTION USING ERRCODE = 'PGI07', MESSAGE = reason, DETAIL = coalesce(detail, ''),
                              HINT = coalesce(hint, ''), CONSTRAINT = coalesce(blocking, '');
      END IF;
    END LOOP;
    IF NOT dry_run THEN
      FOREACH stmt IN ARRAY w.acting_sql LOOP
        EXECUTE stmt;
      END LOOP;
      IF retire <> 'prepare' THEN
        EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, rel);
      END IF;
      IF retire = 'drop' THEN
        EXECUTE format('DROP TABLE %s', rel);
      END IF;
    END IF;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS err_msg = MESSAGE_TEXT, err_detail = PG_EXCEPTION_DETAIL,
                            err_hint = PG_EXCEPTION_HINT, err_constraint = CONSTRAINT_NAME;
    action := 'kept';
    reason := err_msg;
    detail := nullif(err_detail, '');
    hint := nullif(err_hint, '');
    blocking := nullif(err_constraint, '');
    RETURN;
  END;
  action := CASE retire WHEN 'drop' THEN 'dropped' WHEN 'detach' THEN 'detached' ELSE 'prepared' END;
  IF cardinality(w.acting) > 0 THEN
    detail := 'first, as their foreign keys say: ' || array_to_string(w.acting, '; ');
  END IF;
END
$$;

COMMENT ON FUNCTION pgid._retire_run(regclass, regclass, text, boolean, boolean, name, smallint, text, text, text,
                                     timestamptz, text) IS
  'Internal to pgid.retire_partition: walk, decide and retire one partition in a subtransaction, reporting what '
  'fails as kept.';

-- pgid.retire_partition: retire one expired partition of parent, part, as
-- retire says: 'drop' (DETACH, then DROP TABLE), 'detach' (DETACH, the
-- table stays) or 'prepare' (everything but the DETACH, for a caller that
-- then runs DETACH PARTITION ... CONCURRENTLY outside a transaction). With
-- dry_run it only checks, changes nothing, and returns what it would do.
--
-- part is a regclass: a text name is read where the call is written, with
-- the caller's search_path ('events_p20261101' as well as
-- 'app.events_p20261101' or e.partition from pgid.expired_partitions), and
-- an unknown name fails there (42P01). A relation that is not a partition
-- of parent is an error (PGI06) naming both.
--
-- It takes the advisory lock of pgid.ensure_partitions, and returns no row
-- if part is not expired at at - retain; otherwise one row: action
-- 'dropped', 'detached', 'prepared' or 'kept'. 'kept' comes with the
-- reason, PostgreSQL's DETAIL and HINT where there is one, and the blocking
-- constraint(s); it never raises for a partition it cannot retire: what it
-- did is undone (a subtransaction) and reported instead. fk_actions lists,
-- before anything is done (and also with dry_run), what each foreign key
-- does when the partition's rows go: a JSON array of {"table",
-- "constraint", "action", "rows", "retained"}, rows being the rows of table
-- it deletes (CASCADE) or changes (SET NULL, SET DEFAULT) or that stop it
-- (NO ACTION, RESTRICT), retained those of them that are rows of parent
-- retention keeps (younger than the cut, or in its DEFAULT partition).
--
-- In order: the safety rail (the partition's largest key, an index probe,
-- must be older than the cut); the foreign keys, followed from the
-- partition's rows through every ON DELETE CASCADE to the rows that
-- reference those (other tables, parent itself, chains back into parent):
-- a row referencing a row to be deleted through NO ACTION or RESTRICT keeps
-- the partition; so does, unless cascade_into_retained, any row of parent
-- retention keeps that would be deleted or changed; otherwise the
-- referenced rows of the partition are deleted first, so the foreign keys
-- act as a DELETE makes them; DETACH PARTITION; DROP TABLE. Never DROP ...
-- CASCADE. The walk follows ON DELETE actions only: the ON UPDATE actions
-- of columns a SET NULL / SET DEFAULT changes are not followed. It runs
-- once without a lock, and, to retire for good ('drop', 'detach'), again
-- under the locks of pgid.partition_ddl_lock before anything is deleted.
--
-- The steps: pgid._retire_run, in a subtransaction, follows the foreign
-- keys (pgid._retire_walk, with pgid._retire_fk_cond), decides from what it
-- found (pgid._retire_verdict), then deletes, detaches and drops.
DROP FUNCTION IF EXISTS pgid.retire_partition(regclass, text, interval, text, timestamptz, boolean);
CREATE OR REPLACE FUNCTION pgid.retire_partition(parent regclass, part regclass, retain interval,
                                                 retire text DEFAULT 'drop', at timestamptz DEFAULT now(),
                                                 dry_run boolean DEFAULT false,
                                                 cascade_into_retained boolean DEFAULT false)
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz,
               reason text, detail text, hint text, blocking text, fk_actions jsonb)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  lock_class CONSTANT integer := 1885825380; -- 'pgid': the lock pgid.ensure_partitions takes
  kind text;
  typ text;
  col name;
  key_attnum smallint;
  rel regclass := part;
  b record;          -- the partition, from pgid.list_partitions
  cut timestamptz;
  cut_k text;
  late boolean;
  r record;          -- what pgid._retire_run did
BEGIN
  IF parent IS NULL OR part IS NULL OR retain IS NULL OR retire IS NULL OR at IS NULL OR dry_run IS NULL
     OR cascade_into_retained IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = 'pgid: retire_partition needs parent, part, retain, retire, at, dry_run and cascade_into_retained';
  END IF;
  IF retire NOT IN ('drop', 'detach', 'prepare') THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retire %L is not drop, detach or prepare', retire);
  END IF;
  kind := pgid.partition_key_kind(parent::pg_catalog.regclass);
  PERFORM pgid.partition_span('retention'::pg_catalog.text, retain::pg_catalog.interval);
  PERFORM pg_advisory_xact_lock(lock_class, pgid.partition_lock_key(parent::pg_catalog.regclass));
  IF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = rel) THEN
    RAISE EXCEPTION USING ERRCODE = 'undefined_table',
      MESSAGE = format('pgid: relation with OID %s does not exist (retire_partition of %s)', rel::oid, parent);
  END IF;
  IF NOT EXISTS (SELECT FROM pg_inherits i WHERE i.inhrelid = rel AND i.inhparent = parent) THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: %s is not a partition of %s', rel, parent),
      HINT = format('SELECT partition FROM pgid.expired_partitions(%L, %L) lists the partitions to retire.',
                    parent::text, retain::text);
  END IF;
  SELECT l.partition, l.lower, l.upper, l.from_bound, l.to_bound INTO b
  FROM pgid.list_partitions(parent::pg_catalog.regclass) l
  WHERE l.partition = rel
    AND l.partition IN (SELECT e.partition FROM pgid.expired_partitions(parent::pg_catalog.regclass,
                                                                        retain::pg_catalog.interval,
                                                                        at::pg_catalog.timestamptz) e);
  IF NOT FOUND THEN
    RETURN;
  END IF;
  partition := rel::text;
  lower := b.lower;
  upper := b.upper;
  typ := CASE kind WHEN 'ulid' THEN 'uuid' ELSE 'bytea' END;
  SELECT a.attname, a.attnum INTO col, key_attnum FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
  WHERE p.partrelid = parent;
  cut := timezone('UTC', timezone('UTC', at) - retain);
  cut_k := pgid._partition_bound(kind::pg_catalog.text, cut::pg_catalog.timestamptz);

  -- The safety rail: no row at or after the cut, whatever the bounds say.
  EXECUTE format('SELECT %1$I::%3$s >= %4$L::%3$s FROM %2$s ORDER BY %1$I DESC LIMIT 1', col, rel, typ, cut_k)
    INTO late;
  IF late THEN
    action := 'kept';
    reason := format('it holds rows made at or after the cut %s', pgid._utc_text(cut::pg_catalog.timestamptz));
    hint := 'Its bounds do not match its rows; check the partition by hand.';
    fk_actions := '[]';
    RETURN NEXT;
    RETURN;
  END IF;

  SELECT * INTO r FROM pgid._retire_run(parent::pg_catalog.regclass, rel::pg_catalog.regclass,
                                        retire::pg_catalog.text, dry_run::pg_catalog.bool,
                                        cascade_into_retained::pg_catalog.bool, col::pg_catalog.name,
                                        key_attnum::pg_catalog.int2, typ::pg_catalog.text,
                                        b.from_bound::pg_catalog.text, b.to_bound::pg_catalog.text,
                                        cut::pg_catalog.timestamptz, cut_k::pg_catalog.text);
  action := r.action; reason := r.reason; detail := r.detail; hint := r.hint; blocking := r.blocking;
  fk_actions := r.fk_actions;
  RETURN NEXT;
END
$$;

COMMENT ON FUNCTION pgid.retire_partition(regclass, regclass, interval, text, timestamptz, boolean, boolean) IS
  'Retire one expired partition (drop, detach or prepare; dry_run only checks): safety rail on its largest key, '
  'foreign keys followed through every ON DELETE CASCADE (NO ACTION/RESTRICT references keep it, and so do rows of '
  'the parent younger than the cut its foreign keys would delete or change, unless cascade_into_retained), DETACH, '
  'DROP (never a cascading drop). Reports action kept with reason, detail, hint and blocking constraint instead of '
  'raising, and fk_actions (table, constraint, action, rows, retained) always. part not a partition of parent: PGI06.';

-- pgid._ensure_create: the creation step of pgid.ensure_partitions (which
-- checked the arguments and holds the lock): the partition of width every
-- holding at and ahead more, each made unless one with the same bounds
-- exists. PGI05 for an existing partition with other bounds that overlaps,
-- PGI04 for rows of the DEFAULT partition in a new range; the first
-- partition made takes the locks of pgid.partition_ddl_lock. Past the end
-- of the ID space, one row with action 'end' and a WARNING (PGI09).
CREATE OR REPLACE FUNCTION pgid._ensure_create(parent regclass, every interval, ahead integer, at timestamptz)
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  key_kind text := pgid.partition_key_kind(parent::pg_catalog.regclass);  -- 'ulid' or 'objectid'
  key_type text := CASE key_kind WHEN 'ulid' THEN 'uuid' ELSE 'bytea' END;
  ids text := CASE key_kind WHEN 'ulid' THEN 'ULIDs' ELSE 'ObjectIds' END;
  -- The last time an ID of key_kind can hold, and as messages write it.
  last_time timestamptz := pgid._id_time(key_kind::pg_catalog.text,
                                         CASE key_kind WHEN 'ulid' THEN 'ffffffff-ffff-0000-0000-000000000000'
                                                       ELSE E'\\xffffffff0000000000000000' END::pg_catalog.text);
  end_text text := CASE key_kind WHEN 'ulid' THEN to_char(timezone('UTC', last_time), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                                 ELSE pgid._utc_text(last_time::pg_catalog.timestamptz) END;
  schema_name name;          -- parent's schema and table, as stored
  table_name name;
  key_column name;           -- the partition key column
  default_part regclass;     -- the DEFAULT partition, or NULL
  part_start timestamptz;    -- the partition being made: [part_start, part_end)
  part_end timestamptz;
  lower_literal text;        -- its bounds as list_partitions prints them (upper NULL: MAXVALUE)
  upper_literal text;
  new_name text;
  parts regclass[];          -- the existing partitions, by lower bound,
  part_from_texts text[];    -- their bounds as list_partitions prints them,
  part_to_texts text[];
  part_from_keys bytea[];    -- and as bytes; NULL for MINVALUE / MAXVALUE
  part_to_keys bytea[];
  ddl_locked boolean := false;
BEGIN
  -- The schema's name as stored: regnamespace's output is already quoted
  -- ("App"), and format('%I') below quotes it.
  SELECT n.nspname, c.relname INTO schema_name, table_name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
  SELECT a.attname INTO key_column FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
  WHERE p.partrelid = parent;
  SELECT coalesce(array_agg(l.partition ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.from_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.to_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         (array_agg(l.partition) FILTER (WHERE l.is_default))[1]
    INTO parts, part_from_texts, part_to_texts, default_part
  FROM pgid.list_partitions(parent::pg_catalog.regclass) l;
  part_from_keys := array(SELECT pgid._partition_key(key_kind::pg_catalog.text, f::pg_catalog.text)
                          FROM unnest(part_from_texts) WITH ORDINALITY u(f, o)
                          ORDER BY o);
  part_to_keys := array(SELECT pgid._partition_key(key_kind::pg_catalog.text, f::pg_catalog.text)
                        FROM unnest(part_to_texts) WITH ORDINALITY u(f, o)
                        ORDER BY o);

  part_start := (pgid.partition_range(every::pg_catalog.interval, at::pg_catalog.timestamptz)).lower;
  FOR i IN 0..ahead LOOP
    IF part_start > last_time THEN
      -- Past the end of the ID space: this partition and the rest cannot
      -- exist (the one before, if any, runs to MAXVALUE).
      RAISE WARNING USING ERRCODE = 'PGI09',
        MESSAGE = format('pgid: %s end at %s: the %s partition(s) of %s asked for from %s on cannot exist',
                         ids, end_text, ahead - i + 1, parent, pgid._utc_text(part_start::pg_catalog.timestamptz)),
        HINT = CASE key_kind WHEN 'ulid' THEN 'ULIDs hold 48-bit Unix milliseconds'
                             ELSE 'ObjectIds hold 32-bit Unix seconds' END
               || '; the partition holding the last time runs to MAXVALUE.';
      RETURN QUERY SELECT 'end', NULL::text, last_time, NULL::timestamptz;
      EXIT;
    END IF;
    part_end := (pgid.partition_range(every::pg_catalog.interval, part_start::pg_catalog.timestamptz)).upper;
    lower_literal := pgid._partition_bound(key_kind::pg_catalog.text, part_start::pg_catalog.timestamptz);
    upper_literal := CASE WHEN part_end <= last_time THEN pgid._partition_bound(key_kind::pg_catalog.text,
                                                                                part_end::pg_catalog.timestamptz) END;
    -- Made unless a partition with these bounds exists (PGI05 if one overlaps).
    IF NOT pgid._ensure_overlap(parent::pg_catalog.regclass, key_kind::pg_catalog.text,
                                parts::pg_catalog.regclass[], part_from_texts::pg_catalog.text[],
                                part_to_texts::pg_catalog.text[], part_from_keys::pg_catalog.bytea[],
                                part_to_keys::pg_catalog.bytea[], lower_literal::pg_catalog.text,
                                upper_literal::pg_catalog.text, part_start::pg_catalog.timestamptz,
                                part_end::pg_catalog.timestamptz) THEN
      new_name := pgid.partition_name(table_name::pg_catalog.text, every::pg_catalog.interval,
                                      part_start::pg_catalog.timestamptz);
      PERFORM pgid._ensure_default_free(parent::pg_catalog.regclass, default_part::pg_catalog.regclass,
                                        key_column::pg_catalog.name, key_type::pg_catalog.text,
                                        lower_literal::pg_catalog.text, upper_literal::pg_catalog.text,
                                        part_start::pg_catalog.timestamptz, part_end::pg_catalog.timestamptz,
                                        new_name::pg_catalog.text);
      IF NOT ddl_locked THEN
        PERFORM pgid.partition_ddl_lock(parent::pg_catalog.regclass, NULL::pg_catalog.regclass);
        ddl_locked := true;
      END IF;
      EXECUTE format('create table %I.%I partition of %s for values from (%L) to (%s)',
                     schema_name, new_name, parent, lower_literal, coalesce(quote_literal(upper_literal), 'MAXVALUE'));
      RETURN QUERY SELECT 'created', format('%I.%I', schema_name, new_name), part_start,
                          CASE WHEN upper_literal IS NOT NULL THEN part_end END;
    END IF;
    IF upper_literal IS NULL AND i < ahead THEN
      RAISE WARNING USING ERRCODE = 'PGI09',
        MESSAGE = format('pgid: %s end at %s: partition %I.%I of %s runs to MAXVALUE and is the last; the %s '
                         'partition(s) asked for after it cannot exist', ids, end_text, schema_name,
                         pgid.partition_name(table_name::pg_catalog.text, every::pg_catalog.interval,
                                             part_start::pg_catalog.timestamptz), parent, ahead - i),
        HINT = CASE key_kind WHEN 'ulid' THEN 'ULIDs hold 48-bit Unix milliseconds.'
                             ELSE 'ObjectIds hold 32-bit Unix seconds.' END;
      RETURN QUERY SELECT 'end', NULL::text, last_time, NULL::timestamptz;
      EXIT;
    END IF;
    part_start := part_end;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid._ensure_create(regclass, interval, integer, timestamptz) IS
  'Internal to pgid.ensure_partitions: makes the partitions of width every for the period holding at and ahead more.';

-- pgid._ensure_overlap: whether one of the partitions parts (bounds as
-- pgid.list_partitions gives them, and as bytes; NULL for MINVALUE /
-- MAXVALUE) covers the range [lower_literal, upper_literal) (upper NULL:
-- MAXVALUE) of new partition [part_start, part_end) of parent with the same
-- bounds; PGI05 if one with other bounds overlaps it.
CREATE OR REPLACE FUNCTION pgid._ensure_overlap(parent regclass, kind text, parts regclass[], from_texts text[],
                                                to_texts text[], from_keys bytea[], to_keys bytea[],
                                                lower_literal text, upper_literal text, part_start timestamptz,
                                                part_end timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  lower_key bytea := pgid._partition_key(kind::pg_catalog.text, lower_literal::pg_catalog.text);
  upper_key bytea := pgid._partition_key(kind::pg_catalog.text, upper_literal::pg_catalog.text);
  overlap integer;           -- index of a partition overlapping the range
BEGIN
  FOR j IN 1..coalesce(array_length(parts, 1), 0) LOOP
    IF (from_keys[j] IS NULL OR upper_key IS NULL OR from_keys[j] < upper_key)
       AND (to_keys[j] IS NULL OR to_keys[j] > lower_key) THEN
      overlap := j;
      EXIT WHEN from_keys[j] = lower_key AND to_keys[j] IS NOT DISTINCT FROM upper_key;
    END IF;
  END LOOP;
  IF overlap IS NULL THEN
    RETURN false;
  END IF;
  IF from_texts[overlap] IS DISTINCT FROM lower_literal OR to_texts[overlap] IS DISTINCT FROM upper_literal THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI05',
      MESSAGE = format('pgid: new partition [%s, %s) of %s overlaps partition %s, FROM (%s) TO (%s)',
                       pgid._utc_text(part_start::pg_catalog.timestamptz),
                       pgid._utc_text(part_end::pg_catalog.timestamptz), parent, parts[overlap],
                       coalesce(from_texts[overlap], 'MINVALUE'), coalesce(to_texts[overlap], 'MAXVALUE')),
      HINT = 'Was the width changed? Keep the old width until the new one lines up, '
             'or create the transition partition by hand.';
  END IF;
  RETURN true;
END
$$;

COMMENT ON FUNCTION pgid._ensure_overlap(regclass, text, regclass[], text[], text[], bytea[], bytea[], text, text,
                                         timestamptz, timestamptz) IS
  'Internal to pgid.ensure_partitions: whether a partition with a new partition''s bounds exists; SQLSTATE PGI05 if '
  'one with other bounds overlaps it.';

-- pgid._ensure_default_free: raise PGI04 if the DEFAULT partition of parent
-- (default_part, NULL if none) holds rows in the range [lower_literal,
-- upper_literal) of new partition new_name ([part_start, part_end)).
CREATE OR REPLACE FUNCTION pgid._ensure_default_free(parent regclass, default_part regclass, key_column name,
                                                     key_type text, lower_literal text, upper_literal text,
                                                     part_start timestamptz, part_end timestamptz, new_name text)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  has_rows boolean;
BEGIN
  IF default_part IS NULL THEN
    RETURN;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT FROM %s WHERE %I >= %L::%s AND (%L IS NULL OR %I < %L::%s))',
                 default_part, key_column, lower_literal, key_type, upper_literal, key_column, upper_literal, key_type)
    INTO has_rows;
  IF has_rows THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI04',
      MESSAGE = format('pgid: default partition %s of %s holds rows in [%s, %s), '
                       'the range of new partition %s; nothing was changed',
                       default_part, parent, pgid._utc_text(part_start::pg_catalog.timestamptz),
                       pgid._utc_text(part_end::pg_catalog.timestamptz), new_name),
      HINT = 'Move them in one transaction: detach the default partition, create the partition, '
             'INSERT the rows back through the parent, reattach '
             '(docs/PARTITIONING.md, "Rows in the DEFAULT partition").';
  END IF;
END
$$;

COMMENT ON FUNCTION pgid._ensure_default_free(regclass, regclass, name, text, text, text, timestamptz, timestamptz,
                                              text) IS
  'Internal to pgid.ensure_partitions: SQLSTATE PGI04 if the DEFAULT partition holds rows in a new partition''s range.';

-- pgid._ensure_retire: the retirement step of pgid.ensure_partitions: each
-- partition past retain, retired as retire says with
-- pgid.retire_partition, which never raises for a partition it cannot
-- retire (it reports it, and its own subtransaction undid what it started),
-- so the partitions made before stay. A partition kept comes with a WARNING
-- (PGI07) giving the reason.
CREATE OR REPLACE FUNCTION pgid._ensure_retire(parent regclass, retain interval, retire text, at timestamptz)
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  expired record;            -- a partition past retention
  retired record;            -- what pgid.retire_partition did with it
BEGIN
  FOR expired IN SELECT e.partition FROM pgid.expired_partitions(parent::pg_catalog.regclass,
                                                                 retain::pg_catalog.interval,
                                                                 at::pg_catalog.timestamptz) e LOOP
    FOR retired IN SELECT * FROM pgid.retire_partition(parent::pg_catalog.regclass,
                                                       expired.partition::pg_catalog.regclass,
                                                       retain::pg_catalog.interval, retire::pg_catalog.text,
                                                       at::pg_catalog.timestamptz, false::pg_catalog.bool,
                                                       false::pg_catalog.bool) LOOP
      IF retired.action = 'kept' THEN
        RAISE WARNING USING ERRCODE = 'PGI07',
          MESSAGE = format('pgid: expired partition %s of %s was kept: %s', retired.partition, parent, retired.reason),
          DETAIL = coalesce(retired.detail, ''), HINT = coalesce(retired.hint, '');
      END IF;
      RETURN QUERY SELECT retired.action, retired.partition, retired.lower, retired.upper;
    END LOOP;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid._ensure_retire(regclass, interval, text, timestamptz) IS
  'Internal to pgid.ensure_partitions: retires the expired partitions, WARNING PGI07 for each one kept.';

-- pgid._ensure_default: the last step of pgid.ensure_partitions: rows in
-- the DEFAULT partition mean a range had no partition when they came;
-- report them on every run, action 'default' (lower and upper the times of
-- the oldest and newest) and a WARNING (PGI08).
CREATE OR REPLACE FUNCTION pgid._ensure_default(parent regclass)
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  d record;                  -- pgid.default_partition_rows' report
BEGIN
  FOR d IN SELECT * FROM pgid.default_partition_rows(parent::pg_catalog.regclass) r WHERE r.row_count > 0 LOOP
    RAISE WARNING USING ERRCODE = 'PGI08',
      MESSAGE = format('pgid: default partition %s of %s holds %s rows made from %s to %s',
                       d.partition, parent, d.row_count, pgid._utc_text(d.oldest::pg_catalog.timestamptz),
                       pgid._utc_text(d.newest::pg_catalog.timestamptz)),
      HINT = 'Partitions were missing when they were inserted; retention never touches them. '
             'Move them out as docs/PARTITIONING.md ("Rows in the DEFAULT partition") shows.';
    RETURN QUERY SELECT 'default', d.partition::text, d.oldest, d.newest;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid._ensure_default(regclass) IS
  'Internal to pgid.ensure_partitions: reports rows in the DEFAULT partition, WARNING PGI08.';

-- pgid.ensure_partitions: keep the partitions of parent (BY RANGE on a pgid
-- ID) of width every made for the period holding at and ahead more
-- (pgid._ensure_create: action 'created'), then, with retain, retire those
-- older than at - retain as retire says ('drop', 'detach' or 'none') with
-- pgid.retire_partition (pgid._ensure_retire: action 'dropped', 'detached',
-- or 'kept' for an expired partition that could not be retired, WARNING
-- PGI07 with the reason), then report rows in the DEFAULT partition
-- (pgid._ensure_default: action 'default', lower and upper the times of its
-- oldest and newest IDs, WARNING PGI08 with the count). Serialised per
-- parent by the advisory lock; the arguments are checked first (PGI06).
--
-- The ends of the ID space: ObjectIds hold 32-bit Unix seconds (the last is
-- 2106-02-07 06:28:15 UTC), ULIDs 48-bit Unix milliseconds (the last is
-- 10889-08-02 05:31:50.655 UTC). The partition holding the last time runs
-- TO (MAXVALUE), so the last IDs have a place (its upper is NULL); no
-- partition can start after it. When the partitions asked for go past it,
-- the function makes those that can exist, then returns one row with
-- action 'end' (partition and upper NULL, lower the last time) and a
-- WARNING (SQLSTATE PGI09) saying so.
CREATE OR REPLACE FUNCTION pgid.ensure_partitions(parent regclass, every interval, ahead integer DEFAULT 2,
                                                  retain interval DEFAULT NULL, retire text DEFAULT 'drop',
                                                  at timestamptz DEFAULT now())
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  -- First key of the advisory lock that serialises runs per parent: 'pgid'
  -- in ASCII; the second is pgid.partition_lock_key(parent).
  lock_class CONSTANT integer := 1885825380;
BEGIN
  IF parent IS NULL OR every IS NULL OR ahead IS NULL OR retire IS NULL OR at IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = 'pgid: ensure_partitions needs parent, every, ahead, retire and at (only retain may be NULL)';
  END IF;
  PERFORM pgid.partition_key_kind(parent::pg_catalog.regclass);
  PERFORM pgid.partition_span('width'::pg_catalog.text, every::pg_catalog.interval);
  PERFORM pgid.partition_width(every::pg_catalog.interval);
  IF ahead < 0 OR ahead > 10000 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: ahead %s is not in [0, 10000]', ahead);
  END IF;
  IF retire NOT IN ('drop', 'detach', 'none') THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retire %L is not drop, detach or none', retire);
  END IF;
  IF retain IS NOT NULL THEN
    PERFORM pgid.partition_span('retention'::pg_catalog.text, retain::pg_catalog.interval);
  END IF;

  PERFORM pg_advisory_xact_lock(lock_class, pgid.partition_lock_key(parent::pg_catalog.regclass));
  RETURN QUERY SELECT * FROM pgid._ensure_create(parent::pg_catalog.regclass, every::pg_catalog.interval,
                                                 ahead::pg_catalog.int4, at::pg_catalog.timestamptz);
  IF retain IS NOT NULL AND retire <> 'none' THEN
    RETURN QUERY SELECT * FROM pgid._ensure_retire(parent::pg_catalog.regclass, retain::pg_catalog.interval,
                                                   retire::pg_catalog.text, at::pg_catalog.timestamptz);
  END IF;
  RETURN QUERY SELECT * FROM pgid._ensure_default(parent::pg_catalog.regclass);
END
$$;

COMMENT ON FUNCTION pgid.ensure_partitions(regclass, interval, integer, interval, text, timestamptz) IS
  'Create the partitions of parent (BY RANGE on a pgid ID) of width every for the period holding at and ahead more; '
  'then retire (drop, detach or none) those older than at - retain with pgid.retire_partition, reporting those it '
  'keeps (action kept, WARNING PGI07) and rows in the DEFAULT partition (action default, WARNING PGI08). Serialised '
  'per parent by an advisory lock.';

-- Besides its search_path, each plpgsql function of this file pins the
-- settings that change how its text, times and bytes are read and
-- written, so that the caller's session cannot change its results
-- (0.4.0; the CHANGELOG's history). They are set here once for all of
-- them, as a SET clause on each would: the functions step runs in one
-- transaction, so no session sees a function without them. The
-- SQL-language helpers have none: a SET clause would stop PostgreSQL from
-- inlining them. The list of names is every plpgsql function this file
-- defines, written by go generate ./migrations.
DO $pin$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'pgid'::pg_catalog.regnamespace
      AND p.proname = ANY (ARRAY[
        -- BEGIN GENERATED partition_plpgsql (go generate ./migrations)
        'partition_width', 'partition_range', 'partition_name', 'partition_key_kind', 'partition_span',
        'list_partitions', 'expired_partitions', 'default_partition_rows', 'partition_ddl_lock',
        '_retire_fk_cond', '_retire_walk', '_retire_verdict', '_retire_run', 'retire_partition',
        '_ensure_create', '_ensure_overlap', '_ensure_default_free', '_ensure_retire', '_ensure_default',
        'ensure_partitions'
        -- END GENERATED partition_plpgsql
      ])
  LOOP
    EXECUTE pg_catalog.format('ALTER FUNCTION %s SET standard_conforming_strings = on '
      'SET DateStyle = ''ISO, YMD'' SET IntervalStyle = postgres SET TimeZone = ''UTC'' '
      'SET bytea_output = hex', f);
  END LOOP;
END
$pin$;

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.ensure_partitions(regclass, interval, integer, interval, text, timestamptz);
DROP FUNCTION IF EXISTS pgid._ensure_default(regclass);
DROP FUNCTION IF EXISTS pgid._ensure_retire(regclass, interval, text, timestamptz);
DROP FUNCTION IF EXISTS pgid._ensure_default_free(regclass, regclass, name, text, text, text, timestamptz, timestamptz,
                                                  text);
DROP FUNCTION IF EXISTS pgid._ensure_overlap(regclass, text, regclass[], text[], text[], bytea[], bytea[], text, text,
                                             timestamptz, timestamptz);
DROP FUNCTION IF EXISTS pgid._ensure_create(regclass, interval, integer, timestamptz);
DROP FUNCTION IF EXISTS pgid.retire_partition(regclass, regclass, interval, text, timestamptz, boolean, boolean);
DROP FUNCTION IF EXISTS pgid._retire_run(regclass, regclass, text, boolean, boolean, name, smallint, text, text, text,
                                         timestamptz, text);
DROP FUNCTION IF EXISTS pgid._retire_verdict(regclass, timestamptz, jsonb, text[], text[], boolean);
DROP FUNCTION IF EXISTS pgid._retire_walk(regclass, regclass, smallint, name, text, text, text, text);
DROP FUNCTION IF EXISTS pgid._retire_fk_cond(regclass, regclass, regclass, smallint[], smallint[], oid, integer,
                                             smallint, text, text, text);
DROP FUNCTION IF EXISTS pgid.partition_ddl_lock(regclass, regclass);
DROP FUNCTION IF EXISTS pgid.default_partition_rows(regclass);
DROP FUNCTION IF EXISTS pgid.expired_partitions(regclass, interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.list_partitions(regclass);
DROP FUNCTION IF EXISTS pgid._id_time(text, text);
DROP FUNCTION IF EXISTS pgid._partition_key(text, text);
DROP FUNCTION IF EXISTS pgid._partition_bound(text, timestamptz);
DROP FUNCTION IF EXISTS pgid._utc_text(timestamptz);
DROP FUNCTION IF EXISTS pgid.partition_key_kind(regclass);
DROP FUNCTION IF EXISTS pgid.partition_span(text, interval);
DROP FUNCTION IF EXISTS pgid.partition_lock_key(regclass);
DROP FUNCTION IF EXISTS pgid.partition_name(text, interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.partition_range(interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.partition_width(interval);
