module github.com/pgid/pgid/bench

go 1.25.0

replace github.com/pgid/pgid => ../

require (
	github.com/gofrs/uuid/v5 v5.5.1
	github.com/google/uuid v1.6.0
	github.com/jackc/pgx/v5 v5.12.0
	github.com/oklog/ulid/v2 v2.1.2
	github.com/pgid/pgid v0.0.0-00010101000000-000000000000
	github.com/rs/xid v1.6.0
	github.com/segmentio/ksuid v1.0.4
	go.mongodb.org/mongo-driver/v2 v2.9.3
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	golang.org/x/text v0.41.0 // indirect
)
