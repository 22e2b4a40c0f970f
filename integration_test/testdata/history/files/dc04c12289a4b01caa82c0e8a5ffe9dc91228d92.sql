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
  w record;
  u timestamp := timezone('UTC', t);
  k bigint;
  e numeric;
  off bigint := 0;
BEGIN
  w := pgid.partition_width(every);
  IF w.months > 0 THEN
    k := (extract(year FROM u)::bigint - 1970) * 12 + extract(month FROM u)::bigint - 1;
    k := floor(k::numeric / w.months)::bigint * w.months;
    lower := timezone('UTC', timestamp '1970-01-01' + make_interval(months => k::integer));
    upper := timezone('UTC', timestamp '1970-01-01' + make_interval(months => (k + w.months)::integer));
  ELSE
    IF w.seconds % 604800 = 0 THEN
      off := 345600; -- 1970-01-05, the first Monday after the epoch
    END IF;
    e := extract(epoch FROM u);
    k := floor((e - off) / w.seconds)::bigint * w.seconds + off;
    lower := timestamptz 'epoch' + k * interval '1 second';
    upper := lower + w.seconds * interval '1 second';
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.partition_range(interval, timestamptz) IS
  'The partition [lower, upper) of width every holding time t, in UTC: whole months aligned to 1970-01, whole weeks to Mondays, other fixed widths to the Unix epoch.';

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
  w record;
  u timestamp := timezone('UTC', lower);
  suffix text;
  head text := parent;
BEGIN
  w := pgid.partition_width(every);
  suffix := CASE
    WHEN w.months > 0 THEN to_char(u, 'YYYYMM')
    WHEN w.seconds % 604800 = 0 THEN to_char(u, 'IYYY"w"IW')
    WHEN w.seconds % 86400 = 0 THEN to_char(u, 'YYYYMMDD')
    WHEN w.seconds % 60 = 0 THEN to_char(u, 'YYYYMMDD"t"HH24MI')
    ELSE to_char(u, 'YYYYMMDD"t"HH24MISS')
  END;
  IF octet_length(parent) + 2 + octet_length(suffix) <= 63 THEN
    RETURN parent || '_p' || suffix;
  END IF;
  WHILE octet_length(head) > 63 - 12 - octet_length(suffix) LOOP
    head := left(head, -1);
  END LOOP;
  RETURN head || '_' || left(md5(parent), 8) || '_p' || suffix;
END
$$;

COMMENT ON FUNCTION pgid.partition_name(text, interval, timestamptz) IS
  'Name of the partition of parent starting at lower: parent_pYYYYMM, parent_pIYYYwIW, parent_pYYYYMMDD or parent_pYYYYMMDDtHHMI[SS]; over 63 bytes the parent name is cut and md5(parent)''s first 8 hex digits added.';

-- pgid.partition_lock_key: the second key of the advisory lock
-- pg_advisory_xact_lock(1885825380, key) that serialises
-- pgid.ensure_partitions per parent: the parent's OID as int4.
CREATE OR REPLACE FUNCTION pgid.partition_lock_key(parent regclass) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN ('x' || pg_catalog.lpad(pg_catalog.to_hex(parent::oid::bigint), 8, '0'))::bit(32)::integer;

COMMENT ON FUNCTION pgid.partition_lock_key(regclass) IS
  'Second key of the advisory lock (1885825380 = ''pgid'', key) that serialises pgid.ensure_partitions per parent: the parent''s OID as int4.';

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
  'ulid or objectid: the kind of ID parent is partitioned BY RANGE on; SQLSTATE PGI01 (not partitioned), PGI02 (not RANGE on one column), PGI03 (not uuid/bytea).';

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
      m := regexp_match(r.b, '^FOR VALUES FROM \((?:''(.*)''(?:::\w+)?|MINVALUE)\) TO \((?:''(.*)''(?:::\w+)?|MAXVALUE)\)$');
      from_bound := m[1];
      to_bound := m[2];
      IF kind = 'ulid' THEN
        lower := pgid.ulid_time(from_bound::uuid);
        upper := pgid.ulid_time(to_bound::uuid);
      ELSE
        lower := to_timestamp(('x' || substr(from_bound, 3, 8))::bit(32)::bigint);
        upper := to_timestamp(('x' || substr(to_bound, 3, 8))::bit(32)::bigint);
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid.list_partitions(regclass) IS
  'Partitions of a table partitioned BY RANGE on an ID: bounds as in the catalog, the times they stand for, reltuples as row estimate (NULL if never analyzed).';

