-- database/sql only. sqlc wraps array parameters in pq.Array, and
-- pq.Array([]objectidtype.ObjectID) writes each ID's raw bytes into the
-- array literal, which fails in every driver (GetLinksByIDs). A bytea[]
-- parameter becomes [][]byte, which pq.Array hex-encodes: pass ids[i][:].

-- name: GetLinksByRawIDs :many
SELECT * FROM links WHERE id = ANY(@ids::bytea[]) ORDER BY id;
