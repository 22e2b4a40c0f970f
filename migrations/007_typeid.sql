-- Placeholder for issue 21's 007_typeid.sql (reserved for it), so that
-- 008_tail.sql applies on this branch: the runner refuses gaps in the
-- numbering. At merge, take issue 21's file instead of this one.

SET LOCAL search_path = pg_catalog, pg_temp;

---- create above / drop below ----

SET LOCAL search_path = pg_catalog, pg_temp;
