-- Schema pgid and the two column domains.
--
-- A versioned migration: released, never edited again (its checksum is
-- pinned in migrations_test.go and recorded in each database it runs in).
-- Functions are not here: they live in functions/*.sql, which the runner
-- applies again whenever they change (see the package documentation).
--
-- Idempotent: every statement may run again on a database that already has
-- it (PostgreSQL has no CREATE DOMAIN IF NOT EXISTS, hence the DO block).
-- The runner runs each file in one transaction; by hand, run it with psql
-- --single-transaction, since the file sets its search_path with SET LOCAL.

SET LOCAL search_path = pg_catalog, pg_temp;

CREATE SCHEMA IF NOT EXISTS pgid;

COMMENT ON SCHEMA pgid IS
  'Time-ordered IDs (github.com/pgid/pgid): domains ulid and objectid, '
  'their time, text, range-bound and generator functions.';

-- Any role may use the domains and call the functions; creating objects in
-- pgid stays with its owner. Types and functions are usable by PUBLIC by
-- default; the GRANTs say so explicitly, so that ALTER DEFAULT PRIVILEGES
-- ... REVOKE ... FROM PUBLIC in the owner's database does not lock
-- applications out.
GRANT USAGE ON SCHEMA pgid TO PUBLIC;

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_type
                 WHERE typnamespace = 'pgid'::pg_catalog.regnamespace AND typname = 'ulid') THEN
    CREATE DOMAIN pgid.ulid AS pg_catalog.uuid;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_type
                 WHERE typnamespace = 'pgid'::pg_catalog.regnamespace AND typname = 'objectid') THEN
    CREATE DOMAIN pgid.objectid AS pg_catalog.bytea
      CONSTRAINT objectid_length CHECK (pg_catalog.octet_length(VALUE) = 12);
  END IF;
END
$$;

GRANT USAGE ON DOMAIN pgid.ulid, pgid.objectid TO PUBLIC;

COMMENT ON DOMAIN pgid.ulid IS
  'ULID: 48-bit big-endian Unix milliseconds then 80 random bits, stored as uuid; byte order is time order. '
  'Text form: pgid.ulid_to_text / pgid.ulid_from_text.';
COMMENT ON DOMAIN pgid.objectid IS
  'ObjectId: 4-byte big-endian Unix seconds, 5 random bytes, 3-byte counter, stored as 12-byte bytea '
  '(CHECK objectid_length); byte order is time order.';

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

-- RESTRICT (the default): this fails while any table column or function still
-- uses a domain, instead of silently dropping user data with it.
DROP DOMAIN IF EXISTS pgid.objectid;
DROP DOMAIN IF EXISTS pgid.ulid;
DROP SCHEMA IF EXISTS pgid;
