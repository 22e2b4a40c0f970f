-- Version 7: pgid.objectid_counter, the sequence behind pgid.gen_objectid.
--
-- A versioned migration: released, never edited again (its checksum is
-- pinned in migrations_test.go and recorded in each database it runs in).
--
-- pgid.gen_objectid() writes the sequence's next value, as 8 big-endian
-- bytes, after the 4 bytes of seconds: bytes 4 to 8 of an ObjectId are this
-- database's own random value (MongoDB's per-process value), bytes 9 to 11
-- the counter. One nextval per ID, atomic across sessions: IDs of one
-- second follow the order of their nextval calls, and no two IDs of a
-- database are equal until the sequence has given 2^64 values. Past 2^24
-- IDs the counter carries into the database's value (it advances by one),
-- so order and uniqueness hold at any rate. The sequence spans all 2^64
-- int8 values and cycles; the bytes of -1 (ff...) to 0 (00...) are its one
-- step down, once in 2^64 IDs.
--
-- The start is drawn here, once per database: 64 random bits from
-- gen_random_uuid() (its version and variant digits skipped). A sequence,
-- not a table, so that every node has its own state: a logical replica or
-- a Citus worker applies this file itself and draws its own value, and
-- sequences are not replicated logically. A copy made by pg_dump,
-- pg_basebackup or pg_createsubscriber continues the original's value:
-- pgid.objectid_reseed() draws a new one (see the package documentation).
--
-- CACHE 1 (the default) keeps the cross-session order: a backend caching
-- values would hand out a range of its own. Any role may call nextval
-- (USAGE); only the owner may setval (pgid.objectid_reseed).

SET LOCAL search_path = pg_catalog, pg_temp;

DO $$
DECLARE
  r constant pg_catalog.text := pg_catalog.replace(pg_catalog.gen_random_uuid()::pg_catalog.text, '-', '');
BEGIN
  IF pg_catalog.to_regclass('pgid.objectid_counter') IS NULL THEN
    EXECUTE pg_catalog.format('CREATE SEQUENCE pgid.objectid_counter AS pg_catalog.int8 '
      'MINVALUE -9223372036854775808 MAXVALUE 9223372036854775807 START WITH %s CACHE 1 CYCLE',
      ('x' OPERATOR(pg_catalog.||) pg_catalog.substr(r, 1, 12)
           OPERATOR(pg_catalog.||) pg_catalog.substr(r, 18, 4))::pg_catalog.bit(64)::pg_catalog.int8);
  END IF;
END
$$;

GRANT USAGE ON SEQUENCE pgid.objectid_counter TO PUBLIC;

COMMENT ON SEQUENCE pgid.objectid_counter IS
  'Bytes 4 to 11 of pgid.gen_objectid(): this database''s random value and a counter. Drawn at install; '
  'pgid.objectid_reseed() draws a new one (after restoring a copy that writes beside the original).';

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP SEQUENCE IF EXISTS pgid.objectid_counter;
