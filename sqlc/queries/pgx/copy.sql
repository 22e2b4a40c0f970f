-- :copyfrom exists for pgx/v5 only; sqlc refuses it for database/sql.

-- name: CopyLinks :copyfrom
INSERT INTO links (id, url) VALUES (@id, @url);

-- name: CopyEvents :copyfrom
INSERT INTO events (id, link_id, kind, payload) VALUES (@id, @link_id, @kind, @payload);
