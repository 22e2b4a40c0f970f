-- ObjectId functions: time, hex and short text forms, range bounds,
-- generation.
--
-- An ObjectId is 12 bytes, big-endian: 4-byte Unix seconds, then 8 bytes that
-- make it unique (Go: 5 process-random bytes and a 3-byte counter). It is
-- stored as bytea (domain pgid.objectid, CHECK octet_length = 12), whose
-- comparison is memcmp, so ORDER BY and range predicates follow time, to the
-- second.
--
-- The bytea -> text/time functions cast their argument to pgid.objectid, so a
-- value that is not 12 bytes raises the domain's check violation (23514)
-- instead of giving a wrong answer. SQL-standard bodies bound at creation,
-- as in the ULID file (functions/02_ulid.sql); the two parsers are plpgsql
-- and qualify every name and operator. Their tables and bit arithmetic are
-- generated from Go's objectidtype.ShortAlphabet (go generate ./migrations,
-- between the GENERATED lines). Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid.objectid_time: the creation time, to the second.
CREATE OR REPLACE FUNCTION pgid.objectid_time(id bytea) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN to_timestamp(('x' || encode(substring(id::pgid.objectid FROM 1 FOR 4), 'hex'))::bit(32)::int8::float8);

COMMENT ON FUNCTION pgid.objectid_time(bytea) IS
  'Creation time of an ObjectId: its first 4 bytes as Unix seconds. Agrees with Go objectidtype.ObjectID.Time().';

-- pgid.objectid_to_hex / pgid.objectid_from_hex: the canonical 24-character
-- lower-case hex form.
CREATE OR REPLACE FUNCTION pgid.objectid_to_hex(id bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN encode(id::pgid.objectid, 'hex');

COMMENT ON FUNCTION pgid.objectid_to_hex(bytea) IS
  'Canonical ObjectId text: 24 lower-case hex digits. Agrees with Go objectidtype.ObjectID.String() / Hex().';

-- plpgsql, schema-qualified throughout, for the reasons given at
-- pgid.ulid_from_text; t holds the value of each byte as a hex digit (16
-- outside the alphabet).
CREATE OR REPLACE FUNCTION pgid.objectid_from_hex(s text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b constant pg_catalog.bytea := pg_catalog.convert_to(s, 'UTF8');
  -- BEGIN GENERATED hex_values (go generate ./migrations)
  t constant pg_catalog.bytea := E'\\x1010101010101010101010101010101010101010101010101010101010101010'
    '1010101010101010101010101010101000010203040506070809101010101010'
    '100a0b0c0d0e0f10101010101010101010101010101010101010101010101010'
    '100a0b0c0d0e0f10101010101010101010101010101010101010101010101010'
    '1010101010101010101010101010101010101010101010101010101010101010'
    '1010101010101010101010101010101010101010101010101010101010101010'
    '1010101010101010101010101010101010101010101010101010101010101010'
    '1010101010101010101010101010101010101010101010101010101010101010';
  -- END GENERATED hex_values
BEGIN
  IF pg_catalog.octet_length(b) OPERATOR(pg_catalog.=) 24 THEN
    -- BEGIN GENERATED objectid_from_hex (go generate ./migrations)
    IF (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 0))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 1))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 2))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 3))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 4))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 5))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 6))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 7))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 8))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 9))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 10))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 11))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 12))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 14))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 15))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 16))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 17))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 18))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 19))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 20))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 21))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 22))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 23))) OPERATOR(pg_catalog.<) 16 THEN
      RETURN pg_catalog.decode(s, 'hex');
    -- END GENERATED objectid_from_hex
    END IF;
  END IF;
  RETURN pgid._parse_error('hex'::pg_catalog.text, s::pg_catalog.text)::pg_catalog.bytea;
END
$$;

