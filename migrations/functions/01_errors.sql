-- The errors of the text parsers: pgid._parse_error (ULID and ObjectId
-- text), pgid._typeid_error (TypeID text) and pgid._typeid_quote_byte,
-- which quotes the invalid byte for both. Each raises SQLSTATE 22P02 with
-- the message Go's ParseError of the same input gives; only the parsers'
-- error paths call them. The alphabets they name are generated from Go's
-- ulidtype.Alphabet and objectidtype.ShortAlphabet, the wording of what
-- they want from Go's internal/idtext (go generate ./migrations).
--
-- Every file in functions/ is applied again, all of them in one transaction
-- and in name order, whenever any of them changes: edit the definitions here
-- in place (CREATE OR REPLACE keeps what depends on them). A change that
-- CREATE OR REPLACE cannot make (another argument list or result type, a
-- dropped function) needs a versioned migration that drops the old
-- function first. See the package documentation.

SET LOCAL search_path = pg_catalog, pg_temp;

-- pgid._typeid_quote_byte: a byte as Go's idtext.QuoteByte writes it,
-- e.g. 'U', '\n', '\xff': the invalid character of every parse error.
CREATE OR REPLACE FUNCTION pgid._typeid_quote_byte(c integer) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN '''' || CASE
  WHEN c >= 128 OR c < 32 OR c = 127 THEN
    CASE c WHEN 7 THEN E'\\a' WHEN 8 THEN E'\\b' WHEN 9 THEN E'\\t' WHEN 10 THEN E'\\n'
           WHEN 11 THEN E'\\v' WHEN 12 THEN E'\\f' WHEN 13 THEN E'\\r'
           ELSE E'\\x' || lpad(to_hex(c), 2, '0') END
  WHEN c = 39 THEN E'\\'''
  WHEN c = 92 THEN E'\\\\'
  ELSE chr(c) END || '''';

COMMENT ON FUNCTION pgid._typeid_quote_byte(integer) IS
  'Internal: a byte quoted as Go quotes it in parse errors, for pgid._parse_error and pgid._typeid_error.';

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
  -- BEGIN GENERATED parse_error_wording (go generate ./migrations)
  msg_char constant text := 'invalid character %s at position %s, want a %s';
  msg_overflow constant text := 'first character %s is above ''7'', so the value overflows 128 bits';
  -- END GENERATED parse_error_wording
BEGIN
  CASE kind
  -- BEGIN GENERATED parse_error_alphabets (go generate ./migrations)
  WHEN 'ulid' THEN
    what := 'ULID'; want_len := 26; want_len_text := '26 characters';
    chars := '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';
    want_char := 'Crockford base32 character (0-9, A-Z without I, L, O, U)';
  WHEN 'hex' THEN
    what := 'ObjectId'; want_len := 24; want_len_text := '24 hex digits';
    chars := '0123456789abcdefABCDEF';
    want_char := 'hex digit';
  WHEN 'short' THEN
    what := 'ObjectId short form'; want_len := 16; want_len_text := '16 characters';
    chars := '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_';
    want_char := 'short-form character (0-9, a-z, A-Z, ''-'' or ''_'')';
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
  -- The first byte outside the alphabet.
  FOR i IN 0 .. n - 1 LOOP
    c := get_byte(b, i);
    CONTINUE WHEN c < 128 AND strpos(chars, chr(c)) > 0;
    RAISE EXCEPTION 'invalid % %: %', what, q,
      format(msg_char, pgid._typeid_quote_byte(c::pg_catalog.int4), i, want_char)
      USING ERRCODE = 'invalid_text_representation';
  END LOOP;
  IF kind = 'ulid' THEN
    RAISE EXCEPTION 'invalid ULID %: %', q,
      format(msg_overflow, pgid._typeid_quote_byte(get_byte(b, 0)::pg_catalog.int4))
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  RAISE EXCEPTION 'pgid._parse_error: % is a valid %', q, what;
END
$$;

COMMENT ON FUNCTION pgid._parse_error(text, text) IS
  'Internal: raises SQLSTATE 22P02 explaining why the text parsers rejected s (kind ulid, hex or short), with Go''s '
  'quoting.';

-- pgid._typeid_error raises the error for typeid_text's prefix or
-- typeid_uuid's text s with expected prefix: SQLSTATE 22P02, with the
-- message of Go's typeid.Parse for the same input, checked in the order Go
-- checks: the expected prefix, the input's prefix and separator, whether it
-- is the expected one, then the suffix's length, characters and overflow.
-- The input is quoted as JSON quotes it (cut to 64 characters), which is how
-- Go's strconv.Quote writes printable ASCII; so is an invalid expected prefix,
-- so that a huge one does not make a huge message. The other prefixes it
-- quotes have passed the checks: at most 63 bytes. Only the error paths call
-- it.
CREATE OR REPLACE FUNCTION pgid._typeid_error(s text, prefix text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  b constant bytea := convert_to(s, 'UTF8');
  n constant integer := octet_length(b);
  head constant text :=
    'typeid: parse ' || to_json(CASE WHEN n > 64 THEN left(s, 64) || '...' ELSE s END)::text || ': ';
  sep integer := -1;
  inp text := '';
  suf bytea := b;
  off integer := 0;
  p bytea;
  what text;
  c integer;
  msg text;
  -- BEGIN GENERATED typeid_suffix_chars (go generate ./migrations)
  suffix_chars constant text := '0123456789abcdefghjkmnpqrstvwxyz';
  -- END GENERATED typeid_suffix_chars
  -- BEGIN GENERATED typeid_wording (go generate ./migrations)
  suffix_want constant text := 'lower-case base32 character (0-9, a-z without i, l, o, u)';
  msg_char constant text := 'invalid character %s at position %s, want a %s';
  msg_separator constant text :=
    'separator ''_'' at position 0 without a prefix (an empty prefix has no separator)';
  msg_too_long constant text := '%s has %s bytes, want at most 63';
  msg_starts constant text := '%s starts with ''_'' at position %s, want a letter a-z';
  msg_prefix_char constant text := 'invalid character %s at position %s in %s, want a-z or ''_''';
  msg_ends constant text := '%s ends with ''_'' at position %s, want a letter a-z';
  msg_no_prefix constant text := 'no prefix, want %s';
  msg_unwanted constant text := 'prefix %s, want none (the type''s prefix is empty)';
  msg_wrong_prefix constant text := 'prefix %s, want %s';
  msg_suffix_length constant text := 'suffix of %s bytes, want 26';
  msg_overflow constant text :=
    'first suffix character %s at position %s is above ''7'', so the value overflows 128 bits';
  -- END GENERATED typeid_wording
