-- TypeID text for uuid keys: pgid.typeid_text and pgid.typeid_uuid.
--
-- A TypeID (github.com/jetify-com/typeid, specification v0.3.0) is a type
-- prefix, '_' and the 26-character base32 text of a UUID in lower case:
-- user_01h455vb4pex5vsknk084sn02q is the uuid
-- 01890a5d-ac96-774b-bcce-b302099a8057. The suffix is pgid's ULID text
-- (pgid.ulid_to_text, functions/02_ulid.sql) in lower case, so a pgid.ulid
-- or uuid column holds TypeIDs in 16 bytes and these functions write and
-- read their text, as Go's typeid.ID[P] String and Parse do.
--
-- The prefix: empty, or 1 to 63 characters of a-z and _ that start and end
-- with a letter. Parsing is strict: the expected prefix exactly, the
-- separator only with a non-empty prefix, a lower-case suffix whose first
-- character is at most '7'. Bad text raises SQLSTATE 22P02 with the message
-- Go's typeid.ParseError gives, naming the problem and its 0-based byte
-- position (pgid._typeid_error, functions/01_errors.sql).
--
-- typeid_text has an SQL-standard body (RETURN ...), bound when this file
-- runs under the search_path set below; typeid_uuid is plpgsql and
-- qualifies every name and operator. Regular expressions and lower() run
-- under the "C" collation, so the database's collation cannot change them.
-- The suffix pattern is generated from Go's ulidtype.Alphabet (go generate
-- ./migrations).

SET LOCAL search_path = pg_catalog, pg_temp;

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
    -- BEGIN GENERATED typeid_suffix_pattern (go generate ./migrations)
    IF (suffix COLLATE pg_catalog."C") OPERATOR(pg_catalog.~) '^[0-7][0-9a-hjkmnp-tv-z]{25}$' THEN
    -- END GENERATED typeid_suffix_pattern
      RETURN pgid.ulid_from_text(suffix::pg_catalog.text);
    END IF;
  END IF;
  RETURN pgid._typeid_error(typeid::pg_catalog.text, prefix::pg_catalog.text)::pg_catalog.uuid;
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
