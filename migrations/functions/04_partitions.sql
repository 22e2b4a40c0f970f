-- Time partitioning by ID: a table PARTITION BY RANGE (id) on a pgid.ulid /
-- pgid.objectid (or plain uuid / bytea) column, with partitions made, kept
-- ahead and retired by pgid.ensure_partitions. No extension, no background
-- worker: call it from pg_cron, from Go (package
-- github.com/pgid/pgid/partition) or by hand.
--
-- Partition [t1, t2) is FOR VALUES FROM (min_at(t1)) TO (min_at(t2)), with
-- pgid.ulid_min_at / pgid.objectid_min_at, so it holds exactly the IDs made
-- in [t1, t2) (ObjectIds to the second) and an ID made at t2 lands in the
-- next partition. Widths are whole months, or a fixed number of seconds; all
-- arithmetic is in UTC (no DST). Fixed widths are aligned to the Unix epoch,
-- widths of whole weeks to Mondays, whole months to 1970-01.
--
-- Every function runs with search_path = pg_catalog, pg_temp, quotes
-- identifiers with format('%I') and literals with format('%L'), and is
-- SECURITY INVOKER: the caller needs what the DDL needs (own the parent,
-- CREATE on its schema) and nothing more.
--
-- Errors raise their own SQLSTATEs (class PG, "pgid"):
--   PGI01  the parent is not a partitioned table
--   PGI02  the parent is not partitioned BY RANGE on one column
--   PGI03  the key column is not uuid / bytea (or a domain over them), or
--          not the key kind asked for
--   PGI04  the DEFAULT partition holds rows in a range about to be created
--   PGI05  a range about to be created overlaps an existing partition with
--          other bounds
--   PGI06  an invalid argument (width, ahead, retain, retire)
--
-- Concurrency: pgid.ensure_partitions takes the transaction-level advisory
-- lock pg_advisory_xact_lock(1885825380, pgid.partition_lock_key(parent)):
-- the first key is 'pgid' in ASCII, the second the parent's OID as int4
-- (pg_locks shows it as classid 1885825380, objid = the parent's OID,
-- objsubid 2). Concurrent calls for one parent run one after the other and
-- make each partition once.
--
-- Idempotent: CREATE OR REPLACE throughout. Names in the one SQL-standard
-- body (partition_lock_key) are bound when it is created, under the
-- search_path set here.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.partition_width: months and seconds of a partition width, or error
-- PGI06. A width is whole months (1 month, 3 months, 1 year) or a positive
-- whole number of seconds (1 day = 86400, 1 week, 6 hours); never both.
CREATE OR REPLACE FUNCTION pgid.partition_width(every interval, OUT months integer, OUT seconds bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
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
  w := pgid.partition_width(every);
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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
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
  w := pgid.partition_width(every);
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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
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

-- pgid.list_partitions: the partitions of parent in key order, the DEFAULT
-- partition last: the bounds as written in the catalog (NULL for
-- MINVALUE/MAXVALUE and for DEFAULT), the times they stand for, and
-- pg_class.reltuples as the row estimate (NULL before the first VACUUM or
-- ANALYZE).
CREATE OR REPLACE FUNCTION pgid.list_partitions(parent regclass)
RETURNS TABLE (partition regclass, is_default boolean, lower timestamptz, upper timestamptz,
               from_bound text, to_bound text, row_estimate bigint)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent);
  r record;
  m text[];
BEGIN
  FOR r IN
    SELECT c.oid::regclass AS rel, pg_get_expr(c.relpartbound, c.oid) AS b, c.reltuples
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent
    ORDER BY pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT',
             substring(pg_get_expr(c.relpartbound, c.oid) FROM '^FOR VALUES FROM \(''([^'']*)''') NULLS FIRST
  LOOP
    partition := r.rel;
    row_estimate := CASE WHEN r.reltuples < 0 THEN NULL ELSE r.reltuples::bigint END;
    is_default := r.b = 'DEFAULT';
    from_bound := NULL; to_bound := NULL; lower := NULL; upper := NULL;
    IF NOT is_default THEN
      m := regexp_match(r.b, '^FOR VALUES FROM \((?:''(.*)''(?:::\w+)?|MINVALUE)\) '
                             'TO \((?:''(.*)''(?:::\w+)?|MAXVALUE)\)$');
      from_bound := m[1];
      to_bound := m[2];
      IF kind = 'ulid' THEN
        lower := pgid.ulid_time(from_bound::uuid);
        upper := pgid.ulid_time(to_bound::uuid);
      ELSE
        lower := pgid.objectid_time(from_bound::bytea);
        upper := pgid.objectid_time(to_bound::bytea);
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;
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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent);
  cut timestamptz;
BEGIN
  IF retain <= interval '0' THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retention %s is not positive', retain);
  END IF;
  cut := timezone('UTC', timezone('UTC', at) - retain);
  IF kind = 'ulid' THEN
    RETURN QUERY SELECT l.partition, l.lower, l.upper FROM pgid.list_partitions(parent) l
      WHERE l.to_bound IS NOT NULL AND l.to_bound::uuid <= pgid.ulid_min_at(cut) ORDER BY l.to_bound::uuid;
  ELSE
    RETURN QUERY SELECT l.partition, l.lower, l.upper FROM pgid.list_partitions(parent) l
      WHERE l.to_bound IS NOT NULL AND decode(substr(l.to_bound, 3), 'hex') <= pgid.objectid_min_at(cut)
      ORDER BY decode(substr(l.to_bound, 3), 'hex');
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.expired_partitions(regclass, interval, timestamptz) IS
  'Partitions of parent whose whole range is older than at - retain (upper bound <= min_at(at - retain)), oldest '
  'first.';

-- pgid.ensure_partitions is defined in 06_partition_safety.sql.

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.ensure_partitions(regclass, interval, integer, interval, text, timestamptz);
DROP FUNCTION IF EXISTS pgid.expired_partitions(regclass, interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.list_partitions(regclass);
DROP FUNCTION IF EXISTS pgid.partition_key_kind(regclass);
DROP FUNCTION IF EXISTS pgid.partition_lock_key(regclass);
DROP FUNCTION IF EXISTS pgid.partition_name(text, interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.partition_range(interval, timestamptz);
DROP FUNCTION IF EXISTS pgid.partition_width(interval);
