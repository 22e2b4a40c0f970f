-- Version 2: the ULID functions.
--
-- A versioned migration: released, never edited again (its checksum is
-- pinned in migrations_test.go and recorded in each database it runs in).
-- It holds no statement: the functions this version introduced are defined
-- in functions/02_ulid.sql, which the runner applies again whenever it changes. The
-- version number stays, so that databases migrated by tern (version 1 to 6
-- in public.pgid_schema_version) keep their meaning.

SET LOCAL search_path = pg_catalog, pg_temp;

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;
