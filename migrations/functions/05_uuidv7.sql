-- UUIDv7-compatible ULIDs in SQL: pgid.gen_ulid_v7 and pgid.ulid_is_v7.
--
-- A ULID in the UUIDv7 layout (Go ulidtype.LayoutV7, the default of
-- ulidtype.New) is also an RFC 9562 UUIDv7: 48-bit Unix milliseconds,
-- version 7 (the top 4 bits of byte 6), variant 10 (the top 2 bits of
-- byte 8) and 74 random bits. PostgreSQL 18's uuidv7() makes the same layout
-- (its 12 rand_a bits are a sub-millisecond fraction) and its
-- uuid_extract_timestamp / uuid_extract_version read it; pgid.ulid_time
-- reads the same 48 bits on every version. On PostgreSQL 18, DEFAULT
-- uuidv7() suits a pgid.ulid column as well; on 14 to 17 there is no
-- uuidv7() (SQLSTATE 42883), and pgid.gen_ulid_v7 works on all of them.
--
-- Both functions have SQL-standard bodies (RETURN ...), bound when this
-- migration creates them under the search_path set below, like 002's.
-- Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.gen_ulid_v7: a new ULID in the UUIDv7 layout from clock_timestamp()
-- and 74 random bits of two gen_random_uuid() values (built in since
-- PostgreSQL 13), whose version 4 is replaced by 7 and whose variant 10 is
-- kept: hex digits 13..15 (rand_a, 12 bits) of one, 16..31 (variant and
-- rand_b, 62 random bits) of the other, counted from 0.
-- For DEFAULT clauses. Not monotonic: two values of the same millisecond, in
-- one backend or across backends, are ordered at random (uuidv7() on
-- PostgreSQL 18 is monotonic within one backend).
CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE
RETURN (lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())) * 1000)::int8), 12, '0')
        || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14, 3)
        || substr(replace(gen_random_uuid()::text, '-', ''), 17, 16))::uuid;

COMMENT ON FUNCTION pgid.gen_ulid_v7() IS
  'New ULID that is also a UUIDv7 (version 7, variant 10): clock_timestamp() in ms and 74 random bits, the layout of '
  'Go ulidtype.LayoutV7 and of uuidv7(). Not monotonic within a millisecond, within or across backends; generate '
  'keys with Go ulidtype.New() where order matters, or uuidv7() on PostgreSQL 18 (monotonic within a backend).';

-- pgid.ulid_is_v7: whether an ID is also a valid UUIDv7, like Go
-- ulidtype.ULID.IsV7; on every version, for example in a CHECK constraint
-- of a column that tools reading UUIDv7 rely on. Version * 4 + variant,
-- not "version = 7 AND variant = 2": AND is not strict, and the planner
-- inlines a STRICT SQL function only if its body is strict.
CREATE OR REPLACE FUNCTION pgid.ulid_is_v7(id uuid) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (get_byte(uuid_send(id), 6) >> 4) * 4 + (get_byte(uuid_send(id), 8) >> 6) = 7 * 4 + 2;

COMMENT ON FUNCTION pgid.ulid_is_v7(uuid) IS
  'Whether the ID is also a UUIDv7: version 7 and variant 10 (RFC 9562). True for every ULID of Go '
  'ulidtype.LayoutV7, pgid.gen_ulid_v7() and uuidv7(). Agrees with Go ulidtype.ULID.IsV7().';


---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.ulid_is_v7(uuid);
DROP FUNCTION IF EXISTS pgid.gen_ulid_v7();
