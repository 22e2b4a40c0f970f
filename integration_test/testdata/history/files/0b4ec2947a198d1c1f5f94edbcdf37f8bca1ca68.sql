-- ULID functions: time, text form, range bounds, generation.
--
-- A ULID is 128 bits, big-endian: 48-bit Unix milliseconds, then 80 bits of
-- entropy. It is stored as uuid (domain pgid.ulid), whose comparison is
-- memcmp, so ORDER BY and range predicates on the uuid follow time.
--
-- Pure functions are IMMUTABLE STRICT PARALLEL SAFE: a bound such as
-- pgid.ulid_min_at(...) is folded to a constant (or evaluated once per
-- execution in a generic plan), so the primary key index answers
-- "id >= lo AND id < hi". The LANGUAGE sql ones that use only immutable
-- operations are inlined by the planner.
-- Idempotent: CREATE OR REPLACE throughout.

-- pgid.ulid_time: the creation time of a ULID, exact to the millisecond.
-- Built from whole seconds and the remaining milliseconds so that no step
-- rounds through a float (exact up to the largest ULID, year 10889).
CREATE OR REPLACE FUNCTION pgid.ulid_time(id uuid) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT timezone('UTC', timestamp 'epoch'
           + (ms / 1000) * interval '1 second'
           + (ms % 1000) * interval '1 millisecond')
  FROM (SELECT ('x' || left(replace(id::text, '-', ''), 12))::bit(48)::bigint AS ms) AS t
$$;

COMMENT ON FUNCTION pgid.ulid_time(uuid) IS
  'Creation time of a ULID: its first 48 bits as Unix milliseconds. Agrees with Go ulidtype.ULID.Time().';

-- pgid.ulid_to_text: the canonical 26-character Crockford base32 form, upper
-- case. 128 bits with two leading zero bits make 26 groups of 5 bits.
CREATE OR REPLACE FUNCTION pgid.ulid_to_text(id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ',
                           substring(b FROM i * 5 + 1 FOR 5)::integer + 1, 1),
                    '' ORDER BY i)
  FROM (SELECT B'00' || ('x' || replace(id::text, '-', ''))::bit(128) AS b) AS t,
       generate_series(0, 25) AS i
$$;

COMMENT ON FUNCTION pgid.ulid_to_text(uuid) IS
  'Canonical ULID text: 26 characters of Crockford base32 (0123456789ABCDEFGHJKMNPQRSTVWXYZ), upper case. Agrees with Go ulidtype.ULID.String().';

