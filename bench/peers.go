package bench

// The libraries this module measures; the benchmarks are in the _test files.
import (
	_ "github.com/gofrs/uuid/v5"
	_ "github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/pgtype"
	_ "github.com/oklog/ulid/v2"
	_ "github.com/pgid/pgid/ulidtype"
	_ "github.com/rs/xid"
	_ "github.com/segmentio/ksuid"
	_ "go.mongodb.org/mongo-driver/v2/bson"
)
