-- pgid._parse_error, the error helper of the text parsers.
--
-- Every file in functions/ is applied again, all of them in one transaction
-- and in name order, whenever any of them changes: edit the definitions here
-- in place (CREATE OR REPLACE keeps what depends on them). A change that
-- CREATE OR REPLACE cannot make (another argument list or result type, a
-- dropped function) needs a versioned migration that drops the old
-- function first. See the package documentation.

SET LOCAL search_path = pg_catalog, pg_temp;

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
  -- BEGIN GENERATED parse_error_alphabets (go generate ./migrations)
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
  -- END GENERATED parse_error_alphabets
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
    RAISE EXCEPTION 'invalid ULID %: first character ''%'' is above ''7'', so the value overflows 128 bits',
      q, chr(get_byte(b, 0))
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  RAISE EXCEPTION 'pgid._parse_error: % is a valid %', q, what;
END
$$;

COMMENT ON FUNCTION pgid._parse_error(text, text) IS
  'Internal: raises SQLSTATE 22P02 explaining why the text parsers rejected s (kind ulid, hex or short), with Go''s '
  'quoting.';


---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid._parse_error(text, text);