-- pgid.ulid_from_text: parse the 26-character form, case-insensitively.
-- Rejects any other length, any character outside the Crockford alphabet
-- (I, L, O and U included) and a first character above '7' (the value would
-- not fit in 128 bits), each with SQLSTATE 22P02 and a message naming the
-- problem. Lengths are in bytes and positions are 0-based byte offsets, as in
-- Go's ulidtype.ParseError.
CREATE OR REPLACE FUNCTION pgid.ulid_from_text(s text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  quoted constant text := '"' || left(s, 64) || CASE WHEN length(s) > 64 THEN '..."' ELSE '"' END;
  bits bit varying := B'';
  pos integer;
BEGIN
  -- Bytes, not characters, as Go counts: 'é' is two bytes, so a 26-character
  -- string holding it is a length error in both.
  IF octet_length(s) <> 26 THEN
    RAISE EXCEPTION 'invalid ULID %: length % bytes, want 26 characters', quoted, octet_length(s)
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF s !~ '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$' THEN
    -- The first invalid character sits right after the longest valid prefix,
    -- which is ASCII, so its length in characters is its length in bytes.
    pos := length(substring(s FROM '^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]*'));
    RAISE EXCEPTION 'invalid ULID %: invalid character % at position %, want a Crockford base32 character (0-9, A-Z without I, L, O, U)',
        quoted, quote_literal(substr(s, pos + 1, 1)), pos
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF strpos(alphabet, upper(left(s, 1))) - 1 > 7 THEN
    RAISE EXCEPTION 'invalid ULID %: first character % is above ''7'', so the value overflows 128 bits',
        quoted, quote_literal(left(s, 1))
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  FOR i IN 1..26 LOOP
    bits := bits || (strpos(alphabet, upper(substr(s, i, 1))) - 1)::bit(5);
  END LOOP;
  -- Drop the two leading zero bits; 128 bits are two 64-bit halves.
  RETURN (lpad(to_hex(substring(bits FROM 3 FOR 64)::bit(64)::bigint), 16, '0')
       || lpad(to_hex(substring(bits FROM 67 FOR 64)::bit(64)::bigint), 16, '0'))::uuid;
END
$$;

COMMENT ON FUNCTION pgid.ulid_from_text(text) IS
  'Parses the 26-character Crockford base32 ULID, case-insensitively. A length other than 26 bytes, a character outside the alphabet (I, L, O, U included) or a first character above 7 raise SQLSTATE 22P02. Agrees with Go ulidtype.Parse on that form.';

-- pgid.ulid_min_at / pgid.ulid_max_at: the smallest / largest ULID of the
-- millisecond of t (t truncated to the millisecond, clamped to the ULID time
-- range [1970-01-01, 2^48-1 ms]), like Go ulidtype.MinAt / MaxAt.
-- Half-open range for [t1, t2): id >= pgid.ulid_min_at(t1) AND id < pgid.ulid_min_at(t2).
-- The body is inlined by the planner: timezone('UTC', t) makes the epoch
-- extraction immutable (extract on timestamptz is only STABLE), and
-- numeric_larger/numeric_smaller are the strict forms of greatest/least (a
-- STRICT SQL function is only inlined if its body is strict too).
CREATE OR REPLACE FUNCTION pgid.ulid_min_at(t timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t)) * 1000), 0),
                                            281474976710655)::bigint), 12, '0')
          || '00000000000000000000')::uuid
$$;

COMMENT ON FUNCTION pgid.ulid_min_at(timestamptz) IS
  'Smallest ULID of the millisecond of t: t in Unix ms (truncated, clamped to [0, 2^48-1]) then 80 zero bits. Range [t1, t2): id >= ulid_min_at(t1) AND id < ulid_min_at(t2). Agrees with Go ulidtype.MinAt.';

CREATE OR REPLACE FUNCTION pgid.ulid_max_at(t timestamptz) RETURNS uuid
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT (lpad(to_hex(numeric_smaller(numeric_larger(floor(extract(epoch FROM timezone('UTC', t)) * 1000), 0),
                                            281474976710655)::bigint), 12, '0')
          || 'ffffffffffffffffffff')::uuid
$$;

COMMENT ON FUNCTION pgid.ulid_max_at(timestamptz) IS
  'Largest ULID of the millisecond of t: t in Unix ms (truncated, clamped to [0, 2^48-1]) then 80 one bits. Agrees with Go ulidtype.MaxAt.';

-- pgid.gen_ulid: a new ULID from clock_timestamp() and 80 random bits taken
-- from gen_random_uuid() (built in since PostgreSQL 13), skipping its version
-- and variant bits: hex digits 17..31 (60 bits) and 0..4 (20 bits).
-- For DEFAULT clauses. Not monotonic: two values of the same millisecond, in
-- one backend or across backends, are ordered at random.
CREATE OR REPLACE FUNCTION pgid.gen_ulid() RETURNS uuid
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT (lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())) * 1000)::bigint), 12, '0')
          || substr(r, 18, 15) || substr(r, 1, 5))::uuid
  FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS r) AS g
$$;

COMMENT ON FUNCTION pgid.gen_ulid() IS
  'New ULID: clock_timestamp() in ms and 80 random bits. Not monotonic within a millisecond, within or across backends; generate keys with Go ulidtype.New() where order matters and use this for DEFAULT clauses and ad-hoc SQL.';

---- create above / drop below ----

DROP FUNCTION IF EXISTS pgid.gen_ulid();
DROP FUNCTION IF EXISTS pgid.ulid_max_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.ulid_min_at(timestamptz);
DROP FUNCTION IF EXISTS pgid.ulid_from_text(text);
DROP FUNCTION IF EXISTS pgid.ulid_to_text(uuid);
DROP FUNCTION IF EXISTS pgid.ulid_time(uuid);
