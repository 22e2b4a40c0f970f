-- name: CreateLink :one
-- The ID comes from Go (objectidtype.New()).
INSERT INTO links (id, url) VALUES (@id, @url)
RETURNING *;

-- name: CreateLinkDefaultID :one
-- The ID comes from DEFAULT pgid.gen_objectid().
INSERT INTO links (url) VALUES (@url)
RETURNING *;

-- name: GetLink :one
-- A public link's code is decoded in Go (opaque.Codec.OpenObjectID), so the
-- key never reaches SQL; this query gets the ID.
SELECT * FROM links WHERE id = @id;

-- name: GetLinksByIDs :many
-- The cast makes @ids an array; without it sqlc makes it a single ID.
-- database/sql: sqlc wraps ids in pq.Array, which fails for ObjectIDs in
-- every driver; see GetLinksByRawIDs in queries/sql.
SELECT * FROM links WHERE id = ANY(@ids::pgid.objectid[]) ORDER BY id;

-- name: ListLinksInWindow :many
-- Bounds from objectidtype.Range(from, to): [lo, hi).
SELECT * FROM links WHERE id >= @lo AND id < @hi ORDER BY id;

-- name: ListLinksCreatedBetween :many
-- The same with the bounds computed in SQL from [from, to).
SELECT * FROM links
WHERE id >= pgid.objectid_min_at(@from_time) AND id < pgid.objectid_min_at(@to_time)
ORDER BY id;

-- name: IncrementHits :one
UPDATE links SET hits = hits + 1 WHERE id = @id
RETURNING hits;

-- name: SetLastEvent :execrows
-- A NULL event_id (NullULID{}) clears the reference.
UPDATE links SET last_event_id = sqlc.narg(event_id) WHERE id = @id;
