-- TypeID text for uuid keys: pgid.typeid_text and pgid.typeid_uuid.
--
-- A TypeID (github.com/jetify-com/typeid, specification v0.3.0) is a type
-- prefix, '_' and the 26-character base32 text of a UUID in lower case:
-- user_01h455vb4pex5vsknk084sn02q is the uuid
-- 01890a5d-ac96-774b-bcce-b302099a8057. The suffix is pgid's ULID text
-- (pgid.ulid_to_text) in lower case, so a pgid.ulid or uuid column holds
-- TypeIDs in 16 bytes and these functions write and read their text, as Go's
-- typeid.ID[P] String and Parse do.
--
-- The prefix: empty, or 1 to 63 characters of a-z and _ that start and end
-- with a letter. Parsing is strict: the expected prefix exactly, the
-- separator only with a non-empty prefix, a lower-case suffix whose first
-- character is at most '7'. Bad text raises SQLSTATE 22P02 with the message
-- Go's typeid.ParseError gives, naming the problem and its 0-based byte
-- position (pgid._typeid_error).
--
-- typeid_text has an SQL-standard body (RETURN ...), bound when this
-- file runs under the search_path set below, like 02_ulid.sql's;
-- typeid_uuid is plpgsql and qualifies every name and operator; the error
-- helper pins its search_path. Regular expressions and lower() run under
-- the "C" collation, so the database's collation cannot change them.
-- Idempotent: CREATE OR REPLACE throughout.

SET LOCAL search_path = pg_catalog, pg_temp;

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
        RAISE EXCEPTION '%separator ''_'' at position 0 without a prefix (an empty prefix has no separator)', head
          USING ERRCODE = 'invalid_text_representation';
      END IF;
      p := substring(b FROM 1 FOR sep);
      inp := convert_from(p, 'UTF8');
      suf := substring(b FROM sep + 2);
      off := sep + 1;
      what := 'the prefix';
    END IF;
    msg := NULL;
    IF octet_length(p) > 63 THEN
      msg := what || ' has ' || octet_length(p) || ' bytes, want at most 63';
    ELSIF get_byte(p, 0) = 95 THEN
      msg := what || ' starts with ''_'' at position 0, want a letter a-z';
    ELSE
      FOR i IN 0 .. octet_length(p) - 1 LOOP
        c := get_byte(p, i);
        IF (c < 97 OR c > 122) AND c <> 95 THEN
          msg := 'invalid character ' || pgid._typeid_quote_byte(c) || ' at position ' || i
                 || ' in ' || what || ', want a-z or ''_''';
          EXIT;
        END IF;
      END LOOP;
      IF msg IS NULL AND get_byte(p, octet_length(p) - 1) = 95 THEN
        msg := what || ' ends with ''_'' at position ' || octet_length(p) - 1 || ', want a letter a-z';
      END IF;
    END IF;
    IF msg IS NOT NULL THEN
      RAISE EXCEPTION '%', head || msg USING ERRCODE = 'invalid_text_representation';
    END IF;
  END LOOP;

  IF inp <> prefix THEN
    RAISE EXCEPTION '%', head || CASE
      WHEN inp = '' THEN 'no prefix, want ' || to_json(prefix)::text
      WHEN prefix = '' THEN 'prefix ' || to_json(inp)::text || ', want none (the type''s prefix is empty)'
      ELSE 'prefix ' || to_json(inp)::text || ', want ' || to_json(prefix)::text END
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  IF octet_length(suf) <> 26 THEN
    RAISE EXCEPTION '%suffix of % bytes, want 26', head, octet_length(suf)
      USING ERRCODE = 'invalid_text_representation';
  END IF;
  FOR i IN 0 .. 25 LOOP
    c := get_byte(suf, i);
    IF c >= 128 OR strpos('0123456789abcdefghjkmnpqrstvwxyz', chr(c)) = 0 THEN
      RAISE EXCEPTION
        '%invalid character % at position %, want a lower-case base32 character (0-9, a-z without i, l, o, u)',
        head, pgid._typeid_quote_byte(c), off + i USING ERRCODE = 'invalid_text_representation';
    END IF;
  END LOOP;
  RAISE EXCEPTION '%first suffix character % at position % is above ''7'', so the value overflows 128 bits',
    head, pgid._typeid_quote_byte(get_byte(suf, 0)), off USING ERRCODE = 'invalid_text_representation';
