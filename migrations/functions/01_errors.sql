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
SET search_path = pg_catalog, pg_temp
SET standard_conforming_strings = on AS $$
DECLARE
  b constant bytea := convert_to(s, 'UTF8');
  n constant integer := octet_length(b);
  head text := left(s, 64); -- the characters within the first 64 bytes
  what text;
  want_len integer;
  want_len_text text;
  chars text;
  want_char text;
  q text;
  c integer;
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

  -- The input as Go's strconv.Quote writes its first 64 bytes: escapes for
  -- the ASCII controls, quote and backslash, \u for the Latin-1 controls,
  -- no-break space and soft hyphen (not printable for Go either), and \x
  -- for each byte of a character that the cut splits.
  WHILE octet_length(head) > 64 LOOP
    head := left(head, -1);
  END LOOP;
  SELECT string_agg(CASE
           WHEN u = 34 THEN '\"' WHEN u = 92 THEN '\\'
           WHEN u BETWEEN 7 AND 13 THEN '\' || substr('abtnvfr', u - 6, 1)
           WHEN u < 32 OR u = 127 THEN '\x' || lpad(to_hex(u), 2, '0')
           WHEN u BETWEEN 128 AND 160 OR u = 173 THEN '\u' || lpad(to_hex(u), 4, '0')
           ELSE chr(u) END, '' ORDER BY i)
    INTO q FROM unnest(regexp_split_to_array(head, '')) WITH ORDINALITY AS x(ch, i), ascii(ch) AS u;
  SELECT coalesce(q, '') || coalesce(string_agg('\x' || to_hex(get_byte(b, i)), '' ORDER BY i), '')
    INTO q FROM generate_series(octet_length(head), least(n, 64) - 1) AS i;
  q := '"' || q || CASE WHEN n > 64 THEN '..."' ELSE '"' END;

  IF n <> want_len THEN
    RAISE EXCEPTION 'invalid % %: length % bytes, want %', what, q, n, want_len_text
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  -- The first byte outside the alphabet, as Go's idtext.QuoteByte writes it.
  FOR i IN 0 .. n - 1 LOOP
    c := get_byte(b, i);
    CONTINUE WHEN c < 128 AND strpos(chars, chr(c)) > 0;
    RAISE EXCEPTION 'invalid % %: invalid character ''%'' at position %, want %', what, q, CASE
        WHEN c BETWEEN 7 AND 13 THEN '\' || substr('abtnvfr', c - 6, 1)
        WHEN c < 32 OR c >= 127 THEN '\x' || lpad(to_hex(c), 2, '0')
        WHEN c = 39 THEN '\''' WHEN c = 92 THEN '\\'
        ELSE chr(c) END, i, want_char
      USING ERRCODE = 'invalid_text_representation';
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
