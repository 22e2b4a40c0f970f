package bench

// The peers measured in this module's benchmarks.
import (
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/pgtype"
	_ "github.com/oklog/ulid/v2"
	_ "go.mongodb.org/mongo-driver/v2/bson"
)
