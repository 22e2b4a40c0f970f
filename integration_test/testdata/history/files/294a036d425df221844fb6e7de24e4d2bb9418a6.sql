-- Schema pgid, the two column domains, and the error helper of the text
-- parsers.
--
-- Idempotent: every statement may run again on a database that already has
-- it (PostgreSQL has no CREATE DOMAIN IF NOT EXISTS, hence the DO block).
--
-- Names in this file and the next two are resolved once, when they run:
-- the SQL functions have SQL-standard bodies (RETURN ..., PostgreSQL 14+),
-- which PostgreSQL parses and binds at CREATE time, and the one plpgsql
-- function fixes its own search_path. So the search_path of whoever later
-- calls a pgid function cannot redirect any call or operator in it. For that
-- binding to be safe, the files set their own search_path for the
-- transaction they run in (tern runs each file in one; by hand, run them
-- with psql --single-transaction).

SET LOCAL search_path = pg_catalog, pg_temp;

CREATE SCHEMA IF NOT EXISTS pgid;

COMMENT ON SCHEMA pgid IS
  'Time-ordered IDs (github.com/pgid/pgid): domains ulid and objectid, their time, text, range-bound and generator functions.';

-- Any role may use the domains and call the functions; creating objects in
-- pgid stays with its owner. Types and functions are usable by PUBLIC by
-- default; the GRANTs below say so explicitly, so that ALTER DEFAULT
-- PRIVILEGES ... REVOKE ... FROM PUBLIC in the owner's database does not
-- lock applications out.
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
  'ULID: 48-bit big-endian Unix milliseconds then 80 random bits, stored as uuid; byte order is time order. Text form: pgid.ulid_to_text / pgid.ulid_from_text.';
COMMENT ON DOMAIN pgid.objectid IS
  'ObjectId: 4-byte big-endian Unix seconds, 5 random bytes, 3-byte counter, stored as 12-byte bytea (CHECK objectid_length); byte order is time order.';

-- pgid._parse_error raises the error for text that pgid.ulid_from_text
-- (kind 'ulid'), pgid.objectid_from_hex ('hex') or pgid.objectid_from_short
-- ('short') rejected: SQLSTATE 22P02 naming the length in bytes, or the
-- first invalid byte and its 0-based position, or the ULID overflow, as Go's
-- ParseError does. The input is quoted as Go's strconv.Quote quotes it (cut
-- to 64 bytes): control characters, quote and backslash escaped, so a
-- newline in the input never breaks the message. Only the parsers' error
-- path calls it, so its SET clause costs nothing on valid input.
CREATE OR REPLACE FUNCTION pgid._parse_error(kind text, s text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  b constant bytea := convert_to(s, 'UTF8');
  n constant integer := octet_length(b);
  what text;
  want_len integer;
  want_len_text text;
  chars text;
  want_char text;
  q text := '';
  i integer := 0;
  c integer;
  k integer;
  ch text;
BEGIN
  CASE kind
  WHEN 'ulid' THEN
    what := 'ULID'; want_len := 26; want_len_text := '26 characters';
    chars := '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';
    want_char := 'a Crockford base32 character (0-9, A-Z without I, L, O, U)';
  WHEN 'hex' THEN
    what := 'ObjectId'; want_len := 24; want_len_text := '24 hex digits';
    chars := '0123456789abcdefABCDEF';
    want_char := 'a hex digit';
  WHEN 'short' THEN
    what := 'ObjectId short form'; want_len := 16; want_len_text := '16 characters';
    chars := '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';
    want_char := 'one of 0-9 a-z A-Z - _';
  END CASE;

  -- The input as Go's strconv.Quote writes its first 64 bytes.
  WHILE i < least(n, 64) LOOP
    c := get_byte(b, i);
    IF c < 128 THEN
      q := q || CASE c
        WHEN 7 THEN E'\\a' WHEN 8 THEN E'\\b' WHEN 9 THEN E'\\t' WHEN 10 THEN E'\\n'
        WHEN 11 THEN E'\\v' WHEN 12 THEN E'\\f' WHEN 13 THEN E'\\r'
        WHEN 34 THEN E'\\"' WHEN 92 THEN E'\\\\'
        ELSE CASE WHEN c < 32 OR c = 127 THEN E'\\x' || lpad(to_hex(c), 2, '0') ELSE chr(c) END
      END;
      i := i + 1;
    ELSE
      k := CASE WHEN c >= 240 THEN 4 WHEN c >= 224 THEN 3 ELSE 2 END;
      IF i + k > 64 THEN
        -- The cut splits this character: Go quotes its bytes one by one.
        WHILE i < 64 LOOP
          q := q || E'\\x' || to_hex(get_byte(b, i));
          i := i + 1;
        END LOOP;
      ELSE
        ch := convert_from(substring(b FROM i + 1 FOR k), 'UTF8');
        -- Latin-1 controls, no-break space and soft hyphen are not
        -- printable for Go either.
        q := q || CASE WHEN ascii(ch) BETWEEN 128 AND 160 OR ascii(ch) = 173
                       THEN E'\\u' || lpad(to_hex(ascii(ch)), 4, '0') ELSE ch END;
        i := i + k;
      END IF;
    END IF;
  END LOOP;
  q := '"' || q || CASE WHEN n > 64 THEN '..."' ELSE '"' END;

  IF n <> want_len THEN
    RAISE EXCEPTION 'invalid % %: length % bytes, want %', what, q, n, want_len_text
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  FOR i IN 0 .. n - 1 LOOP
    c := get_byte(b, i);
    IF c >= 128 OR strpos(chars, chr(c)) = 0 THEN
      -- The byte as Go's idtext.QuoteByte writes it.
      ch := CASE
        WHEN c >= 128 OR c < 32 OR c = 127 THEN
          CASE c WHEN 7 THEN E'\\a' WHEN 8 THEN E'\\b' WHEN 9 THEN E'\\t' WHEN 10 THEN E'\\n'
                 WHEN 11 THEN E'\\v' WHEN 12 THEN E'\\f' WHEN 13 THEN E'\\r'
                 ELSE E'\\x' || lpad(to_hex(c), 2, '0') END
        WHEN c = 39 THEN E'\\'''
        WHEN c = 92 THEN E'\\\\'
        ELSE chr(c) END;
      RAISE EXCEPTION 'invalid % %: invalid character ''%'' at position %, want %', what, q, ch, i, want_char
        USING ERRCODE = 'invalid_text_representation';
    END IF;
  END LOOP;
  IF kind = 'ulid' THEN
    RAISE EXCEPTION 'invalid ULID %: first character ''%'' is above ''7'', so the value overflows 128 bits', q, chr(get_byte(b, 0))
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  RAISE EXCEPTION 'pgid._parse_error: % is a valid %', q, what;
END
$$;

COMMENT ON FUNCTION pgid._parse_error(text, text) IS
  'Internal: raises SQLSTATE 22P02 explaining why the text parsers rejected s (kind ulid, hex or short), with Go''s quoting.';

GRANT EXECUTE ON FUNCTION pgid._parse_error(text, text) TO PUBLIC;

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

-- RESTRICT (the default): this fails while any table column or function still
-- uses a domain, instead of silently dropping user data with it.
DROP FUNCTION IF EXISTS pgid._parse_error(text, text);
DROP DOMAIN IF EXISTS pgid.objectid;
DROP DOMAIN IF EXISTS pgid.ulid;
DROP SCHEMA IF EXISTS pgid;
