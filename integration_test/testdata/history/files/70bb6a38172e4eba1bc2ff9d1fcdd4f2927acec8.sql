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
-- instead of giving a wrong answer. Idempotent: CREATE OR REPLACE throughout.

-- pgid.objectid_time: the creation time, to the second.
CREATE OR REPLACE FUNCTION pgid.objectid_time(id bytea) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT to_timestamp(('x' || encode(substring(id::pgid.objectid FROM 1 FOR 4), 'hex'))::bit(32)::bigint)
$$;

COMMENT ON FUNCTION pgid.objectid_time(bytea) IS
  'Creation time of an ObjectId: its first 4 bytes as Unix seconds. Agrees with Go objectidtype.ObjectID.Time().';

-- pgid.objectid_to_hex / pgid.objectid_from_hex: the canonical 24-character
-- lower-case hex form.
CREATE OR REPLACE FUNCTION pgid.objectid_to_hex(id bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT encode(id::pgid.objectid, 'hex')
$$;

COMMENT ON FUNCTION pgid.objectid_to_hex(bytea) IS
  'Canonical ObjectId text: 24 lower-case hex digits. Agrees with Go objectidtype.ObjectID.String() / Hex().';

CREATE OR REPLACE FUNCTION pgid.objectid_from_hex(s text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  quoted constant text := '"' || left(s, 64) || CASE WHEN length(s) > 64 THEN '..."' ELSE '"' END;
  pos integer;
BEGIN
  IF octet_length(s) <> 24 THEN  -- bytes, as Go counts
    RAISE EXCEPTION 'invalid ObjectId %: length % bytes, want 24 hex digits', quoted, octet_length(s)
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF s !~ '^[0-9a-fA-F]{24}$' THEN
    pos := length(substring(s FROM '^[0-9a-fA-F]*'));
    RAISE EXCEPTION 'invalid ObjectId %: invalid character % at position %, want a hex digit',
        quoted, quote_literal(substr(s, pos + 1, 1)), pos
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  RETURN decode(s, 'hex');
END
$$;

COMMENT ON FUNCTION pgid.objectid_from_hex(text) IS
  'Parses 24 hex digits (either case) into a 12-byte ObjectId; anything else raises SQLSTATE 22P02 naming the length in bytes or the character and its 0-based byte position.';

-- pgid.objectid_to_short / pgid.objectid_from_short: the 16-character
-- URL-safe short form: 96 bits in 6-bit groups, most significant first, over
-- the alphabet 0-9 a-z A-Z - _. That is base64 with another alphabet (12
-- bytes are exactly 16 base64 characters, no padding), so one translate()
-- maps between them. The short form does not sort like the bytes.
CREATE OR REPLACE FUNCTION pgid.objectid_to_short(id bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT translate(encode(id::pgid.objectid, 'base64'),
                   'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
                   '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_')
$$;

COMMENT ON FUNCTION pgid.objectid_to_short(bytea) IS
  'ObjectId short form: 16 URL-safe characters (alphabet 0-9 a-z A-Z - _, 6 bits each, most significant first); not order-preserving. Agrees with Go objectidtype.ObjectID.Short().';

CREATE OR REPLACE FUNCTION pgid.objectid_from_short(s text) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  quoted constant text := '"' || left(s, 64) || CASE WHEN length(s) > 64 THEN '..."' ELSE '"' END;
  pos integer;
BEGIN
  IF octet_length(s) <> 16 THEN  -- bytes, as Go counts
    RAISE EXCEPTION 'invalid ObjectId short form %: length % bytes, want 16 characters', quoted, octet_length(s)
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF s !~ '^[0-9a-zA-Z_-]{16}$' THEN
    pos := length(substring(s FROM '^[0-9a-zA-Z_-]*'));
    RAISE EXCEPTION 'invalid ObjectId short form %: invalid character % at position %, want one of 0-9 a-z A-Z - _',
        quoted, quote_literal(substr(s, pos + 1, 1)), pos
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  RETURN decode(translate(s,
                          '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_',
                          'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'),
                'base64');
END
$$;

COMMENT ON FUNCTION pgid.objectid_from_short(text) IS
  'Parses the 16-character short form (case-sensitive, alphabet 0-9 a-z A-Z - _) into a 12-byte ObjectId; anything else raises SQLSTATE 22P02 naming the length in bytes or the character and its 0-based byte position.';

-- pgid.objectid_min_at / pgid.objectid_max_at: the smallest / largest
-- ObjectId of the second of t: t's Unix seconds (floored: 10:00:00.9 is in
-- second 10:00:00; clamped to [0, 2^32-1]) then 8 zero / 0xff bytes, like Go
-- objectidtype.MinAt / MaxAt.
-- Half-open range: id >= pgid.objectid_min_at(t1) AND id < pgid.objectid_min_at(t2)
-- covers the whole seconds from t1's up to, not including, t2's.
-- Inlinable, as pgid.ulid_min_at (same construction).
CREATE OR REPLACE FUNCTION pgid.objectid_min_at(t timestamptz) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT decode(lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t))), 0),
                                                  4294967295)::bigint), 8, '0')
                || '0000000000000000', 'hex')
$$;

COMMENT ON FUNCTION pgid.objectid_min_at(timestamptz) IS
  'Smallest ObjectId of the second of t: Unix seconds (floored, clamped to [0, 2^32-1]) then 8 zero bytes. Range [t1, t2): id >= objectid_min_at(t1) AND id < objectid_min_at(t2). Agrees with Go objectidtype.MinAt.';

CREATE OR REPLACE FUNCTION pgid.objectid_max_at(t timestamptz) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT decode(lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t))), 0),
                                                  4294967295)::bigint), 8, '0')
                || 'ffffffffffffffff', 'hex')
$$;

COMMENT ON FUNCTION pgid.objectid_max_at(timestamptz) IS
  'Largest ObjectId of the second of t: Unix seconds (floored, clamped to [0, 2^32-1]) then 8 0xff bytes. Agrees with Go objectidtype.MaxAt.';

-- pgid.gen_objectid: a new ObjectId from clock_timestamp() and 8 random bytes
-- taken from gen_random_uuid(), skipping its version and variant bits: hex
-- digits 17..31 and 0. For DEFAULT clauses. Unlike Go's generator it has no
-- process-unique prefix and no counter, so it is not monotonic within a second.
CREATE OR REPLACE FUNCTION pgid.gen_objectid() RETURNS bytea
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT decode(lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())))::bigint), 8, '0')
                || substr(r, 18, 15) || substr(r, 1, 1), 'hex')
  FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS r) AS g
$$;

COMMENT ON FUNCTION pgid.gen_objectid() IS
  'New ObjectId: clock_timestamp() in seconds and 8 random bytes. Not monotonic within a second, within or across backends; generate keys with Go objectidtype.New() where order matters and use this for DEFAULT clauses and ad-hoc SQL.';

---- create above / drop below ----

DROP FUNCTION IF EXISTS pgid.gen_objectid();
DROP FUNCTION IF EXISTS pgid.objectid_max_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.objectid_min_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.objectid_from_short(text);
DROP FUNCTION IF EXISTS pgid.objectid_to_short(bytea);
DROP FUNCTION IF EXISTS pgid.objectid_from_hex(text);
DROP FUNCTION IF EXISTS pgid.objectid_to_hex(bytea);
DROP FUNCTION IF EXISTS pgid.objectid_time(bytea);
