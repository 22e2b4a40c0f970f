-- Partition maintenance that cannot lose data or stop a table (issue 17).
--
-- 1. Session independence. plpgsql compiles a function body with the
--    session's standard_conforming_strings, and keeps the compiled function
--    for the session: under standard_conforming_strings = off the '\x' and
--    the regular expressions of 004 meant something else (bytea partitions
--    bounded by the ASCII text x6ae6..., list_partitions failing). Every 004
--    plpgsql function now pins, besides its search_path, the settings its
--    text depends on: standard_conforming_strings, DateStyle, IntervalStyle,
--    TimeZone and bytea_output. A SET clause is in force while the function
--    is compiled as well as while it runs, and is undone on exit.
--
-- 2. Retirement never holds creation hostage. pgid.ensure_partitions
--    creates first, then retires each expired partition with
--    pgid.retire_partition, which runs in a subtransaction of its own and
--    reports, instead of raising, what it could not do: the result row has
--    action 'kept' and a WARNING (SQLSTATE PGI07) carries the reason,
--    DETAIL and HINT. Rows in the DEFAULT partition are reported on every
--    run: action 'default' and a WARNING (PGI08).
--
-- 3. Foreign keys. A partition no row references is retired (DETACH first:
--    DROP TABLE on a partition of a referenced table fails with 2BP01);
--    rows that reference it through ON DELETE CASCADE / SET NULL / SET
--    DEFAULT get their declared action first, by deleting the referenced
--    rows of the partition (PostgreSQL's own foreign-key triggers act);
--    a partition still referenced through NO ACTION / RESTRICT is kept and
--    reported. Nothing is ever dropped with CASCADE.
--
-- 4. Safety rail: before any deletion, the partition's largest key (an index
--    probe) must be older than the cut.
--
-- 5. Spans: pgid.partition_span checks widths and retentions with the rules
--    of Go's partition.ParseSpan: positive, whole months (at most 12000) or
--    whole seconds (at most 9223372036), never both.
--
-- Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.partition_span: months and seconds of a width or retention, or error
-- PGI06 naming what (width, retention) and why; the rules of Go's
-- partition.ParseSpan and Span: positive; whole months, at most 12000, or a
-- whole number of seconds, at most 9223372036 (the longest Go
-- time.Duration); never both.
CREATE OR REPLACE FUNCTION pgid.partition_span(what text, span interval, OUT months integer, OUT seconds bigint)
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
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
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex
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

-- pgid.default_partition_rows: the DEFAULT partition of parent, if it has
-- one: its row count and the times of its oldest and newest IDs (index
-- probes when the key is indexed). No row without a DEFAULT partition.
CREATE OR REPLACE FUNCTION pgid.default_partition_rows(parent regclass)
RETURNS TABLE (partition regclass, row_count bigint, oldest timestamptz, newest timestamptz)
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
DECLARE
  kind text := pgid.partition_key_kind(parent);
  col name;
  lo text;
  hi text;
BEGIN
  SELECT l.partition INTO partition FROM pgid.list_partitions(parent) l WHERE l.is_default;
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
  IF kind = 'ulid' THEN
    oldest := pgid.ulid_time(lo::uuid);
    newest := pgid.ulid_time(hi::uuid);
  ELSE
    oldest := pgid.objectid_time(lo::bytea);
    newest := pgid.objectid_time(hi::bytea);
  END IF;
  RETURN NEXT;
END
$$;

COMMENT ON FUNCTION pgid.default_partition_rows(regclass) IS
  'The DEFAULT partition of parent (no row if none): its row count and the times of its oldest and newest IDs. Rows '
  'there mean a partition was missing when they came; retention never touches them.';

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
DROP FUNCTION IF EXISTS pgid.retire_partition(regclass, text, interval, text, timestamptz, boolean);
CREATE OR REPLACE FUNCTION pgid.retire_partition(parent regclass, part regclass, retain interval,
                                                 retire text DEFAULT 'drop', at timestamptz DEFAULT now(),
                                                 dry_run boolean DEFAULT false,
                                                 cascade_into_retained boolean DEFAULT false)