COMMENT ON FUNCTION pgid.objectid_from_hex(text) IS
  'Parses 24 hex digits (either case) into a 12-byte ObjectId; anything else raises SQLSTATE 22P02 naming the length '
  'in bytes or the character and its 0-based byte position.';

-- pgid._short_alphabet: the short form's 64 characters, value 0 to 63. An
-- IMMUTABLE function without arguments: the planner folds it into a
-- constant.
CREATE OR REPLACE FUNCTION pgid._short_alphabet() RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
-- BEGIN GENERATED short_alphabet (go generate ./migrations)
RETURN '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_'::bytea;
-- END GENERATED short_alphabet

COMMENT ON FUNCTION pgid._short_alphabet() IS
  'Internal: the 64 characters of the ObjectId short form, in order, for pgid.objectid_to_short.';

-- pgid.objectid_to_short / pgid.objectid_from_short: the 16-character
-- URL-safe short form: 96 bits in 6-bit groups, most significant first, over
-- the alphabet 0-9 a-z A-Z - _. The short form does not sort like the bytes.
-- Each group is read with get_byte and looked up in the alphabet. Every
-- get_byte reads id as pgid.objectid, so a wrong length fails with the
-- domain's check (23514) whatever the evaluation order: PostgreSQL 18 plans
-- SQL function bodies with the plan cache, and a custom plan folds
-- get_byte(<constant>, 11) before a single cast could run (2202E).
CREATE OR REPLACE FUNCTION pgid.objectid_to_short(id bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
-- BEGIN GENERATED objectid_to_short (go generate ./migrations)
RETURN encode(
    substr(pgid._short_alphabet(),
           ((get_byte(id::pgid.objectid, 0) >> 2) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 0) << 8 | get_byte(id::pgid.objectid, 1)) >> 4) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 1) << 8 | get_byte(id::pgid.objectid, 2)) >> 6) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (get_byte(id::pgid.objectid, 2) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           ((get_byte(id::pgid.objectid, 3) >> 2) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 3) << 8 | get_byte(id::pgid.objectid, 4)) >> 4) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 4) << 8 | get_byte(id::pgid.objectid, 5)) >> 6) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (get_byte(id::pgid.objectid, 5) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           ((get_byte(id::pgid.objectid, 6) >> 2) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 6) << 8 | get_byte(id::pgid.objectid, 7)) >> 4) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 7) << 8 | get_byte(id::pgid.objectid, 8)) >> 6) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (get_byte(id::pgid.objectid, 8) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           ((get_byte(id::pgid.objectid, 9) >> 2) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 9) << 8 | get_byte(id::pgid.objectid, 10)) >> 4) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (((get_byte(id::pgid.objectid, 10) << 8 | get_byte(id::pgid.objectid, 11)) >> 6) & 63) + 1, 1)
    || substr(pgid._short_alphabet(),
           (get_byte(id::pgid.objectid, 11) & 63) + 1, 1),
    'escape');
-- END GENERATED objectid_to_short

COMMENT ON FUNCTION pgid.objectid_to_short(bytea) IS
  'ObjectId short form: 16 URL-safe characters (alphabet 0-9 a-z A-Z - _, 6 bits each, most significant first); not '
  'order-preserving. Agrees with Go objectidtype.ObjectID.Short().';

