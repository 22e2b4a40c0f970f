-- name: CreateUser :one
-- The ID comes from Go (typeid.New[ids.UserPrefix]()); sqlc.yaml types
-- users.id as ids.UserID with a column override.
INSERT INTO users (id, name) VALUES (@id, @name)
RETURNING *;

-- name: GetUser :one
SELECT * FROM users WHERE id = @id;

-- name: GetUserByTypeID :one
-- The TypeID text of an API request, parsed in SQL (pgid.typeid_uuid raises
-- 22P02 for another prefix or bad text); the result's id is the typed ID.
SELECT * FROM users WHERE id = pgid.typeid_uuid(@typeid_text, 'user');
