-- name: CreateEvent :one
INSERT INTO events (id, link_id, kind, payload)
VALUES (@id, @link_id, @kind, @payload)
RETURNING *;

-- name: CreateEventDefaultID :one
-- A function result has the function's type (uuid): the cast makes it a
-- pgid.ulid, so the override applies where it is selected.
INSERT INTO events (id, link_id, kind)
VALUES (pgid.gen_ulid()::pgid.ulid, @link_id, @kind)
RETURNING *;

-- name: NewULID :one
SELECT pgid.gen_ulid()::pgid.ulid AS id;

-- name: GetEvent :one
SELECT * FROM events WHERE id = @id;

-- name: GetEventsByIDs :many
SELECT * FROM events WHERE id = ANY(@ids::pgid.ulid[]) ORDER BY id;

-- name: ListEventsInWindow :many
-- Bounds from ulidtype.Range(from, to): [lo, hi).
SELECT * FROM events WHERE id >= @lo AND id < @hi ORDER BY id;

-- name: ListEventsCreatedBetween :many
-- The same with the bounds computed in SQL from [from, to).
SELECT * FROM events
WHERE id >= pgid.ulid_min_at(@from_time) AND id < pgid.ulid_min_at(@to_time)
ORDER BY id;

-- name: CountEventsInWindow :one
SELECT count(*) FROM events WHERE id >= @lo AND id < @hi;

-- name: CountEventsPerLinkBetween :many
SELECT link_id, count(*) AS n FROM events
WHERE id >= pgid.ulid_min_at(@from_time) AND id < pgid.ulid_min_at(@to_time)
GROUP BY link_id
ORDER BY link_id NULLS FIRST;

-- name: ListEventsBefore :many
-- Keyset pagination, newest first: the first page starts at the largest
-- ULID, each next page at the last ID of the page before.
SELECT * FROM events WHERE id < @cursor ORDER BY id DESC LIMIT @n;

-- name: ListEventsAfter :many
-- Keyset pagination, oldest first: the first page starts at the zero ULID.
SELECT * FROM events WHERE id > @cursor ORDER BY id LIMIT @n;

-- name: EventIDsPerLink :many
-- array_agg of a pgid.ulid column returns pgid._ulid; the cast tells sqlc.
SELECT link_id, array_agg(id ORDER BY id)::pgid.ulid[] AS event_ids
FROM events
WHERE link_id IS NOT NULL
GROUP BY link_id
ORDER BY link_id;