-- plpgsql, schema-qualified throughout, as pgid.ulid_from_text; t holds
-- the short-form value of each byte (64 outside the alphabet), and the 12
-- bytes are four 24-bit words of four characters each.
CREATE OR REPLACE FUNCTION pgid.objectid_from_short(s text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b constant pg_catalog.bytea := pg_catalog.convert_to(s, 'UTF8');
  -- BEGIN GENERATED short_values (go generate ./migrations)
  t constant pg_catalog.bytea := E'\\x4040404040404040404040404040404040404040404040404040404040404040'
    '404040404040404040404040403e404000010203040506070809404040404040'
    '402425262728292a2b2c2d2e2f303132333435363738393a3b3c3d404040403f'
    '400a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122234040404040'
    '4040404040404040404040404040404040404040404040404040404040404040'
    '4040404040404040404040404040404040404040404040404040404040404040'
    '4040404040404040404040404040404040404040404040404040404040404040'
    '4040404040404040404040404040404040404040404040404040404040404040';
  -- END GENERATED short_values
BEGIN
  IF pg_catalog.octet_length(b) OPERATOR(pg_catalog.=) 16 THEN
    -- BEGIN GENERATED objectid_from_short (go generate ./migrations)
    IF (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 0))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 1))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 2))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 3))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 4))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 5))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 6))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 7))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 8))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 9))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 10))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 11))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 12))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 14))
        OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 15))) OPERATOR(pg_catalog.<) 64 THEN
      RETURN pg_catalog.substr(pg_catalog.int4send(
            (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 0)) OPERATOR(pg_catalog.<<) 18)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 1)) OPERATOR(pg_catalog.<<) 12)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 2)) OPERATOR(pg_catalog.<<) 6)
            OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 3))), 2, 3)
        OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.int4send(
            (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 4)) OPERATOR(pg_catalog.<<) 18)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 5)) OPERATOR(pg_catalog.<<) 12)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 6)) OPERATOR(pg_catalog.<<) 6)
            OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 7))), 2, 3)
        OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.int4send(
            (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 8)) OPERATOR(pg_catalog.<<) 18)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 9)) OPERATOR(pg_catalog.<<) 12)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 10)) OPERATOR(pg_catalog.<<) 6)
            OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 11))), 2, 3)
        OPERATOR(pg_catalog.||) pg_catalog.substr(pg_catalog.int4send(
            (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 12)) OPERATOR(pg_catalog.<<) 18)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 13)) OPERATOR(pg_catalog.<<) 12)
            OPERATOR(pg_catalog.|) (pg_catalog.get_byte(t, pg_catalog.get_byte(b, 14)) OPERATOR(pg_catalog.<<) 6)
            OPERATOR(pg_catalog.|) pg_catalog.get_byte(t, pg_catalog.get_byte(b, 15))), 2, 3);
    -- END GENERATED objectid_from_short
    END IF;
  END IF;
  RETURN pgid._parse_error('short'::pg_catalog.text, s::pg_catalog.text)::pg_catalog.bytea;
END
$$;

COMMENT ON FUNCTION pgid.objectid_from_short(text) IS
  'Parses the 16-character short form (case-sensitive, alphabet 0-9 a-z A-Z - _) into a 12-byte ObjectId; anything '
  'else raises SQLSTATE 22P02 naming the length in bytes or the character and its 0-based byte position.';

-- pgid.objectid_min_at / pgid.objectid_max_at: the smallest / largest
-- ObjectId of the second of t: t's Unix seconds (floored: 10:00:00.9 is in
-- second 10:00:00; clamped to [0, 2^32-1]) then 8 zero / 0xff bytes, like Go
-- objectidtype.MinAt / MaxAt.
-- Half-open range: id >= pgid.objectid_min_at(t1) AND id < pgid.objectid_min_at(t2)
-- covers the whole seconds from t1's up to, not including, t2's.
-- Inlinable, as pgid.ulid_min_at (same construction).
CREATE OR REPLACE FUNCTION pgid.objectid_min_at(t timestamptz) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN decode(lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t))), 0),
                                          4294967295)::int8), 8, '0')
              || '0000000000000000', 'hex');

COMMENT ON FUNCTION pgid.objectid_min_at(timestamptz) IS
  'Smallest ObjectId of the second of t: Unix seconds (floored, clamped to [0, 2^32-1]) then 8 zero bytes. Range '
  '[t1, t2): id >= objectid_min_at(t1) AND id < objectid_min_at(t2). Agrees with Go objectidtype.MinAt.';