END
$$;

COMMENT ON FUNCTION pgid._typeid_error(text, text) IS
  'Internal: raises SQLSTATE 22P02 for TypeID text that pgid.typeid_uuid or a prefix that pgid.typeid_text '
  'rejected, with the message of Go typeid.Parse.';

-- pgid._typeid_quote_byte: a byte as Go's idtext.QuoteByte writes it,
-- e.g. 'U', '\n', '\xff'.
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
  'Internal: a byte quoted as Go quotes it in parse errors, for pgid._typeid_error.';

-- pgid.typeid_text: the TypeID text of id with the given prefix; the 26
-- lower-case characters alone if the prefix is empty. A prefix that breaks
-- the rules raises 22P02. Agrees with Go typeid.ID[P].String().
CREATE OR REPLACE FUNCTION pgid.typeid_text(prefix text, id uuid) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE
  WHEN prefix = '' THEN lower(pgid.ulid_to_text(id) COLLATE "C")
  WHEN (prefix COLLATE "C") ~ '^[a-z]([a-z_]{0,61}[a-z])?$'
    THEN prefix || '_' || lower(pgid.ulid_to_text(id) COLLATE "C")
  ELSE pgid._typeid_error(prefix, prefix)
END;

COMMENT ON FUNCTION pgid.typeid_text(text, uuid) IS
  'TypeID text (spec v0.3.0) of a uuid: prefix, _ and 26 lower-case base32 characters, e.g. '
  'typeid_text(''user'', id) = ''user_01h455vb4pex5vsknk084sn02q''. An invalid prefix raises 22P02. '
  'Agrees with Go typeid.ID[P].String().';

-- pgid.typeid_uuid: parse TypeID text whose prefix must be the given one,
-- strictly, into its uuid. Any UUID version is accepted, as the
-- specification allows. plpgsql parses its body when first called, under
-- the caller's search_path: every name is schema-qualified and every
-- operator written OPERATOR(pg_catalog.x).
CREATE OR REPLACE FUNCTION pgid.typeid_uuid(typeid text, prefix text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  suffix pg_catalog.text;
BEGIN
  IF (prefix COLLATE pg_catalog."C") OPERATOR(pg_catalog.~) '^([a-z]([a-z_]{0,61}[a-z])?)?$' THEN
    IF prefix OPERATOR(pg_catalog.=) '' THEN
      suffix := typeid;
    ELSIF pg_catalog.left(typeid, pg_catalog.length(prefix) OPERATOR(pg_catalog.+) 1)
          OPERATOR(pg_catalog.=) (prefix OPERATOR(pg_catalog.||) '_') THEN
      suffix := pg_catalog.substr(typeid, pg_catalog.length(prefix) OPERATOR(pg_catalog.+) 2);
    END IF;
    IF (suffix COLLATE pg_catalog."C") OPERATOR(pg_catalog.~) '^[0-7][0-9a-hjkmnp-tv-z]{25}$' THEN
      RETURN pgid.ulid_from_text(suffix);
    END IF;
  END IF;
  RETURN pgid._typeid_error(typeid, prefix)::pg_catalog.uuid;
END
$$;

COMMENT ON FUNCTION pgid.typeid_uuid(text, text) IS
  'Parses TypeID text (spec v0.3.0) with the expected prefix into its uuid, strictly: another prefix, a bad '
  'prefix, a suffix not of 26 lower-case base32 characters or one above 7zzzzzzzzzzzzzzzzzzzzzzzzz raise 22P02 '
  'naming the problem and its byte position. Agrees with Go typeid.Parse.';

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;

DROP FUNCTION IF EXISTS pgid.typeid_uuid(text, text);
DROP FUNCTION IF EXISTS pgid.typeid_text(text, uuid);
DROP FUNCTION IF EXISTS pgid._typeid_quote_byte(integer);
DROP FUNCTION IF EXISTS pgid._typeid_error(text, text);
