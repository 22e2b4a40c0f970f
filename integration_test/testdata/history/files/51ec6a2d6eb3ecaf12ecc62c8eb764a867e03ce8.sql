-- Schema pgid and the two column domains.
--
-- Idempotent: every statement may run again on a database that already has
-- it (PostgreSQL has no CREATE DOMAIN IF NOT EXISTS, hence the DO block).

CREATE SCHEMA IF NOT EXISTS pgid;

COMMENT ON SCHEMA pgid IS
  'Time-ordered IDs (github.com/pgid/pgid): domains ulid and objectid, their time, text, range-bound and generator functions.';

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_type
                 WHERE typnamespace = 'pgid'::regnamespace AND typname = 'ulid') THEN
    CREATE DOMAIN pgid.ulid AS uuid;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_type
                 WHERE typnamespace = 'pgid'::regnamespace AND typname = 'objectid') THEN
    CREATE DOMAIN pgid.objectid AS bytea
      CONSTRAINT objectid_length CHECK (octet_length(VALUE) = 12);
  END IF;
END
$$;

COMMENT ON DOMAIN pgid.ulid IS
  'ULID: 48-bit big-endian Unix milliseconds then 80 random bits, stored as uuid; byte order is time order. Text form: pgid.ulid_to_text / pgid.ulid_from_text.';
COMMENT ON DOMAIN pgid.objectid IS
  'ObjectId: 4-byte big-endian Unix seconds, 5 random bytes, 3-byte counter, stored as 12-byte bytea (CHECK objectid_length); byte order is time order.';

---- create above / drop below ----

-- RESTRICT (the default): this fails while any table column or function still
-- uses a domain, instead of silently dropping user data with it.
DROP DOMAIN IF EXISTS pgid.objectid;
DROP DOMAIN IF EXISTS pgid.ulid;
DROP SCHEMA IF EXISTS pgid;