-- objectid_max_at is objectid_min_at with the 8 bytes after the time set.
CREATE OR REPLACE FUNCTION pgid.objectid_max_at(t timestamptz) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN substr(pgid.objectid_min_at(t), 1, 4) || decode('ffffffffffffffff', 'hex');

COMMENT ON FUNCTION pgid.objectid_max_at(timestamptz) IS
  'Largest ObjectId of the second of t: Unix seconds (floored, clamped to [0, 2^32-1]) then 8 0xff bytes. Agrees '
  'with Go objectidtype.MaxAt.';

-- pgid.gen_objectid: a new ObjectId, laid out as MongoDB's and Go's: the
-- Unix seconds of clock_timestamp(), then the next value of the sequence
-- pgid.objectid_counter (007_objectid_counter.sql) as 8 big-endian bytes:
-- 5 bytes of this database's random value and a 3-byte counter, which
-- carries into them past 2^24. Within a database IDs of one second
-- strictly increase in the order of their nextval calls, across sessions,
-- and never collide, at any rate. For DEFAULT clauses. VOLATILE and
-- PARALLEL UNSAFE, as nextval; a hot standby refuses it (nextval writes).
CREATE OR REPLACE FUNCTION pgid.gen_objectid() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN pg_catalog.substr(pg_catalog.int8send(
           pg_catalog.floor(EXTRACT(epoch FROM pg_catalog.clock_timestamp()))::pg_catalog.int8), 5)
       || pg_catalog.int8send(pg_catalog.nextval('pgid.objectid_counter'::pg_catalog.regclass));

COMMENT ON FUNCTION pgid.gen_objectid() IS
  'New ObjectId: clock_timestamp() in seconds, then the next value of sequence pgid.objectid_counter: 5 bytes of '
  'this database''s random value and a 3-byte counter that carries into them. IDs of one second strictly increase '
  'in the order made, across sessions, and never collide within the database. Refused on a hot standby.';

-- pgid.objectid_reseed: draws a new random value for this database (64
-- bits: the 5 bytes and the counter's start) and returns the 5 bytes. Run
-- it as the owner of schema pgid on a copy that writes beside its
-- original: a database restored from pg_dump or a base backup, a
-- subscriber made by pg_createsubscriber. (Not on a Citus worker: Citus
-- gives each worker's sequence a range of its own, and setval refuses a
-- value outside it.) It takes effect at once for every session.
CREATE OR REPLACE FUNCTION pgid.objectid_reseed() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN pg_catalog.substr(pg_catalog.int8send(pg_catalog.setval('pgid.objectid_counter'::pg_catalog.regclass,
           ('x' || pg_catalog.substr(pg_catalog.replace(pg_catalog.gen_random_uuid()::pg_catalog.text, '-', ''), 1, 12)
                || pg_catalog.substr(pg_catalog.replace(pg_catalog.gen_random_uuid()::pg_catalog.text, '-', ''), 18, 4)
           )::pg_catalog.bit(64)::pg_catalog.int8, false)), 1, 5);

COMMENT ON FUNCTION pgid.objectid_reseed() IS
  'Draws a new random value for this database''s ObjectIds (sequence pgid.objectid_counter) and returns its 5 bytes. '
  'For a restored copy that writes beside its original. Needs UPDATE on the sequence (its owner).';

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.objectid_reseed();
DROP FUNCTION IF EXISTS pgid.gen_objectid();
DROP FUNCTION IF EXISTS pgid.objectid_max_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.objectid_min_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.objectid_from_short(text);
DROP FUNCTION IF EXISTS pgid.objectid_to_short(bytea);
DROP FUNCTION IF EXISTS pgid._short_alphabet();
DROP FUNCTION IF EXISTS pgid.objectid_from_hex(text);
DROP FUNCTION IF EXISTS pgid.objectid_to_hex(bytea);
DROP FUNCTION IF EXISTS pgid.objectid_time(bytea);