BEGIN
  FOR k IN 1 .. 2 LOOP
    IF k = 1 THEN
      CONTINUE WHEN prefix = '';
      p := convert_to(prefix, 'UTF8');
      what := 'the type''s prefix '
              || to_json(CASE WHEN octet_length(prefix) > 64 THEN left(prefix, 64) || '...' ELSE prefix END)::text;
    ELSE
      FOR j IN REVERSE n - 1 .. 0 LOOP
        IF get_byte(b, j) = 95 THEN
          sep := j;
          EXIT;
        END IF;
      END LOOP;
      EXIT WHEN sep < 0;
      IF sep = 0 THEN
        RAISE EXCEPTION '%', head || msg_separator USING ERRCODE = 'invalid_text_representation';
      END IF;
      p := substring(b FROM 1 FOR sep);
      inp := convert_from(p, 'UTF8');
      suf := substring(b FROM sep + 2);
      off := sep + 1;
      what := 'the prefix';
    END IF;
    msg := NULL;
    IF octet_length(p) > 63 THEN
      msg := format(msg_too_long, what, octet_length(p));
    ELSIF get_byte(p, 0) = 95 THEN
      msg := format(msg_starts, what, 0);
    ELSE
      FOR i IN 0 .. octet_length(p) - 1 LOOP
        c := get_byte(p, i);
        IF (c < 97 OR c > 122) AND c <> 95 THEN
          msg := format(msg_prefix_char, pgid._typeid_quote_byte(c::pg_catalog.int4), i, what);
          EXIT;
        END IF;
      END LOOP;
      IF msg IS NULL AND get_byte(p, octet_length(p) - 1) = 95 THEN
        msg := format(msg_ends, what, octet_length(p) - 1);
      END IF;
    END IF;
    IF msg IS NOT NULL THEN
      RAISE EXCEPTION '%', head || msg USING ERRCODE = 'invalid_text_representation';
    END IF;
  END LOOP;

  IF inp <> prefix THEN
    RAISE EXCEPTION '%', head || CASE
      WHEN inp = '' THEN format(msg_no_prefix, to_json(prefix)::text)
      WHEN prefix = '' THEN format(msg_unwanted, to_json(inp)::text)
      ELSE format(msg_wrong_prefix, to_json(inp)::text, to_json(prefix)::text) END
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF octet_length(suf) <> 26 THEN
    RAISE EXCEPTION '%', head || format(msg_suffix_length, octet_length(suf))
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  FOR i IN 0 .. 25 LOOP
    c := get_byte(suf, i);
    IF c >= 128 OR strpos(suffix_chars, chr(c)) = 0 THEN
      RAISE EXCEPTION '%', head || format(msg_char, pgid._typeid_quote_byte(c::pg_catalog.int4), off + i, suffix_want)
        USING ERRCODE = 'invalid_text_representation';
    END IF;
  END LOOP;
  RAISE EXCEPTION '%', head || format(msg_overflow, pgid._typeid_quote_byte(get_byte(suf, 0)::pg_catalog.int4), off)
    USING ERRCODE = 'invalid_text_representation';
END
$$;

COMMENT ON FUNCTION pgid._typeid_error(text, text) IS
  'Internal: raises SQLSTATE 22P02 for TypeID text that pgid.typeid_uuid or a prefix that pgid.typeid_text '
  'rejected, with the message of Go typeid.Parse.';


---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid._typeid_error(text, text);
DROP FUNCTION IF EXISTS pgid._parse_error(text, text);
DROP FUNCTION IF EXISTS pgid._typeid_quote_byte(integer);