RETURNS TABLE (action text, partition text, lower timestamptz, upper timestamptz,
               reason text, detail text, hint text, blocking text, fk_actions jsonb)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
DECLARE
  lock_class CONSTANT integer := 1885825380; -- 'pgid': the lock pgid.ensure_partitions takes
  max_depth CONSTANT integer := 1000;        -- levels of ON DELETE CASCADE followed
  kind text;
  typ text;
  col name;
  key_attnum smallint;
  rel regclass;
  default_part regclass;
  b record;
  cut timestamptz;
  cut_k text;
  late boolean;
  fk record;
  refcol name;
  cond text;
  n bigint;
  kept_n bigint;
  new_keys text[];
  blockers text[];
  blocker_names text[];
  acting text[];
  acting_sql text[];
  effects jsonb;
  retained_total bigint;
  retained_by text[];
  retained_names text[];
  frontier jsonb;            -- {"<oid of a table>": ["tableoid:ctid", ...]}: rows deleted at this depth
  next_frontier jsonb;
  visited text[];           -- "<oid of a table>:tableoid:ctid" of every row deleted so far
  t_oid text;
  depth integer;
  pass integer;
  src_cols text;
  ref_cols text;
  retained_sql text;
  i integer;
  err_msg text;
  err_detail text;
  err_hint text;
  err_constraint text;
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
  kind := pgid.partition_key_kind(parent);
  PERFORM pgid.partition_span('retention', retain);
  PERFORM pg_advisory_xact_lock(lock_class, pgid.partition_lock_key(parent));

  rel := part;
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
  FROM pgid.list_partitions(parent) l
  WHERE l.partition = rel AND l.partition IN (SELECT e.partition FROM pgid.expired_partitions(parent, retain, at) e);
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
  SELECT l.partition INTO default_part FROM pgid.list_partitions(parent) l WHERE l.is_default;
  cut := timezone('UTC', timezone('UTC', at) - retain);
  cut_k := CASE kind WHEN 'ulid' THEN pgid.ulid_min_at(cut)::text
                     ELSE E'\\x' || encode(pgid.objectid_min_at(cut), 'hex') END;

  -- The safety rail: no row at or after the cut, whatever the bounds say.
  EXECUTE format('SELECT %1$I::%3$s >= %4$L::%3$s FROM %2$s ORDER BY %1$I DESC LIMIT 1', col, rel, typ, cut_k)
    INTO late;
  IF late THEN
    action := 'kept';
    reason := format('it holds rows made at or after the cut %s',
                     to_char(timezone('UTC', cut), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'));
    hint := 'Its bounds do not match its rows; check the partition by hand.';
    fk_actions := '[]';
    RETURN NEXT;
    RETURN;
  END IF;

  -- The rows of parent retention keeps: younger than the cut, or in the
  -- DEFAULT partition (s is the referencing table's alias below).
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
        PERFORM pgid.partition_ddl_lock(parent, rel);
      END IF;
      blockers := '{}';
      blocker_names := '{}';
      acting := '{}';
      acting_sql := '{}';
      effects := '[]';
      visited := '{}';
      depth := 0;
      -- The foreign keys, breadth first from the partition's rows. Depth 0:
      -- the foreign keys that reference parent, and the rows of each that
      -- reference this partition: the referencing column of the partition key
      -- in the partition's range, the other columns not NULL (MATCH SIMPLE).
      -- Deeper: the rows that reference, through any foreign key, a row an ON
      -- DELETE CASCADE deleted one level up, each row counted once.
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
            IF depth = 0 THEN
              cond := 'true';
              FOR i IN 1..array_length(fk.confkey, 1) LOOP
                SELECT a.attname INTO refcol FROM pg_attribute a WHERE a.attrelid = fk.src AND a.attnum = fk.conkey[i];
                IF fk.confkey[i] = key_attnum THEN
                  IF b.from_bound IS NOT NULL THEN
                    cond := cond || format(' AND s.%I::%s >= %L::%s', refcol, typ, b.from_bound, typ);
                  END IF;
                  cond := cond || format(' AND s.%I::%s < %L::%s', refcol, typ, b.to_bound, typ);
                ELSE
                  cond := cond || format(' AND s.%I IS NOT NULL', refcol);
                END IF;
              END LOOP;
            ELSE
              SELECT string_agg(format('s.%I', a.attname), ', ' ORDER BY k.o) INTO src_cols
              FROM unnest(fk.conkey) WITH ORDINALITY k(n, o)
                JOIN pg_attribute a ON a.attrelid = fk.src AND a.attnum = k.n;
              SELECT string_agg(format('t.%I', a.attname), ', ' ORDER BY k.o) INTO ref_cols
              FROM unnest(fk.confkey) WITH ORDINALITY k(n, o)
                JOIN pg_attribute a ON a.attrelid = t_oid::oid AND a.attnum = k.n;
              -- The rows of t deleted one level up: a TID scan, then the pair.
              cond := format('(%s) IN (SELECT %s FROM %s t '
                             'WHERE t.ctid = ANY (ARRAY(SELECT split_part(k, '':'', 2)::tid '
                             'FROM jsonb_array_elements_text($1 -> %L) k)) '
                             'AND t.tableoid::oid::text || '':'' || t.ctid::text '
                             'IN (SELECT jsonb_array_elements_text($1 -> %L)))',
                             src_cols, ref_cols, t_oid::oid::regclass, t_oid, t_oid);
            END IF;
            IF fk.src = parent THEN
              cond := cond || format(' AND s.tableoid <> %s::oid', rel::oid);
            END IF;
            IF depth > 0 THEN
              cond := cond || format(' AND %L || s.tableoid::oid::text || '':'' || s.ctid::text '
                                     'NOT IN (SELECT unnest($2))', fk.src::oid::text || ':');
            END IF;
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
      -- One entry a constraint, in the order first met, counts summed over
      -- the levels.
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
                         retained_total, parent, to_char(timezone('UTC', cut), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         array_to_string(retained_by, '; '));
        detail := array_to_string(retained_by, E'\n');
        hint := 'Retention keeps the rows younger than the cut. Re-point or delete the references to the '
                'partition, or let the foreign keys act on those rows: retire_partition(..., '
                'cascade_into_retained => true), partition.Plan.CascadeIntoRetained, '
                'pgid partition ensure --cascade-into-retained.';
        blocking := array_to_string(retained_names, ', ');
      END IF;
      IF action = 'kept' THEN
        IF pass = 1 THEN
          RETURN NEXT;
          RETURN;
        END IF;
        RAISE EXCEPTION USING ERRCODE = 'PGI07', MESSAGE = reason, DETAIL = coalesce(detail, ''),
                              HINT = coalesce(hint, ''), CONSTRAINT = coalesce(blocking, '');
      END IF;
    END LOOP;

    IF dry_run THEN
      action := CASE retire WHEN 'drop' THEN 'dropped' WHEN 'detach' THEN 'detached' ELSE 'prepared' END;
      IF cardinality(acting) > 0 THEN
        detail := 'first, as their foreign keys say: ' || array_to_string(acting, '; ');
      END IF;
      RETURN NEXT;
      RETURN;
    END IF;

    FOREACH cond IN ARRAY acting_sql LOOP
      EXECUTE cond;
    END LOOP;
    IF retire <> 'prepare' THEN
      EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', parent, rel);
    END IF;
    IF retire = 'drop' THEN
      EXECUTE format('DROP TABLE %s', rel);
    END IF;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS err_msg = MESSAGE_TEXT, err_detail = PG_EXCEPTION_DETAIL,
                            err_hint = PG_EXCEPTION_HINT, err_constraint = CONSTRAINT_NAME;
    action := 'kept';
    reason := err_msg;
    detail := nullif(err_detail, '');
    hint := nullif(err_hint, '');
    blocking := nullif(err_constraint, '');
    RETURN NEXT;
    RETURN;
  END;
  action := CASE retire WHEN 'drop' THEN 'dropped' WHEN 'detach' THEN 'detached' ELSE 'prepared' END;
  IF cardinality(acting) > 0 THEN
    detail := 'first, as their foreign keys say: ' || array_to_string(acting, '; ');
  END IF;
  RETURN NEXT;
END
$$;

COMMENT ON FUNCTION pgid.retire_partition(regclass, regclass, interval, text, timestamptz, boolean, boolean) IS
  'Retire one expired partition (drop, detach or prepare; dry_run only checks): safety rail on its largest key, '
  'foreign keys followed through every ON DELETE CASCADE (NO ACTION/RESTRICT references keep it, and so do rows of '
  'the parent younger than the cut its foreign keys would delete or change, unless cascade_into_retained), DETACH, '
  'DROP (never a cascading drop). Reports action kept with reason, detail, hint and blocking constraint instead of '
  'raising, and fk_actions (table, constraint, action, rows, retained) always. part not a partition of parent: PGI06.';

-- pgid.ensure_partitions, 004's with retirement through
-- pgid.retire_partition and the DEFAULT partition reported. Same signature
-- and result columns; action is also 'kept' (an expired partition that
-- could not be retired, WARNING PGI07 with the reason) and 'default' (rows
-- in the DEFAULT partition: lower and upper are the times of its oldest and
-- newest IDs, WARNING PGI08 with the count).
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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on
SET DateStyle = 'ISO, YMD'
SET IntervalStyle = postgres
SET TimeZone = 'UTC'
SET bytea_output = hex AS $$
DECLARE
  -- First key of the advisory lock that serialises runs per parent: 'pgid'
  -- in ASCII; the second is pgid.partition_lock_key(parent).
  lock_class CONSTANT integer := 1885825380;
  key_kind text;             -- 'ulid' or 'objectid'
  key_type text;             -- the key's base type: uuid or bytea
  schema_name name;          -- parent's schema and table, as stored
  table_name name;
  key_column name;           -- the partition key column
  default_part regclass;     -- the DEFAULT partition, or NULL
  part_start timestamptz;    -- the partition being made: [part_start, part_end)
  part_end timestamptz;
  lower_literal text;        -- its bounds as SQL literals of key_type
  upper_literal text;
  lower_key bytea;           -- and as bytes (uuid and bytea both compare as memcmp)
  upper_key bytea;
  new_name text;
  existing record;           -- the partition already covering the range
  default_has_rows boolean;
  parts regclass[];          -- the existing partitions, by lower bound,
  part_from_texts text[];    -- their bounds as list_partitions prints them,
  part_to_texts text[];
  part_from_keys bytea[];    -- and as bytes; NULL for MINVALUE / MAXVALUE
  part_to_keys bytea[];
  j integer;
  overlap integer;           -- index of a partition overlapping the range
  expired record;            -- a partition past retention
  retired record;            -- what pgid.retire_partition did with it
  default_rows record;       -- pgid.default_partition_rows' report
  ddl_locked boolean := false;
  last_time timestamptz;     -- the last time an ID of key_kind can hold
  end_text text;             -- last_time, for messages
BEGIN
  IF parent IS NULL OR every IS NULL OR ahead IS NULL OR retire IS NULL OR at IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = 'pgid: ensure_partitions needs parent, every, ahead, retire and at (only retain may be NULL)';
  END IF;
  key_kind := pgid.partition_key_kind(parent);
  PERFORM pgid.partition_span('width', every);
  PERFORM pgid.partition_width(every);
  IF ahead < 0 OR ahead > 10000 THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06', MESSAGE = format('pgid: ahead %s is not in [0, 10000]', ahead);
  END IF;
  IF retire NOT IN ('drop', 'detach', 'none') THEN
    RAISE EXCEPTION USING ERRCODE = 'PGI06',
      MESSAGE = format('pgid: retire %L is not drop, detach or none', retire);
  END IF;
  IF retain IS NOT NULL THEN
    PERFORM pgid.partition_span('retention', retain);
  END IF;

  PERFORM pg_advisory_xact_lock(lock_class, pgid.partition_lock_key(parent));

  key_type := CASE key_kind WHEN 'ulid' THEN 'uuid' ELSE 'bytea' END;
  -- The schema's name as stored: regnamespace's output is already quoted
  -- ("App"), and format('%I') below quotes it.
  SELECT n.nspname, c.relname INTO schema_name, table_name
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = parent;
  SELECT a.attname INTO key_column FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
  WHERE p.partrelid = parent;
  -- The existing partitions, read once, their bounds as bytea (uuid and
  -- bytea both compare as memcmp); NULL for MINVALUE / MAXVALUE.
  SELECT coalesce(array_agg(l.partition ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.from_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         coalesce(array_agg(l.to_bound ORDER BY l.from_bound NULLS FIRST) FILTER (WHERE NOT l.is_default), '{}'),
         (array_agg(l.partition) FILTER (WHERE l.is_default))[1]
    INTO parts, part_from_texts, part_to_texts, default_part
  FROM pgid.list_partitions(parent) l;
  SELECT coalesce(array_agg(CASE key_kind WHEN 'ulid' THEN decode(replace(f, '-', ''), 'hex')
                                     ELSE decode(substr(f, 3), 'hex') END ORDER BY o), '{}')
    INTO part_from_keys FROM unnest(part_from_texts) WITH ORDINALITY AS u(f, o);
  SELECT coalesce(array_agg(CASE key_kind WHEN 'ulid' THEN decode(replace(f, '-', ''), 'hex')
                                     ELSE decode(substr(f, 3), 'hex') END ORDER BY o), '{}')
    INTO part_to_keys FROM unnest(part_to_texts) WITH ORDINALITY AS u(f, o);

  IF key_kind = 'ulid' THEN
    last_time := pgid.ulid_time('ffffffff-ffff-0000-0000-000000000000'::uuid);
    end_text := to_char(timezone('UTC', last_time), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
  ELSE
    last_time := pgid.objectid_time('\xffffffff0000000000000000'::bytea);
    end_text := to_char(timezone('UTC', last_time), 'YYYY-MM-DD"T"HH24:MI:SS"Z"');
  END IF;

  part_start := (pgid.partition_range(every, at)).lower;
  FOR i IN 0..ahead LOOP
    IF part_start > last_time THEN
      -- Past the end of the ID space: this partition and the rest cannot
      -- exist (the one before, if any, runs to MAXVALUE).
      action := 'end';
      partition := NULL;
      lower := last_time;
      upper := NULL;
      RAISE WARNING USING ERRCODE = 'PGI09',
        MESSAGE = format('pgid: %s end at %s: the %s partition(s) of %s asked for from %s on cannot exist',
                         CASE key_kind WHEN 'ulid' THEN 'ULIDs' ELSE 'ObjectIds' END, end_text, ahead - i + 1, parent,
                         to_char(timezone('UTC', part_start), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
        HINT = CASE key_kind WHEN 'ulid' THEN 'ULIDs hold 48-bit Unix milliseconds'
                             ELSE 'ObjectIds hold 32-bit Unix seconds' END
               || '; the partition holding the last time runs to MAXVALUE.';
      RETURN NEXT;
      EXIT;
    END IF;
    part_end := (pgid.partition_range(every, part_start)).upper;
    IF key_kind = 'ulid' THEN
      lower_literal := pgid.ulid_min_at(part_start)::text;
      upper_literal := pgid.ulid_min_at(part_end)::text;
      lower_key := decode(replace(lower_literal, '-', ''), 'hex');
      upper_key := decode(replace(upper_literal, '-', ''), 'hex');
    ELSE
      lower_key := pgid.objectid_min_at(part_start);
      upper_key := pgid.objectid_min_at(part_end);
      lower_literal := E'\\x' || encode(lower_key, 'hex');
      upper_literal := E'\\x' || encode(upper_key, 'hex');
    END IF;
    IF part_end > last_time THEN
      -- The last partition there can be: up to MAXVALUE.
      upper_literal := NULL;
      upper_key := NULL;
    END IF;

    -- An existing partition with these bounds: done. One with other bounds
    -- that overlap: stop (PGI05).
    overlap := NULL;
    FOR j IN 1..coalesce(array_length(parts, 1), 0) LOOP
      IF (part_from_keys[j] IS NULL OR upper_key IS NULL OR part_from_keys[j] < upper_key)
         AND (part_to_keys[j] IS NULL OR part_to_keys[j] > lower_key) THEN
        overlap := j;
        EXIT WHEN part_from_keys[j] = lower_key AND part_to_keys[j] IS NOT DISTINCT FROM upper_key;
      END IF;
    END LOOP;
    IF overlap IS NOT NULL THEN
      SELECT parts[overlap] AS partition, part_from_texts[overlap] AS from_bound,
             part_to_texts[overlap] AS to_bound
        INTO existing;
      IF existing.from_bound IS DISTINCT FROM lower_literal OR existing.to_bound IS DISTINCT FROM upper_literal THEN
        RAISE EXCEPTION USING ERRCODE = 'PGI05',
          MESSAGE = format('pgid: new partition [%s, %s) of %s overlaps partition %s, FROM (%s) TO (%s)',
                           to_char(timezone('UTC', part_start), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                           to_char(timezone('UTC', part_end), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                           parent, existing.partition,
                           coalesce(existing.from_bound, 'MINVALUE'), coalesce(existing.to_bound, 'MAXVALUE')),
          HINT = 'Was the width changed? Keep the old width until the new one lines up, '
                 'or create the transition partition by hand.';
      END IF;
    ELSE
      new_name := pgid.partition_name(table_name, every, part_start);
      IF default_part IS NOT NULL THEN
        EXECUTE format('SELECT EXISTS (SELECT FROM %s WHERE %I >= %L::%s AND (%L IS NULL OR %I < %L::%s))',
                       default_part, key_column, lower_literal, key_type, upper_literal, key_column, upper_literal,
                       key_type)
          INTO default_has_rows;
        IF default_has_rows THEN
          RAISE EXCEPTION USING ERRCODE = 'PGI04',
            MESSAGE = format('pgid: default partition %s of %s holds rows in [%s, %s), '
                             'the range of new partition %s; nothing was changed',
                             default_part, parent,
                             to_char(timezone('UTC', part_start), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                             to_char(timezone('UTC', part_end), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                             new_name),
            HINT = 'Move them in one transaction: detach the default partition, create the partition, '
                   'INSERT the rows back through the parent, reattach '
                   '(docs/PARTITIONING.md, "Rows in the DEFAULT partition").';
        END IF;
      END IF;
      IF NOT ddl_locked THEN
        PERFORM pgid.partition_ddl_lock(parent);
        ddl_locked := true;
      END IF;
      EXECUTE format('create table %I.%I partition of %s for values from (%L) to (%s)',
                     schema_name, new_name, parent, lower_literal, coalesce(quote_literal(upper_literal), 'MAXVALUE'));
      action := 'created';
      partition := format('%I.%I', schema_name, new_name);
      lower := part_start;
      upper := CASE WHEN upper_key IS NOT NULL THEN part_end END;
      RETURN NEXT;
    END IF;
    IF upper_key IS NULL AND i < ahead THEN
      action := 'end';
      partition := NULL;
      lower := last_time;
      upper := NULL;
      RAISE WARNING USING ERRCODE = 'PGI09',
        MESSAGE = format('pgid: %s end at %s: partition %I.%I of %s runs to MAXVALUE and is the last; the %s '
                         'partition(s) asked for after it cannot exist',
                         CASE key_kind WHEN 'ulid' THEN 'ULIDs' ELSE 'ObjectIds' END, end_text, schema_name,
                         pgid.partition_name(table_name, every, part_start), parent, ahead - i),
        HINT = CASE key_kind WHEN 'ulid' THEN 'ULIDs hold 48-bit Unix milliseconds.'
                             ELSE 'ObjectIds hold 32-bit Unix seconds.' END;
      RETURN NEXT;
      EXIT;
    END IF;
    part_start := part_end;
  END LOOP;

  -- Retire after creating: pgid.retire_partition never raises for a
  -- partition it cannot retire (it reports it, and its own subtransaction
  -- undid what it started), so the partitions made above stay.
  IF retain IS NOT NULL AND retire <> 'none' THEN
    FOR expired IN SELECT e.partition FROM pgid.expired_partitions(parent, retain, at) e LOOP
      FOR retired IN SELECT * FROM pgid.retire_partition(parent, expired.partition::text, retain, retire, at) LOOP
        action := retired.action;
        partition := retired.partition;
        lower := retired.lower;
        upper := retired.upper;
        IF retired.action = 'kept' THEN
          RAISE WARNING USING ERRCODE = 'PGI07',
            MESSAGE = format('pgid: expired partition %s of %s was kept: %s',
                             retired.partition, parent, retired.reason),
            DETAIL = coalesce(retired.detail, ''), HINT = coalesce(retired.hint, '');
        END IF;
        RETURN NEXT;
      END LOOP;
    END LOOP;
  END IF;

  -- Rows in the DEFAULT partition mean a range had no partition when they
  -- came: report them on every run.
  FOR default_rows IN SELECT * FROM pgid.default_partition_rows(parent) d WHERE d.row_count > 0 LOOP
    action := 'default';
    partition := default_rows.partition::text;
    lower := default_rows.oldest;
    upper := default_rows.newest;
    RAISE WARNING USING ERRCODE = 'PGI08',
      MESSAGE = format('pgid: default partition %s of %s holds %s rows made from %s to %s',
                       default_rows.partition, parent, default_rows.row_count,
                       to_char(timezone('UTC', default_rows.oldest), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                       to_char(timezone('UTC', default_rows.newest), 'YYYY-MM-DD"T"HH24:MI:SS"Z"')),
      HINT = 'Partitions were missing when they were inserted; retention never touches them. '
             'Move them out as docs/PARTITIONING.md ("Rows in the DEFAULT partition") shows.';
    RETURN NEXT;
  END LOOP;
END
$$;

COMMENT ON FUNCTION pgid.ensure_partitions(regclass, interval, integer, interval, text, timestamptz) IS
  'Create the partitions of parent (BY RANGE on a pgid ID) of width every for the period holding at and ahead more; '
  'then retire (drop, detach or none) those older than at - retain with pgid.retire_partition, reporting those it '
  'keeps (action kept, WARNING PGI07) and rows in the DEFAULT partition (action default, WARNING PGI08). Serialised '
  'per parent by an advisory lock.';


---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.retire_partition(regclass, regclass, interval, text, timestamptz, boolean, boolean);
DROP FUNCTION IF EXISTS pgid.default_partition_rows(regclass);
DROP FUNCTION IF EXISTS pgid.partition_ddl_lock(regclass, regclass);
DROP FUNCTION IF EXISTS pgid.partition_span(text, interval);
