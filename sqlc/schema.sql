-- The example application behind the generated packages: a URL shortener.
-- It runs after the pgid migrations (sqlc.yaml reads ../migrations first).

-- links: the public code of a link is its ObjectId's keyed, opaque
-- 16-character code (package opaque), made and read in Go: consecutive links
-- get unrelated codes and a code does not give away when it was made.
CREATE TABLE links (
  id            pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(),
  url           text NOT NULL,
  hits          bigint NOT NULL DEFAULT 0,
  last_event_id pgid.ulid
);

-- events: append-only; the ULID key orders them by time.
CREATE TABLE events (
  id      pgid.ulid PRIMARY KEY,
  link_id pgid.objectid REFERENCES links (id),
  kind    text NOT NULL,
  payload jsonb
);

CREATE INDEX events_link_id ON events (link_id);

-- users: keyed by a TypeID stored as a plain uuid, 16 bytes, which APIs
-- write as user_01h455vb4pex5vsknk084sn02q. sqlc.yaml types the column as
-- ids.UserID (typeid.ID[ids.UserPrefix]) with a column override, and
-- pgid.typeid_text('user', id) writes the same text in SQL.
CREATE TABLE users (
  id   uuid PRIMARY KEY,
  name text NOT NULL
);