-- pgid.expired_partitions: the partitions of parent whose whole range is
-- older than at - retain: upper bound <= min_at(at - retain). A partition
-- that may hold a younger row is not among them.
CREATE OR REPLACE FUNCTION pgid.expired_partitions(parent regclass, retain interval,
                                                   at timestamptz DEFAULT now())
RETURNS TABLE (partition regclass, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
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
  'Partitions of parent whose whole range is older than at - retain (upper bound <= min_at(at - retain)), oldest first.';

-- pgid.ensure_partitions: make the partitions of width every for the period
-- holding at and the ahead periods after it, then retire (retire = 'drop':
-- DROP TABLE; 'detach': plain DETACH PARTITION, the table stays; 'none')
-- every partition pgid.expired_partitions(parent, retain, at) names.
-- Returns one row per partition created, dropped or detached.
--
-- It runs in the caller's transaction: creating a partition, DROP
-- TABLE and plain DETACH take ACCESS EXCLUSIVE on the parent until it ends,
-- so keep that transaction short. DETACH PARTITION .. CONCURRENTLY cannot
-- run in a function; the Go package issues it outside a transaction (retire
-- 'none' here, then one statement per pgid.expired_partitions row).
--
-- Rows in the DEFAULT partition inside a range about to be created stop it
-- with PGI04, naming the table and the range; nothing is moved.
CREATE OR REPLACE FUNCTION pgid.ensure_partitions(parent regclass, every interval, ahead integer DEFAULT 2,
                                                  retain interval DEFAULT NULL, retire text DEFAULT 'drop',
                                                  at timestamptz DEFAULT now())
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  kind text;
  typ text;
  nsp name;
  rel name;
  col name;
  def regclass;
  lo_t timestamptz;
  hi_t timestamptz;
  lo text;
  hi text;
  name_ text;
  hit record;
  has boolean;
  rels regclass[];
  froms text[];
  tos text[];
  kfrom bytea[];
  kto bytea[];
  lo_k bytea;
  hi_k bytea;
  j integer;
  found_j integer;
BEGIN
  IF parent IS NULL OR every IS NULL OR ahead IS NULL OR retire IS NULL OR at IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = 'pgid: ensure_partitions needs parent, every, ahead, retire and at (only retain may be NULL)';
  END IF;
  kind := pgid.partition_key_kind(parent);
  PERFORM pgid.partition_width(every);
  IF ahead < 0 OR ahead > 10000 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: ahead %s is not in [0, 10000]', ahead);
  END IF;
  IF retire NOT IN ('drop', 'detach', 'none') THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retire %L is not drop, detach or none', retire);
  END IF;
  IF retain <= interval '0' THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: retention %s is not positive', retain);
  END IF;

  PERFORM pg_advisory_xact_lock(1885825380, pgid.partition_lock_key(parent));

  typ := CASE kind WHEN 'ulid' THEN 'uuid' ELSE 'bytea' END;
  SELECT c.relnamespace::regnamespace::name, c.relname INTO nsp, rel FROM pg_class c WHERE c.oid = parent;
  SELECT a.attname INTO col FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
  WHERE p.partrelid = parent;
  -- The existing partitions, read once, their bounds as bytea (uuid and
  -- bytea both compare as memcmp); NULL for MINVALUE / MAXVALUE.
  SELECT coalesce(array_agg(l.partition ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.from_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.to_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         (array_agg(l.partition) FILTER (WHERE l.is_default))[1]
    INTO rels, froms, tos, def
  FROM pgid.list_partitions(parent) l;
  SELECT coalesce(array_agg(CASE kind WHEN 'ulid' THEN decode(replace(f, '-', ''), 'hex') ELSE decode(substr(f, 3), 'hex') END ORDER BY o), '{}')
    INTO kfrom FROM unnest(froms) WITH ORDINALITY AS u(f, o);
  SELECT coalesce(array_agg(CASE kind WHEN 'ulid' THEN decode(replace(f, '-', ''), 'hex') ELSE decode(substr(f, 3), 'hex') END ORDER BY o), '{}')
    INTO kto FROM unnest(tos) WITH ORDINALITY AS u(f, o);

  lo_t := (pgid.partition_range(every, at)).lower;
  FOR i IN 0..ahead LOOP
    hi_t := (pgid.partition_range(every, lo_t)).upper;
    IF kind = 'ulid' THEN
      lo := pgid.ulid_min_at(lo_t)::text;
      hi := pgid.ulid_min_at(hi_t)::text;
      lo_k := decode(replace(lo, '-', ''), 'hex');
      hi_k := decode(replace(hi, '-', ''), 'hex');
    ELSE
      lo_k := pgid.objectid_min_at(lo_t);
      hi_k := pgid.objectid_min_at(hi_t);
      lo := '\x' || encode(lo_k, 'hex');
      hi := '\x' || encode(hi_k, 'hex');
    END IF;

    -- An existing partition with these bounds: done. One with other bounds
    -- that overlap: stop (PGI05).
    found_j := NULL;
    FOR j IN 1..coalesce(array_length(rels, 1), 0) LOOP
      IF (kfrom[j] IS NULL OR kfrom[j] < hi_k) AND (kto[j] IS NULL OR kto[j] > lo_k) THEN
        found_j := j;
        EXIT WHEN kfrom[j] = lo_k AND kto[j] = hi_k;
      END IF;
    END LOOP;
    IF found_j IS NOT NULL THEN
      SELECT rels[found_j] AS partition, froms[found_j] AS from_bound, tos[found_j] AS to_bound INTO hit;
      IF hit.from_bound IS DISTINCT FROM lo OR hit.to_bound IS DISTINCT FROM hi THEN
        RAISE EXCEPTION USING ERRCODE = 'PGI05',
          MESSAGE = format('pgid: new partition [%s, %s) of %s overlaps partition %s, FROM (%s) TO (%s)',
                           to_char(timezone('UTC', lo_t), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                           to_char(timezone('UTC', hi_t), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                           parent, hit.partition, coalesce(hit.from_bound, 'MINVALUE'), coalesce(hit.to_bound, 'MAXVALUE')),
          HINT = 'Was the width changed? Keep the old width until the new one lines up, or create the transition partition by hand.';
      END IF;
    ELSE
      IF def IS NOT NULL THEN
        EXECUTE format('SELECT EXISTS (SELECT FROM %s WHERE %I >= %L::%s AND %I < %L::%s)',
                       def, col, lo, typ, col, hi, typ) INTO has;
        IF has THEN
          RAISE EXCEPTION USING ERRCODE = 'PGI04',
            MESSAGE = format('pgid: default partition %s of %s holds rows in [%s, %s), the range of new partition %s; nothing was changed',
                             def, parent,
                             to_char(timezone('UTC', lo_t), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                             to_char(timezone('UTC', hi_t), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                             pgid.partition_name(rel, every, lo_t)),
            HINT = 'Move them in one transaction: detach the default partition, create the partition, INSERT the rows back through the parent, reattach (docs/PARTITIONING.md, "Rows in the DEFAULT partition").';
        END IF;
      END IF;
      name_ := pgid.partition_name(rel, every, lo_t);
      EXECUTE format('create table %I.%I partition of %s for values from (%L) to (%L)',
                     nsp, name_, parent, lo, hi);
      action := 'created';
      partition := format('%I.%I', nsp, name_);
      lower := lo_t;
      upper := hi_t;
      RETURN NEXT;
    END IF;
    lo_t := hi_t;
  END LOOP;

  IF retain IS NOT NULL AND retire <> 'none' THEN
    FOR hit IN SELECT e.partition, e.lower, e.upper FROM pgid.expired_partitions(parent, retain, at) e LOOP
      partition := hit.partition::text;
      lower := hit.lower;
      upper := hit.upper;
      IF retire = 'drop' THEN
        EXECUTE format('DROP TABLE %s', hit.partition);
        action := 'dropped';
      ELSE
        EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, hit.partition);
        action := 'detached';
      END IF;
      RETURN NEXT;
    END LOOP;
  END IF;
END
$$;

COMMENT ON FUNCTION pgid.ensure_partitions(regclass, interval, integer, interval, text, timestamptz) IS
  'Create the partitions of parent (BY RANGE on a pgid ID) of width every for the period holding at and ahead more; retire (drop, detach or none) those older than at - retain. Serialised per parent by an advisory lock; returns what it did.';

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
